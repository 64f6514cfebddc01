"""A campaign with ``proof = "check"``: its proofs kept beside the store, counted by ``check`` and checked again by
``check --proofs`` -- which fails on a proof file tampered with, and on a store that keeps no proof."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import sqlite3
from pathlib import Path

import pytest

from harness.cli import main
from harness.proofs.checkers import available_checkers
from harness.proofs.recheck import PROOFS_DIR, kept_name

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = [ROOT / "instances" / "unsat" / "unsat_10x10_unique-unsat-clue-shift_s1.toml",
             ROOT / "instances" / "classic" / "classic_10x10_unique_s100.toml"]

pytestmark = pytest.mark.skipif(not available_checkers("drup"), reason="no proof checker installed")


def _campaign(tmp_path: Path, proof: bool = True) -> Path:
    cfg = tmp_path / "proofs.toml"
    files = ", ".join(f'"{p}"' for p in INSTANCES)
    cfg.write_text(f'name = "proofs"\ninstances = [{files}]\ntask = "count-2"\n'
                   + ('proof = "check"\n' if proof else "")
                   + '[[pairs]]\nbackend = "sat"\n[[pairs]]\nbackend = "cpsat"\n[limits]\ntime_s = 60\n')
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 0
    return out


def _rows(out: Path) -> list[sqlite3.Row]:
    db = sqlite3.connect(out / "results.sqlite")
    db.row_factory = sqlite3.Row
    return db.execute("SELECT * FROM runs ORDER BY instance, pair").fetchall()


def test_a_campaign_keeps_each_proof_beside_the_store_and_check_counts_the_claims(tmp_path, capsys):
    out = _campaign(tmp_path)
    rows = _rows(out)
    assert {r["pair"] for r in rows} == {"sat[proof=check]/placement", "cpsat/placement"}  # only sat can prove
    for r in rows:
        assert r["claim"] in ("unsat", "no further board")
        if r["backend"] == "cpsat":
            assert r["certificate"] == "trusted" and r["proof_sha256"] is None
            continue
        assert r["certificate"] == "certified" and r["checker"] and r["check_cpu_s"] is not None
        # the run's wall time is the solve's: the execution (started_at..ended_at) held the checks besides
        span = (dt.datetime.fromisoformat(r["ended_at"]) - dt.datetime.fromisoformat(r["started_at"])).total_seconds()
        assert span >= r["wall_s"] + r["check_s"] - 0.002, (span, r["wall_s"], r["check_s"])
        for sha, suffix in ((r["proof_sha256"], r["proof_format"]), (r["cnf_sha256"], "cnf")):
            data = gzip.decompress((out / PROOFS_DIR / kept_name(sha, suffix)).read_bytes())
            assert hashlib.sha256(data).hexdigest() == sha
    capsys.readouterr()
    assert main(["check", str(out)]) == 0
    said = capsys.readouterr().out
    assert "claims: 4 (unsat, no further board): 2 certified, 2 trusted" in said
    # the shipped puzzles were certified when generated on their certifying pair's word (no --proof then)
    assert "generated puzzles: 2 files with the generator's certificate: 0 with its claim proven by a checked " \
           "proof (generate --proof), 2 on the certifying pair's word" in said
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "## Claims: certified, trusted or rejected" in summary
    table = summary.split("## Claims", 1)[1]
    assert "| sat[proof=check]/placement | 2 | 2 | 0 | 0 | 0 |" in table and "| cpsat/placement | 2 | 0 | 2 |" in table
    from harness.proofs.checkers import label

    fast = ["--checker", "dratify-native", "--checker", "dratify"]
    assert main(["check", str(out), "--proofs", *fast, "--jobs", "2"]) == 0  # two at a time: a pool of processes
    said = capsys.readouterr().out
    assert "proofs: 2 stored proofs checked again, every one as stored" in said and "check: passed" in said
    assert f"{label('dratify-native')}: 2 accepted; {label('dratify')}: 2 accepted" in said
    # a checker that finishes nothing confirms nothing: not a pass
    assert main(["check", str(out), "--proofs", "--checker", "drup", "--proof-limit", "0.05"]) == 1
    said = capsys.readouterr().out
    assert f"{label('drup')}: 2 unfinished" in said and "not confirmed: unchecked (no checker finished" in said
    assert "2 not confirmed (no checker finished within the limit)" in said and "contradicted" not in said
    assert "2 stored proofs not confirmed: no checker finished within the limit" in said
    # a proof file tampered with: its hash no longer matches, and the check fails naming it
    proof = next((out / PROOFS_DIR).glob(f"*.{rows[-1]['proof_format']}.gz"))
    proof.write_bytes(gzip.compress(b"0\n"))
    assert main(["check", str(out), "--proofs", *fast]) == 1
    said = capsys.readouterr().out
    assert "does not hold what its record's sha256 says" in said and "contradicted when checked again" in said


def test_check_proofs_has_two_lineages_judge_every_proof_and_fails_where_they_disagree(tmp_path, capsys,
                                                                                       monkeypatch, request):
    from harness.proofs import checkers

    request.addfinalizer(checkers.version.cache_clear)  # the stand-in's version is not left cached

    out = _campaign(tmp_path)
    capsys.readouterr()
    if checkers.version("drat-trim") is not None:  # the default: the fastest checker of every lineage at hand
        assert main(["check", str(out), "--proofs"]) == 0
        said = capsys.readouterr().out
        assert f"{checkers.label('drat-trim')}: 2 accepted; {checkers.label('dratify-native')}: 2 accepted" in said
        assert "2 judged by two lineages or more, every one agreeing" in said
    assert main(["check", str(out), "--proofs", "--checker", "dratify-native", "--checker", "dratify"]) == 0
    assert "no proof judged by two lineages" in capsys.readouterr().out  # one lineage twice is not two
    fake = tmp_path / "bin" / "drat-trim"  # a drat-trim that refuses every proof: a checker with a bug
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "c ERROR: no conflict"\necho "s NOT VERIFIED"\nexit 1\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    checkers.version.cache_clear()
    assert main(["check", str(out), "--proofs", "--checker", "drat-trim", "--checker", "dratify-native"]) == 1
    said = capsys.readouterr().out
    assert "the checkers' lineages disagree: drat-trim sha256:" in said and "refused" in said
    assert "2 stored proofs on which checkers of two lineages disagree" in said
    assert "2 stored proofs contradicted when checked again" in said  # a refusal rejects: certified no longer holds


def test_check_proofs_on_a_store_without_proofs_judges_nothing_and_fails(tmp_path, capsys):
    out = _campaign(tmp_path, proof=False)
    assert all(r["certificate"] == "trusted" for r in _rows(out))
    capsys.readouterr()
    assert main(["check", str(out)]) == 0
    assert main(["check", str(out), "--proofs"]) == 1
    assert "the store keeps no proof to check again" in capsys.readouterr().out


def test_a_bad_proof_setting_fails_before_any_run(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(f'name = "bad"\ninstances = ["{INSTANCES[0]}"]\nproof = "always"\n[[pairs]]\nbackend = "sat"\n')
    assert main(["run", str(cfg), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "proof" in err[0] and "check-all" in err[0] and str(cfg) in err[0]
    assert not (tmp_path / "out").exists()


def test_a_claim_whose_proof_a_checker_refused_fails_check(tmp_path, capsys):
    import sys

    script = tmp_path / "liar.py"  # says UNSATISFIABLE of a puzzle with a board, with the empty clause as proof
    script.write_text(f"#!{sys.executable}\nimport sys\nif sys.argv[1] == '--version':\n    print('liar 1'); "
                      "sys.exit(0)\nopen(sys.argv[2], 'w').write('0\\n')\nprint('s UNSATISFIABLE')\nsys.exit(20)\n")
    script.chmod(0o755)
    tools = tmp_path / "liar.toml"
    tools.write_text(f'[tools.liar]\nformat = "cnf"\ncommand = ["{script}", "{{file}}"]\noutput = "sat-competition"\n'
                     f'version = ["{script}", "--version"]\nproof = "drat"\nproof_args = ["{{proof}}"]\n')
    cfg = tmp_path / "liar-campaign.toml"
    cfg.write_text(f'name = "liar"\ninstances = ["{INSTANCES[1]}"]\nproof = "check"\n[[pairs]]\nbackend = "tool"\n'
                   f'options = {{ tool = "liar", tool_file = "{tools}", measure = "process" }}\n')
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(out)]) == 1
    [row] = _rows(out)
    assert row["status"] == "wrong" and row["certificate"] == "rejected" and row["verdict"].startswith("proof rejected")
    capsys.readouterr()
    assert main(["check", str(out)]) == 1
    said = capsys.readouterr().out
    assert "1 rejected" in said and "1 claim whose proof a checker refused" in said


@pytest.mark.parametrize("field, value, said", [
    ("proof_format", "../../x", "is not one of drup, drat"),
    ("proof_sha256", "../" + "0" * 61, "is not a sha256"),
])
def test_a_record_that_names_no_kept_file_is_a_contradiction_not_a_path(tmp_path, field, value, said):
    from harness.proofs.recheck import recheck_proofs

    rec = {"instance": "i", "pair": "p", "certificate": "certified", "proof_format": "drup",
           "proof_sha256": "a" * 64, "cnf_sha256": "b" * 64, field: value}
    again = recheck_proofs([rec], tmp_path)
    assert again.checked == 1 and len(again.mismatches) == 1 and said in again.mismatches[0][3]


@pytest.mark.parametrize("argv, said", [
    (["--jobs", "0"], "--jobs must be >= 1, not 0"),
    (["--jobs", "-2"], "--jobs must be >= 1, not -2"),
    (["--proof-limit", "0"], "--proof-limit must be a number of seconds > 0, not 0"),
    (["--proof-limit", "nan"], "--proof-limit must be a number of seconds > 0, not nan"),
])
def test_check_proofs_refuses_a_bad_jobs_or_limit_in_one_line_before_reading_anything(tmp_path, capsys, argv, said):
    # the store does not even exist: the option is judged first
    assert main(["check", str(tmp_path / "nowhere"), "--proofs", *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
