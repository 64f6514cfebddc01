"""harness/backends/status_tables.py (one status table per solver family) and the one cell alphabet of
harness/puzzle/instance.py that every backend and format derives from."""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path

import pytest

from harness.backends import cpmpy, cpsat, minizinc, status_tables
from harness.backends.status_tables import CPSAT, MINIZINC
from harness.errors import BackendError
from harness.puzzle.formats.ascii import GRID_SYMBOLS
from harness.puzzle.instance import CELL_SYMBOLS, PIECE_SYMBOLS, Hint

PKG = Path(status_tables.__file__).resolve().parents[1]


class Status(Enum):
    OPTIMAL = 4
    FEASIBLE = 2
    MODEL_INVALID = 1
    BOGUS = 9


def test_a_status_means_one_thing_per_mode():
    assert CPSAT.meaning(Status.OPTIMAL, "blocking") == "board"
    assert CPSAT.meaning(Status.OPTIMAL, "callback") == "exhausted"
    assert CPSAT.meaning("FEASIBLE", "callback") == "stopped"  # a name works as well as the enum member
    assert MINIZINC.meaning("SATISFIED", "all") == "stopped" and MINIZINC.meaning("UNKNOWN", "blocking") == "limit"
    with pytest.raises(BackendError, match=r"^CP-SAT returned an unknown status 'BOGUS'$"):
        CPSAT.meaning(Status.BOGUS, "blocking")
    with pytest.raises(BackendError, match=r"^CP-SAT says the model is invalid \(MODEL_INVALID\)$"):
        CPSAT.meaning(Status.MODEL_INVALID, "callback")
    with pytest.raises(BackendError, match=r"^MiniZinc reported an error \(ERROR\)$"):
        MINIZINC.meaning("ERROR", "all")


def test_each_family_s_table_is_its_backend_s_modes():
    assert cpsat.CpSatBackend.options["enumeration"].choices == CPSAT.modes
    assert minizinc.MiniZincBackend.options["enumeration"].choices == MINIZINC.modes
    for table in status_tables.TABLES.values():
        assert all(len(row) == len(table.modes) for row in table.rows.values())


def test_no_module_writes_a_status_table_or_its_meaning_function_again():
    for path in PKG.rglob("*.py"):
        if path.name != "status_tables.py":
            text = path.read_text()
            assert "STATUS_TABLE" not in text and "def _status_meaning" not in text, path


def test_the_cell_alphabets_agree():
    assert PIECE_SYMBOLS == "O<>^v#" == "".join(h.value for h in Hint if h.is_piece)
    assert CELL_SYMBOLS == "~O<>^v#" == Hint.WATER.value + PIECE_SYMBOLS
    assert GRID_SYMBOLS == ".~O<>^v#*" and set(GRID_SYMBOLS) == {"."} | {h.value for h in Hint}
    # the backends index the cell formulation's values by it
    assert list(cpsat._T) == list(cpmpy._T) == list(minizinc._SYM) == list(CELL_SYMBOLS)
    # the MiniZinc cell model numbers the same symbols 1..7 in the same order
    line = next(ln for ln in (PKG / "backends" / "mzn" / "cell.mzn").read_text().splitlines() if "Symbols:" in ln)
    assert re.findall(r"(\d) (?:water )?'(.)'", line) == [(str(i + 1), s) for i, s in enumerate(CELL_SYMBOLS)]


def test_no_module_writes_the_cell_alphabet_again():
    written = re.compile(r"""["']\.?~?O<>\^v#|\(["']~["'], ["']O["']""")  # "O<>^v#", "~O<>^v#", ("~", "O", ...
    for path in PKG.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            assert not written.search(line.split("  # ")[0]), f"{path}:{n}: {line.strip()}"  # comments may say it
