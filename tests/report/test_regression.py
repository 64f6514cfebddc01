"""Regressions between two hand-built campaigns."""

from __future__ import annotations

from pathlib import Path

from handstore import make_store, run
from harness.report.regression import Regression, compare, improvements, render_regressions
from harness.store import ResultsStore

SAT, MIP = "sat/cell", "mip/cell"


def frame(directory: Path, runs: list[dict]):
    make_store(directory, runs)
    with ResultsStore(directory, create=False) as store:
        return store.dataframe()


def both(tmp_path: Path, old: list[dict], new: list[dict]):
    return frame(tmp_path / "old", old), frame(tmp_path / "new", new)


def reps(instance: str, pair: str, status: str, walls: list[float], **more) -> list[dict]:
    return [run(instance, pair, status, w, repetition=i + 1, **more) for i, w in enumerate(walls)]


def test_identical_campaigns_have_no_regressions(tmp_path):
    runs = reps("i1", SAT, "sat", [1.0, 1.1, 0.9]) + reps("i1", MIP, "timeout", [10.0])
    old, new = both(tmp_path, runs, runs)
    assert compare(old, new) == [] and improvements(old, new) == []
    assert render_regressions([]) == "no regressions\n"


def test_slowdown_above_the_floor_is_found(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0, 0.9, 1.1]), reps("i1", SAT, "sat", [3.0, 3.1, 2.9]))
    (r,) = compare(old, new)  # medians 1.0 -> 3.0, every new time above 2 x every old one
    assert r.kind == "slowdown" and r.instance == "i1" and r.pair == SAT
    assert (r.old, r.new) == (1.0, 3.0) and abs(r.ratio - 3.0) < 1e-9
    assert "i1" in r.message and SAT in r.message and r.question == "count-2"
    assert "Mann-Whitney p = 0.05, 3 vs 3 runs" in r.message
    table = render_regressions([r])
    assert "slowdown" in table and "3.00x" in table and "1 s" in table and "3 s" in table


def test_with_repetitions_overlapping_distributions_are_no_slowdown(tmp_path):
    # medians 1.0 -> 3.0, but the runs overlap: one old run took 5 s, one new run 0.5 s
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0, 1.0, 5.0]), reps("i1", SAT, "sat", [3.0, 3.0, 0.5]))
    assert compare(old, new) == []
    # with single runs the medians are all there is: the same medians are a slowdown
    old1, new1 = both(tmp_path / "one", reps("i1", SAT, "sat", [1.0]), reps("i1", SAT, "sat", [3.0]))
    assert [r.kind for r in compare(old1, new1)] == ["slowdown"]


def test_slowdowns_are_judged_on_cpu_time_when_asked(tmp_path):
    # the machine was busy: wall time tripled, CPU time did not move
    old = [run(f"i{k}", SAT, "sat", 1.0, cpu_s=0.95) for k in range(3)]
    new = [run(f"i{k}", SAT, "sat", 3.0, cpu_s=0.97) for k in range(3)]
    o, n = both(tmp_path, old, new)
    assert [r.kind for r in compare(o, n, time="wall")] == ["slowdown"] * 3
    assert compare(o, n, time="cpu") == []
    # a real slowdown shows in CPU time too
    slow = [run(f"i{k}", SAT, "sat", 3.0, cpu_s=2.9) for k in range(3)]
    o, s = both(tmp_path / "real", old, slow)
    regs = compare(o, s, time="cpu")
    assert [r.kind for r in regs] == ["slowdown"] * 3 and "(cpu)" in regs[0].message


def test_a_baseline_without_cpu_time_is_judged_on_wall_time_and_says_so(tmp_path):
    old = [run("i1", SAT, "sat", 1.0, cpu_s=None)]
    new = [run("i1", SAT, "sat", 3.0, cpu_s=1.0)]
    o, n = both(tmp_path, old, new)
    (r,) = compare(o, n, time="cpu")
    assert r.kind == "slowdown" and "wall: no cpu_s stored" in r.message
    from harness.report.regression import wall_fallbacks

    assert wall_fallbacks(o, n) == 1


def test_slowdown_below_the_floor_is_ignored(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [0.01, 0.01]), reps("i1", SAT, "sat", [0.03, 0.03]))
    assert compare(old, new) == []
    assert compare(old, new, floor_s=0.001)[0].kind == "slowdown"


def test_slowdown_crossing_the_floor_is_found(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [0.05]), reps("i1", SAT, "sat", [0.5]))
    assert [r.kind for r in compare(old, new)] == ["slowdown"]


def test_slowdown_under_the_ratio_is_ignored(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0]), reps("i1", SAT, "sat", [1.5]))
    assert compare(old, new, ratio=2.0) == []
    assert [r.kind for r in compare(old, new, ratio=1.2)] == ["slowdown"]


def test_sat_to_timeout_is_a_status_regression(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0]) + reps("i2", SAT, "unsat", [1.0]),
                    reps("i1", SAT, "timeout", [10.0]) + reps("i2", SAT, "unsat", [1.0]))
    (r,) = compare(old, new)
    assert (r.kind, r.instance, r.pair, r.old, r.new, r.ratio) == ("status", "i1", SAT, "sat", "timeout", None)
    assert "sat -> timeout" in r.message
    assert "status" in render_regressions([r])


