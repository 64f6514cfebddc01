"""A real solve campaign as an ASlib scenario (battlebench export --format aslib), read back equal to the store and
checked by ASlib's rules; the report's selector section and battlebench select on it; bad scenarios refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.selection.aslib import ScenarioError, check_scenario, read_scenario
from harness.store import ResultsStore

ROOT = Path(__file__).resolve().parents[2]
PUZZLES = sorted((ROOT / "instances" / "classic").glob("*.toml"))[:20]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("selection")
    cfg = tmp / "sel.toml"
    files = ", ".join(f'"{p}"' for p in PUZZLES)
    cfg.write_text(f'name = "sel"\ninstances = [{files}]\ntask = {{ kind = "count", k = 2 }}\noutput = "out"\n'
                   'jobs = 2\n[limits]\ntime_s = 30\nmemory_mb = 4096\n'
                   '[[pairs]]\nbackend = "sat"\n[[pairs]]\nbackend = "cpsat"\n')
    assert main(["run", str(cfg), "--progress", "plain"]) == 0
    return cfg, tmp / "out"


@pytest.fixture(scope="module")
def scenario_dir(campaign, tmp_path_factory):
    _, store = campaign
    out = tmp_path_factory.mktemp("aslib") / "scn"
    assert main(["export", str(store), "--format", "aslib", "--out", str(out)]) == 0
    return out


def test_the_scenario_read_back_is_the_store(campaign, scenario_dir):
    _, store = campaign
    got = read_scenario(scenario_dir)
    with ResultsStore(store, create=False) as s:
        records = s.records()
    want = sorted((r["instance_path"], r["pair"], round(r["cpu_s"], 6),
                   "ok" if r["status"] in ("sat", "unsat") else r["status"]) for r in records)
    assert sorted((i, a, round(t, 6), st) for i, _, a, t, st in got["runs"]) == want
    desc = got["description"]
    assert desc["algorithm_cutoff_time"] == 30.0 and desc["algorithm_cutoff_memory"] == 4096
    assert sorted(desc["algorithms_deterministic"]) == sorted({r["pair"] for r in records})
    assert "cpu" in desc["battlebench_measure"]
    assert len(got["features"]) == len(PUZZLES) and all(len(v) > 50 for v in got["features"].values())
    assert set(got["costs"][next(iter(got["costs"]))]) == set(desc["feature_steps"])
    # puzzles of one generator seed share a fold
    from harness.puzzle.formats import read_instance

    seeds: dict = {}
    for inst, fold in got["folds"].items():
        seeds.setdefault(read_instance(ROOT / inst if not Path(inst).is_absolute() else Path(inst)).meta["seed"],
                         set()).add(fold)
    assert all(len(f) == 1 for f in seeds.values()) and len(set(got["folds"].values())) == 10


def _broken(scenario_dir: Path, tmp_path: Path, name: str, edit) -> Path:
    copy = tmp_path / "broken"
    shutil.copytree(scenario_dir, copy)
    path = copy / name
    path.write_text(edit(path.read_text()))
    return copy


def _data(text: str) -> tuple[str, list[str]]:
    head, rows = text.split("@DATA\n", 1)
    return head + "@DATA\n", [r for r in rows.splitlines() if r.strip()]


@pytest.mark.parametrize("name, edit, why", [
    ("algorithm_runs.arff", lambda t: t + _data(t)[1][0] + "\n", "is not unique"),
    ("algorithm_runs.arff", lambda t: _data(t)[0] + "\n".join(_data(t)[1][1:]) + "\n", "has no run of"),
    ("algorithm_runs.arff", lambda t: t.replace("@ATTRIBUTE runstatus", "@ATTRIBUTE status"), "the last attribute"),
    ("algorithm_runs.arff", lambda t: t.replace(",ok\n", ",fine\n", 1), "not valid ARFF"),
    ("feature_values.arff", lambda t: t.replace("@ATTRIBUTE rows NUMERIC", "@ATTRIBUTE rowz NUMERIC"),
     "is not declared"),
    ("cv.arff", lambda t: t + _data(t)[1][0].rsplit(",", 1)[0] + ",99\n", "in two folds"),
    ("description.txt", lambda t: t.replace("performance_measures:\n- runtime", "performance_measures: runtime"),
     "has to be a non-empty list"),
])
def test_a_scenario_that_breaks_aslibs_rules_is_refused_in_one_line(scenario_dir, tmp_path, name, edit, why):
    broken = _broken(scenario_dir, tmp_path, name, edit)
    with pytest.raises(ScenarioError) as caught:
        check_scenario(broken)
    said = str(caught.value)
    assert why in said and str(broken / name) in said and "\n" not in said


def test_a_scenario_missing_a_file_is_refused(scenario_dir, tmp_path):
    copy = tmp_path / "missing"
    shutil.copytree(scenario_dir, copy)
    (copy / "feature_runstatus.arff").unlink()
    with pytest.raises(ScenarioError, match="feature_runstatus.arff: not found"):
        check_scenario(copy)


def test_the_report_has_a_selector_section(campaign, tmp_path):
    _, store = campaign
    assert main(["report", str(store), "--out", str(tmp_path / "rep")]) == 0
    summary = (tmp_path / "rep" / "summary.md").read_text()
    assert "## Which pair for which puzzle" in summary and "gap" in summary
    assert (tmp_path / "rep" / "selector.csv").is_file() and (tmp_path / "rep" / "instance_space.png").is_file()
    import pandas as pd

    table = pd.read_csv(tmp_path / "rep" / "selector.csv")
    assert any(table["who"].str.startswith("single best")) and any(table["who"] == "virtual best (VBS)")
    assert "Which pair for which puzzle" in (tmp_path / "rep" / "index.html").read_text()


def test_select_names_a_pair_for_each_new_puzzle(campaign, capsys):
    cfg, store = campaign
    new = [str(p) for p in sorted((ROOT / "instances" / "classic").glob("*.toml"))[20:22]]
    assert main(["select", str(store), *new]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(p + ": ") and "confidence" in line for line, p in zip(lines, new))
    assert main(["select", str(cfg), new[0], "--json"]) == 0  # the config names the store
    import json

    said = json.loads(capsys.readouterr().out)
    assert said["pair"] in said["votes"] and 0 <= said["confidence"] <= 1


def test_select_and_export_refuse_bad_input_in_one_line(campaign, tmp_path, capsys):
    _, store = campaign
    bad = tmp_path / "bad.toml"
    bad.write_text("[size]\nrows = -1\n")
    assert main(["select", str(store), str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert str(bad) in err and len(err.splitlines()) == 1
    assert main(["export", str(store), "--format", "aslib", "--file", str(tmp_path / "x")]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["export", str(store), "--measure", "cpu"]) == 2


def test_pairs_ranked_by_cpu_and_by_wall_need_a_measure_chosen(tmp_path, capsys):
    smoke = sorted((ROOT / "instances" / "smoke").glob("*.toml"))
    cfg = tmp_path / "mixed.toml"
    files = ", ".join(f'"{p}"' for p in smoke)
    cfg.write_text(f'name = "mixed"\ninstances = [{files}]\noutput = "out"\n[limits]\ntime_s = 30\n'
                   '[[pairs]]\nbackend = "sat"\n[[pairs]]\nbackend = "cpsat"\noptions = { split = 2 }\n')
    assert main(["run", str(cfg), "--progress", "plain"]) in (0, 1)
    capsys.readouterr()
    assert main(["export", str(tmp_path / "out"), "--format", "aslib", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--measure" in err and len(err.splitlines()) == 1 and not (tmp_path / "a").exists()
    assert main(["export", str(tmp_path / "out"), "--format", "aslib", "--measure", "wall",
                 "--out", str(tmp_path / "a")]) == 0
    assert "wall" in read_scenario(tmp_path / "a")["description"]["battlebench_measure"]


def test_a_count_campaign_is_a_scenario_of_its_counters_on_board_features(tmp_path, capsys):
    from harness.selection.features import BOARD_GROUPS
    from harness.selection.scenario import scenario

    boards = [ROOT / "instances" / "deployments" / "sweep" / f"sweep_{n}x{n}.toml" for n in (6, 7, 8)]
    assert all(b.is_file() for b in boards)
    cfg = tmp_path / "cnt.toml"
    files = ", ".join(f'"{p}"' for p in boards)
    cfg.write_text(f'name = "cnt"\ninstances = [{files}]\ntask = "deployments"\noutput = "out"\n'
                   '[limits]\ntime_s = 60\n[[pairs]]\ncounter = "dp"\n[[pairs]]\ncounter = "frontier"\n')
    assert main(["run", str(cfg), "--progress", "plain"]) == 0
    scn = scenario(tmp_path / "out")
    assert scn.task == "count" and len(scn.instances) == len(boards) and len(scn.pairs) == 2
    assert all(list(f.groups) == list(BOARD_GROUPS) for f in scn.features.values())
    out = tmp_path / "scn"
    assert main(["export", str(tmp_path / "out"), "--format", "aslib", "--out", str(out)]) == 0
    check_scenario(out)
    assert read_scenario(out)["description"]["feature_steps"].keys() == set(BOARD_GROUPS)
    capsys.readouterr()
    assert main(["select", str(tmp_path / "out"), str(ROOT / "instances/deployments/hex_blue.toml")]) == 0
    said = capsys.readouterr()
    assert said.out.split(": ", 1)[1].split(" (confidence")[0] in scn.pairs
    assert "learnt from 3 boards of" in said.err
