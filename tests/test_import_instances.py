"""scripts/import_instances.py: the manifest's fastest certification of each instance."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "instances"
S508 = OUT / "large" / "large_30x20_minimal_s508.toml"  # certified by the generator in 439.45 s


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("import_instances", ROOT / "scripts" / "import_instances.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _times(tool, seconds: float) -> dict:
    h = tool.read_instance(S508).content_hash()
    return {h: {"certify_best_pair": "sat/placement", "certify_best_s": seconds, "certify_from": "reports/x"}}


def test_without_a_campaign_the_generators_certificate_gives_the_time(tool):
    entry = tool.manifest_entry(OUT, S508, {})
    assert entry["certify_best_pair"] == "cpsat[branching=long-first,lazy_lp=false]/placement"
    assert entry["certify_best_s"] == 439.45 and entry["certify_from"] == "generation"


def test_the_faster_of_a_campaign_and_the_certificate_is_recorded(tool):
    faster = tool.manifest_entry(OUT, S508, _times(tool, 12.5))
    assert (faster["certify_best_pair"], faster["certify_best_s"], faster["certify_from"]) == \
        ("sat/placement", 12.5, "reports/x")
    slower = tool.manifest_entry(OUT, S508, _times(tool, 900.0))
    assert slower["certify_from"] == "generation" and slower["certify_best_s"] == 439.45


def test_an_instance_never_certified_has_no_time(tool):
    entry = tool.manifest_entry(OUT, OUT / "large" / "large_30x20_h0_s0.toml", {})
    assert "certify_best_s" not in entry and "certify_from" not in entry
