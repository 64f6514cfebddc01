"""A campaign on a real SLURM: Debian's slurm-wlm as a one-node cluster (scripts/slurm-one-node), started and torn
down here; ``run --executor slurm`` gives the records a local run gives, and a cancelled job's shard is submitted
again and resumed -- no run missing, none stored twice."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.cli import main
from harness.store import ResultsStore

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "slurm-one-node"
SMOKE = sorted((ROOT / "instances" / "smoke").glob("*.toml"))

pytestmark = [
    pytest.mark.skipif(not all(shutil.which(e) for e in ("slurmctld", "slurmd", "munged", "sbatch")),
                       reason="SLURM is not installed (apt-get install slurm-wlm munge)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="a one-node SLURM cluster is started as root"),
]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    pytest.importorskip("submitit")
    where = tmp_path_factory.mktemp("slurm")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    env = dict(os.environ, SLURM_ONE_NODE_PORT=str(16817 + 10 * int(worker or 0)))
    started = subprocess.run([str(SCRIPT), "start", str(where)], capture_output=True, text=True, env=env)
    if started.returncode != 0:  # what did start (munged) goes too
        subprocess.run([str(SCRIPT), "stop", str(where)], capture_output=True, env=env)
    assert started.returncode == 0, started.stderr
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = str(where / "slurm.conf")
    yield where
    subprocess.run([str(SCRIPT), "stop", str(where)], capture_output=True, env=env)
    if old is None:
        os.environ.pop("SLURM_CONF", None)
    else:
        os.environ["SLURM_CONF"] = old


def _config(tmp_path: Path) -> Path:
    cfg = tmp_path / "c.toml"
    files = ", ".join(f'"{p}"' for p in SMOKE)
    cfg.write_text(f'name = "onslurm"\ninstances = [{files}]\ntask = {{ kind = "count", k = 2 }}\njobs = 2\n'
                   '[limits]\ntime_s = 30\nmemory_mb = 2048\n[[pairs]]\nbackend = "sat"\n[[pairs]]\nbackend = "cpsat"\n')
    return cfg


def _facts(out: Path) -> dict[str, tuple]:
    with ResultsStore(out, create=False) as store:
        return {r["run_id"]: (r["instance"], r["pair"], r["status"], r["answer"], r["count"], r["verdict"])
                for r in store.records()}


def test_a_campaign_on_slurm_gives_the_records_of_a_local_one(slurm, tmp_path, capsys):
    cfg = _config(tmp_path)
    assert main(["run", str(cfg), "--progress", "plain", "--out", str(tmp_path / "local")]) == 0
    assert main(["run", str(cfg), "--executor", "slurm", "--out", str(tmp_path / "slurm")]) == 0
    said = capsys.readouterr()
    assert "slurm: submitting 2 shards of 2" in said.err
    local, onslurm = _facts(tmp_path / "local"), _facts(tmp_path / "slurm")
    assert onslurm == local
    with ResultsStore(tmp_path / "slurm", create=False) as store:
        sessions = store.sessions()
        assert {s.get("shard") for s in sessions} == {"1/2", "2/2"}
        assert all(r["worker_pid"] and r["host"] for r in store.records())
    assert main(["check", str(tmp_path / "slurm")]) == 0
    # run again: every shard resumes, nothing is run twice, the merged store is the same
    assert main(["run", str(cfg), "--executor", "slurm", "--out", str(tmp_path / "slurm")]) == 0
    assert "0 executed now" in capsys.readouterr().out
    assert _facts(tmp_path / "slurm") == local


def test_a_cancelled_job_is_submitted_again_and_its_shard_resumed(slurm, tmp_path, capsys, monkeypatch):
    """``scancel`` of one array task before it ends: its shard is submitted again (a retry) and resumed."""
    from harness.runner import slurm as onslurm

    real = onslurm.submit_shards
    cancelled: list[str] = []

    def submit_and_cancel_one(*args, **kwargs):
        jobs = real(*args, **kwargs)
        if not cancelled:  # the first pass: cancel the first task at once
            cancelled.append(jobs[0].job_id)
            subprocess.run(["scancel", jobs[0].job_id], check=True)
        return jobs

    monkeypatch.setattr(onslurm, "submit_shards", submit_and_cancel_one)
    cfg = _config(tmp_path)
    assert main(["run", str(cfg), "--executor", "slurm", "--out", str(tmp_path / "slurm")]) == 0
    err = capsys.readouterr().err
    assert cancelled and f"job {cancelled[0]}" in err and "pass 2 of at most 3" in err
    facts = _facts(tmp_path / "slurm")
    with ResultsStore(tmp_path / "slurm", create=False) as store:
        assert {p["run_id"] for p in store.plan()} == set(facts)  # every planned run, once


def test_a_shard_lost_on_every_pass_is_stored_lost_and_the_same_command_executes_it(slurm, tmp_path, capsys,
                                                                                    monkeypatch):
    """``retries = 0`` and the one pass's first task cancelled: that shard's runs are stored as lost with the reason
    (exit 3, ``check`` fails on them); the same command then executes them, in their place."""
    from harness.runner import slurm as onslurm

    real = onslurm.submit_shards
    cancelled: list[str] = []

    def submit_and_cancel_once(*args, **kwargs):
        jobs = real(*args, **kwargs)
        if not cancelled:
            cancelled.append(jobs[0].job_id)
            subprocess.run(["scancel", jobs[0].job_id], check=True)
        return jobs

    monkeypatch.setattr(onslurm, "submit_shards", submit_and_cancel_once)
    cfg = _config(tmp_path)
    cfg.write_text(cfg.read_text().replace("jobs = 2\n", "jobs = 2\nretries = 0\n"))
    out = tmp_path / "slurm"
    assert main(["run", str(cfg), "--executor", "slurm", "--out", str(out)]) == 3
    with ResultsStore(out, create=False) as store:
        lost = [r for r in store.records() if r["status"] == "lost"]
        planned = len(store.plan())
    assert lost and len(_facts(out)) == planned  # every planned run once: measured, or lost with the reason
    assert all(r["error"] == f"lost: its SLURM job {cancelled[0]} left the queue without a result (cancelled, its "
               "node lost, or killed at its walltime), on each of the 1 passes (retries = 0)" for r in lost), lost
    capsys.readouterr()
    assert main(["check", str(out)]) == 1
    assert f"{len(lost)} of them lost with their worker or node on every attempt" in capsys.readouterr().out
    assert main(["run", str(cfg), "--executor", "slurm", "--out", str(out)]) == 0
    facts = _facts(out)
    assert len(facts) == planned and "lost" not in {f[2] for f in facts.values()}
    assert main(["check", str(out)]) == 0


GENERATE = ["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal", "--number",
            "3", "--seed", "20", "--certify", "sat/cell"]


def test_generate_on_slurm_makes_the_puzzles_generate_makes_here(slurm, tmp_path, capsys):
    from harness.puzzle.formats import read_instance

    def made(out: Path) -> dict:  # each puzzle's content and hints (its meta holds the times it took)
        return {f.name: (read_instance(f).content_hash(), read_instance(f).hints) for f in sorted(out.glob("*.toml"))}

    assert main([*GENERATE, "--out", str(tmp_path / "here")]) == 0
    assert main([*GENERATE, "--executor", "slurm", "--jobs", "2", "--out", str(tmp_path / "onslurm")]) == 0
    here, onslurm = made(tmp_path / "here"), made(tmp_path / "onslurm")
    assert len(here) == 3 and onslurm == here  # a seed's puzzle is its settings' and seed's, wherever it ran
    jobs = list((tmp_path / "onslurm" / ".slurm").glob("*_result.pkl"))
    assert len(jobs) == 3  # one SLURM job per seed, each with its result
