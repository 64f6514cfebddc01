"""Where and with what a campaign was measured: the machine (CPU model, cores, memory, kernel), its load when
the session began, and the harness's own version and git commit — recorded once per ``battlebench run`` session
in the results store, so a report says what its figures were measured on."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness.core.node import HOST, cpu_model, memory_gib, node_class

SOURCE = Path(__file__).resolve().parents[2]  # the checkout the harness runs from (a git work tree, or not)


def _git(*args: str) -> str | None:
    try:
        got = subprocess.run(["git", "-C", str(SOURCE), *args], capture_output=True, text=True, timeout=10,
                             check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return got.stdout.strip() if got.returncode == 0 else None


def harness_commit() -> str | None:
    """The harness's git commit, with ``+dirty`` when tracked files differ from it; None outside a git checkout."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return None
    changed = _git("status", "--porcelain", "--untracked-files=no")
    return commit + ("+dirty" if changed else "")


def machine() -> dict[str, Any]:
    """This session's provenance (each value measured now; None where it cannot be read)."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {"started_at": datetime.now(UTC).isoformat(timespec="seconds"), "host": HOST,
            "cpu": cpu_model(), "cores": os.cpu_count(), "memory_gib": memory_gib(), "node_class": node_class(),
            "kernel": platform.release(), "os": platform.platform(), "python": platform.python_version(),
            "load_avg": load, "battlebench": __version__, "commit": harness_commit()}


def describe(session: dict[str, Any]) -> str:
    """One line: ``when host: CPU, N cores, M GiB, kernel K, load a b c at start; battlebench V (commit)``."""
    load = " ".join(map(str, session.get("load_avg") or [])) or "?"
    commit = session.get("commit") or "no git commit"
    return (f"{session.get('started_at')} {session.get('host')}: {session.get('cpu') or 'CPU ?'}, "
            f"{session.get('cores')} cores, {session.get('memory_gib')} GiB, kernel {session.get('kernel')}, "
            f"load {load} at start; battlebench {session.get('battlebench')} ({commit})")


__all__ = ["describe", "harness_commit", "machine"]
