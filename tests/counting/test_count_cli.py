"""``battlebench count`` as a user runs it, and the counting task in a campaign guarded by ``check``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEP = ROOT / "instances" / "deployments"
TINY = DEP / "tiny"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_count_json_gives_exact_integers_and_the_verdict(capsys):
    code, out, err = run(capsys, "count", TINY / "t5x5_3_2x2.toml", DEP / "hex_blue.toml", "--json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["count"] for r in rows] == [12798, 17290404311]
    assert all(isinstance(r["count"], int) and r["complete"] and r["verdict"] == "ok" for r in rows)
    assert {"instance", "backend", "by", "count", "complete", "times"} <= set(rows[0])
    assert rows[0]["backend"] == "dp" and rows[0]["by"] == "deployments"
    assert rows[0]["times"]["wall_s"] > 0 and rows[0]["times"]["cpu_s"] is not None


def test_count_text_and_other_counters(capsys):
    code, out, _ = run(capsys, "count", DEP / "standard_10x10.toml", "--backend", "cluster")
    assert code == 0
    assert "30,093,975,536 deployments (cluster" in out and "the known count" in out


def test_count_by_boards(capsys):
    code, out, _ = run(capsys, "count", TINY / "t5x5_notouch.toml", "--by", "boards", "--json")
    from harness.counting.brute import brute_count
    from harness.counting.format import read_deployment

    assert code == 0
    assert json.loads(out)["count"] == brute_count(read_deployment(TINY / "t5x5_notouch.toml"), "boards")


def test_marginals_print_a_heat_map_and_write_a_png(capsys, tmp_path):
    code, out, _ = run(capsys, "count", TINY / "t6x6_position.toml", "--marginals", "--png-dir", tmp_path)
    assert code == 0
    assert "P(ship) per cell" in out
    lines = out.splitlines()
    grid = lines[lines.index(next(x for x in lines if "P(ship)" in x)) + 1:]
    assert len(grid[:6]) == 6 and grid[0].split()[0] == "o" and "t6x6_position: 34 deployments" in grid[6]
    png = tmp_path / "t6x6_position-marginals.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_marginals_json_holds_exact_cell_counts(capsys, tmp_path):
    code, out, _ = run(capsys, "count", TINY / "t6x6_position.toml", "--marginals", "--png-dir", tmp_path, "--json")
    m = json.loads(out)["marginals"]
    assert m["total"] == 34
    assert all(isinstance(v, int) and 0 <= v <= 34 for _, v in m["cells"])


def test_a_wrong_known_count_exits_1(capsys, tmp_path):
    text = (TINY / "t4x4_3_2.toml").read_text().replace("expected_count = 264", "expected_count = 265")
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    code, out, _ = run(capsys, "count", bad)
    assert code == 1 and "WRONG: count 264 is not the known 265" in out


@pytest.mark.parametrize("text,message", [
    ('[grid]\nkind = "triangle"\nrows = 2\ncols = 2\n[pieces]\nA = 2\n', "triangle"),
    ('[grid]\nkind = "square"\nrows = 3\ncols = 3\n[pieces.A]\ncells = [[0, 0], [2, 0]]\n', "not connected"),
    ('[grid]\nkind = "square"\nrows = 3\ncols = 3\n[pieces.A]\ncells = [[0, 0], [0, 0]]\n', "repeated"),
    ('[grid]\nkind = "square"\nrows = 3\ncols = 3\nislands = [[5, 5]]\n[pieces]\nA = 2\n', "[5, 5]"),
])
def test_bad_input_is_one_line_naming_file_and_place(capsys, tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    good = TINY / "t4x4_3_2.toml"
    code, out, err = run(capsys, "count", path, good)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and str(path) in err and message in err, err
    assert "264 deployments" in out  # the good file is still counted


def test_unknown_counter_and_unsupported_semantics_fail_before_counting(capsys):
    code, _, err = run(capsys, "count", TINY / "t4x4_3_2.toml", "--backend", "nope")
    assert code == 2 and "unknown counter 'nope'" in err
    code, _, err = run(capsys, "count", TINY / "t4x4_3_2.toml", "--backend", "cluster", "--by", "boards")
    assert code == 2 and "counts by deployments" in err


def test_a_time_limit_ends_a_slow_count(capsys):
    code, out, _ = run(capsys, "count", DEP / "sweep" / "sweep_15x15.toml", "--backend", "frontier", "--time-limit", "1",
                         "--json")
    row = json.loads(out)
    assert code == 1 and row["status"] == "timeout" and row["count"] is None
    assert row["times"]["cpu_s"] < 1 + 6  # the work done past the limit (CPU), not a loaded machine's waiting


def _campaign(tmp_path, pairs, instances):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'name = "c"\ninstances = {json.dumps([str(p) for p in instances])}\ntask = "deployments"\n'
                   f'pairs = [{", ".join("{ backend = %s }" % json.dumps(p) for p in pairs)}]\n'
                   f'limits = {{ time_s = 60 }}\noutput = "{tmp_path / "out"}"\n')
    return cfg


def test_a_counting_campaign_is_stored_and_checked(capsys, tmp_path):
    cfg = _campaign(tmp_path, ["dp", "brute"], [TINY / "t4x4_3_2.toml", TINY / "t5x5_3_2x2.toml"])
    code, _, err = run(capsys, "run", cfg)
    assert code == 0, err
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0 and "exact counts agree" in out, out
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        rows = db.execute("select pair, count, detail from runs order by pair, instance").fetchall()
    assert [(p, c) for p, c, _ in rows] == [("brute/deployments", 264), ("brute/deployments", 12798),
                                           ("dp/deployments", 264), ("dp/deployments", 12798)]
    assert json.loads(rows[0][2])["count"] == "264"
    code, _, _ = run(capsys, "report", tmp_path / "out")
    summary = (tmp_path / "out" / "report" / "summary.md").read_text()
    assert code == 0 and "## Counts" in summary
    assert "| t5x5_3_2x2 | deployments | 12,798 |" in summary


def test_check_fails_when_counters_disagree(capsys, tmp_path):
    cfg = _campaign(tmp_path, ["dp", "brute"], [TINY / "t4x4_3_2.toml"])
    assert run(capsys, "run", cfg)[0] == 0
    store = tmp_path / "out" / "results.sqlite"
    with sqlite3.connect(store) as db:  # a counter that says 263: as a run would store it
        db.execute("update runs set count = 263, detail = json_set(detail, '$.count', '263') "
                   "where pair = 'brute/deployments'")
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1
    assert "count-mismatch" in out and "263 by brute/deployments" in out
    run(capsys, "report", tmp_path / "out")
    summary = (tmp_path / "out" / "report" / "summary.md").read_text()
    assert "| t4x4_3_2 | deployments | disagree |" in summary and "`count-mismatch`" in summary


def test_check_fails_on_a_count_the_manifest_contradicts(capsys, tmp_path):
    cfg = _campaign(tmp_path, ["dp"], [TINY / "t4x4_3_2.toml"])
    assert run(capsys, "run", cfg)[0] == 0
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        db.execute("update runs set count = 263, detail = json_set(detail, '$.count', '263')")
    manifest = tmp_path / "instances" / "MANIFEST.toml"
    manifest.parent.mkdir()
    from harness.counting.format import read_deployment

    h = read_deployment(TINY / "t4x4_3_2.toml").content_hash()
    manifest.write_text(f'[[instance]]\nname = "t4x4_3_2"\ncontent_hash = "{h}"\nexpected_count = 264\n')
    code, out, _ = run(capsys, "check", tmp_path / "out", "--manifest", manifest)
    assert code == 1 and "expected-count" in out and "manifest says 264" in out, out


def test_an_invalid_counting_config_fails_before_any_run(capsys, tmp_path):
    cfg = _campaign(tmp_path, ["cluster"], [TINY / "t4x4_3_2.toml"])
    cfg.write_text(cfg.read_text().replace('task = "deployments"', 'task = "boards"'))
    code, _, err = run(capsys, "run", cfg)
    assert code == 2 and "counts by deployments" in err and "pairs[0]" in err
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_a_count_against_the_files_known_count_makes_run_exit_1_and_check_fail(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text((TINY / "t4x4_3_2.toml").read_text().replace("expected_count = 264", "expected_count = 265"))
    cfg = _campaign(tmp_path, ["dp"], [bad])
    code, out, err = run(capsys, "run", cfg)
    assert code == 1, (out, err)
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "wrong-count" in out and "count 264 is not the known 265" in out, out


@pytest.mark.parametrize("sql, said", [
    ("update runs set count = 265 where pair = 'dp/deployments'", "count column 265"),  # issue 32, finding 2
    ("update runs set detail = json_set(detail, '$.count', '265') where pair = 'dp/deployments'",
     "detail.count 265"),
    ("update runs set verdict = 'none' where pair = 'dp/deployments'", "verdict none"),  # the file knows 264
    ("update runs set status = 'unsat' where pair = 'dp/deployments'", "status unsat"),
])
def test_check_judges_every_stored_count_again(capsys, tmp_path, sql, said):
    cfg = _campaign(tmp_path, ["dp"], [TINY / "t4x4_3_2.toml"])
    assert run(capsys, "run", cfg)[0] == 0
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0 and "verdicts: 1 counts judged again in 1 runs" in out, out
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        if "verdict = 'none'" in sql:  # a store claiming no count is known: its expected forged away too
            db.execute("update runs set detail = json_set(detail, '$.expected', null)")
        assert db.execute(sql).rowcount == 1
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "contradicted when judged again" in out and said in out, out


@pytest.mark.parametrize("options,said", [
    ("{ nope = 1 }", "pairs[0].options: counter cpsat has no option 'nope' (known: split)"),
    ("{ split = 0 }", "pairs[0].options: option 'split' of counter cpsat must be >= 1"),
    ('{ split = "two" }', "pairs[0].options: option 'split' of counter cpsat must be int, not 'two'"),
    ("{ split = 1.5 }", "pairs[0].options: option 'split' of counter cpsat must be int, not 1.5"),
    ("{ split = 2 }", ""),
])
def test_a_counters_options_are_checked_before_any_run(capsys, tmp_path, options, said):
    cfg = _campaign(tmp_path, ["cpsat"], [TINY / "t4x4_3_2.toml"])
    cfg.write_text(cfg.read_text().replace('{ backend = "cpsat" }', f'{{ backend = "cpsat", options = {options} }}'))
    code, _, err = run(capsys, "run", cfg)
    if not said:
        assert code == 0, err
        return
    assert code == 2 and said in err and err.count("\n") == 1, err  # one line, no traceback
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_count_takes_a_counters_options_and_refuses_unknown_ones(capsys):
    code, out, _ = run(capsys, "count", TINY / "t5x5_clues.toml", "--counter", "cpsat", "-o", "split=3", "--json")
    row = json.loads(out)
    from harness.counting.brute import brute_count
    from harness.counting.format import read_deployment

    assert code == 0 and row["count"] == brute_count(read_deployment(TINY / "t5x5_clues.toml"))
    assert "3 searches at once" in row["detail"]["split"]
    code, _, err = run(capsys, "count", TINY / "t5x5_clues.toml", "--counter", "cluster", "-o", "split=2")
    assert code == 2 and "counter cluster has no option 'split' (it takes none)" in err
    code, _, err = run(capsys, "count", TINY / "t5x5_clues.toml", "-o", "split=x")
    assert code == 2 and "option 'split' of counter dp must be int, not 'x'" in err
