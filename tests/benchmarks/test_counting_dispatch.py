"""benchmarks/counting_dispatch.py: its legs time real counts, its summary ranks them, and a disagreement fails it."""

from __future__ import annotations


def test_a_small_run_agrees_writes_its_report_and_fails_on_a_wrong_known_count(load_benchmark, tmp_path, monkeypatch):
    bench = load_benchmark("counting_dispatch")
    monkeypatch.setattr(bench, "INSTANCES", {"t5x5_notouch": bench.DEPLOY / "tiny" / "t5x5_notouch.toml"})
    monkeypatch.setattr(bench, "COLD", ("tiny/t5x5_notouch",))
    monkeypatch.setattr(bench, "GAMES", ("tiny/t5x5_notouch",))
    assert bench.main(["--out", str(tmp_path / "ok"), "--limit", "120", "--games", "2"]) == 0
    text = (tmp_path / "ok" / "summary.md").read_text()
    assert "| t5x5_notouch | 1,956 |" in text and "every programme that counted an instance gave the same" in text
    legs = (tmp_path / "ok" / "legs.csv").read_text()
    assert "pieces may not touch" in legs  # the row programme's refusal is recorded, not timed
    assert "| t5x5_notouch | " in text.split("## Cold start")[1]  # the command ran, its CPU is shown
    played = text.split("-s posterior -n 2`")[1].split("## Cold start")[0]
    assert "| t5x5_notouch | 2 | " in played  # both games played, their rate shown
    monkeypatch.setattr(bench, "KNOWN", {"t5x5_notouch": 1955})
    assert bench.main(["--out", str(tmp_path / "bad"), "--limit", "120", "--games", "1"]) == 1
    assert "t5x5_notouch:" in (tmp_path / "bad" / "summary.md").read_text()
