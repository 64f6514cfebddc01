"""The dp's dispatch: each programme's domain as a predicate, the first that takes an instance runs, and the record says why the faster ones did not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.counting import profile, rows
from harness.counting.brute import brute_count
from harness.counting.counters import get_counter
from harness.counting.counters import cluster as cluster_mod
from harness.counting.counters.dp import ENGINES, refusals
from harness.counting.deployment import Deployment, Piece
from harness.counting.format import read_deployment
from harness.counting.geometry import SQUARE
from harness.counting.placements import layout

ROOT = Path(__file__).resolve().parents[2] / "instances" / "deployments"
FULL6 = frozenset((r, c) for r in range(6) for c in range(6))


def _dp(dep, by="deployments"):
    return get_counter("dp")().count(dep, by)


def test_the_order_is_the_fastest_first():
    assert ENGINES == ("cluster", "rows", "profile", "enumerate", "frontier")


@pytest.mark.parametrize("dep, method, refused", [
    # a plain rectangle that may touch: the cluster expansion
    (Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)), Piece("b", SQUARE.straight(2)))), "cluster", {}),
    # a miss: rows
    (Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)), Piece("b", SQUARE.straight(2))),
                misses=frozenset({(0, 0)})), "rows", {"cluster": "without hints or clues"}),
    # no touching with a hit: profile
    (Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)), Piece("b", SQUARE.straight(2))), touching=False,
                hits=frozenset({(2, 2)})), "profile", {"cluster": "without hints", "rows": "may not touch"}),
    # clues: listed
    (Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)),), row_clues=(3, 0, 0, 0, 0, 0)), "enumerate",
     {"cluster": "clues", "rows": "clues", "profile": "clues"}),
    # a shape that is not straight: the frontier (cluster first refuses its hint)
    (Deployment(SQUARE, FULL6, (Piece("L", ((0, 0), (1, 0), (1, 1))),), misses=frozenset({(5, 5)})), "frontier",
     {"cluster": "hints", "rows": "not straight", "profile": "not straight", "enumerate": "no clues"}),
])
def test_the_first_programme_that_takes_the_instance_runs_and_the_record_says_why_not_the_others(dep, method,
                                                                                                  refused):
    answer = _dp(dep)
    assert answer.detail["method"] == method
    assert set(answer.detail["refused"]) == set(refused)
    for name, words in refused.items():
        assert words in answer.detail["refused"][name]
    assert answer.count == brute_count(dep)


def test_a_clued_instance_with_too_many_boards_to_list_goes_to_the_frontier(monkeypatch):
    from harness.counting.counters import dp

    monkeypatch.setattr(dp, "ENUMERATE_MOST", 3)
    dep = Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(2)),), row_clues=(2, None, None, None, None, None))
    answer = _dp(dep)
    assert answer.detail["method"] == "frontier" and "more than 3" in answer.detail["refused"]["enumerate"]
    assert answer.count == brute_count(dep) > 3
    monkeypatch.setattr(dp, "ENUMERATE_MOST", 1000)
    listed = _dp(dep)
    assert listed.detail["method"] == "enumerate" and listed.count == answer.count and listed.complete


def test_more_column_clues_than_the_frontier_holds_are_listed_to_the_end(monkeypatch):
    """15 clued columns: the frontier refuses them; the dp lists every board however many (no cap then)."""
    from harness.counting.counters import dp

    monkeypatch.setattr(dp, "ENUMERATE_MOST", 1)
    cells = frozenset((r, c) for r in range(2) for c in range(15))
    dep = Deployment(SQUARE, cells, (Piece("a", SQUARE.straight(2)),), col_clues=(1, 1) + (0,) * 13)
    assert "column clues" in get_counter("frontier").refuses(dep)
    assert get_counter("dp").refuses(dep) is None
    answer = _dp(dep)
    assert answer.detail["method"] == "enumerate" and answer.complete
    assert answer.count == brute_count(dep) == 2
    assert "column clues" in refusals(dep)["frontier"]


def test_refusals_are_pure_predicates_that_match_each_programme():
    dep = Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)),), touching=False, hits=frozenset({(1, 1)}))
    lay = layout(dep)
    first = refusals(dep, lay)
    assert first == refusals(dep, lay)  # nothing counted, nothing cached that changes the answer
    assert first["frontier"] is None
    assert first["rows"] == rows.unsupported(dep, lay) and first["profile"] == profile.unsupported(dep, lay)


def test_cluster_without_touching_waits_for_its_tables(tmp_path, monkeypatch):
    """A fleet whose no-touch tables are neither shipped nor cached goes to the next programme (the first
    computation costs minutes); once computed (by the cluster counter itself), the dp takes the cluster."""
    monkeypatch.setenv("BATTLEBENCH_CACHE", str(tmp_path))
    dep = Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(2)), Piece("b", SQUARE.straight(1))), touching=False)
    assert not cluster_mod.tables_ready(dep)
    answer = _dp(dep)
    assert answer.detail["method"] == "profile" and "not computed yet" in answer.detail["refused"]["cluster"]
    direct = get_counter("cluster")().count(dep).count
    assert cluster_mod.tables_ready(dep)
    again = _dp(dep)
    assert again.detail["method"] == "cluster" and again.count == direct == answer.count == brute_count(dep)


def test_the_shipped_tables_give_the_seed_numbers_with_an_empty_cache(tmp_path, monkeypatch):
    """The standard fleet's tables are shipped: with nothing cached, no table is computed and the counts are the
    seed's (touching) and issue 15's (no touching, confirmed by the frontier and profile programmes)."""
    monkeypatch.setenv("BATTLEBENCH_CACHE", str(tmp_path))
    cluster_mod.block_table.cache_clear()
    for name in ("standard_10x10", "standard_10x10_notouch_unlabelled", "sweep/sweep_30x30"):
        dep = read_deployment(ROOT / f"{name}.toml")
        assert cluster_mod.tables_ready(dep)
        answer = _dp(dep)
        assert answer.detail["method"] == "cluster" and answer.count == int(dep.meta["expected_count"]), name
    assert not list(tmp_path.rglob("*.json"))  # nothing had to be computed


def test_boards_go_to_a_programme_that_counts_boards():
    dep = read_deployment(ROOT / "tiny" / "t5x5_notouch.toml")
    answer = _dp(dep, "boards")
    assert answer.detail["method"] in ("profile", "frontier")
    assert "boards" in answer.detail["refused"]["rows"] or "not touch" in answer.detail["refused"]["rows"]
    assert answer.count == get_counter("frontier")().count(dep, "boards").count


@pytest.mark.parametrize("path", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tiny").glob("*.toml")))
def test_every_tiny_instance_by_the_dp_is_brute_force(path):
    dep = read_deployment(ROOT / path)
    assert _dp(dep).count == brute_count(dep) == int(dep.meta["expected_count"])


def test_the_count_tasks_warm_up_takes_every_programme_of_the_dp():
    """A worker's warm-up compiles what a run may need: one tiny case per programme, in the dp's order."""
    from harness.tasks.count import _warm_cases

    for dep in _warm_cases():  # whatever tables are on disk (here: every one the cluster could use)
        if cluster_mod.ClusterCounter.refuses(dep) is None:
            get_counter("cluster")().count(dep)
    methods = [_dp(dep).detail["method"] for dep in _warm_cases()]
    assert methods == list(ENGINES)


def test_a_corrupt_table_on_disk_is_computed_again(tmp_path, monkeypatch):
    """A table file that does not parse counts as not there: the cluster computes it again and counts right."""
    monkeypatch.setenv("BATTLEBENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(cluster_mod, "SHIPPED", tmp_path / "nothing shipped")
    dep = Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(2)), Piece("b", SQUARE.straight(3))))
    cluster_mod.block_table.cache_clear()
    right = get_counter("cluster")().count(dep).count
    (table,) = (tmp_path / "cluster").glob("*.json")
    table.write_text('{"table": {"2x')  # cut short
    cluster_mod.block_table.cache_clear()
    assert get_counter("cluster")().count(dep).count == right == brute_count(dep)
    assert "table" in json.loads(table.read_text())  # written again, whole


CATALOGUE = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.toml") if p.name != "MANIFEST.toml")


@pytest.mark.parametrize("path", CATALOGUE)
def test_the_programmes_a_worker_warms_are_those_its_run_uses(path):
    """warm_needs decides, without a layout, which programmes a dp run will use (for counts and marginals): the
    worker compiles only those, so what it guesses must hold on every catalogue instance."""
    from harness.counting.counters.dp import warm_needs
    from harness.counting.marginals import METHODS
    from harness.counting.reduce import without_sunk

    dep = read_deployment(ROOT / path)
    assert _dp(dep).detail["method"] in warm_needs(dep)
    plain, _ = without_sunk(dep)
    lay = layout(plain)
    takes = {"rows": rows.unsupported(plain, lay), "profile": profile.unsupported(plain, lay), "frontier": None}
    first = next(m for m in METHODS if takes[m] is None)
    assert first in warm_needs(dep, marginals=True)


def test_the_programmes_warmed_for_the_warm_cases_are_theirs():
    from harness.counting.counters.dp import warm_needs
    from harness.tasks.count import _warm_cases

    for dep in _warm_cases():
        if cluster_mod.ClusterCounter.refuses(dep) is None:
            get_counter("cluster")().count(dep)
    for engine, dep in zip(ENGINES, _warm_cases()):
        assert engine in warm_needs(dep)
    assert warm_needs(Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)),), row_clues=(3, 0, 0, 0, 0, 0))) \
        == ("enumerate", "frontier")  # past ENUMERATE_MOST boards the frontier counts


def test_a_dp_worker_compiles_only_what_its_runs_need(monkeypatch):
    """The first count of a plain rectangle warms the cluster alone (a fresh machine's first command paid for
    all five programmes' compilation); its worker key names what it warmed, so a run needing another programme
    gets another worker, warmed for that."""
    from harness.counting.counters.dp import DpCounter
    from harness.tasks.count import CountRequest

    ran = []
    count = DpCounter.count

    def recording(self, dep, by="deployments", deadline=None):
        answer = count(self, dep, by, deadline)
        ran.append(answer.detail["method"])
        return answer

    monkeypatch.setattr(DpCounter, "count", recording)
    rectangle = read_deployment(ROOT / "standard_10x10.toml")
    request = CountRequest(rectangle, "dp", "deployments")
    assert request.key() == "count:dp:cluster"
    request.warm()
    assert set(ran) == {"cluster"}
    ran.clear()
    position = Deployment(SQUARE, rectangle.cells, rectangle.pieces, touching=False, misses=frozenset({(0, 0)}))
    other = CountRequest(position, "dp", "deployments")
    assert other.key() == "count:dp:profile" != request.key()
    other.warm()
    assert set(ran) == {"profile"}
    assert CountRequest(rectangle, "frontier", "deployments").key() == "count:frontier"


HANDOFF = r'''
import json, sys
from harness.counting.counters import dp, get_counter
from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import SQUARE
dp.BUDGET_CELLS = int(sys.argv[1])
cells = frozenset((r, c) for r in range(6) for c in range(6))
dep = Deployment(SQUARE, cells, (Piece("a", SQUARE.straight(3)), Piece("b", SQUARE.straight(2), 2)),
                 touching=False, row_clues=(2, None, 3, None, None, 1), col_clues=(None, 2, None, None, 2, None))
out = []
for budget in (0, 1, 2, 5, 10, 20, 50, 100, 10000):
    dp.ENUMERATE_BUDGET = budget
    for by in ("deployments", "boards"):
        for split in (1, 2):
            a = get_counter("dp")(split=split).count(dep, by)
            out.append([budget, by, a.count, a.complete, a.detail.get("listed_by"), "handoff" in a.detail,
                        split, a.detail.get("cpsat", {}).get("split")])
print("RESULT " + json.dumps(out))
'''


def _handoff(budget_cells: int) -> list:
    import sys

    from procs import run

    # no wall-clock deadline: the child compiles and counts for minutes on a loaded machine
    proc = run([sys.executable, "-c", HANDOFF, str(budget_cells)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.split("RESULT ", 1)[1])


def test_boards_beyond_cadicals_budget_are_listed_by_cpsat_without_counting_one_twice():
    """The handoff at every budget, by deployments and by boards: the same count as brute force, the boards
    split between the two listers (some budget splits them both ways: were the boards found not excluded,
    CP-SAT would list them again and the count would grow).  In a child process: no ortools in pytest's."""
    from harness.counting.counters.dp import BUDGET_CELLS

    dep = Deployment(SQUARE, FULL6, (Piece("a", SQUARE.straight(3)), Piece("b", SQUARE.straight(2), 2)),
                     touching=False, row_clues=(2, None, 3, None, None, 1), col_clues=(None, 2, None, None, 2, None))
    assert len(FULL6) < BUDGET_CELLS  # a board this small is listed by CaDiCaL alone by default
    truth = {by: brute_count(dep, by) for by in ("deployments", "boards")}
    assert truth["deployments"] > 2
    rows_ = _handoff(0)
    mixed = False
    for budget, by, count, complete, listed_by, handed, split, cubes in rows_:
        assert complete and count == truth[by], (budget, by, split, count)
        if handed:
            assert sum(listed_by.values()) == count
            mixed |= listed_by["cadical195"] > 0 and listed_by["cpsat"] > 0
            assert (cubes is not None and "2 searches at once" in cubes) == (split == 2), (split, cubes)
    assert mixed, rows_
    assert rows_[-1][5] is False  # 10,000 conflicts: CaDiCaL lists them all
    assert not any(row[5] for row in _handoff(10_000))  # below BUDGET_CELLS: never handed off
