"""The tool backend: solver binaries on standard files — the built-in tools against brute force, a user's tool entry,
and tools that misbehave (garbage, no answer, a false model, past the limit, not installed).

Runs here are measured by the process path (``measure=process``): runexec adds cgroups and BenchExec's 0.1 s
settling read of the CPU time to every call and has tests of its own (``tests/tools/test_runexec.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.backends.registry import get_backend
from harness.core.status import Status, Question
from harness.errors import BackendError, UsageError
from harness.tools import builtin_tools, find_tool, load_tools
from harness.tools.parsers import minisat_file, sat_competition
from tiny import BY_NAME, MANY, SOLVER_UNSAT, assert_sound, truth
from procs import gone

BUILTIN = sorted(builtin_tools())


def _script(tmp: Path, name: str, body: str) -> Path:
    path = tmp / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return path


def _tool_file(tmp: Path, name: str, command: list[str], output: str = "sat-competition", fmt: str = "cnf") -> Path:
    path = tmp / f"{name}.toml"
    quoted = ", ".join(f'"{a}"' for a in command)
    path.write_text(f'[tools.{name}]\nformat = "{fmt}"\ncommand = [{quoted}]\noutput = "{output}"\n'
                    f'version = ["{command[0]}", "--version"]\ninstall = "pip install nothing-here"\n')
    return path


# A user's tool with no code in the harness: a script that solves DIMACS with python-sat and prints the SAT
# competition's lines (what any solver binary would do).
USER_SAT = """
import sys
if sys.argv[1] == "--version":
    print("usersat 0.7"); sys.exit(0)
from pysat.formula import CNF
from pysat.solvers import Solver
cnf = CNF(from_file=sys.argv[1])
with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
    if s.solve():
        print("s SATISFIABLE"); print("v " + " ".join(map(str, s.get_model())) + " 0"); sys.exit(10)
    print("s UNSATISFIABLE"); sys.exit(20)
