"""The generated suites as shipped: each file's planted board, settings and claim fit the file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from harness.puzzle.formats import read_instance
from harness.puzzle.verify import verify

INSTANCES = Path(__file__).resolve().parents[2] / "instances"
MANIFEST = {e["path"]: e for e in tomllib.loads((INSTANCES / "MANIFEST.toml").read_text())["instance"]}
GENERATED = sorted(p for suite in ("classic", "unsat", "large", "xl") for p in (INSTANCES / suite).glob("*.toml"))


def test_the_suites_are_as_large_as_the_readme_says():
    count = {s: len(list((INSTANCES / s).glob("*.toml"))) for s in ("classic", "unsat", "large", "xl")}
    assert count["classic"] >= 50 and count["unsat"] >= 10 and count["large"] >= 20 and count["xl"] >= 3
    sizes = {(read_instance(p).rows, read_instance(p).cols) for p in (INSTANCES / "xl").glob("*.toml")}
    assert {(50, 50), (100, 100)} <= sizes


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_planted_board_settings_and_claim_fit_the_file(path):
    inst = read_instance(path)
    meta = inst.meta
    settings = meta["settings"]
    assert (settings["rows"], settings["cols"]) == (inst.rows, inst.cols)
    assert f"--seed {meta['seed']}" in meta["command"]
    if isinstance(settings["hints"], int):
        assert len(inst.hints) == settings["hints"]
    entry = MANIFEST[f"{path.parent.name}/{path.name}"]
    assert entry["expected_status"] == meta["expected_status"]
    verdict = verify(inst, meta["planted"])
    if meta["expected_status"] == "unsat":
        assert not verdict.ok  # the break is real: the planted board no longer fits
    else:
        assert verdict.ok, verdict.message
        assert entry["expected_count"] == meta["expected_count"] == meta["certificate"]["count"] \
            or (meta["expected_count"] == "many" and meta["certificate"]["count"] >= 2)
        if settings["hints"] in ("unique", "minimal"):
            assert meta["expected_count"] == 1
