"""``battlebench write``: every CNF file read back by python-sat admits exactly the brute-force set of boards; the
manifest and variable maps say what is there; bad input writes nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clirun import ROOT, run
from harness.puzzle.brute import enumerate_boards
from harness.puzzle.formats import write_instance
from harness.puzzle.verify import verify
from harness.tools.parsers import sat_competition
from harness.backends.files import board_cells
from pathlib import Path
from tiny import BY_NAME, MANY, SOLVER_UNSAT, truth
import procs

CASES = MANY[:10] + SOLVER_UNSAT + [BY_NAME["touching-hints"], BY_NAME["right-and-middle"]]
OPB_CASES = MANY[:5] + SOLVER_UNSAT[:2] + [BY_NAME["touching-hints"]]  # SCIP reads them back: slower per file


def _models(cnf_path, varmap) -> set[frozenset]:
    """Every board the file admits: python-sat enumerates its models, each blocked on the ship-cell literals."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    cells = list(varmap["cells"].values())
    boards = set()
    with Solver(name="minisat22", bootstrap_with=CNF(from_file=str(cnf_path)).clauses) as s:
        while s.solve():
            model = s.get_model()
            boards.add(board_cells(varmap, model))
            true = set(model)
            s.add_clause([-lit if lit in true else lit for lit in cells])
    return boards


def _sources(tmp_path_factory):
    src = tmp_path_factory.mktemp("src")
    paths = []
    for inst in CASES:
        path = src / f"{inst.name}.toml"
        write_instance(inst, path, "native")
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("cnf")
    assert run_quiet("write", *_sources(tmp_path_factory), "--out", out) == 0
    return out


@pytest.fixture(scope="module", params=["opb", "lp"])
def written_rows(tmp_path_factory, request):
    out = tmp_path_factory.mktemp(request.param)
    assert run_quiet("write", *_sources(tmp_path_factory), "--format", request.param, "--out", out) == 0
    return out, request.param


def _scip_boards(opb_path, varmap) -> set[frozenset]:
    """Every board an OPB or LP file admits, read by SCIP (pyscipopt's readers): solve, decode by the map, exclude
    that board's cells, solve again."""
    pyscipopt = pytest.importorskip("pyscipopt")
    model = pyscipopt.Model()
    model.hideOutput()
    model.readProblem(str(opb_path))
    by_name = {v.name.lstrip("t_"): v for v in model.getVars()}
    var = {int(name[1:]): v for name, v in by_name.items() if name[:1] == "x" and name[1:].isdigit()}
    boards = set()
    while True:
        model.optimize()
        if model.getStatus() != "optimal":
            assert model.getStatus() == "infeasible", model.getStatus()
            return boards
        sol = model.getBestSol()
        true = [i for i, v in var.items() if model.getSolVal(sol, v) > 0.5]
        cells = board_cells(varmap, true)
        assert cells not in boards
        boards.add(cells)
        model.freeTransform()
        if "cells" in varmap:  # some cell literal differs from this board
            terms = []
            for key, lit in varmap["cells"].items():
                r, c = map(int, key.split(","))
                x = var[abs(lit)] if lit > 0 else 1 - var[abs(lit)]
                terms.append(1 - x if (r, c) in cells else x)
            model.addCons(pyscipopt.quicksum(terms) >= 1)
        else:  # fewer than all its cells covered (boards have equally many ship cells)
            covering = [var[int(v)] for v, p in varmap["placements"].items() for rc in p["cells"]
                        if tuple(rc) in cells]
            model.addCons(pyscipopt.quicksum(covering) <= len(cells) - 1)


def run_quiet(*argv):
    from harness.cli import main

    return main([str(a) for a in argv])


@pytest.mark.parametrize("formulation", ["placement", "cell"])
def test_every_file_admits_exactly_the_brute_force_boards(written, formulation):
    for inst in CASES:
        varmap = json.loads((written / f"{inst.name}.{formulation}.map.json").read_text())
        assert _models(written / f"{inst.name}.{formulation}.cnf", varmap) == truth(inst.name), inst.name


