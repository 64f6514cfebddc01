"""The README's promises: its native example parses, CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

from harness.puzzle.formats import parse_instance
from harness.puzzle.instance import Hint

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_native_example_in_readme_parses():
    block = re.search(r"```toml\n(.*?)```", README, re.S).group(1)
    block = "\n".join(line[3:] if line.startswith("   ") else line for line in block.splitlines())
    inst = parse_instance(block, "native", file="README.md")
    assert (inst.rows, inst.cols) == (6, 6) and inst.col_clues[4] is None
    assert inst.hints[(1, 1)] is Hint.WATER and inst.hints[(2, 0)] is Hint.TOP


def test_ci_runs_exactly_the_readme_test_command():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    test_cmd = [c for c in commands if "pytest" in c]
    assert len(test_cmd) == 1
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd[0] in ci
