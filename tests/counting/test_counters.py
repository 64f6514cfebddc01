"""Every registered counter against brute force on tiny instances, both semantics; each refuses only what its
``refuses()`` predicate says it does.

Like every solver test here, no solver library is imported into the pytest process:
one child process runs every counter on every instance (this file's ``_count_all``) and
reports the counts; the ground truth (:func:`~harness.counting.brute.brute_count`) is
computed here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from harness.counting.brute import brute_count
from harness.counting.counters import BY, COUNTERS, FAMILY, CountAnswer, Unsupported, get_counter
from harness.counting.deployment import Deployment, Piece
from harness.counting.geometry import HEX, SQUARE

MINE = tuple(FAMILY.names())  # every registered counter: built-ins and installed entry points
SOLVER_LIBS = ("ortools", "pysat", "pyganak", "xcover", "numba")
L3 = ((0, 0), (1, 0), (1, 1))  # an L tromino


def _square(rows: int, cols: int, holes=()) -> frozenset:
    return frozenset((r, c) for r in range(rows) for c in range(cols)) - set(holes)


def _hexagon(radius: int) -> frozenset:
    return frozenset((x, y, -x - y) for x in range(-radius, radius + 1) for y in range(-radius, radius + 1)
                     if abs(x + y) <= radius)


def _fleet(grid, *spec) -> tuple[Piece, ...]:
    return tuple(Piece(name, grid.straight(n) if isinstance(n, int) else n, k) for name, n, k in spec)


SMALL = _fleet(SQUARE, ("A", 3, 1), ("B", 2, 2))
STANDARD = _fleet(SQUARE, ("Carrier", 5, 1), ("Battleship", 4, 1), ("Submarine", 3, 1), ("Cruiser", 3, 1),
                  ("Destroyer", 2, 1))

INSTANCES = {
    "4x4": Deployment(SQUARE, _square(4, 4), SMALL),
    "4x5-apart": Deployment(SQUARE, _square(4, 5), SMALL, touching=False),
    "4x4-same-shapes": Deployment(SQUARE, _square(4, 4), _fleet(SQUARE, ("Sub", 3, 1), ("Cru", 3, 1), ("D", 2, 1))),
    "4x4-three-copies": Deployment(SQUARE, _square(4, 4), _fleet(SQUARE, ("B", 2, 3), ("S", 1, 1))),
    "holes-L": Deployment(SQUARE, _square(4, 5, {(1, 1), (2, 3)}),
                          _fleet(SQUARE, ("L", L3, 1), ("A", 3, 1), ("B", 2, 1))),
    "holes-L-reflect-apart": Deployment(SQUARE, _square(4, 5, {(1, 1), (2, 3)}),
                                        _fleet(SQUARE, ("L", L3, 1), ("B", 2, 2)), touching=False, reflections=True),
    "hex": Deployment(HEX, _hexagon(2), _fleet(HEX, ("A", 3, 1), ("B", 2, 2))),
    "hex-holed-apart": Deployment(HEX, _hexagon(2) - {(0, 0, 0)}, _fleet(HEX, ("A", 3, 1), ("B", 2, 2)),
                                  touching=False),
    "hints-apart": Deployment(SQUARE, _square(5, 5), _fleet(SQUARE, ("A", 3, 1), ("C", 3, 1), ("D", 2, 1)),
                              touching=False, misses={(2, 2), (0, 4)}, hits={(4, 1)},
                              sunk={"D": ((0, 0), (0, 1))}, announce_sinks=True),
    "hints-touching": Deployment(SQUARE, _square(5, 5), _fleet(SQUARE, ("A", 3, 1), ("C", 3, 1), ("B", 2, 2)),
                                 misses={(1, 1)}, hits={(2, 1), (2, 2), (2, 3), (4, 4)}, sunk_at={"C": (2, 3)}),
    "hits-only": Deployment(SQUARE, _square(4, 5), SMALL, hits={(0, 0), (3, 4)}),
    "clues": Deployment(SQUARE, _square(5, 5), SMALL, row_clues=(2, None, 3, None, 0),
                        col_clues=(None, 1, None, 3, None)),
    "clues-apart": Deployment(SQUARE, _square(5, 5), SMALL, touching=False, row_clues=(None, 2, None, None, 3)),
    "fits-nowhere": Deployment(SQUARE, _square(4, 4), _fleet(SQUARE, ("Long", 5, 1), ("B", 2, 1))),
    "hit-uncoverable": Deployment(SQUARE, _square(4, 4), SMALL, misses={(0, 1), (1, 0)}, hits={(0, 0)}),
    "too-many-copies": Deployment(SQUARE, _square(3, 3), _fleet(SQUARE, ("B", 3, 4))),
}
STANDARD_6X6 = Deployment(SQUARE, _square(6, 6), STANDARD)
# Ganak's tree decomposition costs a second or more per formula, so sharpsat counts a subset that
# still has every rule (its CNF is the sat counter's, checked on every instance).
SHARPSAT_ON = {"4x4", "4x4-same-shapes", "hex-holed-apart", "hints-apart", "hints-touching", "clues", "clues-apart",
               "fits-nowhere", "hit-uncoverable", "too-many-copies"}
CASES = [(name, by) for name in INSTANCES for by in BY]
SPLITS = (2, 3)


def _count_all(names: list[str]) -> dict:
    """In a child: these counters on every instance, both semantics, plus early stops and what importing loaded."""
    loaded_before = set(sys.modules)
    classes = {name: get_counter(name) for name in names}
    out: dict = {"imports": sorted(m for m in set(sys.modules) - loaded_before if m.split(".")[0] in SOLVER_LIBS)}
    out["available"] = {name: cls.available() for name, cls in classes.items()}
    for inst, dep in INSTANCES.items():
        for by in BY:
            for name, cls in classes.items():
                if name == "sharpsat" and inst not in SHARPSAT_ON:
                    continue
                try:
                    answer = cls().count(dep, by)
                    out[f"{inst}|{by}|{name}"] = [answer.count, answer.complete]
                except Unsupported as exc:
                    out[f"{inst}|{by}|{name}"] = f"unsupported: {exc}"
    for name in {"dlx", "sat", "cpsat"} & set(names):
        answer = classes[name]().count(STANDARD_6X6, "deployments", deadline=time.monotonic())
        out[f"deadline|{name}"] = [answer.count, answer.complete]
    if "cpsat" in names:  # the split: several searches at once over disjoint cubes
        for split in SPLITS:
            for inst, dep in INSTANCES.items():
                for by in BY:
                    answer = classes["cpsat"](split=split).count(dep, by)
                    out[f"{inst}|{by}|cpsat-split{split}"] = [answer.count, answer.complete,
                                                              answer.detail.get("split")]
        answer = classes["cpsat"](split=2).count(STANDARD_6X6, "deployments", deadline=time.monotonic())
        out["deadline|cpsat-split2"] = [answer.count, answer.complete]
    return out


@pytest.fixture(scope="module")
def counted() -> dict:
    """Two children at once: Ganak (its tree decomposition costs seconds per formula) and the rest."""
    from procs import communicate  # here: the children run this module, and tests/ is not on their path

    code = ("import json, runpy, sys; ns = runpy.run_path(sys.argv[1]); "
            "print('RESULT ' + json.dumps(ns['_count_all'](sys.argv[2:])))")
    groups = [["sharpsat"], [n for n in MINE if n != "sharpsat"]]
    procs = [subprocess.Popen([sys.executable, "-c", code, __file__, *names], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for names in groups]
    out: dict = {"imports": [], "available": {}}
    try:
        for proc in procs:
            stdout, stderr = communicate(proc)  # no wall-clock deadline: at load 20 these take many minutes
            assert proc.returncode == 0, stderr[-3000:]
            line = next(x for x in stdout.splitlines() if x.startswith("RESULT "))
            part = json.loads(line[len("RESULT "):])
            out["imports"] += part.pop("imports")
            out["available"].update(part.pop("available"))
            out.update(part)
    finally:  # one child failing leaves no other running, nor its pipes open (a later test's unraisable warnings)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
    return out


def test_registry_names_these_counters_and_importing_them_loads_no_solver(counted):
    assert set(COUNTERS) <= set(MINE)
    assert counted["imports"] == []
    assert all(v is None for v in counted["available"].values()), counted["available"]


@pytest.mark.parametrize("inst,by", CASES, ids=[f"{i}-{b}" for i, b in CASES])
def test_counters_agree_with_brute_force(counted, inst, by):
    truth = brute_count(INSTANCES[inst], by)
    answers = {name: counted[f"{inst}|{by}|{name}"] for name in MINE if f"{inst}|{by}|{name}" in counted}
    assert len(answers) == len(MINE) - (inst not in SHARPSAT_ON)
    supported = {name: a for name, a in answers.items() if not isinstance(a, str)}
    assert {name: a for name, a in supported.items() if a != [truth, True]} == {}, (truth, answers)
    expected_unsupported = {name for name in answers if get_counter(name).refuses(INSTANCES[inst], by)}
    assert set(answers) - set(supported) == expected_unsupported, answers


def test_the_instances_are_not_trivial():
    """Distinct names, identical copies and both semantics are really exercised."""
    assert brute_count(INSTANCES["4x4-same-shapes"], "boards") < brute_count(INSTANCES["4x4-same-shapes"])
    assert brute_count(INSTANCES["4x4"], "boards") < brute_count(INSTANCES["4x4"])
    for name in ("fits-nowhere", "hit-uncoverable", "too-many-copies"):
        assert brute_count(INSTANCES[name]) == 0
    assert all(brute_count(INSTANCES[n]) > 0 for n in INSTANCES if n not in
               ("fits-nowhere", "hit-uncoverable", "too-many-copies"))


def test_a_piece_fitting_nowhere_counts_zero(counted):
    for name in MINE:
        for by in BY:
            answer = counted[f"fits-nowhere|{by}|{name}"]
            refused = get_counter(name).refuses(INSTANCES["fits-nowhere"], by)
            assert answer == [0, True] or (refused and answer.startswith("unsupported")), (name, by, answer)


def test_unsupported_where_documented(counted):
    assert counted["4x4|boards|dlx"].startswith("unsupported: the dlx counter counts by deployments")
    assert counted["clues|deployments|dlx"].startswith("unsupported: dlx counts without clues")


def test_dlx_refuses_clues_and_boards_before_importing_anything():
    with pytest.raises(Unsupported):
        get_counter("dlx")().count(INSTANCES["4x4"], "boards")
    with pytest.raises(Unsupported):
        get_counter("dlx")().count(INSTANCES["clues"])


def test_brute_counter_past_its_limit_is_unsupported(monkeypatch):
    import harness.counting.brute as brute

    monkeypatch.setattr(brute, "brute_count", lambda dep, by: brute_count(dep, by, limit=10))
    with pytest.raises(Unsupported, match="too many for brute force"):
        get_counter("brute")().count(INSTANCES["4x4"])
    assert get_counter("brute")().count(INSTANCES["fits-nowhere"]) == CountAnswer(0, True, {})


def test_a_passed_deadline_stops_the_enumerating_counters(counted):
    for name in ("dlx", "sat", "cpsat"):
        total, complete = counted[f"deadline|{name}"]
        assert complete is False and 0 <= total < 6_687_136, (name, total)


@pytest.mark.parametrize("split", SPLITS)
def test_the_cpsat_split_counts_what_brute_force_counts(counted, split):
    """Several searches at once over disjoint cubes: each instance's count by deployments and by boards is brute
    force's (a cube counted twice, or one left out, would change some count), searched in cubes."""
    wrong, cut = {}, 0
    for inst, dep in INSTANCES.items():
        for by in BY:
            count, complete, how = counted[f"{inst}|{by}|cpsat-split{split}"]
            if [count, complete] != [brute_count(dep, by), True]:
                wrong[inst, by] = (count, complete, brute_count(dep, by))
            cut += how is not None and f"{split} searches at once" in how
    assert wrong == {}
    assert cut > len(INSTANCES)  # most instances were really split (the empty ones end before any search)


def test_the_split_stops_at_a_passed_deadline(counted):
    total, complete = counted["deadline|cpsat-split2"]
    assert complete is False and 0 <= total < 6_687_136


@pytest.mark.parametrize("inst", sorted(INSTANCES))
def test_the_cubes_of_a_split_hold_every_deployment_exactly_once(inst):
    """Disjoint and exhaustive, whatever their number: each brute-force deployment meets exactly one cube."""
    from harness.counting.brute import _deployments
    from harness.counting.counters.cpsat import cubes
    from harness.counting.placements import layout

    dep = INSTANCES[inst]
    lay = layout(dep)
    every = [frozenset(chosen) for chosen, _ in _deployments(dep, lay)]

    def meets(cube, placed) -> bool:
        return all(any(kp in placed for kp in keys) if kind == "some" else
                   all((kp in placed) == (kind == "all") for kp in keys) for kind, keys in cube)

    for n in (1, 2, 3, 5, 8, 40):
        cut = cubes(lay, n)
        assert 1 <= len(cut) <= max(n, 1)
        for placed in every:
            assert sum(meets(cube, placed) for cube in cut) == 1, (n, sorted(placed))
