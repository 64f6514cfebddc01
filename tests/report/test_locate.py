"""Where ``check`` finds a store's subject files: under the campaign root the store records, not the caller's
folder; runs it cannot judge again are "not verified" (a failure unless allowed), changed files "stale"."""

from __future__ import annotations

import io
import shutil
import sqlite3

import handstore
import pytest
from clirun import ROOT, run
from handstore import BOARD_A

from harness.puzzle.formats import write_instance
from harness.report.gate import CheckOptions, run_check

SMALL = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"


@pytest.fixture
def play_store(tmp_path, monkeypatch, capsys):
    """A play campaign run in ``proj`` (its board ``boards/...``, relative) storing into ``out/r``; the test is
    left in ``elsewhere``, a folder the board is not under."""
    proj, elsewhere = tmp_path / "proj", tmp_path / "elsewhere"
    (proj / "boards").mkdir(parents=True)
    elsewhere.mkdir()
    shutil.copy(SMALL, proj / "boards" / SMALL.name)
    (proj / "play.toml").write_text(f'name = "p"\ninstances = ["boards"]\ntask = "play"\ngames = 3\nseeds = [3]\n'
                                    f'output = "{tmp_path / "out" / "r"}"\n[[pairs]]\nstrategy = "random"\n')
    monkeypatch.chdir(proj)
    code, _, err = run(capsys, "run", "play.toml")
    assert code == 0, err
    monkeypatch.chdir(elsewhere)
    return proj, tmp_path / "out" / "r"


def check(path, **opts) -> tuple[int, str]:
    out = io.StringIO()
    return run_check(path, CheckOptions(**opts), out), out.getvalue()


def _forget_root(store):
    with sqlite3.connect(store / "results.sqlite") as db:  # as a store made before the root was recorded
        assert db.execute("delete from campaign_meta where key = 'campaign_root'").rowcount == 1


def test_a_play_store_checked_from_another_folder_finds_its_boards_under_the_recorded_root(play_store, capsys):
    proj, store = play_store
    with sqlite3.connect(store / "results.sqlite") as db:
        assert db.execute("select value from campaign_meta where key = 'campaign_root'").fetchone() == (str(proj),)
        assert db.execute("select distinct instance_path from runs").fetchall() == [(f"boards/{SMALL.name}",)]
    code, out, _ = run(capsys, "check", store)
    assert code == 0, out
    assert "verdicts: 3 games replayed in 3 runs\n" in out
    assert f"subject files: 3 runs' files relative to {proj} (the campaign root the store records)" in out


def test_runs_whose_file_is_nowhere_are_not_verified_and_never_pass_as_checked(play_store, capsys):
    """The finding: '0 games replayed in 0 runs; 3 runs not judged again ... check: passed'."""
    proj, store = play_store
    _forget_root(store)
    code, out, _ = run(capsys, "check", store)
    assert code == 1, out
    assert f"not verified: 3 runs, their subject file not found (boards/{SMALL.name})" in out
    assert out.rstrip().endswith("check: FAILED: 3 runs not verified; nothing was judged again"), out
    code, out, _ = run(capsys, "check", store, "--allow-unverified")  # allowed, but nothing was judged at all
    assert code == 1 and "allowed by --allow-unverified" in out
    assert out.rstrip().endswith("check: FAILED: nothing was judged again"), out


def test_an_old_store_falls_back_to_the_working_directory_and_says_so(play_store, capsys, monkeypatch):
    proj, store = play_store
    _forget_root(store)
    monkeypatch.chdir(proj)
    code, out, _ = run(capsys, "check", store)
    assert code == 0, out
    assert (f"subject files: 3 runs' files relative to {proj} (the working directory; the store records no "
            "campaign root)") in out


def test_a_moved_campaign_falls_back_to_the_store_s_folder_and_its_parents(play_store, capsys, tmp_path):
    proj, store = play_store
    moved = tmp_path / "moved"
    shutil.move(proj, moved)  # the recorded root is gone; the board now sits above the store
    shutil.move(store.parent, moved / "out")
    code, out, _ = run(capsys, "check", moved / "out" / "r")
    assert code == 0, out
    assert f"relative to {moved} (a parent of the store's folder; the recorded campaign root {proj} is not on " \
           "this machine)" in out


def test_some_runs_unverified_pass_only_when_allowed_and_the_verdict_says_so(tmp_path):
    runs = [handstore.run(f"i{k}", p, "sat", 1.0, boards=[BOARD_A]) for k in (1, 2) for p in ("sat/cell", "mip/cell")]
    store = handstore.make_store(tmp_path / "r", runs, files=True)
    (store / "inst" / "i2.toml").unlink()
    code, text = check(store)
    assert code == 1 and "not verified: 2 runs, their subject file not found (inst/i2.toml)" in text
    assert text.rstrip().endswith("check: FAILED: 2 runs not verified"), text
    code, text = check(store, allow_unverified=True)
    assert code == 0 and "not verified: 2 runs" in text and "; allowed by --allow-unverified" in text
    assert text.rstrip().endswith("check: passed (4 runs; 2 not verified, allowed by --allow-unverified)"), text


def test_a_stored_hash_the_file_no_longer_has_is_stale_and_fails(tmp_path):
    runs = [handstore.run("i1", p, "sat", 1.0, boards=[BOARD_A]) for p in ("sat/cell", "mip/cell")]
    store = handstore.make_store(tmp_path / "r", runs, files=True)
    assert check(store)[0] == 0
    write_instance(handstore.puzzle(3), store / "inst" / "i1.toml", "native")  # other hints: another puzzle
    for allow in (False, True):
        code, text = check(store, allow_unverified=allow)
        assert code == 1 and "stale: 2 runs not judged again, their instance file changed since they ran: " in text
        assert "inst/i1.toml: content hash now " in text and "check: FAILED: 2 runs on a changed instance file" in text


@pytest.mark.parametrize("name", ["certify-solvers", "counting-shapes"])
def test_committed_stores_pass_from_the_repository_root_and_from_another_folder(name, capsys, monkeypatch, tmp_path):
    store = ROOT / "reports" / name
    outs = []
    for where in (ROOT, tmp_path):
        monkeypatch.chdir(where)
        code, out, err = run(capsys, "check", store)
        assert code == 0, (where, out, err)
        outs.append(out)
    assert outs[0] == outs[1].replace(f"{ROOT}/", "") and "not verified" not in outs[0]  # paths shown from the cwd
    assert f"relative to {ROOT} (a parent of the store's folder; the store records no campaign root)" in outs[0]
