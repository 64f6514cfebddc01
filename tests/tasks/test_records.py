"""What a record says is true: each plugin names its own solver and version, a game's shots are in ``shots``, a
counter's refusal is not a crash; a store that says otherwise is flagged by ``check`` and shown right by ``report``."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

from clirun import ROOT, run
from damage import as_version_2
from harness.store import ResultsStore
from harness.store.sqlite import SCHEMA_VERSION

SMOKE = ROOT / "instances" / "smoke" / "tiny_4x4.toml"
TINY_BOARD = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"
HEX = ROOT / "instances" / "deployments" / "tiny" / "hex_r2.toml"


def _config(tmp_path: Path, body: str) -> Path:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'output = "{tmp_path / "out"}"\n' + textwrap.dedent(body))
    return cfg


def _rows(tmp_path: Path, columns: str) -> list[tuple]:
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        return db.execute(f"select {columns} from runs order by pair").fetchall()


@pytest.fixture(scope="module")
def mip_store(tmp_path_factory):
    """Both MIP engines on one puzzle: the records' solver_version names each engine."""
    import contextlib
    import io

    from harness.cli import main

    tmp = tmp_path_factory.mktemp("mip")
    cfg = _config(tmp, f"""\
        name = "engines"
        instances = ["{SMOKE}"]
        [[pairs]]
        backend = "mip"
        [[pairs]]
        backend = "mip"
        options = {{ engine = "scip" }}
        """)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["run", str(cfg), "--progress", "plain"]) == 0
    return tmp


def test_each_mip_engine_names_itself(mip_store):
    rows = dict(_rows(mip_store, "pair, solver_version"))
    versions = {p: json.loads(v) for p, v in _rows(mip_store, "pair, versions")}
    assert rows["mip/placement"] == f"highs {versions['mip/placement']['highs']}"
    assert rows["mip[engine=scip]/placement"] == f"scip {versions['mip[engine=scip]/placement']['scip']}"


def test_check_flags_a_mislabelled_solver_and_the_report_shows_the_true_one(capsys, mip_store, tmp_path):
    import shutil

    shutil.copytree(mip_store / "out", tmp_path / "out")
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:  # as the stores made before the fix say
        db.execute("update runs set solver_version = 'highs 1.16.0' where pair like 'mip[engine=scip]%'")
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0, out
    assert "metadata: 1 runs of mip[engine=scip]/placement record solver 'highs 1.16.0' but ran 'scip " in out
    assert run(capsys, "check", mip_store / "out")[1].count("metadata:") == 0  # a true store: nothing to say
    code, _, err = run(capsys, "report", tmp_path / "out")
    assert code == 0, err
    page = (tmp_path / "out" / "report" / "index.html").read_text()
    assert "mip: highs" in page and ", scip " in page and "record solver" in page


def test_counters_and_strategies_name_their_code(capsys, tmp_path):
    cfg = _config(tmp_path, f"""\
        name = "names"
        instances = ["{TINY_BOARD}"]
        task = "deployments"
        pairs = [{{ counter = "dp" }}, {{ counter = "cpsat", options = {{ split = 2 }} }}, {{ counter = "brute" }}]
        """)
    assert run(capsys, "run", cfg, "--progress", "plain")[0] == 0
    from harness import __version__

    rows = dict(_rows(tmp_path, "backend, solver_version"))
    # what docs/reference/records.md says the count task's columns hold: every option, defaults filled in
    assert set(_rows(tmp_path, "pair, options, boards, verdicts, exhausted = complete, formulation, task, "
                               "question")) == {
        ("dp/deployments", '{"split":1}', "[]", "[]", 1, "deployments", "count", "deployments"),
        ("cpsat[split=2]/deployments", '{"split":2}', "[]", "[]", 1, "deployments", "count", "deployments"),
        ("brute/deployments", "{}", "[]", "[]", 1, "deployments", "count", "deployments")}
    split = json.loads(_rows(tmp_path, "detail")[1][0])["split"]  # the option was the run's: it searched in cubes
    assert "2 searches at once" in split and len({c for (c,) in _rows(tmp_path, "count")}) == 1
    import ortools

    assert rows == {"dp": f"battlebench {__version__}", "cpsat": f"ortools {ortools.__version__}",
                    "brute": f"battlebench {__version__}"}


def test_a_counters_refusal_is_a_refused_run_naming_who_takes_it(capsys, tmp_path):
    cfg = _config(tmp_path, f"""\
        name = "refusal"
        instances = ["{HEX}"]
        task = "deployments"
        pairs = [{{ counter = "cluster" }}, {{ counter = "dp" }}]
        """)
    code, _, err = run(capsys, "run", cfg, "--progress", "plain")
    assert code == 0, err  # a refusal is not an error
    rows = {r[0]: r[1:] for r in _rows(tmp_path, "backend, status, termination, error")}
    assert rows["dp"][:2] == ("sat", "completed")
    status, termination, error = rows["cluster"]
    assert (status, termination) == ("refused", "refused")
    assert error.startswith("cluster refuses: the cluster expansion needs a full rectangle")
    assert "counters that take it: dp, frontier" in error and "cluster," not in error
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0 and "refused: 1 run declined by their plugin" in out, out
    code, out, err = run(capsys, "count", HEX, "--counter", "cluster")
    assert code == 1 and "no count (refused: cluster refuses" in out


def test_a_game_keeps_its_shots_in_shots_and_an_older_store_is_read_and_upgraded(capsys, tmp_path):
    cfg = _config(tmp_path, f"""\
        name = "games"
        instances = ["{TINY_BOARD}"]
        task = "play"
        games = 3
        pairs = [{{ strategy = "random" }}]
        """)
    assert run(capsys, "run", cfg, "--progress", "plain")[0] == 0
    shots = [r[0] for r in _rows(tmp_path, "shots")]
    assert all(isinstance(s, int) and s > 0 for s in shots) and _rows(tmp_path, "count") == [(None,)] * 3
    # what docs/reference/records.md says the play task's columns hold
    assert set(_rows(tmp_path, "exhausted, build_s, placements, boards, complete, formulation, repetition > 0")) == {
        (0, None, None, "[]", 1, "ship", 1)}
    assert [r[0] for r in _rows(tmp_path, "repetition")] == [1, 2, 3]
    as_version_2(tmp_path / "out" / "results.sqlite")  # as stores made before `shots` left it: shots in count
    assert [r[0] for r in _rows(tmp_path, "count")] == shots
    with ResultsStore(tmp_path / "out", create=False) as store:  # read as it is, shots where they belong
        assert store.version == 2
        assert [(r["shots"], r["count"]) for r in store.records()] == [(s, None) for s in shots]
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0, out
    code, out, err = run(capsys, "run", cfg, "--progress", "plain")  # resumed: nothing runs again, upgraded
    assert code == 0 and "0 executed now, 3 were already stored" in out, out + err
    with ResultsStore(tmp_path / "out", create=False) as store:
        assert store.version == SCHEMA_VERSION
    assert [r[0] for r in _rows(tmp_path, "shots")] == shots and _rows(tmp_path, "count") == [(None,)] * 3
