"""Completeness: the stored runs against the store's plan; ranking only where every pair has results."""

from __future__ import annotations

from handstore import make_store, run

from harness.report.headline import headline
from harness.report.completeness import load_campaign

A, B = "sat/cell", "cpsat/placement"


def planned(n: int = 5):
    """B runs before A on each instance (as a config listing B first would); A is 5x faster."""
    return [run(f"i{k}", p, "sat", t) for k in range(1, n + 1) for p, t in ((B, 1.0), (A, 0.2))]


def test_a_complete_store(tmp_path):
    c = load_campaign(make_store(tmp_path / "r", planned())).completeness
    assert c.complete and c.known and c.missing == 0 and c.planned == c.stored == 10
    assert len(c.ranked) == 5 and c.left_out == () and c.sentence() == ""


def test_an_interrupted_store_counts_what_is_missing_per_pair(tmp_path):
    runs = planned()
    camp = load_campaign(make_store(tmp_path / "r", runs[:7], plan=runs))  # stopped after 7 of 10
    c = camp.completeness
    assert not c.complete and c.known and (c.planned, c.stored, c.missing) == (10, 7, 3)
    assert c.missing_by_pair() == {A: 2, B: 1}
    assert c.left_out == ("i4", "i5") and len(c.ranked) == 3
    assert c.sentence() == ("Incomplete: 7 of 10 runs (3 missing); pairs are ranked on the 3 of 5 instances "
                            "every pair has results on (left out: i4, i5).")
    # ranked on i1..i3 only: A wins 3/3 (B has i4 too, but that would favour the pair that ran first)
    ranked = camp.ranked
    assert sorted(ranked["instance"].unique()) == ["i1", "i2", "i3"]
    head = headline(ranked, completeness=c)
    assert head.startswith(c.sentence() + f" Ranked by CPU time. {A} wins: 3/3 solved")


def test_runs_outside_the_plan_are_left_out(tmp_path):
    runs = planned(2)
    stale = run("i1", A, "unsat", 9.0, repetition=7)  # from an older plan
    camp = load_campaign(make_store(tmp_path / "r", runs + [stale], plan=runs))
    assert camp.completeness.outside == 1 and camp.completeness.complete
    assert len(camp.runs) == 4 and "unsat" not in set(camp.runs["status"])


def test_a_store_without_a_plan_has_unknown_completeness(tmp_path):
    runs = planned(3)[:5]  # i3 has only B
    c = load_campaign(make_store(tmp_path / "r", runs, plan=None)).completeness
    assert not c.known and not c.complete and c.planned is None
    assert c.left_out == ("i3",) and len(c.ranked) == 2
    assert c.sentence().startswith("Completeness unknown: the store records no plan")


def test_an_empty_store_with_a_plan(tmp_path):
    c = load_campaign(make_store(tmp_path / "r", [], plan=planned(2))).completeness
    assert (c.planned, c.stored, c.missing) == (4, 0, 4) and c.ranked == ()


def test_a_wrong_board_outside_the_ranked_instances_is_still_in_the_headline(tmp_path):
    from handstore import BAD_BOARD

    runs = planned(3) + [run("i4", B, "wrong", 0.1, boards=[BAD_BOARD])]
    plan = runs + [run("i4", A, "sat", 0.2)]  # i4 is incomplete: not ranked
    camp = load_campaign(make_store(tmp_path / "r", runs, plan=plan))
    text = headline(camp.ranked, completeness=camp.completeness, all_runs=camp.runs)
    assert "left out: i4" in text and "1 run gave a wrong answer (1 by cpsat/placement)" in text


def test_no_ranked_instance_yet_says_so_instead_of_no_runs(tmp_path):
    runs = planned(2)
    camp = load_campaign(make_store(tmp_path / "r", runs[:1], plan=runs))  # stopped after the first run
    text = headline(camp.ranked, completeness=camp.completeness, all_runs=camp.runs)
    assert "No pair is ranked: none of the 1 stored runs is on an instance every pair has results on" in text
    assert "No runs in these results" not in text


def test_mixed_ties_give_each_pair_its_own_reason(tmp_path):
    # A 0.5 s everywhere; B 5 ms slower (within the timer's resolution); C 0.25 s or 1 s, alternating:
    # its ratio's interval holds 1 (noise)
    runs = [run(f"i{k}", A, "sat", 0.5) for k in range(8)] + [run(f"i{k}", B, "sat", 0.505) for k in range(8)]
    runs += [run(f"i{k}", "mip/cell", "sat", 0.25 if k % 2 else 1.0) for k in range(8)]
    text = headline(load_campaign(make_store(tmp_path / "r", runs)).ranked)
    assert text.startswith(f"Ranked by CPU time. No single winner: {A}, {B} and mip/cell tie (8/8 solved each; ")
    assert f"{B} 0.505 s against 0.5 s, less than 10 ms apart: within the timer's resolution" in text
    assert "mip/cell 1.16× the time, 95% CI" in text and "an interval that holds 1" in text


def test_a_lost_run_counts_as_missing_and_is_in_no_table(tmp_path):
    """A run stored as lost (its worker or node lost on every attempt) holds no measurement: missing, said so,
    its instance not ranked, and the run in none of the campaign's frames."""
    runs = planned(3)
    lost = run("i3", A, "lost", 0.0, error="lost: its Dask worker died on each of its 1 attempt (retries = 0)")
    camp = load_campaign(make_store(tmp_path / "r", runs[:-1] + [lost], plan=runs))
    c = camp.completeness
    assert (c.planned, c.stored, c.missing, c.lost) == (6, 5, 1, 1) and c.missing_by_pair() == {A: 1}
    assert c.left_out == ("i3",) and "lost" not in set(camp.runs["status"]) and len(camp.runs) == 5
    assert c.sentence().startswith("Incomplete: 5 of 6 runs (1 missing, 1 of them lost with their worker or node)")
