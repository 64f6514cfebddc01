"""scripts/cluster_tables.py: it writes the tables a fleet needs beside the code, and --check fails on a shipped table
that differs from the one computed again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from harness.counting.counters import cluster

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("cluster_tables", ROOT / "scripts" / "cluster_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tables_are_written_checked_and_a_changed_one_fails_the_check(tmp_path, monkeypatch, capsys):
    tool = _script()
    monkeypatch.setattr(tool, "FLEETS", {"small": (("Two", 2), ("One", 1))})
    shipped = tmp_path / "shipped"
    monkeypatch.setattr(cluster, "SHIPPED", shipped)
    assert tool.main(["--fleet", "small"]) == 0
    written = sorted(shipped.glob("*.json"))
    assert len(written) == 2  # the block {2, 1}, touching and not
    written[1].unlink()  # a shipped table missing fails the check too
    assert tool.main(["--fleet", "small", "--check"]) == 1
    assert tool.main(["--fleet", "small"]) == 0 and len(list(shipped.glob("*.json"))) == 2
    assert tool.main(["--fleet", "small", "--check"]) == 0
    assert "0 differ" in capsys.readouterr().out
    written[0].write_text(written[0].read_text().replace('"table": {', '"table": {"9x9": 1, ', 1))
    assert tool.main(["--fleet", "small", "--check"]) == 1
    assert f"1 differ from the shipped ones: {written[0].name}" in capsys.readouterr().out
    assert cluster.SHIPPED == shipped  # the script put the module back as it found it
