"""The plugin that names a failing test the moment it fails (tests/conftest.py loads it; ``-p failnow`` elsewhere).

With ``-q`` pytest names no failing test until the summary at the end of a 20-60 minute run on a loaded machine;
this prints ``FAILED <node id> - <message>`` (or ``ERROR at setup of ...``) as soon as the report arrives, on the
controller under xdist too (the workers' reports pass through it).  With ``-v`` pytest names every test already,
so only the quiet and normal modes get the line.  The ``-ra`` summary of pyproject's addopts still follows.
"""

from __future__ import annotations

import pytest

_CONFIG: dict = {}


def pytest_configure(config):
    _CONFIG["config"] = config


def pytest_unconfigure(config):
    _CONFIG.pop("config", None)


@pytest.hookimpl(trylast=True)  # after the reporter's own letter for it
def pytest_runtest_logreport(report):
    """One line for a failed report: its phase, node id and the first line of its error."""
    config = _CONFIG.get("config")
    if config is None or hasattr(config, "workerinput") or config.get_verbosity() > 0:
        return
    if not report.failed or getattr(report, "wasxfail", None) is not None:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    kind = "FAILED" if report.when == "call" else f"ERROR at {report.when} of"
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message.splitlines()[0][:200] if crash is not None and crash.message else ""
    reporter.write("\n")  # the letters of the progress line run on without one
    reporter.write_line(f"{kind} {report.nodeid}" + (f" - {message}" if message else ""), red=True, bold=True)

