"""What pairs are ranked by: CPU time for one-core pairs, wall time for parallel ones, A/A controls' noise floor."""

from __future__ import annotations

import json
import math

import pytest
from handstore import make_store, run

from harness.errors import InputError
from harness.report import data, metrics, noise
from harness.report.headline import headline
from harness.report.facts import load_warning
from harness.report.render import write_report

A, B, C = "sat/cell", "cpsat/placement", "cpsat[threads=8]/cell"
INSTANCES = [f"i{k}" for k in range(1, 9)]


def timed(instance: str, pair: str, wall: float, cpu: float, **more) -> dict:
    return run(instance, pair, "sat", wall, cpu_s=cpu, **more)


def frame(tmp_path, runs, name="s"):
    return data.load(make_store(tmp_path / name, runs))


# -- the rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("options, cores", [
    ({}, 1), ({"threads": 1}, 1), ({"threads": 8}, 8), ({"split": 4, "threads": 1}, 4),
    ({"race": ["cpsat/placement", "sat/placement"]}, 2), ('{"threads": 2}', 2), ("not json", 1),
    ({"threads": "x"}, 1), ({"threads": True}, 1), (None, 1),
])
def test_cores_of_stored_options(options, cores):
    assert data.cores(options) == cores


def test_auto_ranks_one_core_pairs_by_cpu_and_parallel_ones_by_wall(tmp_path):
    runs = [timed(i, A, 1.0, 0.9) for i in INSTANCES[:2]]
    runs += [timed(i, C, 1.0, 7.5, options={"threads": 8}) for i in INSTANCES[:2]]
    df = frame(tmp_path, runs)
    m = data.pair_measures(df)
    assert m.by_pair == {A: "cpu", C: "wall"} and m.mixed and m.used == ("cpu", "wall")
    assert data.pair_measures(df, "wall").by_pair == {A: "wall", C: "wall"}
    assert data.pair_measures(df, "cpu").by_pair == {A: "cpu", C: "cpu"}
    with pytest.raises(InputError, match="rank_by: must be one of auto, cpu, wall, not 'fast'"):
        data.pair_measures(df, "fast")


def test_a_pair_without_cpu_time_is_ranked_by_wall_and_named(tmp_path):
    runs = [timed(i, A, 1.0, None) for i in INSTANCES[:2]] + [timed(i, B, 1.0, 0.5) for i in INSTANCES[:2]]
    m = data.pair_measures(frame(tmp_path, runs))
    assert m.by_pair == {A: "wall", B: "cpu"} and m.no_cpu == (A,)


def test_every_figure_of_merit_follows_the_measure(tmp_path):
    # wall says B is 3x slower than A; CPU says A is 2x slower than B
    runs = [timed(i, A, 1.0, 2.0) for i in INSTANCES] + [timed(i, B, 3.0, 1.0) for i in INSTANCES]
    df = frame(tmp_path, runs)
    by_cpu = metrics.pair_table(data.with_measures(df, "cpu"), shift_s=0.0)
    by_wall = metrics.pair_table(data.with_measures(df, "wall"), shift_s=0.0)
    assert list(by_cpu["pair"]) == [B, A] and list(by_wall["pair"]) == [A, B]
    a_cpu = by_cpu.set_index("pair").loc[A]
    assert a_cpu["sgm_ratio"] == pytest.approx(2.0) and a_cpu["par2_s"] == pytest.approx(2.0)
    assert a_cpu["vbs_gap_s"] == pytest.approx(1.0) and a_cpu["measure"] == "cpu"
    # both measures stay in the table whatever the ranking
    assert a_cpu["median_s"] == pytest.approx(1.0) and a_cpu["cpu_median_s"] == pytest.approx(2.0)
    assert by_wall.set_index("pair").loc[B, "sgm_ratio"] == pytest.approx(3.0)
    assert list(metrics.virtual_best(data.with_measures(df, "cpu"))["best_pair"]) == [B] * len(INSTANCES)
    # the default (no measure column) is auto: both one-core, so CPU
    assert list(metrics.pair_table(df, shift_s=0.0)["pair"]) == [B, A]