@pytest.mark.parametrize("formulation", ["placement", "cell"])
def test_every_opb_and_lp_file_admits_exactly_the_brute_force_boards(written_rows, formulation):
    out, fmt = written_rows
    for inst in OPB_CASES:
        varmap = json.loads((out / f"{inst.name}.{formulation}.map.json").read_text())
        got = _scip_boards(out / f"{inst.name}.{formulation}.{fmt}", varmap)
        assert got == truth(inst.name), (fmt, inst.name)


def test_the_manifest_names_every_file_with_its_hash_and_what_the_instance_expects(written):
    manifest = json.loads((written / "MANIFEST.json").read_text())
    assert len(manifest["files"]) == 2 * len(CASES)
    for entry in manifest["files"]:
        data = (written / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        header = next(line for line in data.decode().splitlines() if line.startswith("p cnf"))
        assert header == f"p cnf {entry['variables']} {entry['constraints']}"
    solbat = ROOT / "instances" / "solbat" / "sb_12_12_5_0.toml"
    out = written / "solbat"
    assert run_quiet("write", solbat, "--formulation", "placement", "--out", out) == 0
    (entry,) = json.loads((out / "MANIFEST.json").read_text())["files"]
    assert entry["expected_count"] == 51 and entry["formulation"] == "placement"


@pytest.mark.skipif(shutil.which("cadical") is None, reason="cadical is not installed: apt-get install cadical")
def test_a_solver_binary_reads_the_file_and_its_model_decodes_to_a_verified_board(written):
    inst = BY_NAME["touching-hints"]
    got = subprocess.run(["cadical", "-q", str(written / f"{inst.name}.cell.cnf")], capture_output=True, text=True)
    said = sat_competition(got.stdout)
    varmap = json.loads((written / f"{inst.name}.cell.map.json").read_text())
    cells = board_cells(varmap, said.literals)
    assert said.result == "sat" and cells in truth(inst.name)
    board = next(b for b in enumerate_boards(inst) if b.cells == cells)
    assert verify(inst, board).ok


def test_bad_input_is_one_line_and_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "broken.toml"
    bad.write_text("[grid]\nrows = 'x'\n")
    good = ROOT / "instances" / "smoke" / "tiny_4x4.toml"
    out = tmp_path / "out"
    code, _, err = run(capsys, "write", good, bad, "--out", out)
    assert code == 2 and str(bad) in err and len(err.strip().splitlines()) == 1 and not out.exists()
    code, _, err = run(capsys, "write", good, "--format", "mp3", "--out", out)
    assert code == 2 and "unknown format 'mp3'" in err and not out.exists()
    code, _, err = run(capsys, "write", good, good, "--out", out)
    assert code == 2 and "two puzzles are named" in err and not out.exists()


@pytest.mark.skipif(shutil.which("cbc") is None, reason="cbc is not installed: apt-get install coinor-cbc")
def test_long_lp_rows_are_wrapped_and_cbc_reads_a_blocking_row(tmp_path):
    """CBC 2.10.8 failed on a 3,069-character row; every line is now at most about 200 characters, and the
    blocking row of a solbat board (hundreds of terms) is read and keeps that board out."""
    from harness.backends.pb import block_placement_board, placement_rows, write_lp
    from harness.model import build_model
    from harness.puzzle.formats import read_instance

    inst = read_instance(ROOT / "instances" / "solbat" / "sb_12_12_5_0.toml")
    model = build_model(inst)
    pb = placement_rows(model)
    first = next(iter(enumerate_boards(inst, limit=1)))
    block_placement_board(pb, model, first.cells)
    path = tmp_path / "blocked.lp"
    write_lp(path, pb)
    assert max(len(line) for line in path.read_text().splitlines()) <= 210
    assert len(pb.rows[-1][0]) > 100  # a long row, wrapped
    got = subprocess.run(["cbc", str(path), "randomSeed", "1", "solve", "solu", str(tmp_path / "s.txt")],
                         capture_output=True, text=True)
    assert "ERROR" not in got.stdout
    from harness.tools.parsers import cbc_solution

    said = cbc_solution("", (tmp_path / "s.txt").read_text())
    cells = frozenset(c for p, v in pb.placement_var.items() if v in said.literals for c in model.placements[p].cells)
    assert said.result == "sat" and cells != first.cells and cells in {b.cells for b in enumerate_boards(inst)}


# ---- the other formats, each read back by a reader that exists -------------------------------------------------

ROUND_TRIP_CASES = MANY[:4] + SOLVER_UNSAT[:2] + [BY_NAME["touching-hints"]]


def _block_cells(varmap, cells) -> list[int]:
    """A clause over the map's cell literals that the board ``cells`` leaves false."""
    out = []
    for key, lit in varmap["cells"].items():
        r, c = map(int, key.split(","))
        out.append(-lit if (r, c) in cells else lit)
    return out


def _wcnf_boards(path, varmap) -> set[frozenset]:
    """python-sat's WCNF reader: every clause hard, no soft ones; its models enumerated as for CNF."""
    from pysat.formula import WCNF
    from pysat.solvers import Solver

    wcnf = WCNF(from_file=str(path))
    assert not wcnf.soft
    boards = set()
    with Solver(name="minisat22", bootstrap_with=wcnf.hard) as s:
        while s.solve():
            cells = board_cells(varmap, s.get_model())
            boards.add(cells)
            if "cells" in varmap:
                s.add_clause(_block_cells(varmap, cells))
            else:
                s.add_clause([-int(v) for v, p in varmap["placements"].items() for rc in p["cells"]
                              if tuple(rc) in cells])
    return boards


def _smt2_boards(path, varmap) -> set[frozenset]:
    """z3's SMT-LIB parser (the z3-solver package): solve, decode, exclude the board's cells, solve again."""
    z3 = pytest.importorskip("z3")
    solver = z3.Solver()
    solver.add(z3.parse_smt2_file(str(path)))
    boards = set()
    while solver.check() == z3.sat:
        m = solver.model()
        true = [int(d.name()[1:]) for d in m.decls() if z3.is_true(m[d])]
        cells = board_cells(varmap, true)
        assert cells not in boards
        boards.add(cells)
        if "cells" in varmap:
            lits = _block_cells(varmap, cells)
            solver.add(z3.Or([z3.Bool(f"x{abs(lit)}") if lit > 0 else z3.Not(z3.Bool(f"x{abs(lit)}"))
                              for lit in lits]))
        else:
            covering = [z3.Bool(f"x{v}") for v, p in varmap["placements"].items() for rc in p["cells"]
                        if tuple(rc) in cells]
            solver.add(z3.Sum([z3.If(x, 1, 0) for x in covering]) <= len(cells) - 1)
    assert solver.check() == z3.unsat
    return boards


def _asp_boards(path, _varmap) -> set[frozenset]:
    """clingo's Python API: the file's answers projected onto ship/2, all of them."""
    import clingo

    ctl = clingo.Control(["0", "--project=project"], logger=lambda *_: None)
    ctl.load(str(path))
    ctl.ground([("base", [])])
    boards = set()
    with ctl.solve(yield_=True) as handle:
        for m in handle:
            cells = frozenset((a.arguments[0].number, a.arguments[1].number) for a in m.symbols(shown=True)
                              if a.name == "ship")
            assert cells not in boards
            boards.add(cells)
    return boards


def _fzn_row(lits: list[int]) -> str:
    neg = [lit for lit in lits if lit < 0]  # the clause as sum(pos) - sum(neg) >= 1 - |neg|, negated
    coeffs = ",".join("-1" if lit > 0 else "1" for lit in lits)
    return f"constraint int_lin_le([{coeffs}],[{','.join(f'x{abs(lit)}' for lit in lits)}],{len(neg) - 1});\n"


def _xcsp3_row(lits: list[int]) -> str:
    neg = [lit for lit in lits if lit < 0]
    return (f"<sum> <list> {' '.join(f'x[{abs(lit) - 1}]' for lit in lits)} </list> <coeffs> "
            f"{' '.join('1' if lit > 0 else '-1' for lit in lits)} </coeffs> <condition> (ge,{1 - len(neg)}) "
            "</condition> </sum>\n")


def _binary_boards(argv_all, argv_one, parse, add_row, before):
    """A solver binary reads the file: every solution at once where the variables are placements only; else (the
    cell formulation: auxiliary variables, many models per board) one solution per call, each board's cell
    literals excluded by a row added to the file before ``before``."""
    def call(argv, path):
        got = procs.run([a.replace("{file}", str(path)) for a in argv], capture_output=True, text=True)
        return parse(got.stdout, ""), got.stdout

    def read(path, varmap) -> set[frozenset]:
        if "cells" not in varmap:
            said, text = call(argv_all, path)
            assert said.result == "unsat" or said.complete, text[-300:]
            return {board_cells(varmap, model) for model in said.all_models()}
        boards, text = set(), path.read_text()
        work = path.with_name("blocked-" + path.name)
        while True:
            work.write_text(text)
            said, out = call(argv_one, work)
            if said.result == "unsat":
                return boards
            cells = board_cells(varmap, said.literals)
            assert said.result == "sat" and cells not in boards, out[-300:]
            boards.add(cells)
            at = text.rindex(before)
            text = text[:at] + add_row(_block_cells(varmap, cells)) + text[at:]
    return read


def _readers():
    from harness.tools import find_tool
    from harness.tools.parsers import flatzinc, xcsp3_competition

    ace = find_tool("ace")
    ace_argv = ace.argv(Path("{file}"), Path("-"), 0)
    return {
        "wcnf": (_wcnf_boards, None),
        "mps": (_scip_boards, None),
        "smt2": (_smt2_boards, None),
        "asp": (_asp_boards, None),
        "fzn": (_binary_boards(["fzn-gecode", "-a", "{file}"], ["fzn-gecode", "{file}"], flatzinc, _fzn_row,
                               "solve satisfy;"),
                None if shutil.which("fzn-gecode") else "fzn-gecode is not installed: apt-get install flatzinc"),
        "xcsp3": (_binary_boards(ace_argv + ["-s=all"], ace_argv + ["-s=1"], xcsp3_competition, _xcsp3_row,
                                 "</constraints>"), ace.missing()),
    }


@pytest.mark.parametrize("fmt", ["wcnf", "mps", "smt2", "asp", "fzn", "xcsp3"])
def test_every_format_read_back_admits_exactly_the_brute_force_boards(tmp_path_factory, fmt):
    read, missing = _readers()[fmt]
    if missing:
        pytest.skip(missing)
    src = tmp_path_factory.mktemp("src")
    paths = []
    cases = ROUND_TRIP_CASES if fmt != "xcsp3" else [i for i in ROUND_TRIP_CASES if len(truth(i.name)) <= 6]
    for inst in cases:  # (ACE starts a JVM per call: the cell formulation's boards one by one, the few-board cases)
        write_instance(inst, src / f"{inst.name}.toml", "native")
        paths.append(src / f"{inst.name}.toml")
    out = tmp_path_factory.mktemp(fmt)
    assert run_quiet("write", *paths, "--format", fmt, "--out", out) == 0
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert {e["format"] for e in manifest["files"]} == {fmt} and len(manifest["files"]) == 2 * len(paths)
    for entry in manifest["files"]:
        path = out / entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
        varmap = json.loads((out / entry["map"]).read_text())
        assert read(path, varmap) == truth(entry["instance"]), (fmt, entry["file"])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_clause_check_names_the_first_clause_a_model_leaves_false(data):
    """The numpy clause check against the plain definition: a clause is true when one of its literals is."""
    from harness.backends.files import first_false_clause

    n = data.draw(st.integers(1, 8))
    lit = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = data.draw(st.lists(st.lists(lit, max_size=4), max_size=10))
    true = data.draw(st.sets(st.integers(1, n)))
    first = next((i for i, c in enumerate(clauses) if not any((x > 0) == (abs(x) in true) for x in c)), None)
    assert first_false_clause(clauses, n, true) == first


def test_a_model_that_is_not_one_of_the_cnf_is_refused_naming_a_clause_it_leaves_false():
    from harness.backends.files import SolverFile
    from harness.errors import BackendError
    from harness.model import build_model
    from harness.puzzle.formats import read_instance

    f = SolverFile(build_model(read_instance(ROOT / "instances" / "smoke" / "tiny_4x4.toml")), "placement", "cnf")
    with pytest.raises(BackendError, match=r"cadical: its model leaves the clause \[.*\] false"):
        f.decode([-v for v in range(1, f.variables + 1)], "cadical")
