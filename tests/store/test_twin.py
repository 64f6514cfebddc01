"""A folder holding results.sqlite and results.sqlite.gz: read only when the two agree, refused when they do not."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from contextlib import closing

import pytest
from clirun import run as cli
from handstore import make_store, run

from harness.errors import StoreConflict
from harness.store import ResultsStore


def _gzip(db, gz):
    with open(db, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)


@pytest.fixture
def store(tmp_path):
    return make_store(tmp_path / "r", [run("a", "cpsat/placement", "sat", 0.5), run("a", "sat/cell", "sat", 0.2)])


def test_a_gzip_of_the_same_store_is_said_to_agree(store, capsys):
    _gzip(store / "results.sqlite", store / "results.sqlite.gz")
    with ResultsStore(store, create=False) as s:
        assert s.twin == "results.sqlite and results.sqlite.gz are both here, the same bytes: read results.sqlite"
    code, out, _ = cli(capsys, "check", store, "--allow-unverified")
    assert out.startswith("store: results.sqlite and results.sqlite.gz are both here, the same bytes"), out
    with closing(sqlite3.connect(store / "results.sqlite")) as db:  # other bytes, the same content
        db.execute("VACUUM")
    with ResultsStore(store, create=False) as s:
        assert s.twin == ("results.sqlite and results.sqlite.gz are both here and agree (2 runs, the plan and the "
                          "campaign the same): read results.sqlite")


def test_a_forged_gzip_beside_a_good_store_is_refused_in_one_line(store, tmp_path, capsys):
    forged = tmp_path / "forged.sqlite"
    shutil.copy(store / "results.sqlite", forged)
    with closing(sqlite3.connect(forged)) as db:  # closed: its log checkpointed into the file
        db.execute("update runs set status = 'unsat', boards = '[]' where pair = 'sat/cell'")
        db.commit()
    _gzip(forged, store / "results.sqlite.gz")
    with pytest.raises(StoreConflict, match="holds results.sqlite and results.sqlite.gz that disagree "
                                            r"\(runs: 1 differ\); nothing was read"):
        ResultsStore(store, create=False)
    code, out, err = cli(capsys, "check", store)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "disagree" in err, err
