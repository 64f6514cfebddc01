"""The minizinc backend's FlatZinc helpers: clauses added before the solve item, solutions read, sizes counted."""

from __future__ import annotations

import pytest

from harness.backends.flatzinc import Flat, bool_arrays
from harness.errors import BackendError

FZN = """var bool: X_1:: output_var;
var bool: X_2;
array [1..3] of var bool: y:: output_array([1..3]):: add_to_output = [X_1,X_2,false];
constraint bool_clause([X_1],[X_2]);
solve  satisfy;
"""


def test_size_counts_var_and_constraint_items():
    size = Flat(FZN, None).size()
    assert (size.variables, size.constraints) == (2, 1)


def test_literals_of_an_output_array():
    flat = Flat(FZN, 0.1)
    assert flat.literals("y") == ["X_1", "X_2", "false"]
    assert flat.literals("w") is None  # the compiler proved the model unsatisfiable: no array


def test_clauses_go_before_the_solve_item_without_constant_false():
    text = Flat(FZN, None).with_clauses([["X_2", "false"], ["false"]])
    lines = text.splitlines()
    assert lines[-3:] == ["constraint bool_clause([X_2],[]);", "constraint bool_clause([],[]);", "solve  satisfy;"]
    assert text.startswith(FZN.rpartition("solve")[0])
    with pytest.raises(BackendError, match="no solve item"):
        Flat("var bool: X;\n", None).with_clauses([["X"]])


def test_bool_arrays_of_a_flatzinc_solution():
    assert bool_arrays("y = array1d(1..3,[true, false, true]);\n") == {"y": [True, False, True]}
    assert bool_arrays("w = array1d(1..0,[]);\n") == {"w": []}
