"""Running ``battlebench`` in-process as a user would: exit code, standard output, standard error."""

from __future__ import annotations

from pathlib import Path

from harness.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
