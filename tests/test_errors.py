"""The error tree (harness/errors.py): every exception class in harness/ is in it, or is a documented signal."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import harness
from harness import errors
from harness.errors import HarnessError, Signal

ROOT = Path(harness.__file__).parent


def _modules() -> list[str]:
    return sorted(".".join(("harness", *p.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
                  for p in ROOT.rglob("*.py") if p.name != "__main__.py")


def _exception_classes() -> list[tuple[str, type]]:
    """(where, class) of every exception class a harness module defines, at module level or inside a function."""
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        top = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            if node.name in top:
                cls = getattr(module, node.name)
                if isinstance(cls, type) and issubclass(cls, BaseException):
                    found.append((f"{name}.{node.name}", cls))
            else:  # a class made inside a function: its bases, named in the module
                for base in node.bases:
                    try:
                        cls = eval(compile(ast.Expression(base), name, "eval"), vars(module))  # noqa: S307
                    except NameError:
                        continue  # a base the function imports itself (a solver library's callback class)
                    if isinstance(cls, type) and issubclass(cls, BaseException):
                        found.append((f"{name}.<local {node.name}>", cls))
    return found


def test_every_exception_class_is_in_the_tree_or_a_signal():
    classes = _exception_classes()
    assert len(classes) >= 20  # the walk found them (the tree alone has 17)
    outside = [where for where, cls in classes if not issubclass(cls, (HarnessError, Signal))]
    assert outside == []


def test_a_signal_is_no_error():
    assert not issubclass(Signal, HarnessError)
    for name in ("harness.play.exact._Branch", "harness.play.exact._SearchStopped", "harness.play.optimal.Stopped"):
        module, _, cls = name.rpartition(".")
        assert issubclass(getattr(importlib.import_module(module), cls), Signal)


@pytest.mark.parametrize("old_home, name, also", [
    ("harness.counting.counters", "Unsupported", ValueError),
    ("harness.play.game", "ImpossiblePosition", ValueError),
    ("harness.play.exact", "NotEnumerable", None),
    ("harness.generate.oracle", "Undecided", None),
    ("harness.generate.generator", "GenerationError", None),
])
def test_the_moved_errors_are_importable_from_their_old_home(old_home, name, also):
    cls = getattr(importlib.import_module(old_home), name)
    assert cls is getattr(errors, name) and issubclass(cls, HarnessError)
    assert also is None or issubclass(cls, also)  # old handlers of ValueError still catch it


def test_the_docstring_draws_every_class_of_the_module():
    drawn = set(re.findall(r"\+-- (\w+)", errors.__doc__))
    defined = {n for n, v in vars(errors).items() if isinstance(v, type) and issubclass(v, BaseException)}
    assert drawn | {"HarnessError", "Signal"} == defined
