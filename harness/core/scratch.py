"""Scratch folders of runs (a tool's input file, its output): one root per owner process, removed whatever ends it.

A process that needs a work folder for a run gets one inside its own root, ``battlebench-work-PID`` in the
temporary folder (:func:`folder`).  The run removes its folder when it ends normally; when it cannot (the
runner killed the worker at its limit, ``kill -9`` of the whole command), the root goes with its owner:

* the runner removes a worker's root as soon as it has killed or closed that worker (:func:`remove_root`);
* a process removes its own root when it exits normally (``atexit``);
* a runner starting (a campaign, its resume, any command that starts workers) removes the roots of owners that
  are gone (:func:`sweep`): what a ``kill -9`` of the runner itself left.

A name that goes into a folder's name is escaped by :func:`harness.core.paths.path_part`, so no name can put a
folder outside its root.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from harness.core.paths import path_part

PREFIX = "battlebench-work-"
_registered: set[int] = set()


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie too; one we may not signal too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def root(pid: int | None = None) -> Path:
    """The root of process ``pid``'s scratch folders (this process's by default); not created here."""
    return Path(tempfile.gettempdir()) / f"{PREFIX}{os.getpid() if pid is None else pid}"


def folder(name: str) -> Path:
    """A new, empty folder for one run of ``name`` (a tool's name) inside this process's root."""
    top = root()
    top.mkdir(mode=0o700, exist_ok=True)
    pid = os.getpid()
    if pid not in _registered:  # a forked child has a root of its own
        _registered.add(pid)
        atexit.register(_remove_own, pid)
    return Path(tempfile.mkdtemp(prefix=f"{path_part(name)}-", dir=top))


def remove_root(pid: int) -> None:
    """Remove process ``pid``'s root and everything in it (nothing when there is none)."""
    shutil.rmtree(root(pid), ignore_errors=True)


def _remove_own(pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child, which inherits the handler
        remove_root(pid)


def sweep() -> int:
    """Remove the roots whose owner process is gone; how many were removed."""
    removed = 0
    for top in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        pid = top.name[len(PREFIX):]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(top, ignore_errors=True)
            removed += 1
    return removed


__all__ = ["PREFIX", "folder", "pid_alive", "remove_root", "root", "sweep"]
