"""``battlebench run --shard I/N`` on two "machines" and ``battlebench merge``: the shards' stores become the
campaign's store -- each run once, the plan whole, every session kept -- and what cannot be merged is refused in
one line: different configs, two records of one run that disagree, a target that holds a store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from harness.cli import main
from harness.store import ResultsStore

ROOT = Path(__file__).resolve().parents[2]
SMOKE = sorted((ROOT / "instances" / "smoke").glob("*.toml"))


def _config(tmp_path: Path, name: str = "shards", k: int = 2) -> Path:
    cfg = tmp_path / f"{name}.toml"
    files = ", ".join(f'"{p}"' for p in SMOKE)
    cfg.write_text(f'name = "{name}"\ninstances = [{files}]\ntask = {{ kind = "count", k = {k} }}\n'
                   '[limits]\ntime_s = 30\n[[pairs]]\nbackend = "sat"\n[[pairs]]\nbackend = "cpsat"\n')
    return cfg


def _run(cfg: Path, out: Path, *extra: str) -> int:
    return main(["run", str(cfg), "--progress", "plain", "--out", str(out), *extra])


def _ids(out: Path) -> list[str]:
    with ResultsStore(out, create=False) as store:
        return [r["run_id"] for r in store.records()]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shards")
    cfg = _config(tmp)
    assert _run(cfg, tmp / "a", "--shard", "1/2") in (0, 3)  # a shard alone is incomplete: exit 3
    assert _run(cfg, tmp / "b", "--shard", "2/2") in (0, 3)
    return tmp, cfg


def test_shards_split_the_plan_by_instance_and_each_keeps_the_whole_plan(shards):
    tmp, _ = shards
    a, b = _ids(tmp / "a"), _ids(tmp / "b")
    assert a and b and not set(a) & set(b)
    with ResultsStore(tmp / "a", create=False) as sa, ResultsStore(tmp / "b", create=False) as sb:
        plan = sa.plan()
        assert plan == sb.plan() and {p["run_id"] for p in plan} == set(a) | set(b)
        inst_a = {r["instance"] for r in sa.records()}
        inst_b = {r["instance"] for r in sb.records()}
        assert not inst_a & inst_b  # every run of an instance in one shard: a paired comparison is on one machine
        pairs_a = {r["pair"] for r in sa.records()}
        assert pairs_a == {r["pair"] for r in sb.records()}  # and every pair on both machines
        assert sa.sessions()[-1]["shard"] == "1/2" and sb.sessions()[-1]["shard"] == "2/2"


def test_merge_gives_the_whole_campaign_each_run_once_whatever_the_order(shards, tmp_path, capsys):
    tmp, _ = shards
    assert main(["merge", str(tmp / "a"), str(tmp / "b"), "--out", str(tmp_path / "ab")]) == 0
    assert "merged" in capsys.readouterr().err
    assert main(["merge", str(tmp / "b"), str(tmp / "a"), "--out", str(tmp_path / "ba")]) == 0
    ab, ba = _ids(tmp_path / "ab"), _ids(tmp_path / "ba")
    assert ab == ba and sorted(ab) == sorted(_ids(tmp / "a") + _ids(tmp / "b"))  # the same store either way
    with ResultsStore(tmp_path / "ab", create=False) as store:
        assert len(store.plan()) == len(ab)
        assert {s.get("shard") for s in store.sessions()} == {"1/2", "2/2"}
        import json

        sources = json.loads(store.meta()["merged_from"])
        assert [s["store"] for s in sources] == [str(tmp / "a"), str(tmp / "b")]
    capsys.readouterr()
    assert main(["check", str(tmp_path / "ab")]) == 0  # the shards together hold every planned run
    assert "missing" not in capsys.readouterr().out.lower().split("check:")[-1]


def test_a_run_stored_twice_is_kept_once_the_measurement_that_started_first(shards, tmp_path, capsys):
    tmp, _ = shards
    assert main(["merge", str(tmp / "a"), str(tmp / "a"), "--out", str(tmp_path / "x")]) == 2  # one store twice
    assert "named once" in capsys.readouterr().err
    import shutil

    shutil.copytree(tmp / "a", tmp_path / "a2")
    db = sqlite3.connect(tmp_path / "a2" / "results.sqlite")
    first = db.execute("SELECT run_id, started_at FROM runs ORDER BY rowid LIMIT 1").fetchone()
    db.execute("UPDATE runs SET started_at = '1999-01-01T00:00:00+00:00', wall_s = 123.0 WHERE run_id = ?",
               (first[0],))
    db.commit()
    db.close()
    assert main(["merge", str(tmp / "a"), str(tmp_path / "a2"), "--out", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert f"{len(_ids(tmp / 'a'))} runs stored twice, the measurement that started first kept" in err
    with ResultsStore(tmp_path / "m", create=False) as store:
        recs = {r["run_id"]: r for r in store.records()}
    assert len(recs) == len(_ids(tmp / "a")) and recs[first[0]]["wall_s"] == 123.0  # the earlier one, not "a"'s


def test_a_lost_record_gives_way_to_a_measured_one_whenever_it_started(shards, tmp_path, capsys):
    """A run lost on one machine (its worker died on every attempt) and measured on another: the measurement is
    kept, even where the lost record is the earlier one; the other way round too."""
    import shutil

    tmp, _ = shards
    shutil.copytree(tmp / "a", tmp_path / "a2")
    db = sqlite3.connect(tmp_path / "a2" / "results.sqlite")
    rid = db.execute("SELECT run_id FROM runs ORDER BY rowid LIMIT 1").fetchone()[0]
    db.execute("UPDATE runs SET status = 'lost', answer = 'none', count = 0, boards = '[]', verdicts = '[]', "
               "started_at = '1999-01-01T00:00:00+00:00', error = 'lost: its Dask worker died' WHERE run_id = ?",
               (rid,))
    db.commit()
    db.close()
    for order in ([tmp_path / "a2", tmp / "a"], [tmp / "a", tmp_path / "a2"]):
        out = tmp_path / f"m{order[0].name}"
        assert main(["merge", *map(str, order), "--out", str(out)]) == 0
        with ResultsStore(out, create=False) as store:
            kept = {r["run_id"]: r for r in store.records()}[rid]
        assert kept["status"] != "lost" and kept["started_at"] != "1999-01-01T00:00:00+00:00"


def test_two_records_of_one_run_that_disagree_are_refused_naming_the_run(shards, tmp_path, capsys):
    import shutil

    tmp, _ = shards
    shutil.copytree(tmp / "a", tmp_path / "a2")
    db = sqlite3.connect(tmp_path / "a2" / "results.sqlite")
    rid = db.execute("SELECT run_id FROM runs WHERE count = 2 LIMIT 1").fetchone()[0]  # count-2: two found
    db.execute("UPDATE runs SET count = 1, exhausted = 1, complete = 1 WHERE run_id = ?", (rid,))  # "exactly one"
    db.commit()
    db.close()
    assert main(["merge", str(tmp / "a"), str(tmp_path / "a2"), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"run {rid}" in err and "disagree: one says there are exactly 1, the other found 2" in err
    assert "Traceback" not in err and not (tmp_path / "m").exists()  # nothing written


def test_stores_of_different_configs_are_refused_unless_mixed(shards, tmp_path, capsys):
    tmp, _ = shards
    other = _config(tmp_path, "other", k=1)
    assert _run(other, tmp_path / "o", "--shard", "1/3") in (0, 3)
    capsys.readouterr()
    assert main(["merge", str(tmp / "a"), str(tmp_path / "o"), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "different configs (--mixed merges them anyway)" in err and len(err.strip().splitlines()) == 1
    assert main(["merge", str(tmp / "a"), str(tmp_path / "o"), "--out", str(tmp_path / "m"), "--mixed"]) == 0
    with ResultsStore(tmp_path / "m", create=False) as store:
        assert store.meta()["config_hash"].startswith("mixed:")
        assert len(store) == len(_ids(tmp / "a")) + len(_ids(tmp_path / "o"))
    # the target holds a store now: merge writes new stores only
    assert main(["merge", str(tmp / "a"), str(tmp / "b"), "--out", str(tmp_path / "m")]) == 2
    assert "already holds a results store" in capsys.readouterr().err


@pytest.mark.parametrize("shard", ["0/2", "3/2", "x", "1/0", "1/2/3"])
def test_a_bad_shard_is_refused_before_any_run(tmp_path, capsys, shard):
    assert _run(_config(tmp_path), tmp_path / "out", "--shard", shard) == 2
    assert "--shard" in capsys.readouterr().err and not (tmp_path / "out").exists()


def _kept_proof(store: Path, text: bytes, mtime: int, name: str | None = None) -> str:
    import gzip
    import hashlib

    kept = f"{name or hashlib.sha256(text).hexdigest()}.drup.gz"
    (store / "proofs").mkdir(exist_ok=True)
    (store / "proofs" / kept).write_bytes(gzip.compress(text, mtime=mtime))
    return kept


def test_a_proof_both_shards_keep_is_kept_once_and_two_contents_of_one_name_are_refused(shards, tmp_path, capsys):
    import gzip
    import shutil

    tmp, _ = shards
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(tmp / "a", a)
    shutil.copytree(tmp / "b", b)
    proof = b"1 2 0\n-1 0\n0\n"
    name = _kept_proof(a, proof, mtime=1)
    assert _kept_proof(b, proof, mtime=2) == name  # one proof compressed at two moments: other gzip bytes
    assert (a / "proofs" / name).read_bytes() != (b / "proofs" / name).read_bytes()
    assert main(["merge", str(a), str(b), "--out", str(tmp_path / "ab")]) == 0
    assert gzip.decompress((tmp_path / "ab" / "proofs" / name).read_bytes()) == proof
    capsys.readouterr()
    _kept_proof(b, b"0\n", mtime=2, name=name.split(".")[0])  # another content under the same name
    assert main(["merge", str(a), str(b), "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"keeps a different proofs/{name}" in err and str(b) in err
    assert not (tmp_path / "bad" / "results.sqlite").exists()
    (b / "proofs" / name).write_bytes(b"not gzip")
    assert main(["merge", str(a), str(b), "--out", str(tmp_path / "unreadable")]) == 2
    assert "cannot be read" in capsys.readouterr().err
