"""experiments/oracle_workers.py: records the oracle's CP-SAT questions and replays them per setting."""

from __future__ import annotations

import csv


def test_records_questions_and_replays_them_with_the_same_answers(tmp_path, load_benchmark):
    ow = load_benchmark("oracle_workers")
    out = tmp_path / "report"
    # budget 1: CaDiCaL settles nothing, so every question of an 8x8 search goes to CP-SAT
    assert ow.main(["--rows", "8", "--cols", "8", "--seed", "1", "--questions", "6", "--budget", "1", "--workers", "1",
                    "--workers", "2", "--setting", "lf=branching=long-first,lazy_lp=false", "--limit", "60",
                    "--out", str(out)]) == 0
    with open(out / "questions.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert 3 <= len(rows) <= 6  # the search may end before the sixth question
    assert {r["answer"] for r in rows} <= {"board", "none"}
    assert all(r["w1_outcome"] == r["w2_outcome"] == r["lf_outcome"] == "ok" for r in rows)
    assert all(float(r["lf_cpu_s"]) >= 0 for r in rows)
    summary = (out / "summary.md").read_text()
    assert "| w1 | threads=1 |" in summary and "| w2 | threads=2 |" in summary and "ratio_to_first" in summary
    assert "| lf | branching=long-first, lazy_lp=False |" in summary


def test_a_bad_setting_is_refused_before_any_question(load_benchmark):
    import pytest

    from harness.errors import UsageError

    ow = load_benchmark("oracle_workers")
    with pytest.raises(SystemExit):
        ow.parse_setting("no-options-here")
    with pytest.raises(UsageError):
        ow.parse_setting("x=branching=sideways")
    with pytest.raises(SystemExit, match="true or false"):
        ow.parse_setting("x=guide=maybe")


def test_guide_is_the_oracles_own_setting_not_a_backend_option(load_benchmark):
    from harness.generate.oracle import FALLBACK_OPTIONS

    ow = load_benchmark("oracle_workers")
    assert ow.parse_setting("g=guide=true") == ("g", {"guide": True})
    label, options = ow.parse_setting("g=branching=long-first,guide=false,threads=1")
    assert options == {"branching": "long-first", "guide": False, "threads": 1}

    class Oracle:
        guide = None
        fallback_options = dict(FALLBACK_OPTIONS)

    oracle = Oracle()
    ow.apply_setting(oracle, {"branching": "long-first", "guide": True})
    assert oracle.guide is True and oracle.fallback_options == {"branching": "long-first"}


def test_record_stops_at_the_asked_number_of_questions(load_benchmark):
    ow = load_benchmark("oracle_workers")
    asked = ow.record(8, 8, 1, 3, 1, {"threads": 1})
    assert len(asked) == 3
    assert all(q["flip"] and q["answer"] in ("board", "none") for q in asked)


def test_questions_are_taken_from_a_journal_without_asking_a_solver(tmp_path, load_benchmark, monkeypatch,
                                                                   journal_of_a_search):
    import json

    from harness.generate import oracle as oracle_mod

    ow = load_benchmark("oracle_workers")
    path = journal_of_a_search(1)
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert len(entries) >= 3

    def no_solver(*_):
        raise AssertionError("a journaled question was asked again")

    monkeypatch.setattr(oracle_mod.UniquenessOracle, "differs", no_solver)
    asked = ow.record_journal(8, 8, 1, path)
    assert [q["answer"] for q in asked] == ["none" if e["a"] == "none" else "board" for e in entries]
    assert [q["recorded_s"] for q in asked] == [e["s"] for e in entries]
    assert all(q["flip"] and set(q["flip"]).isdisjoint(q["hints"]) for q in asked)
    monkeypatch.undo()
    # the journal's questions replayed: the same answers (the CLI path, last two only)
    out = tmp_path / "report"
    assert ow.main(["--rows", "8", "--cols", "8", "--seed", "1", "--journal", str(path), "--last", "2",
                    "--setting", "lf=branching=long-first,lazy_lp=false",
                    "--setting", "g=branching=long-first,lazy_lp=false,guide=true", "--limit", "60",
                    "--out", str(out)]) == 0
    summary = (out / "summary.md").read_text()
    assert "--journal" in summary and "questions read from the journal" in summary
    assert "| g | branching=long-first, lazy_lp=False, guide=True |" in summary
    assert len((out / "questions.csv").read_text().splitlines()) == 1 + 2


def test_a_journal_of_another_seed_is_refused(load_benchmark, journal_of_a_search):
    import pytest

    ow = load_benchmark("oracle_workers")
    path = journal_of_a_search(1)
    with pytest.raises(SystemExit, match="another question"):
        ow.record_journal(8, 8, 2, path)