def test_a_mixed_campaign_ranks_each_group_apart(tmp_path):
    p8 = "cpsat[threads=8]/placement"
    runs = [timed(i, A, 1.0, 1.0) for i in INSTANCES] + [timed(i, B, 2.0, 2.0) for i in INSTANCES]
    runs += [timed(i, C, 0.5, 4.0, options={"threads": 8}) for i in INSTANCES]
    runs += [timed(i, p8, 1.5, 12.0, options={"threads": 8}) for i in INSTANCES]
    df = frame(tmp_path, runs)
    tables = metrics.all_tables(df, shift_s=0.0)
    pairs = tables["pairs"]
    assert list(zip(pairs["pair"], pairs["measure"])) == [(A, "cpu"), (B, "cpu"), (C, "wall"), (p8, "wall")]
    # each group against its own winner: C (wall 0.5) does not make A (CPU 1.0) look 2x slower
    assert list(pairs["sgm_ratio"]) == pytest.approx([1.0, 2.0, 1.0, 3.0])
    vbs = tables["virtual_best"]
    assert set(zip(vbs["measure"], vbs["best_pair"])) == {("cpu", A), ("wall", C)}
    # a backend whose pairs are ranked by different measures has no ratio between them
    best = tables["best_formulation_per_backend"].set_index("backend")
    assert math.isnan(best.loc["cpsat", "ratio"])
    text = headline(df, 0.0)
    assert text.startswith("Two groups, ranked apart")
    assert f"Ranked by CPU time (one-core pairs, 2). {A} wins" in text
    assert f"Ranked by wall time (parallel pairs, 2). {C} wins" in text


def test_the_headline_says_which_measure(tmp_path):
    runs = [timed(i, A, 1.0, 2.0) for i in INSTANCES] + [timed(i, B, 3.0, 1.0) for i in INSTANCES]
    df = frame(tmp_path, runs)
    assert headline(data.with_measures(df, "cpu"), 0.0).startswith(f"Ranked by CPU time. {B} wins")
    assert headline(data.with_measures(df, "wall"), 0.0).startswith(f"Ranked by wall time. {A} wins")


def test_the_config_rank_by_is_read_from_the_store_and_the_argument_wins(tmp_path):
    meta = {"config_text": 'name = "x"\n[report]\nrank_by = "wall"\n'}
    assert data.configured_rank_by(meta) == "wall"
    assert data.configured_rank_by({}) == "auto"
    assert data.configured_rank_by({"config_text": "not toml ["}) == "auto"
    runs = [timed(i, A, 1.0, 2.0) for i in INSTANCES] + [timed(i, B, 3.0, 1.0) for i in INSTANCES]
    store = make_store(tmp_path / "s", runs)
    write_report(store, tmp_path / "cpu", shift_s=0.0)
    write_report(store, tmp_path / "wall", shift_s=0.0, rank_by="wall")
    cpu_md = (tmp_path / "cpu" / "summary.md").read_text()
    wall_md = (tmp_path / "wall" / "summary.md").read_text()
    assert f"**Headline.** Ranked by CPU time. {B} wins" in cpu_md
    assert "Ranked by CPU time (the default: CPU time for pairs that use one core" in cpu_md
    assert f"**Headline.** Ranked by wall time. {A} wins" in wall_md
    assert "Ranked by wall time (asked for by rank_by = wall)." in wall_md
    page = (tmp_path / "cpu" / "index.html").read_text()
    assert 'id="ranked-by"' in page and "Not measured: the campaign declares no A/A controls" in page


def test_the_load_warning_says_what_the_load_stretched(tmp_path):
    meta = {"sessions": json.dumps([{"load_avg": [4.0, 3.0, 2.0], "cores": 2, "host": "h",
                                     "started_at": "2026-12-01T00:00:00+00:00"}])}
    runs = [timed(i, A, 1.0, 1.0) for i in INSTANCES[:2]] + [timed(i, C, 1.0, 7.5, options={"threads": 8})
                                                             for i in INSTANCES[:2]]
    df = frame(tmp_path, runs)
    only_cpu = load_warning(meta, data.pair_measures(df, "cpu"))
    assert "every pair is ranked by CPU time, which it hardly stretches" in only_cpu
    mixed = load_warning(meta, data.pair_measures(df))
    assert f"the pairs ranked by wall time ({C}) are stretched by it" in mixed
    assert load_warning({"sessions": json.dumps([{"load_avg": [0.1], "cores": 2}])}, data.pair_measures(df)) \
        is None


