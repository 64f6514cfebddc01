"""A report page in a real headless Chromium: the DOM after its inline scripts ran, with a URL ``#fragment``.

The tests that use it are skipped where no Chromium is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import procs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium to run the report's inline script "
                                                             "(apt-get install chromium; .ci/run installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def dump_dom(page: Path, fragment: str, profile: Path) -> tuple[str, str]:
    """(the DOM, Chromium's stderr) of ``page`` opened at ``#fragment``, with a fresh profile in ``profile``."""
    res = procs.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri() + fragment],
                         capture_output=True, text=True)
    return res.stdout, res.stderr
