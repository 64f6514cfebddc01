"""The README's promises: it stays short, CI runs exactly its test command, its main command runs a shipped
config, and its tour runs as printed.

Every command of the README and of docs/ is parsed (and the tutorials run) by tests/test_docs.py; the
examples that used to live here (the native instance, the `[[pairs]]` config) are tested there, on the
pages they moved to (docs/reference/formats.md, docs/reference/config.md).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import procs

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_the_readme_is_short_and_says_how_to_build_the_docs():
    assert len(README.splitlines()) <= 150
    assert ".venv/bin/pip install mkdocs-material && .venv/bin/mkdocs serve" in README
    for target in re.findall(r"\]\((docs/[^)#\s]+)", README):
        assert (ROOT / target).is_file(), target


def test_ci_runs_exactly_the_readme_test_command():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    test_cmd = [c for c in commands if "pytest" in c]
    assert len(test_cmd) == 1 and "ruff check ." in test_cmd[0] and "pytest -q -n 2" in test_cmd[0]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd[0] in ci


def test_readme_main_command_runs_a_shipped_config():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    main = [c for c in commands if "battlebench run" in c]
    assert len(main) == 1
    config = main[0].split("battlebench run", 1)[1].split()[0]
    assert (ROOT / config).is_file()


def test_bare_battlebench_commands_come_after_the_venv_is_activated():
    first_bare = README.index("\nbattlebench ")
    assert README.index("source .venv/bin/activate") < first_bare


@pytest.mark.slow
def test_the_tour_runs_as_printed(tmp_path):
    """The tour's commands, verbatim, in a checkout-like folder with the venv on PATH (as after
    `source .venv/bin/activate`); the solbat campaign (45 minutes) is only parsed (test_docs). What it writes
    besides results/ lands in scratch/, and it exports the committed solbat store, which needs no campaign."""
    tour = re.search(r"```sh\n(source \.venv/bin/activate\n.*?)```", README, re.S).group(1)
    for name in ("instances", "configs", "reports"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT))
    ran = 0
    for line in tour.splitlines()[1:]:
        command = re.sub(r"\s+#.*$", "", line).strip()
        if "solbat.toml" in command:
            continue
        res = procs.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert res.returncode == 0, (command, res.stdout[-2000:], res.stderr[-2000:])
        ran += 1
    assert ran == 17
    assert (tmp_path / "results" / "smoke" / "report" / "index.html").is_file()
    assert (tmp_path / "scratch" / "puzzle7").read_text().startswith("# Row clues")
    assert (tmp_path / "scratch" / "solbat.parquet").stat().st_size > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configs", "instances", "reports", "results", "scratch"]