# -- the noise floor --------------------------------------------------------------------------

def aa_runs(control_factor: float, other_factor: float = 1.1) -> list[dict]:
    """A: times 1..8 s; B: ``other_factor`` x A's on every instance; A's A/A control: ``control_factor`` x."""
    runs = []
    for k, i in enumerate(INSTANCES, start=1):
        t = float(k)
        runs += [timed(i, A, t, t), timed(i, A + "~aa", t * control_factor, t * control_factor),
                 timed(i, B, t * other_factor, t * other_factor)]
    return runs


def test_floor_of_takes_the_furthest_either_way():
    assert noise.floor_of(1.2, 1.1, 1.3) == pytest.approx(1.3)
    assert noise.floor_of(0.8, 0.7, 0.9) == pytest.approx(1 / 0.7)
    assert noise.floor_of(1.0, 1.0, 1.0) == 1.0
    assert math.isnan(noise.floor_of(math.nan, 1.0, 1.0))


def test_a_difference_inside_the_controls_spread_is_a_tie_within_the_machines_noise(tmp_path):
    df = frame(tmp_path, aa_runs(1.2))
    tables = metrics.all_tables(df, 1.0)
    controls = tables["controls"]
    assert list(controls["control"]) == [A + "~aa"] and list(controls["pair"]) == [A]
    assert controls["floor"].iloc[0] == pytest.approx(1.2, abs=0.01) and int(controls["instances"].iloc[0]) == 8
    pairs = tables["pairs"].set_index("pair")
    assert list(pairs.index) == [A, B]  # the control is not ranked
    assert pairs.loc[B, "sgm_ratio"] == pytest.approx(1.1, abs=0.01)
    assert pairs.loc[B, "tie"] == "machine"
    text = headline(df)
    assert text.startswith(f"Ranked by CPU time. No single winner: {A} and {B} tie")
    assert "within the machine's noise (the A/A controls' floor 1.20×)" in text
    assert f"{A} run twice, interleaved, came out 1.19× apart by CPU time" in text and "noise floor 1.20×" in text


def test_the_same_difference_outside_a_tight_floor_is_crowned(tmp_path):
    df = frame(tmp_path, aa_runs(1.02))
    tables = metrics.all_tables(df, 1.0)
    assert tables["controls"]["floor"].iloc[0] == pytest.approx(1.02, abs=0.005)
    pairs = tables["pairs"].set_index("pair")
    assert pairs.loc[B, "tie"] == ""
    text = headline(df)
    assert text.startswith(f"Ranked by CPU time. {A} wins")
    assert "noise floor 1.02×" in text


def test_without_controls_the_noise_is_said_to_be_unmeasured(tmp_path):
    df = frame(tmp_path, [r for r in aa_runs(1.2) if not r["pair"].endswith("~aa")])
    tables = metrics.all_tables(df, 1.0)
    assert tables["controls"].empty
    assert tables["pairs"].set_index("pair").loc[B, "tie"] == ""
    assert "The machine's run-to-run noise was not measured" in headline(df)


def test_a_control_of_a_wall_pair_widens_only_the_wall_group(tmp_path):
    runs = aa_runs(1.2)
    for k, i in enumerate(INSTANCES, start=1):  # a parallel group with no control of its own
        runs += [timed(i, C, float(k), 8.0 * k, options={"threads": 8}),
                 timed(i, "cpsat[threads=8]/placement", 1.1 * k, 8.8 * k, options={"threads": 8})]
    df = frame(tmp_path, runs)
    pairs = metrics.pair_table(df, 1.0).set_index("pair")
    assert pairs.loc[B, "tie"] == "machine"
    assert pairs.loc["cpsat[threads=8]/placement", "tie"] == ""
    assert "the noise of wall time was not measured" in headline(df)