"""


# every built-in tool by blocking; the tools with an enumeration of their own by it too.  The slow starters (ACE: a
# JVM per call; the SMT and MIP solvers on the cell formulation's CNF as rows) count the puzzles with few boards
ENUMERATING = sorted(name for name, t in builtin_tools().items() if t.enumerate)
MODES = [(t, "blocking") for t in BUILTIN] + [(t, "own") for t in ENUMERATING]
SLOW = {"ace", "z3", "cvc5", "cbc", "cbc-mps"}


@pytest.mark.parametrize(("tool", "mode"), MODES)
def test_each_builtin_tool_counts_every_tiny_puzzle_exactly(isolated, tool, mode):
    missing = find_tool(tool).missing()
    if missing:
        pytest.skip(missing)
    cases = MANY[:6] + SOLVER_UNSAT[:2] + [BY_NAME["touching-hints"]]
    if tool in SLOW:  # the puzzles with at most 6 boards: one with touching ships, one unsat among them
        cases = [i for i in cases if len(truth(i.name)) <= 6]
        assert any(i.touching for i in cases) and any(not truth(i.name) for i in cases)
    for formulation in ("placement", "cell"):
        for inst in cases:
            res = isolated.solve(inst, "tool", formulation, Question.count(0), {"measure": "process", "tool": tool, "enumeration": mode}, 60)
            assert_sound(res, inst)
            assert {b.cells for b in res.boards} == truth(inst.name), (tool, formulation, inst.name, res.detail)
            said = "runs, blocking" if mode == "blocking" else "the tool's own enumeration"
            assert res.complete and f"{tool} " in res.detail and said in res.detail, res.detail


@pytest.mark.parametrize("tool", ENUMERATING)
def test_a_tool_enumerating_k_boards_stops_at_k_and_never_claims_more(isolated, tool):
    if find_tool(tool).missing():
        pytest.skip(find_tool(tool).missing())
    inst = max(MANY[:6], key=lambda i: len(truth(i.name)))
    assert len(truth(inst.name)) > 2
    for formulation in ("placement", "cell"):
        res = isolated.solve(inst, "tool", formulation, Question.count(2), {"measure": "process", "tool": tool}, 60)
        assert_sound(res, inst)
        assert len(res.boards) == 2 and not res.complete and len({b.cells for b in res.boards}) == 2
        assert {b.cells for b in res.boards} <= truth(inst.name)


@pytest.mark.parametrize("tool", BUILTIN)
def test_the_record_names_the_tool_and_the_version_it_prints(isolated, tool):
    entry = find_tool(tool)
    if entry.missing():
        pytest.skip(entry.missing())
    res = isolated.solve(BY_NAME["touching-hints"], "tool", "placement", Question.count(2), {"measure": "process", "tool": tool}, 60)
    printed = subprocess.run(entry.version_argv(), capture_output=True, text=True).stdout
    assert res.versions[tool] == entry.version_of() and entry.version_of() in printed
    # the tool that ran, not every tool installed (measure=process: no benchexec)
    assert set(res.versions) == {"battlebench", "python", "python-sat", tool}, res.versions


def test_a_users_tool_entry_runs_with_no_code(isolated, tmp_path):
    script = _script(tmp_path, "usersat", USER_SAT)
    tool_file = _tool_file(tmp_path, "usersat", [str(script), "{file}"])
    for inst in MANY[:4] + SOLVER_UNSAT[:1]:
        res = isolated.solve(inst, "tool", "placement", Question.count(0), {"measure": "process", "tool": "usersat", "tool_file": str(tool_file)},
                             60)
        assert_sound(res, inst)
        assert {b.cells for b in res.boards} == truth(inst.name)
        assert f"({tool_file})" in res.detail  # where the entry came from
        assert set(res.versions) == {"battlebench", "python", "python-sat", "usersat"}  # the one tool that ran
        assert res.versions["usersat"] == "usersat"  # the entry's version command, read by its default pattern


@pytest.mark.parametrize("body, words", [
    ("print('hello, I am a solver')", "no 's' line"),
    ("import sys; sys.exit(3)", "exit code 3"),
    ("print('s SATISFIABLE')", "no model"),
    ("print('s MAYBE')", "no SAT answer"),
    ("print('s SATISFIABLE'); print('v 1 x2 0')", "not a literal"),
    ("print('s SATISFIABLE'); print('v 999999 0')", "outside the file"),
    ("import sys; n = int(open(sys.argv[1]).read().split('p cnf ')[1].split()[0]);"
     "print('s SATISFIABLE'); print('v ' + ' '.join(str(-v) for v in range(1, n + 1)) + ' 0')", "not a model"),
    ("import sys; sys.stderr.write('Segmentation fault\\n'); sys.exit(139)", "Segmentation fault"),
])
def test_a_tool_that_misbehaves_is_an_error_run_saying_why(isolated, tmp_path, body, words):
    script = _script(tmp_path, "bad", body)
    tool_file = _tool_file(tmp_path, "bad", [str(script), "{file}"])
    res = isolated.solve(MANY[0], "tool", "placement", Question.count(0), {"measure": "process", "tool": "bad", "tool_file": str(tool_file)},
                         30)
    assert res.status is Status.ERROR and words in res.error and "\n" not in res.error.strip(), res.error


def test_a_tool_that_ignores_its_limit_is_killed_with_its_children_and_the_run_is_a_timeout(isolated, tmp_path):
    marker = tmp_path / "pids"
    body = (f"import os, subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
            f"open({str(marker)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
            f"import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            f"time.sleep(120)\n")
    script = _script(tmp_path, "stubborn", body)
    tool_file = _tool_file(tmp_path, "stubborn", [str(script), "{file}"])
    started = time.monotonic()
    res = isolated.solve(MANY[0], "tool", "placement", Question.count(0), {"measure": "process", "tool": "stubborn", "tool_file": str(tool_file)},
                         2.0)
    assert res.status is Status.TIMEOUT and time.monotonic() - started < 60
    assert gone(*map(int, marker.read_text().split())), "the tool or its child outlived the run"


def test_a_tool_not_installed_is_one_line_with_its_install_line_before_any_run(tmp_path):
    tool_file = _tool_file(tmp_path, "ghost", [str(tmp_path / "no-such-solver"), "{file}"])
    with pytest.raises(UsageError, match="not installed.*pip install nothing-here"):
        get_backend("tool").resolve_options({"measure": "process", "tool": "ghost", "tool_file": str(tool_file)})
    with pytest.raises(UsageError, match="no tool named 'nosuch'"):
        get_backend("tool").resolve_options({"measure": "process", "tool": "nosuch"})


@pytest.mark.parametrize("text, words", [
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x', '{file}']\n", "missing field 'output'"),
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x', '{file}']\noutput = 'sat-competition'\nflavour = 1\n",
     "unknown field 'flavour'"),
    ("[tools.x]\nformat = 'wav'\ncommand = ['x', '{file}']\noutput = 'sat-competition'\n", "format 'wav'"),
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x', '{file}']\noutput = 'poetry'\n", "names no parser"),
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x']\noutput = 'sat-competition'\n", "no {file}"),
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x', '{file}', '{cores}']\noutput = 'sat-competition'\n",
     "placeholder {cores}"),
    ("[tools.x]\nformat = 'cnf'\ncommand = 'x {file}'\noutput = 'sat-competition'\n", "argument vector"),
    ("[tools.x\n", "not valid TOML"),
    ("[tools.x]\nformat = 'asp'\ncommand = ['x', '{file}']\noutput = 'clingo-json'\nenumerate = ['-n', '{k}']\n",
     "go together"),
    ("[tools.x]\nformat = 'asp'\ncommand = ['x', '{file}']\noutput = 'clingo-json'\nenumerate = ['-n', '3']\n"
     "enumerate_all = ['-n', '0']\n", "enumerate has no {k}"),
    ("[tools.x]\nformat = 'cnf'\ncommand = ['x', '{file}', '{k}']\noutput = 'sat-competition'\n",
     "placeholder {k}"),
])
def test_a_bad_tool_file_is_one_line_naming_the_file_the_tool_and_the_problem(tmp_path, text, words):
    path = tmp_path / "tools.toml"
    path.write_text(text)
    with pytest.raises(UsageError) as err:
        load_tools(path)
    assert str(path) in str(err.value) and words in str(err.value) and "\n" not in str(err.value)


def test_the_parsers_read_the_fields_formats_and_refuse_the_rest():
    assert sat_competition("c hi\ns SATISFIABLE\nv 1 -2\nv 3 0\n").literals == [1, -2, 3]
    assert sat_competition("s UNSATISFIABLE\n").result == "unsat"
    assert sat_competition("s UNKNOWN\n").result == "unknown"
    assert minisat_file("", "SAT\n-1 2 0\n").literals == [-1, 2]
    assert minisat_file("", "UNSAT\n").result == "unsat"
    for stdout, out in (("", ""), ("", "MAYBE\n"), ("", "SAT\n")):
        with pytest.raises(BackendError):
            minisat_file(stdout, out)
    with pytest.raises(BackendError, match="two 's' lines"):
        sat_competition("s SATISFIABLE\ns UNSATISFIABLE\n")


@pytest.mark.parametrize("parser, stdout, out, words", [
    ("highs-solution", "", "", "no solution file"),
    ("highs-solution", "", "Model status\nOptimal\n", "no '# Columns'"),
    ("highs-solution", "", "Model status\nOptimal\n# Columns 1\nx1 0.5\n", "not 0 or 1"),
    ("highs-solution", "", "Model status\nOptimal\n# Columns 1\ny 1\n", "not a column"),
    ("smt-values", "", "", "no answer"),
    ("smt-values", "(error \"bad\")\n", "", "not sat/unsat/unknown"),
    ("smt-values", "sat\n(error \"no model\")\n", "", "gave no values"),
    ("smt-values", "sat\n", "", "printed no values"),
    ("flatzinc", "", "", "no solution and no status"),
    ("flatzinc", "----------\n", "", "no values of x"),
    ("flatzinc", "x = array1d(1..2, [0, 2]);\n----------\n", "", "not 0 or 1"),
    ("flatzinc", "=====ERROR=====\n", "", "ERROR"),
    ("xcsp3-competition", "", "", "no 's' line"),
    ("xcsp3-competition", "s MAYBE\n", "", "no XCSP3 answer"),
    ("xcsp3-competition", "s SATISFIABLE\n", "", "printed no solution"),
    ("xcsp3-competition", "v <instantiation> <list> x[] </list> <values> 0 q </values> </instantiation>\n"
                          "s SATISFIABLE\n", "", "not a value"),
    ("clingo-json", "Answer: 1\n", "", "not JSON"),
    ("clingo-json", "{}", "", "no 'Result'"),
    ("clingo-json", '{"Result": "MAYBE"}', "", "no answer clingo gives"),
    ("clingo-json", '{"Result": "SATISFIABLE", "Call": []}', "", "no witness"),
    ("clingo-json", '{"Result": "SATISFIABLE", "Call": [{"Witnesses": [{"Value": 3}]}]}', "", "no list"),
])
def test_the_new_parsers_refuse_what_they_cannot_read(parser, stdout, out, words):
    from harness.tools import PARSERS

    with pytest.raises(BackendError, match=re.escape(words)):
        PARSERS[parser](stdout, out)


def test_the_new_parsers_read_answers_enumerations_and_completeness():
    from harness.tools import PARSERS

    said = PARSERS["flatzinc"]("x = array1d(1..3, [1, 0, 1]);\n----------\nx = array1d(1..3, [0, 1, 1]);\n"
                               "----------\n==========\n", "")
    assert said.all_models() == [[1, -2, 3], [-1, 2, 3]] and said.complete
    assert PARSERS["flatzinc"]("=====UNSATISFIABLE=====\n", "").result == "unsat"
    said = PARSERS["xcsp3-competition"]("v <instantiation> <list> x[] </list> <values> 1 0x2 1 </values> "
                                        "</instantiation>\ns SATISFIABLE\nd INCOMPLETE EXPLORATION\n", "")
    assert said.literals == [1, -2, -3, 4] and not said.complete
    said = PARSERS["clingo-json"]('{"Result": "SATISFIABLE", "Call": [{"Witnesses": [{"Value": ["ship(0,1)"]}, '
                                  '{"Value": ["ship(1,1)"]}]}], "Models": {"More": "no"}}', "")
    assert said.all_models() == [["ship(0,1)"], ["ship(1,1)"]] and said.complete
    assert PARSERS["smt-values"]("sat\n((x1 true) (x2 false))\n", "").literals == [1, -2]
    assert PARSERS["highs-solution"]("", "Model status\nInfeasible\n").result == "unsat"


def test_a_machine_without_the_binaries_lists_each_tool_with_its_install_line(monkeypatch, tmp_path, capsys):
    from clirun import run

    monkeypatch.setenv("PATH", str(tmp_path))  # nothing installed
    cls = get_backend("tool")
    listed = {t["name"]: t["missing"] for t in cls.tools()}
    assert listed["cadical"].endswith("apt-get install cadical") and "apt-get install cryptominisat" in listed[
        "cryptominisat5"]
    assert "apt-get install cadical" in cls.available()
    code, out, _ = run(capsys, "backends", "--no-versions")
    assert code == 0 and "tool = minisat (cnf)  NOT INSTALLED" in out and "apt-get install minisat" in out


@pytest.mark.parametrize("formulation", ["placement", "cell"])
def test_an_opb_tool_whose_model_breaks_a_row_is_an_error(isolated, tmp_path, formulation):
    body = ("import sys; n = int(open(sys.argv[1]).read().split('#variable= ')[1].split()[0]);"
            "print('s SATISFIABLE'); print('v ' + ' '.join(f'-x{v}' for v in range(1, n + 1)))")
    script = _script(tmp_path, "pbbad", body)
    tool_file = _tool_file(tmp_path, "pbbad", [str(script), "{file}"], "pb-competition", "opb")
    res = isolated.solve(MANY[0], "tool", formulation, Question.count(0), {"measure": "process", "tool": "pbbad", "tool_file": str(tool_file)},
                         30)
    assert res.status is Status.ERROR and "breaks the row" in res.error, res.error


def test_the_pb_parser_reads_the_competitions_lines_and_refuses_the_rest():
    from harness.tools.parsers import pb_competition

    assert pb_competition("s SATISFIABLE\nv x1 -x2\nv ~x3 x4\n").literals == [1, -2, -3, 4]
    assert pb_competition("s OPTIMUM FOUND\nv x2\n").result == "sat"
    assert pb_competition("s UNSATISFIABLE\n").result == "unsat"
    for bad in ("v x1\n", "s SATISFIABLE\nv y1\n", "s SATISFIABLE\nv x0\n", "s SATISFIABLE\n", "s HUH\n"):
        with pytest.raises(BackendError):
            pb_competition(bad)


def test_the_mip_solution_files_are_read_and_the_rest_refused():
    from harness.tools.parsers import cbc_solution, glpk_solution

    cbc = "Optimal - objective value 0.00000000\n      0 x1   1   0\n      1 x2   0   0\n      2 x3   1   0\n"
    assert cbc_solution("", cbc).literals == [1, -2, 3]
    assert cbc_solution("", "Infeasible - objective value 0\n").result == "unsat"
    assert cbc_solution("", "Stopped on time - objective value 0\n").result == "unknown"
    glpk = "c x\ns mip 2 3 o 0\ni 1 2\nj 1 1\nj 2 0\nj 3 1\ne o f\n"
    assert glpk_solution("", glpk).literals == [1, -2, 3]
    assert glpk_solution("", "s mip 1 3 n 0\nj 1 0\n").result == "unsat"
    for bad in ("", "Optimal - x\n  0 x1 0.5 0\n", "Optimal - x\n  0 y1 1 0\n", "Huh\n"):
        with pytest.raises(BackendError):
            cbc_solution("", bad)
    for bad in ("", "c only\n", "s mip 1 1 z 0\n", "s mip 1 1 o 0\nj 1 2\n", "s mip 1 1 o 0\n"):
        with pytest.raises(BackendError):
            glpk_solution("", bad)


GIVES_UP = "import sys\nif sys.argv[1] == '--version':\n    print('giveup 1'); sys.exit(0)\nprint('s UNKNOWN')\n"
AT_ITS_LIMIT = ("import signal, sys, time\nif sys.argv[1] == '--version':\n    print('late 1'); sys.exit(0)\n"
                "def stop(*_):\n    print('s UNKNOWN', flush=True); sys.exit(0)\n"
                "signal.signal(signal.SIGTERM, stop)\ntime.sleep(120)\n")


def _enumerating_tool_file(tmp: Path, name: str, script: Path) -> Path:
    path = _tool_file(tmp, name, [str(script), "{file}"])
    path.write_text(path.read_text() + 'enumerate = ["--models", "{k}"]\nenumerate_all = ["--all"]\n')
    return path


@pytest.mark.parametrize("enumeration", ["blocking", "own"])
@pytest.mark.parametrize("question", [Question(), Question.count(2)])
def test_a_tool_that_gives_up_within_its_limit_is_unknown_not_a_timeout(isolated, tmp_path, enumeration, question):
    """Finding 10: ``s UNKNOWN`` after half a second of a 20-s limit was stored as ``timeout``."""
    from harness.core.record import check_values

    script = _script(tmp_path, "giveup", GIVES_UP)
    tool_file = _enumerating_tool_file(tmp_path, "giveup", script)
    res = isolated.solve(MANY[0], "tool", "placement", question, {"measure": "process", "tool": "giveup",
                         "tool_file": str(tool_file), "enumeration": enumeration}, 20.0)
    assert res.status is Status.UNKNOWN and str(res.termination) == "completed", (res.status, res.error)
    assert not res.boards and not res.complete and not res.decided
    check_values({"status": str(res.status), "answer": "unknown", "termination": str(res.termination)})


@pytest.mark.parametrize("enumeration", ["blocking", "own"])
def test_a_tool_that_says_unknown_at_its_limit_is_a_timeout(isolated, tmp_path, enumeration):
    script = _script(tmp_path, "late", AT_ITS_LIMIT)  # answers s UNKNOWN when the limit's SIGTERM comes
    tool_file = _enumerating_tool_file(tmp_path, "late", script)
    res = isolated.solve(MANY[0], "tool", "placement", Question(), {"measure": "process", "tool": "late",
                         "tool_file": str(tool_file), "enumeration": enumeration}, 2.0)
    assert res.status is Status.TIMEOUT, (res.status, res.error)


def test_an_unknown_at_its_limit_is_one_within_five_percent_of_the_time_given_at_most_a_second():
    from harness.backends.tool import at_limit

    assert not at_limit(0.5, 20.0) and not at_limit(18.9, 20.0) and at_limit(19.0, 20.0) and at_limit(21.0, 20.0)
    assert not at_limit(1.8, 2.0) and at_limit(1.9, 2.0)
    assert not at_limit(500.0, None)  # no limit: never at it
