"""The README's promises: its native example parses, CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

from harness.puzzle.formats import parse_instance
from harness.puzzle.instance import Hint

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _toml_block(marker: str) -> str:
    blocks = [b for b in re.findall(r"```toml\n(.*?)```", README, re.S) if marker in b]
    assert len(blocks) == 1, marker
    return blocks[0]


def test_native_example_in_readme_parses():
    block = _toml_block("[size]")
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


def test_config_example_in_readme_is_valid(tmp_path):
    from harness.runner.config import parse_config

    import tomllib

    # the example lives next to configs/ in a checkout: resolve it from there
    cfg = ROOT / "configs" / "readme-example.toml"
    config = parse_config(tomllib.loads(_toml_block("[[pairs]]")), cfg, require_instances=True)
    assert config.task.label == "count-2" and config.limits.grace_s == 5
    assert [p.label for p in config.pairs] == ["sat[encoding=totalizer,solver=glucose4]/placement",
                                                 "cpsat/placement"]
    assert len(config.instance_paths) == 4 + 3  # the smoke directory and the seeds suite


def test_readme_main_command_runs_a_shipped_config():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    main = [c for c in commands if "battlebench run" in c]
    assert len(main) == 1
    config = main[0].split("battlebench run", 1)[1].split()[0]
    assert (ROOT / config).is_file()