def test_the_report_shows_the_controls(tmp_path):
    out = tmp_path / "rep"
    write_report(make_store(tmp_path / "s", aa_runs(1.2)), out)
    page = (out / "index.html").read_text()
    assert "A/A controls: the machine&#x27;s run-to-run noise" in page and "tie = machine" in page
    assert (out / "controls.csv").read_text().splitlines()[0].startswith("control,pair,measure,instances")
    pairs_csv = (out / "pairs.csv").read_text()
    assert "~aa" not in pairs_csv


def test_report_command_takes_rank_by(tmp_path, capsys):
    from harness.cli import main

    runs = [timed(i, A, 1.0, 2.0) for i in INSTANCES] + [timed(i, B, 3.0, 1.0) for i in INSTANCES]
    store = make_store(tmp_path / "s", runs)
    assert main(["report", str(store), "--out", str(tmp_path / "w"), "--rank-by", "wall", "--shift", "0"]) == 0
    assert f"Ranked by wall time. {A} wins" in (tmp_path / "w" / "summary.md").read_text()
    with pytest.raises(SystemExit) as exit_info:
        main(["report", str(store), "--rank-by", "fast"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'fast'" in capsys.readouterr().err


def test_best_of_across_groups_takes_the_pair_that_solved_more(tmp_path):
    # a one-core pair ranked by CPU solves 2 of 4, the same backend's parallel pair (ranked by wall) all 4:
    # the CPU group comes first in the pairs table, but the backend's best is the one that solved more
    one, split = "cpsat/placement", "cpsat[split=2]/placement"
    runs = [timed(i, one, 1.0, 1.0) for i in INSTANCES[:2]] + [run(i, one, "timeout", 10.5) for i in INSTANCES[2:4]]
    runs += [timed(i, split, 2.0, 4.0, options={"split": 2}) for i in INSTANCES[:4]]
    tables = metrics.all_tables(frame(tmp_path, runs), 1.0)
    assert list(tables["pairs"]["pair"]) == [one, split]  # two groups, CPU first
    best = tables["best_formulation_per_backend"].set_index("backend")
    assert best.loc["cpsat", "best_formulation"] == split and best.loc["cpsat", "runner_up"] == one
    assert math.isnan(best.loc["cpsat", "ratio"])  # a CPU second against a wall second: no ratio
    assert tables["pivot_solved"].set_index("formulation").loc["placement", "cpsat"] == 4


def test_size_winners_take_the_pair_that_solved_more_and_no_ratio_across_measures(tmp_path):
    from harness.report import sizes

    one, split = "cpsat/placement", "cpsat[split=2]/placement"
    runs = []
    for n, size in ((1, 10), (2, 20)):
        for i in INSTANCES[:2]:
            name = f"{i}-{size}"
            runs.append(timed(name, one, 1.0 * n, 1.0 * n, rows=size, cols=size))
            runs.append(timed(name, split, 2.0 * n, 4.0 * n, rows=size, cols=size, options={"split": 2}))
        runs += [run(f"x-{size}", one, "timeout", 10.5, rows=size, cols=size),
                 timed(f"x-{size}", split, 3.0, 6.0, rows=size, cols=size, options={"split": 2})]
    winners = sizes.size_tables(frame(tmp_path, runs), 1.0)["size_winners"]
    assert list(winners["best_pair"]) == [split, split]  # 3/3 solved against 2/3, though CPU ranks first
    assert winners["ratio"].isna().all()  # the runner-up is ranked by CPU time, the winner by wall time


def test_a_control_that_solved_nothing_measures_no_floor(tmp_path):
    runs = [r for r in aa_runs(1.2) if not r["pair"].endswith("~aa")]
    runs += [run(i, A + "~aa", "timeout", 10.5) for i in INSTANCES]  # the copy timed out everywhere
    df = frame(tmp_path, runs)
    tables = metrics.all_tables(df, 1.0)
    assert int(tables["controls"]["instances"].iloc[0]) == 0 and metrics.noise_floors(tables["controls"]) == {}
    assert tables["pairs"].set_index("pair").loc[B, "tie"] == ""  # no floor: the 1.1x stands
    text = headline(df)
    assert f"{A} run twice measured nothing (0 instances solved by both copies)" in text
    assert "noise of CPU time was not measured" in text
