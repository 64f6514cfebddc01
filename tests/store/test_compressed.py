"""A committed store kept as results.sqlite.gz: read (report, check, export) as it is, never written beside."""

from __future__ import annotations

import gzip
import shutil

import pytest

from handstore import make_store, run
from harness.errors import InputError, StoreDamaged
from harness.report.render import write_report
from harness.store import ResultsStore


@pytest.fixture
def compressed(tmp_path):
    plain = make_store(tmp_path / "plain", [run("a", "cpsat/placement", "sat", 0.5),
                                            run("a", "sat/cell", "sat", 0.2)])
    packed = tmp_path / "packed"
    packed.mkdir()
    with open(plain / "results.sqlite", "rb") as src, gzip.open(packed / "results.sqlite.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return plain, packed


def test_a_compressed_store_reads_as_the_plain_one(compressed):
    plain, packed = compressed
    with ResultsStore(plain, create=False) as a, ResultsStore(packed, create=False) as b:
        assert b.records() == a.records() and b.meta() == a.meta() and b.plan() == a.plan()
    assert sorted(p.name for p in packed.iterdir()) == ["results.sqlite.gz"]  # nothing written beside it


def test_report_of_a_folder_holding_only_the_gzip(compressed, tmp_path):
    _, packed = compressed
    written = write_report(packed, tmp_path / "report")
    assert "index.html" in written and "sat/cell" in (tmp_path / "report" / "summary.md").read_text()


def test_a_campaign_does_not_write_beside_a_compressed_store(compressed):
    _, packed = compressed
    with pytest.raises(InputError, match="gunzip"):
        ResultsStore(packed)
    assert not (packed / "results.sqlite").exists()


def test_a_damaged_gzip_is_a_damaged_store(tmp_path):
    (tmp_path / "results.sqlite.gz").write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    with pytest.raises(StoreDamaged, match="results.sqlite.gz"):
        ResultsStore(tmp_path, create=False)
