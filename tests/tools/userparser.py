"""A user's own tool-output parser, as a tool entry names it (``parser = "userparser:read_answer"``): it reads the
made-up answer format of the fake tool of tests/tools/test_own_parser.py (``ANSWER sat|unsat`` and ``TRUE v ...``)."""

from __future__ import annotations

from harness.errors import BackendError
from harness.tools import ToolOutput


def read_answer(stdout: str, out: str = "") -> ToolOutput:
    """``ANSWER sat`` then ``TRUE 1 3 ...`` (the variables set true, of ``VARS n``); ``ANSWER unsat``."""
    lines = dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)
    if lines.get("ANSWER") == "unsat":
        return ToolOutput("unsat")
    if lines.get("ANSWER") != "sat" or "VARS" not in lines:
        raise BackendError("no ANSWER line I can read")
    true = {int(v) for v in lines.get("TRUE", "").split()}
    return ToolOutput("sat", [v if v in true else -v for v in range(1, int(lines["VARS"]) + 1)])


def not_a_parser(stdout: str) -> ToolOutput:  # one argument: not the built-in parsers' (stdout, out)
    return ToolOutput("unknown")


NOT_CALLABLE = 3
