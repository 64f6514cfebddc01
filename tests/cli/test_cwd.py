"""Nothing is written into the current directory unasked: the README tour's commands, run in an empty directory,
leave it empty (what they write goes where their arguments say, or, for count --marginals' picture, into the
system's temporary folder)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "instances" / "smoke" / "tiny_4x4.toml"
POSITION = ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml"


@pytest.fixture
def empty(tmp_path, monkeypatch):
    """An empty current directory, and a temporary folder of the test's own; yields (cwd, elsewhere, tmp)."""
    cwd, elsewhere, tmp = tmp_path / "cwd", tmp_path / "elsewhere", tmp_path / "tmp"
    for folder in (cwd, elsewhere, tmp):
        folder.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    return cwd, elsewhere, tmp


def test_the_tour_s_commands_write_nothing_into_the_current_directory(empty, capsys):
    cwd, elsewhere, tmp = empty
    commands = [
        ["solve", TINY],
        ["solve", TINY, "-b", "sat", "-f", "cell", "-o", "solver=glucose4", "--json"],
        ["count", POSITION, "--marginals"],
        ["play", "--strategy", "random", "--games", "2", "--strip", elsewhere / "strip.png", "--every", "20"],
        ["write", TINY, "--out", elsewhere / "cnf"],
        ["convert", TINY, elsewhere / "tiny.dzn"],
    ]
    for argv in commands:
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert code == 0, (argv, err)
        assert sorted(p.name for p in cwd.iterdir()) == [], argv
    assert (tmp / "battlebench" / "t6x6_position-marginals.png").is_file()  # the picture, where it says
    assert (elsewhere / "strip.png").is_file() and (elsewhere / "tiny.dzn").is_file()


def test_count_marginals_names_where_its_picture_went(empty, capsys):
    cwd, elsewhere, tmp = empty
    assert main(["count", str(POSITION), "--marginals"]) == 0
    picture = tmp / "battlebench" / "t6x6_position-marginals.png"
    assert f"picture {picture}" in capsys.readouterr().out and picture.is_file()
    assert main(["count", str(POSITION), "--marginals", "--png-dir", str(elsewhere)]) == 0  # asked: there
    assert (elsewhere / "t6x6_position-marginals.png").is_file() and not list(cwd.iterdir())
