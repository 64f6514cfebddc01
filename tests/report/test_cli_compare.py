"""`battlebench compare` as a user runs it: the Markdown on stdout, the three files with --out, one line for bad input."""

from __future__ import annotations

from pathlib import Path

from handstore import make_store, run

from harness.cli import build_parser, main
from harness.report import compare

ROOT = Path(__file__).resolve().parents[2]
SAT, CP = "sat/cell", "cpsat/placement"


def _stores(tmp_path: Path) -> tuple[str, str]:
    old = [run(i, p, "sat", 1.0, cpu_s=0.9) for i in ("i1", "i2") for p in (SAT, CP)]
    new = [run("i1", SAT, "sat", 3.0, cpu_s=2.7), run("i2", SAT, "timeout", 10.0),
           run("i1", CP, "sat", 1.0, cpu_s=0.9), run("i2", CP, "sat", 1.0, cpu_s=0.9)]
    return str(make_store(tmp_path / "new", new)), str(make_store(tmp_path / "old", old))


def test_compare_prints_the_markdown_and_exits_0(tmp_path, capsys):
    new, old = _stores(tmp_path)
    assert main(["compare", new, old]) == 0  # changes are not failures
    out = capsys.readouterr().out
    assert out.startswith(f"# battlebench compare: {new} against {old}")
    assert f"| {SAT} | i1 | slower |" in out and f"| {SAT} | i2 | status changed | sat | timeout |" in out
    assert f"| {CP} | i1 |" not in out  # the same: only counted
    # a higher ratio, wall time: the 3x slowdown is no longer beyond it
    assert main(["compare", new, old, "--ratio", "4", "--time", "wall"]) == 0
    assert f"| {SAT} | i1 | slower |" not in capsys.readouterr().out


def test_compare_out_writes_the_three_files(tmp_path, capsys):
    new, old = _stores(tmp_path)
    assert main(["compare", new, old, "--out", str(tmp_path / "cmp")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "compare.html" in captured.err
    assert sorted(p.name for p in (tmp_path / "cmp").iterdir()) == ["compare.csv", "compare.html", "compare.md"]
    assert "<td>slower</td>" in (tmp_path / "cmp" / "compare.html").read_text()


def test_a_missing_or_damaged_store_is_one_line(tmp_path, capsys):
    new, _ = _stores(tmp_path)
    assert main(["compare", new, str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing" in err[0] and "Traceback" not in err[0]
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "results.sqlite").write_bytes(b"this is not a database" * 100)
    assert main(["compare", str(tmp_path / "bad"), new]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad" in err[0]
    (tmp_path / "afile").write_text("x")
    assert main(["compare", new, new, "--out", str(tmp_path / "afile")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "afile: cannot write the comparison" in err[0]


def test_bad_options_are_one_line(tmp_path, capsys):
    new, old = _stores(tmp_path)
    for bad in (["--ratio", "1"], ["--floor", "-1"]):
        assert main(["compare", new, old, *bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and bad[0] in err[0]


def test_the_defaults_are_checks():
    """One threshold and one floor for both commands: compare's defaults are check's."""
    parser = build_parser()
    from harness.core.thresholds import Thresholds

    cmp, ck = parser.parse_args(["compare", "a", "b"]), parser.parse_args(["check", "a"])
    assert ck.ratio == [] and ck.floor == []  # check without a value: the config's [check], else the defaults
    every = Thresholds.uniform().overall
    assert (cmp.ratio, cmp.floor, cmp.time) == (every[0].value, every[1].value, ck.time) == \
        (compare.RATIO, compare.FLOOR_S, "cpu")


def test_compare_reads_the_committed_compressed_stores(capsys):
    base = str(ROOT / "reports" / "ci-baseline")
    assert main(["compare", base, base]) == 0
    out = capsys.readouterr().out
    assert "6 instance × pair matches, 6 in both campaigns: 6 same." in out
