"""The report's Claims table: certificates counted per pair, and the proof's costs as their own columns --
logging measured against the same pair without ``proof`` on the instances both ran."""

from __future__ import annotations

import pandas as pd
import pytest

from harness.report.claims import claims_table, plain_label


@pytest.mark.parametrize("pair, plain", [
    ("sat[proof=check]/placement", "sat/placement"),
    ("tool[proof=check-all,tool=cadical]/placement", "tool[tool=cadical]/placement"),
    ("tool[solver=x,proof=check]/cell", "tool[solver=x]/cell"),
    ("cpsat/placement", "cpsat/placement"),
])
def test_the_plain_twin_of_a_pair_is_its_label_without_proof(pair, plain):
    assert plain_label(pair) == plain


def _run(instance, pair, cpu, certificate, proof_bytes=None, check_cpu=None):
    return {"instance": instance, "pair": pair, "cpu_s": cpu, "claim": "unsat", "certificate": certificate,
            "proof_bytes": proof_bytes, "check_cpu_s": check_cpu}


def test_logging_is_the_median_of_solve_cpu_with_proof_over_without_per_instance():
    df = pd.DataFrame([
        _run("a", "sat/placement", 1.0, "trusted"), _run("a", "sat[proof=check]/placement", 1.2, "certified", 2e6, 3.0),
        _run("b", "sat/placement", 2.0, "trusted"), _run("b", "sat[proof=check]/placement", 3.0, "certified", 4e6, 2.0),
        _run("c", "sat/placement", 4.0, "trusted"), _run("c", "sat[proof=check]/placement", 8.0, "rejected", 1e6, 1.0),
        _run("d", "sat[proof=check]/placement", 9.0, "unchecked", 1e6, 0.5),  # no plain run: not in the ratio
    ])
    table = claims_table(df).set_index("pair")
    proved = table.loc["sat[proof=check]/placement"]
    assert (proved["claims"], proved["certified"], proved["rejected"], proved["unchecked"]) == (4, 2, 1, 1)
    assert proved["median_logging_over_plain"] == pytest.approx(1.5)  # 1.2, 1.5, 2.0
    assert proved["median_check_over_solve"] == pytest.approx((2.0 / 3.0 + 1.0 / 8.0) / 2)  # of 2.5, 0.667, 0.125, 0.056
    assert proved["median_proof_mb"] == pytest.approx(1.5)
    plain = table.loc["sat/placement"]
    assert plain["trusted"] == 3 and pd.isna(plain["median_logging_over_plain"])
