"""Shared fixtures: one isolated worker per backend for each test module.

As in campaigns, every backend runs in its own spawned worker (limits are enforced from
outside), so no test imports a solver library into the pytest process.  The workers are
closed at the end of each module: a session-wide pool kept 30 solver processes (2.4 GB)
alive until the suite ended.  A failing test is named the moment it fails (tests/failnow.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from failnow import pytest_configure, pytest_runtest_logreport, pytest_unconfigure  # noqa: F401 (hooks)
from harness.tasks.isolated import IsolatedSolver


@pytest.fixture(scope="module")
def isolated():
    # a backend's answer up to 5 s after the runner's SIGTERM is kept as late (campaigns: a second): on a loaded
    # machine a backend that stops on its own limit can be that late, and the tests judge that it stopped itself
    # at most 6 workers warm at once (a module of many tools and options would keep 40 alive, 1.2 GB)
    with IsolatedSolver(grace_s=10.0, honour_s=5.0, max_warm=6) as solver:
        yield solver


@pytest.fixture(scope="session", autouse=True)
def _fresh_cluster_tables(tmp_path_factory):
    """The cluster counter's tables are computed in this session, never read from an earlier one's cache."""
    import os

    old = os.environ.get("BATTLEBENCH_CACHE")
    os.environ["BATTLEBENCH_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if old is None:
        os.environ.pop("BATTLEBENCH_CACHE", None)
    else:
        os.environ["BATTLEBENCH_CACHE"] = old


@pytest.fixture(scope="session", autouse=True)
def _no_work_folder_left(tmp_path_factory):
    """The suite leaves no scratch folder of a run behind, whatever ended the run (a worker killed at its limit,
    a killed runner).  The session gets a temporary folder of its own (``TMPDIR``: the workers inherit it), so
    that other work on the machine does not count; at the end it must hold no ``battlebench-*`` folder but the
    roots of live processes, which are empty (this process's goes at its exit, as do ``battlebench-store-*``,
    the unzipped stores this process reads)."""
    import os
    import shutil
    import tempfile

    from harness.core import scratch

    tmp_path_factory.getbasetemp()  # pytest's own folders stay where they were
    own = tempfile.mkdtemp(prefix="suite-tmp-")
    old_env, old_dir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = own, own
    yield
    if old_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = old_env
    tempfile.tempdir = old_dir
    left = []
    for path in sorted(Path(own).glob("battlebench-*")):
        owner = path.name[len(scratch.PREFIX):]
        if path.name.startswith("battlebench-store-"):
            continue
        if owner.isdigit() and scratch.pid_alive(int(owner)) and not any(path.iterdir()):
            continue
        seen = _FIRST_SEEN.get(path.name)
        left.append(f"{path.name}: {sorted(p.name for p in path.iterdir())}"
                    + (f" (first there after {seen})" if seen else ""))
    shutil.rmtree(own, ignore_errors=True)
    assert not left, f"the suite left work folders behind: {left}"


_FIRST_SEEN: dict[str, str] = {}  # a scratch folder's name -> the test at whose end it was first there


@pytest.fixture(autouse=True)
def _note_work_folders(request):
    """After each test, which scratch folders with something in them are there, noted against the first test
    they outlived: a folder the suite leaves behind is then named with the test that left it (a glob of one
    folder per test; nothing is judged here)."""
    yield
    import tempfile

    for path in Path(tempfile.gettempdir()).glob("battlebench-work-*/*"):
        key = path.parent.name
        _FIRST_SEEN.setdefault(key, request.node.nodeid)


# The quick subset (`pytest -m "not slow"`, a few minutes) leaves out what runs solvers at length: whole modules of
# solver round trips and campaigns, and single tests measured at 10 s or more on a 2-core machine.  CI runs all.
SLOW_MODULES = {
    "test_conformance.py", "test_agreement.py", "test_template.py",  # every pair, every shipped suite, the templates
    "backends/test_files.py", "backends/test_tool.py", "backends/test_minizinc.py", "backends/test_cpmpy.py",
    "tools/test_runexec.py", "runner/test_dask.py", "tasks/test_value.py", "play/test_exact_values.py",
}
SLOW_TESTS = {
    "test_15_the_first_count_does_not_pay_for_compilation_the_warm_up_does",
    "test_5_a_huge_board_is_timed_from_the_hand_over_and_stopped_a_second_after_its_limit",
    "test_5b_machine_load_is_no_slowdown_on_cpu_time",
    "test_sigterm_stops_every_seed_in_flight_with_its_journal_and_the_same_command_resumes",
    "test_ctrl_c_or_sigterm_leaves_a_clean_exit_and_a_journal_that_resumes",
    "test_every_registered_counter_conforms", "test_a_lying_counter_fails_the_check_its_lie_breaks",
    "test_big_board_builds_and_solves", "test_bad_executor_arguments_are_one_line",
}


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).resolve().parent
    for item in items:
        where = Path(str(item.fspath)).resolve().relative_to(tests).as_posix()
        if where in SLOW_MODULES or where.startswith("benchmarks/") or getattr(item, "originalname", item.name) in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)

