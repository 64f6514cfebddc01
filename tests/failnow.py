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
    message = _first_words(crash.message if crash is not None else "")
    reporter.write("\n")  # the letters of the progress line run on without one
    reporter.write_line(f"{kind} {report.nodeid}" + (f" - {message}" if message else ""), red=True, bold=True)



def _first_words(message: str) -> str:
    """The line of an error that says what went wrong: its first, or for a child's traceback carried in an
    assertion's message (``assert done.returncode == 0, done.stderr``) the traceback's last line."""
    lines = [x for x in message.splitlines() if x.strip()]
    if not lines:
        return ""
    if lines[0].startswith(("Traceback", "AssertionError: Traceback")):
        body = []
        for line in lines[1:]:
            if line.startswith(("assert ", " +  where")):  # pytest's own explanation follows the message
                break
            body.append(line.strip())
        return (body[-1] if body else lines[0])[:200]
    return lines[0][:200]
