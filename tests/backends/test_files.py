"""``battlebench write``: every CNF file read back by python-sat admits exactly the brute-force set of boards; the
manifest and variable maps say what is there; bad input writes nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest

from clirun import ROOT, run
from harness.puzzle.brute import enumerate_boards
from harness.puzzle.formats import write_instance
from harness.puzzle.verify import verify
from harness.tools.parsers import sat_competition
from harness.backends.files import board_cells
from tiny import BY_NAME, MANY, SOLVER_UNSAT, truth

CASES = MANY[:10] + SOLVER_UNSAT + [BY_NAME["touching-hints"], BY_NAME["right-and-middle"]]


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


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("cnf")
    paths = []
    for inst in CASES:
        path = src / f"{inst.name}.toml"
        write_instance(inst, path, "native")
        paths.append(path)
    code = run_quiet("write", *paths, "--out", out)
    assert code == 0
    return out


def run_quiet(*argv):
    from harness.cli import main

    return main([str(a) for a in argv])


@pytest.mark.parametrize("formulation", ["placement", "cell"])
def test_every_file_admits_exactly_the_brute_force_boards(written, formulation):
    for inst in CASES:
        varmap = json.loads((written / f"{inst.name}.{formulation}.map.json").read_text())
        assert _models(written / f"{inst.name}.{formulation}.cnf", varmap) == truth(inst.name), inst.name


def test_the_manifest_names_every_file_with_its_hash_and_what_the_instance_expects(written):
    manifest = json.loads((written / "MANIFEST.json").read_text())
    assert len(manifest["files"]) == 2 * len(CASES)
    for entry in manifest["files"]:
        data = (written / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        header = next(line for line in data.decode().splitlines() if line.startswith("p cnf"))
        assert header == f"p cnf {entry['variables']} {entry['clauses']}"
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