def test_wrong_and_flips_are_status_regressions(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0]) + reps("i2", SAT, "sat", [1.0])
                    + reps("i3", SAT, "timeout", [10.0]),
                    reps("i1", SAT, "unsat", [1.0]) + reps("i2", SAT, "wrong", [1.0])
                    + reps("i3", SAT, "wrong", [1.0]))
    found = {(r.instance, r.old, r.new) for r in compare(old, new)}
    assert found == {("i1", "sat", "unsat"), ("i2", "sat", "wrong"), ("i3", "timeout", "wrong")}


def test_one_timed_out_repetition_of_two_counts(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0, 1.0]),
                    [run("i1", SAT, "sat", 1.0, repetition=1), run("i1", SAT, "timeout", 10.0, repetition=2)])
    (r,) = compare(old, new)
    assert r.kind == "status" and r.new == "timeout×1, sat×1"


def test_one_timed_out_repetition_of_three_counts_too(tmp_path):
    # the majority is still sat: one timeout in three is a less reliable pair all the same
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0, 1.0, 1.0]),
                    reps("i1", SAT, "sat", [1.0, 1.0]) + [run("i1", SAT, "timeout", 10.0, repetition=3)])
    (r,) = compare(old, new)
    assert (r.kind, r.old, r.new) == ("status", "sat", "timeout×1, sat×2")
    assert improvements(old, new) == []


def test_missing_pair_is_its_own_kind(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0]) + reps("i1", MIP, "sat", [1.0]),
                    reps("i1", SAT, "sat", [1.0]))
    (r,) = compare(old, new)
    assert (r.kind, r.instance, r.pair, r.old, r.new) == ("missing", "i1", MIP, "sat", None)
    assert "i1" in r.message and MIP in r.message


def test_improvements_are_not_regressions(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [3.0]) + reps("i2", SAT, "timeout", [10.0])
                    + reps("i3", SAT, "error", [0.0]),
                    reps("i1", SAT, "sat", [1.0]) + reps("i2", SAT, "sat", [2.0])
                    + reps("i3", SAT, "unsat", [0.5]) + reps("i4", SAT, "sat", [1.0]))
    assert compare(old, new) == []
    better = improvements(old, new)
    assert [(r.kind, r.instance) for r in better] == [("solved", "i2"), ("solved", "i3"), ("speedup", "i1")]
    assert abs(better[-1].ratio - 3.0) < 1e-9
    assert "speedup" in render_regressions(better)


def test_matching_uses_task_and_seed(tmp_path):
    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0], question="solve"),
                    reps("i1", SAT, "timeout", [10.0], question="count-2"))
    assert compare(old, new) == []  # another task: not a match, and the pair is not missing


def test_order_and_table(tmp_path):
    old, new = both(tmp_path, reps("b", SAT, "sat", [1.0]) + reps("a", SAT, "sat", [1.0])
                    + reps("c", MIP, "sat", [1.0]),
                    reps("b", SAT, "sat", [5.0]) + reps("a", SAT, "memout", [2.0]))
    regs = compare(old, new)
    assert [(r.kind, r.instance) for r in regs] == [("status", "a"), ("slowdown", "b"), ("missing", "c")]
    assert all(isinstance(r, Regression) for r in regs)
    lines = render_regressions(regs).splitlines()
    assert lines[0].split() == ["kind", "instance", "pair", "question", "old", "new", "ratio", "threshold"]
    assert len(lines) == 2 + len(regs)
    assert lines[3].endswith("ratio 2 (every pair)") and lines[2].endswith(" -")  # the slowdown's; a status has none


def test_each_pair_is_judged_by_its_own_ratio_and_floor(tmp_path):
    from harness.core.thresholds import Thresholds, from_options
    from harness.report.regression import timed

    old, new = both(tmp_path, reps("i1", SAT, "sat", [1.0]) + reps("i1", MIP, "sat", [1.0])
                    + reps("i2", MIP, "sat", [0.2]),
                    reps("i1", SAT, "sat", [2.5]) + reps("i1", MIP, "sat", [1.6])
                    + reps("i2", MIP, "sat", [0.45]))
    assert [(r.instance, r.pair) for r in compare(old, new)] == [("i1", SAT), ("i2", MIP)]  # ratio 2 for all
    limits = Thresholds.of(from_options([(SAT, 3.0), ("mip/*", 1.5)], [("mip/*", 0.5)]))
    regs = compare(old, new, thresholds=limits)
    # sat/cell's 2.5x is under its 3; mip's 1.6x is over its 1.5; i2's 2.25x is under mip's floor of 0.5 s on both sides
    assert [(r.instance, r.pair, r.threshold) for r in regs] == [
        ("i1", MIP, "ratio 1.5 (--ratio mip/*=1.5), floor 0.5 s (--floor mip/*=0.5)")]
    assert timed(old, new, thresholds=limits) == 2 and timed(old, new) == 3  # i2 timed only under the 0.1 s floor
    assert [r.instance for r in improvements(new, old, thresholds=limits)] == ["i1"]  # a speed-up alike
