"""Node classes: runs measured on two classes are never ranked together.  ``report`` refuses such a store with one
line naming the classes, and with ``--node-class`` reports one class (its completeness and ranking of that class
alone, saying what it left out); ``check`` judges every run for what does not compare times, and judges no
regression between stores of two classes.  Every record a campaign writes names this machine's class."""

from __future__ import annotations

import json
import os
import sqlite3
from functools import partial

import handstore
from handstore import BOARD_A, BOARD_B, run

from harness.cli import main
from harness.core.node import cpu_model, node_class
from harness.report.nodes import UNKNOWN, choose, classes_of
from harness.store import ResultsStore

make_store = partial(handstore.make_store, files=True)
FAST, SLOW = "Fast CPU 9000, 2 cores, 24 GiB, kernel 6.1", "Slow CPU 100, 2 cores, 24 GiB, kernel 6.1"
PAIRS = ("sat/cell", "cpsat/placement")


def runs_on(classes: dict[str, str], times: dict[str, float] | None = None) -> list[dict]:
    """Both pairs on each instance of ``classes`` (instance -> node class), ``times`` per pair."""
    times = times or {"sat/cell": 1.0, "cpsat/placement": 2.0}
    return [run(inst, pair, "sat", times[pair], complete=0, exhausted=0, boards=[BOARD_A, BOARD_B],
                node_class=cls) for inst, cls in classes.items() for pair in PAIRS]


MIXED = {"i1": FAST, "i2": FAST, "i3": SLOW}


def test_a_report_refuses_a_store_of_two_node_classes_in_one_line_naming_them(tmp_path, capsys):
    make_store(tmp_path / "r", runs_on(MIXED))
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert f"measured on 2 node classes ({FAST}: 4 runs; {SLOW}: 2 runs)" in err[0] and "--node-class" in err[0]
    assert not (tmp_path / "rep").exists()


def test_with_a_node_class_chosen_the_report_ranks_that_class_alone_and_says_what_it_left_out(tmp_path, capsys):
    make_store(tmp_path / "r", runs_on(MIXED))
    assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep"), "--node-class", "slow cpu"]) == 0
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert f"Ranked on the node class {SLOW}; 4 runs measured on 1 other class left out." in summary
    with open(tmp_path / "rep" / "pairs.csv") as f:
        header, *rows = [line.strip().split(",") for line in f]
    instances = header.index("instances")
    assert len(rows) == 2 and {row[instances] for row in rows} == {"1"}  # i3 alone, on both pairs
    completeness = (tmp_path / "rep" / "completeness.csv").read_text().strip().splitlines()
    assert completeness[0].endswith("missing") and len(completeness) == 3, completeness
    assert all(line.endswith(",1,1,0") for line in completeness[1:]), completeness  # the other class: not planned


def test_a_node_class_that_matches_none_or_several_is_refused(tmp_path, capsys):
    make_store(tmp_path / "r", runs_on(MIXED))
    for wanted, matched in (("EPYC", "none"), ("CPU", "2")):
        assert main(["report", str(tmp_path / "r"), "--out", str(tmp_path / "rep"), "--node-class", wanted]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"--node-class {wanted!r} matches {matched} of its node classes" in err[0], err


def test_a_store_of_one_class_or_of_none_named_is_read_as_it_is():
    one = runs_on({"i1": FAST, "i2": FAST})
    import pandas as pd

    frame = pd.DataFrame(one)
    kept, plan, nodes = choose(frame, handstore.plan_rows(one), None, "here")
    assert len(kept) == 4 and len(plan) == 4 and nodes.read == FAST and not nodes.mixed
    old = pd.DataFrame(runs_on({"i1": None}))  # a store before records named their class
    assert classes_of(old) == {UNKNOWN: 2}
    lost = pd.DataFrame([*one, run("i9", "sat/cell", "lost", None)])  # a lost run names no node: not a class
    assert classes_of(lost) == {FAST: 4}


def test_check_judges_a_mixed_store_and_no_regression_across_node_classes(tmp_path, capsys):
    make_store(tmp_path / "mixed", runs_on(MIXED))
    assert main(["check", str(tmp_path / "mixed")]) == 0  # agreement and completeness do not compare times
    out = capsys.readouterr().out
    assert f"nodes: measured on 2 node classes ({FAST}: 4 runs; {SLOW}: 2 runs)" in out
    make_store(tmp_path / "fast", runs_on({"i1": FAST, "i2": FAST}))
    make_store(tmp_path / "slow", runs_on({"i1": SLOW, "i2": SLOW}, {"sat/cell": 5.0, "cpsat/placement": 9.0}))
    assert main(["check", str(tmp_path / "slow"), "--baseline", str(tmp_path / "fast")]) == 1
    out = capsys.readouterr().out
    assert (f"regression: not judged: the store was measured on the node class {SLOW}, the baseline on {FAST}; "
            "times of two node classes are not comparable") in out
    assert "check: FAILED: regressions not judged across node classes" in out and "slowdown" not in out
    assert main(["check", str(tmp_path / "mixed"), "--baseline", str(tmp_path / "fast")]) == 1
    assert "the store's runs were measured on 2 node classes" in capsys.readouterr().out
    # one class chosen of the mixed store: the same class as the baseline, judged
    assert main(["check", str(tmp_path / "mixed"), "--baseline", str(tmp_path / "fast"), "--node-class", "Fast"]) == 0
    out = capsys.readouterr().out
    assert f"nodes: ranked on the node class {FAST}; 2 runs measured on 1 other class left out" in out
    assert "regression: none" in out


def test_every_record_a_campaign_writes_names_this_machines_node_class(tmp_path):
    from fakecampaign import FAKE, write_config

    cfg = write_config(tmp_path, FAKE)
    main(["run", str(cfg), "--progress", "plain", "--output", str(tmp_path / "out")])  # 1: its wrong boards
    with ResultsStore(tmp_path / "out", create=False) as store:
        records = store.records()
        sessions = store.sessions()
    assert records and {r["node_class"] for r in records} == {node_class()}
    assert {s["node_class"] for s in sessions} == {node_class()}
    with open("/proc/meminfo") as f:
        memory = round(int(next(line.split()[1] for line in f if line.startswith("MemTotal:"))) / (1 << 20))
    cores = os.cpu_count()
    assert node_class() == f"{cpu_model()}, {cores} cores, {memory} GiB, kernel {os.uname().release}"
    with open("/proc/cpuinfo") as f:
        models = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    if models:
        assert node_class().startswith(models[0] + ", ")


def test_a_version_5_store_reads_its_runs_of_no_node_class_and_gains_the_column_when_written(tmp_path):
    from damage import as_version_5

    make_store(tmp_path, runs_on({"i1": None}))
    db = tmp_path / "results.sqlite"
    as_version_5(db)
    with ResultsStore(tmp_path, create=False) as store:
        assert store.version == 5 and {r["node_class"] for r in store.records()} == {None}
    with ResultsStore(tmp_path) as store:
        store.add(run("i2", "sat/cell", "sat", 1.0, node_class=FAST))
    with sqlite3.connect(db) as conn:
        assert sorted(conn.execute("SELECT instance, node_class FROM runs"), key=json.dumps) == [
            ("i1", None), ("i1", None), ("i2", FAST)]
