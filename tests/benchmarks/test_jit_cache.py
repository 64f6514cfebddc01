"""benchmarks/jit_cache.py: the instance it counts is the German fleet on 10x10, no touching, with its known count."""

from __future__ import annotations

from harness.counting.format import read_deployment


def test_the_counted_instance_is_the_german_fleet(load_benchmark, tmp_path):
    bench = load_benchmark("jit_cache")
    path = tmp_path / "german.toml"
    path.write_text(bench.GERMAN)
    inst = read_deployment(path)
    assert (inst.rows, inst.cols, inst.touching) == (10, 10, False)
    assert sorted((len(p.cells), p.count) for p in inst.pieces) == [(2, 4), (3, 3), (4, 2), (5, 1)]
    assert inst.meta["expected_count"] == bench.KNOWN


def test_a_commands_stderr_is_one_table_cell_without_the_temporary_folder(load_benchmark, tmp_path):
    bench = load_benchmark("jit_cache")
    text = f"battlebench: compiling x, kept in {tmp_path}/cache\nsecond | line"
    assert bench._cell(text, tmp_path) == "battlebench: compiling x, kept in TMP/cache second \\| line"
    assert bench._cell("", tmp_path) == "-"
