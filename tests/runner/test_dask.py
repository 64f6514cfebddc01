"""The Dask executor on a LocalCluster gives the same statuses and boards as the local one."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

from harness.runner.config import load_config
from harness.runner.dask import connect, local_cluster
from harness.runner.run import run_campaign
from harness.store import ResultsStore


REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "dask.toml"
    cfg.write_text(
        'name = "dask-vs-local"\n'
        f'instances = ["{REPO}/instances/smoke", "{REPO}/instances/seeds/seed000_6x6.toml"]\n'
        'task = "count-2"\n'
        "[limits]\ntime_s = 30\ngrace_s = 2\n"
        '[[pairs]]\nbackend = "sat"\n'
        '[[pairs]]\nbackend = "fake"\nformulation = "cell"\n'
        '[[pairs]]\nbackend = "fake"\noptions = { mode = "spin", seconds = 20 }\n'
    )
    return cfg


def _outcomes(out: Path) -> dict[str, tuple]:
    with ResultsStore(out, create=False) as store:
        return {r["run_id"]: (r["status"], r["count"], r["verdict"], r["boards"]) for r in store.records()}


def test_a_localcluster_campaign_equals_the_local_one(tmp_path):
    base = load_config(_config(tmp_path))
    base = replace(base, limits=replace(base.limits, time_s=2.0))  # the spinning pair times out
    local = replace(base, output=tmp_path / "local", executor="local", jobs=2)
    run_campaign(local, stream=io.StringIO(), live=False)

    with local_cluster(2) as cluster:
        dask = replace(base, output=tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address, jobs=2)
        shown = io.StringIO()
        outcome = run_campaign(dask, stream=shown, live=False, interval_s=0.5)
    assert outcome.executed == outcome.total == 15
    # the progress lines name a run the scheduler said was processing
    assert "running " in shown.getvalue() and "fake[mode=spin,seconds=20.0]/placement" in shown.getvalue()
    assert "running" not in shown.getvalue().split("\npair ")[0].splitlines()[-1]  # the final line

    a, b = _outcomes(tmp_path / "local"), _outcomes(tmp_path / "dask")
    assert a.keys() == b.keys() and len(a) == 15
    assert a == b
    statuses = {s for s, *_ in a.values()}
    assert {"sat", "unsat", "timeout"} <= statuses
    with ResultsStore(tmp_path / "dask", create=False) as store:
        pids = {r["worker_pid"] for r in store.records() if r["backend"] == "sat"}
        assert all(pids) and len(pids) <= 2  # warm workers, one per Dask worker thread


def test_a_play_campaign_on_a_localcluster_plays_the_same_games(tmp_path):
    cfg = tmp_path / "play.toml"
    cfg.write_text(f'name = "play-dask"\ninstances = ["{REPO}/instances/deployments/tiny/t5x5_3_2x2.toml"]\n'
                   'task = "play"\ngames = 6\nseeds = [2]\n[limits]\ntime_s = 30\n'
                   '[[pairs]]\nbackend = "random"\n[[pairs]]\nbackend = "posterior"\n')
    base = load_config(cfg)
    run_campaign(replace(base, output=tmp_path / "local", jobs=2), stream=io.StringIO(), live=False)
    with local_cluster(2) as cluster:
        dask = replace(base, output=tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address, jobs=2)
        outcome = run_campaign(dask, stream=io.StringIO(), live=False, interval_s=0.5)
    assert outcome.executed == outcome.total == 12
    a, b = _outcomes(tmp_path / "local"), _outcomes(tmp_path / "dask")
    assert a == b and {s for s, *_ in a.values()} == {"sat"}  # the same shots, game by game


def test_a_local_cluster_starts_while_port_8787_is_taken():
    """``--scheduler local`` beside another cluster (a second campaign, a parallel test): the scheduler's HTTP
    server takes a free port of localhost, so nothing warns that 8787 is in use (the suite makes warnings errors:
    with ``dashboard_address=None`` alone, as before, this test fails)."""
    import socket

    taken = socket.socket()
    try:
        taken.bind(("0.0.0.0", 8787))
        taken.listen()
    except OSError:  # already taken by something else: the same situation
        pass
    try:
        client, cluster = connect("local", 1)
        try:
            assert client.submit(sum, [1, 2, 3]).result(timeout=120) == 6
            http = cluster.scheduler.http_server  # in this process: a LocalCluster's scheduler runs here
            assert http.address == "127.0.0.1" and http.port not in (0, 8787)
        finally:
            client.close()
            cluster.close()
    finally:
        taken.close()
