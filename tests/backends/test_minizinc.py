"""The minizinc backend (own MiniZinc models, Gecode by default): counts, modes, options, limits.

Skipped, with the reason ``available()`` gives, where MiniZinc is not installed.  Solves go
through the ``isolated`` worker like every backend test, but one: the count of compilations runs
in this process (the pytest process otherwise only asks the ``minizinc`` executable for its
solver list, for option checks).
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Question, Termination
from harness.errors import UsageError
from harness.model import build_model
from harness.puzzle.brute import enumerate_boards
from harness.puzzle.formats import read_instance
from harness.tasks.solve.run import solve_in_process
from tiny import BY_NAME, MANY, SOLVER_UNSAT, assert_sound, truth

BACKEND = get_backend("minizinc")
MISSING = BACKEND.available()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

FORMULATIONS = ("placement", "cell")
MODES = ("all", "blocking")
SOLBAT = Path(__file__).resolve().parents[2] / "instances" / "solbat"
# every rule once: hints of each kind, zero-count lengths, one-line boards, unknown clues (the
# whole catalogue runs in tests/test_conformance.py, with the default enumeration)
CASES = MANY + SOLVER_UNSAT + [BY_NAME[n] for n in (
    "piece-hints", "middle-zero-row", "vertical-ends", "right-and-middle", "clued-with-hints",
    "non-square-ship-hint", "zero-count-length", "one-column", "touching-hints")]


def _calls(detail: str) -> int:
    m = re.search(r"blocking: (\d+) MiniZinc call", detail)
    assert m, detail
    return int(m.group(1))


def test_declared_options():
    assert BACKEND.formulations == FORMULATIONS
    opts = BACKEND.resolve_options({})
    assert (opts["solver"], opts["enumeration"], opts["threads"], opts["seed"]) == ("gecode", "all", 1, 0)
    assert BACKEND.resolve_options({"solver": "org.gecode.gecode"})["solver"] == "org.gecode.gecode"
    with pytest.raises(UsageError):
        BACKEND.resolve_options({"enumeration": "callback"})


def test_unknown_solver_is_a_usage_error_naming_it_and_the_installed_ones(isolated):
    with pytest.raises(UsageError) as err:
        BACKEND.resolve_options({"solver": "no-such-solver"})
    text = str(err.value)
    assert "no-such-solver" in text and "gecode" in text and "\n" not in text
    with pytest.raises(UsageError, match="no-such-solver"):  # refused before any worker runs
        isolated.solve(BY_NAME["one-cell"], "minizinc", "placement", Question(), {"solver": "no-such-solver"}, 10)


def test_a_listed_solver_that_cannot_run_is_refused():
    listed = json.loads(subprocess.run([shutil.which("minizinc"), "--solvers-json"], capture_output=True,
                                       text=True, check=True).stdout)
    broken = [s["id"] for s in listed if s.get("requiredFlags") or s.get("isGUIApplication")]
    if not broken:
        pytest.skip("MiniZinc lists no solver here that it cannot run")
    for solver_id in broken:
        with pytest.raises(UsageError, match="cannot run here"):
            BACKEND.resolve_options({"solver": solver_id})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_counts_equal_brute_force(isolated, formulation, mode):
    for inst in CASES:
        # a generous limit: blocking starts MiniZinc once per board, which a loaded machine makes slow
        res = isolated.solve(inst, "minizinc", formulation, Question.count(0), {"enumeration": mode}, 900)
        assert_sound(res, inst)
        assert res.complete and {b.cells for b in res.boards} == truth(inst.name), (inst.name, res.detail)
        if mode == "blocking" or inst.touching:  # one call per board, and one proving there is no more
            assert "blocking:" in res.detail and _calls(res.detail) == res.count + 1, (inst.name, res.detail)
        else:
            assert "all: 1 MiniZinc call (--all-solutions)" in res.detail, (inst.name, res.detail)


def _decompositions(inst) -> Counter:
    """Ship-cell set -> number of fleet deployments drawing it (brute force over placements)."""
    m = build_model(inst)
    per_length = [itertools.combinations(m.by_length[L], n) for L, n in m.fleet.items()]
    out: Counter = Counter()
    for combo in itertools.product(*per_length):
        chosen = [i for group in combo for i in group]
        cells = [c for i in chosen for c in m.placements[i].cells]
        if len(cells) == len(set(cells)):
            out[frozenset(cells)] += 1
    return out


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_touching_boards_come_once_each(isolated, formulation):
    """With touching one cell set can be several deployments; each board still comes once."""
    inst = BY_NAME["one-row-touching"]
    ways = _decompositions(inst)
    assert set(ways) == truth(inst.name) and max(ways.values()) > 1  # the premise: several decompositions
    for k in (0, 2):
        res = isolated.solve(inst, "minizinc", formulation, Question.count(k), {"enumeration": "all"}, 60)
        assert_sound(res, inst)
        want = len(ways) if k == 0 else 2
        assert res.count == want and "blocking:" in res.detail, res.detail
        # every call but a final exhausting one returned a board not seen before
        assert _calls(res.detail) == res.count + (1 if k == 0 else 0), res.detail


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_count_two_and_solve(isolated, formulation, mode):
    for inst in MANY + SOLVER_UNSAT + [BY_NAME["clued-with-hints"], BY_NAME["touching-hints"]]:
        n = len(truth(inst.name))  # many, unique, none; with and without touching
        res = isolated.solve(inst, "minizinc", formulation, Question.count(2), {"enumeration": mode}, 60)
        assert_sound(res, inst)
        assert res.count == min(n, 2) and res.complete == (n < 2), (inst.name, res.detail)
        one = isolated.solve(inst, "minizinc", formulation, Question(), {"enumeration": mode}, 60)
        assert one.status is (Status.SAT if n else Status.UNSAT) and one.count == min(n, 1), inst.name


@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_unsat_is_proved_by_the_solver(isolated, formulation):
    for inst in SOLVER_UNSAT:
        res = isolated.solve(inst, "minizinc", formulation, Question(), {}, 60)
        assert res.status is Status.UNSAT and res.complete, (res.error, res.detail)
        assert "precheck" not in res.detail and res.model["variables"] > 0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_time_limit_is_honoured(isolated, formulation, mode):
    """Gecode finds no board of sb_15_15_7_0 in 20 s: a 2 s limit must stop the backend itself."""
    inst = read_instance(SOLBAT / "sb_15_15_7_0.toml")
    res = isolated.solve(inst, "minizinc", formulation, Question.count(0), {"enumeration": mode}, 2.0)
    assert res.status is Status.TIMEOUT and res.termination is Termination.SOLVER_LIMIT, (res.error, res.detail)
    assert not res.complete and res.times["cpu_s"] < 2.0 + 3, res.times  # CPU: a loaded machine's waiting is not work
    assert all(v.startswith("ok") for v in res.verdicts)


def test_versions_size_and_reported_time(isolated):
    inst = read_instance(SOLBAT / "sb_12_12_5_0.toml")
    res = isolated.solve(inst, "minizinc", "placement", Question.count(2), {}, 60)
    assert res.status is Status.SAT and res.count == 2 and not res.complete, res.detail
    assert re.fullmatch(r"\d+\.\d+\.\d+", res.versions["minizinc"]) and res.versions.get("gecode"), res.versions
    assert res.detail.startswith(f"org.gecode.gecode@{res.versions['gecode']}, all: 1 MiniZinc call (--num-solutions 2)")
    assert res.model["variables"] > 0 and res.model["constraints"] > 0
    assert res.solver_reported_s is not None and res.solver_reported_s > 0


@pytest.mark.parametrize("options", [{"threads": 2}, {"seed": 7}], ids=["threads=2", "seed=7"])
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_threads_and_seed_keep_the_count(isolated, formulation, options):
    inst = read_instance(SOLBAT / "sb_12_12_5_0.toml")
    res = isolated.solve(inst, "minizinc", formulation, Question.count(0), options, 120)
    assert res.status is Status.SAT and res.complete and res.count == 51, res.detail
    assert all(v.startswith("ok") for v in res.verdicts)


@pytest.fixture
def logged_minizinc(tmp_path, monkeypatch):
    """``minizinc`` on PATH is a script that logs its arguments, one call a line, then runs the real one."""
    real = shutil.which("minizinc")
    log = tmp_path / "calls.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "minizinc"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(real).parent}")
    return log


@pytest.mark.parametrize("formulation", FORMULATIONS)
@pytest.mark.parametrize(("question", "mode"), [(Question(), "all"), (Question.count(0), "all"),
                                                (Question.count(0), "blocking")], ids=["solve", "all", "blocking"])
def test_one_compilation_per_run(logged_minizinc, formulation, question, mode):
    """The model is compiled once (``minizinc -c``); every solver call runs that FlatZinc, none reads the model.

    In this process, so that the logging ``minizinc`` is surely the one found (the minizinc
    package is not imported by a build or a solve).
    """
    inst = MANY[0]
    res = solve_in_process(inst, "minizinc", formulation, question, {"enumeration": mode}, 120)
    assert_sound(res, inst)
    assert res.count == (1 if question == Question() else len(truth(inst.name))), res.detail
    calls = logged_minizinc.read_text().splitlines()
    with_model = [c for c in calls if f"{formulation}.mzn" in c]
    assert len(with_model) == 1 and " -c " in f" {with_model[0]} ", (calls, res.detail)
    runs = [c for c in calls if c.endswith(".fzn")]
    assert len(runs) == (_calls(res.detail) if "blocking:" in res.detail else 1), (calls, res.detail)


SMOKE = Path(__file__).resolve().parents[2] / "instances" / "smoke"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("formulation", FORMULATIONS)
def test_counts_equal_the_known_counts(isolated, formulation, mode):
    """The smoke puzzles (the brute-force enumerator's counts) and a solbat puzzle of 51 boards, counted in full."""
    known = {path: len(enumerate_boards(read_instance(path))) for path in sorted(SMOKE.glob("*.toml"))}
    known[SOLBAT / "sb_12_12_5_0.toml"] = 51
    for path, want in known.items():
        inst = read_instance(path)
        res = isolated.solve(inst, "minizinc", formulation, Question.count(0), {"enumeration": mode}, 900)
        assert_sound(res, inst)
        assert res.complete and res.count == want, (path.name, res.detail)
        if mode == "blocking" and "precheck" not in res.detail:  # unsat_hint_5x5: the model precheck decides it
            assert _calls(res.detail) == want + 1, (path.name, res.detail)


# (variables, constraints) the backend reported when it compiled the model twice (MiniZinc 2.6.4, Gecode 6.2.0)
OLD_SIZES = {
    ("nonsquare_4x6", "placement"): (58, 55), ("nonsquare_4x6", "cell"): (391, 649),
    ("tiny_4x4", "placement"): (16, 19), ("tiny_4x4", "cell"): (212, 285),
    ("unknown_clues_5x5", "placement"): (58, 51), ("unknown_clues_5x5", "cell"): (405, 606),
    ("sb_12_12_5_0", "placement"): (748, 510), ("sb_12_12_5_0", "cell"): (3244, 5388),
}


def test_sizes_equal_the_old_sizes(isolated):
    res = isolated.solve(BY_NAME["one-cell"], "minizinc", "placement", Question(), {}, 60)
    if (res.versions.get("minizinc"), res.versions.get("gecode")) != ("2.6.4", "6.2.0"):
        pytest.skip(f"sizes recorded with MiniZinc 2.6.4 and Gecode 6.2.0, not {res.versions}")
    for (name, formulation), size in OLD_SIZES.items():
        path = SMOKE / f"{name}.toml" if (SMOKE / f"{name}.toml").exists() else SOLBAT / f"{name}.toml"
        res = isolated.solve(read_instance(path), "minizinc", formulation, Question(), {}, 120)
        assert (res.model["variables"], res.model["constraints"]) == size, (name, formulation, res.model)
