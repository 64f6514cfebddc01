"""A tool entry naming its own output parser (``parser = "module:function"``): loaded and checked when the tool
file is read, each problem one line naming the file and the entry; a fake tool whose answers only the test suite's
parser (tests/tools/userparser.py) reads, run end to end by ``battlebench solve -b tool``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import UsageError
from harness.puzzle.formats import write_instance
from harness.puzzle.instance import Hint, Instance
from harness.tools import find_tool, load_tools

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def importable(monkeypatch):
    """userparser importable as an installed module is: here and in the workers the runs start."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))

# A fake solver binary: solves the DIMACS file with python-sat and prints an answer no built-in parser reads.
FAKE = """
import sys
if sys.argv[1] == "--version":
    print("fakesat 2.1"); sys.exit(0)
from pysat.formula import CNF
from pysat.solvers import Solver
cnf = CNF(from_file=sys.argv[1])
with Solver(name="minisat22", bootstrap_with=cnf.clauses) as s:
    if not s.solve():
        print("ANSWER unsat"); sys.exit(0)
    print("ANSWER sat"); print(f"VARS {cnf.nv}"); print("TRUE " + " ".join(str(v) for v in s.get_model() if v > 0))
"""


def _entry(tmp: Path, parser: str, extra: str = "") -> Path:
    script = tmp / "fakesat"
    script.write_text(f"#!{sys.executable}\n{FAKE}")
    script.chmod(0o755)
    path = tmp / "tools.toml"
    path.write_text(f'[tools.fakesat]\nformat = "cnf"\ncommand = ["{script}", "{{file}}"]\nparser = "{parser}"\n'
                    f'version = ["{script}", "--version"]\nversion_pattern = "fakesat (\\\\S+)"\n{extra}')
    return path


def test_a_tool_run_end_to_end_is_read_by_the_entry_s_own_parser(tmp_path, capsys):
    tools = _entry(tmp_path, "userparser:read_answer")
    puzzle = tmp_path / "tiny.toml"
    write_instance(Instance(rows=3, cols=4, fleet={1: 1, 2: 1}, row_clues=(2, 0, 1), col_clues=(1, 1, 0, 1),
                            hints={(0, 0): Hint.LEFT}, name="tiny"), puzzle, "native")
    code = main(["solve", str(puzzle), "-k", "0", "-b", "tool", "-o", "tool=fakesat", "-o", f"tool_file={tools}",
                 "-o", "measure=process", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    said = json.loads(out)
    assert said["status"] == "sat" and said["unique"] is True, said
    assert said["versions"] == {k: said["versions"][k] for k in ("battlebench", "python", "python-sat")} | {
        "fakesat": "2.1"}  # the one tool that ran, not every tool installed


def test_a_parser_module_beside_the_tool_file_is_found(tmp_path):
    (tmp_path / "beside_parser.py").write_text("from userparser import read_answer as read\n")
    sys.modules.pop("beside_parser", None)
    tool = load_tools(_entry(tmp_path, "beside_parser:read"))["fakesat"]
    assert tool.output == "beside_parser:read"
    assert tool.parse("ANSWER sat\nVARS 3\nTRUE 2\n", "").literals == [-1, 2, -3]
    assert find_tool("fakesat", tmp_path / "tools.toml").parse("ANSWER unsat\n", "").result == "unsat"


@pytest.mark.parametrize("parser, extra, words", [
    ("userparser", "", "is not of the form \"module:function\""),
    ("no_such_module_here:read", "", "cannot import module 'no_such_module_here'"),
    ("userparser:nothing", "", "has no attribute 'nothing'"),
    ("userparser:NOT_CALLABLE", "", "int is not callable"),
    ("userparser:not_a_parser", "", "takes no (stdout, out) as the built-in parsers do"),
    ("userparser:read_answer", 'output = "sat-competition"\n', "output and parser both name a parser"),
])
def test_a_bad_own_parser_is_one_line_naming_the_file_and_the_entry(tmp_path, parser, extra, words):
    path = _entry(tmp_path, parser, extra)
    with pytest.raises(UsageError) as err:
        load_tools(path)
    message = str(err.value)
    assert message.startswith(f"{path}: tools.fakesat: ") and words in message and "\n" not in message, message


def test_an_own_parser_that_returns_no_tool_output_is_the_run_s_error(tmp_path):
    (tmp_path / "wrong_parser.py").write_text("def read(stdout, out):\n    return {'result': 'sat'}\n")
    tool = load_tools(_entry(tmp_path, "wrong_parser:read"))["fakesat"]
    from harness.errors import BackendError

    with pytest.raises(BackendError, match="its parser 'wrong_parser:read' returned dict, not a ToolOutput"):
        tool.parse("", "")
