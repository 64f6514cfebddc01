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
                                                 "cpsat/placement",
                                                 "race[cpsat/placement,sat[solver=glucose4]/placement]"]
    assert len(config.instance_paths) == 4 + 3  # the smoke directory and the seeds suite


def test_readme_main_command_runs_a_shipped_config():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    main = [c for c in commands if "battlebench run" in c]
    assert len(main) == 1
    config = main[0].split("battlebench run", 1)[1].split()[0]
    assert (ROOT / config).is_file()


# -- every command as printed ------------------------------------------------------------------

import os
import shlex
import subprocess
import sys

from harness.cli import _build_parser

PRODUCED = {"sb.dzn"}  # files an earlier README command writes
COPIED = {"mysolver/": "examples/backend-template/", "mycounter/": "examples/counter-template/",
          "mystrategy/": "examples/strategy-template/"}  # folders an earlier README command copies


def _exists(path: str) -> bool:
    for copy, source in COPIED.items():
        if path.startswith(copy):
            path = source + path[len(copy):]
    return (ROOT / path).is_file()


def _sh_lines() -> list[str]:
    """Every command line of the README's sh blocks: continuations joined, comments and `&` stripped,
    `&&` chains split."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip().rstrip("&").strip()
            out += [part.strip() for part in line.split("&&") if part.strip()]
    return out


def _battlebench(line: str) -> list[str] | None:
    argv = shlex.split(line)
    if argv and argv[0] in ("battlebench", ".venv/bin/battlebench"):
        return argv[1:]
    return None


def test_every_battlebench_command_in_the_readme_parses_and_names_files_that_exist():
    parser = _build_parser()
    seen = 0
    for line in _sh_lines():
        argv = _battlebench(line)
        if argv is None:
            if line.startswith(".venv/bin/python benchmarks/"):
                assert (ROOT / shlex.split(line)[1]).is_file(), line
            continue
        seen += 1
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            raise AssertionError(f"the README's command does not parse: {line}") from None
        if args.command == "run":
            assert _exists(args.config), line
        if args.command == "solve":
            assert all((ROOT / p).is_file() for p in args.paths), line
        if args.command == "count":
            assert all((ROOT / p).is_file() for p in args.paths), line
        if args.command == "convert":
            assert (ROOT / args.src).is_file() or args.src in PRODUCED, line
    assert seen >= 30


def test_bare_battlebench_commands_come_after_the_venv_is_activated():
    first_bare = min(README.index(f"\n{line}") for line in _sh_lines() if line.startswith("battlebench "))
    assert README.index("source .venv/bin/activate") < first_bare


def test_the_tour_runs_as_printed(tmp_path):
    """The tour's commands, verbatim, in a checkout-like folder with the venv on PATH (as after
    `source .venv/bin/activate`); the two solbat lines (45 minutes) are only parsed above."""
    tour = re.search(r"```sh\n(source \.venv/bin/activate\n.*?)```", README, re.S).group(1)
    for name in ("instances", "configs"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT))
    ran = 0
    for line in tour.splitlines()[1:]:
        command = re.sub(r"\s+#.*$", "", line).strip()
        if "solbat.toml" in command or "results/solbat" in command:
            continue
        res = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, (command, res.stdout[-2000:], res.stderr[-2000:])
        ran += 1
    assert ran == 14
    assert (tmp_path / "results" / "smoke" / "report" / "index.html").is_file()
    assert (tmp_path / "out" / "xcsp3" / "MANIFEST.json").is_file()  # battlebench write
    assert (tmp_path / "puzzle7").read_text().startswith("# Row clues")


def _run_section(tmp_path, section: str, prefix: str) -> int:
    """Run the lines of ``section``'s first sh block that start with ``prefix``, verbatim, in a checkout-like
    folder with the venv on PATH; how many ran."""
    block = re.search(rf"## {section}.*?```sh\n(.*?)```", README, re.S).group(1)
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT))
    ran = 0
    for line in block.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if not command.startswith(prefix):
            continue
        res = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=300)
        assert res.returncode == 0, (command, res.stdout[-2000:], res.stderr[-2000:])
        ran += 1
    return ran


def test_the_counting_commands_run_as_printed(tmp_path):
    """The counting section's `count` lines, verbatim (the campaign line is parsed above)."""
    assert _run_section(tmp_path, "Counting deployments", "battlebench count") == 5


def test_the_play_commands_run_as_printed(tmp_path):
    """The play section's `play` lines, verbatim (the campaign lines are parsed above)."""
    assert _run_section(tmp_path, "Playing the game", "battlebench play") == 4
