"""Campaign configs: valid configs resolve as documented, every problem is one ConfigError line."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.status import Question
from harness.errors import InputError
from harness.runner.config import ConfigError, Limits, PairSpec, load_config, parse_config, resolve_instances
from harness.tasks.solve import spec_of

REPO = Path(__file__).resolve().parents[2]

NAME_AND_INSTANCES = 'name = "t"\ninstances = ["a.toml"]\n'  # a missing explicit file is not a config error
FAKE = '[[pairs]]\nbackend = "fake"\n'


def conf(top: str = "", tables: str = FAKE, head: str = NAME_AND_INSTANCES) -> str:
    """A config text: head and top-level keys first, then tables."""
    return f"{head}{textwrap.dedent(top)}\n{textwrap.dedent(tables)}"


def write(folder: Path, text: str, name: str = "campaign.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def fails(path: Path, key: str | None = None) -> str:
    """Load ``path`` expecting a one-line ConfigError ``FILE: KEY: PROBLEM``; return its text."""
    with pytest.raises(ConfigError) as info:
        load_config(path)
    err = info.value
    msg = str(err)
    assert isinstance(err, InputError)
    assert msg.startswith(f"{path}: "), msg
    assert "\n" not in msg
    assert err.file == str(path)
    if key is not None:
        assert err.key == key, msg
        assert msg.startswith(f"{path}: {key}: "), msg
    return msg


def fails_text(tmp_path: Path, text: str, key: str | None = None) -> str:
    return fails(write(tmp_path, text), key)


# --------------------------------------------------------------------------- a fake instances tree
MANIFEST = """\
[[instance]]
suite = "smoke"
path = "smoke/b.toml"

[[instance]]
suite = "smoke"
path = "smoke/a.toml"

[[instance]]
suite = "other"
path = "other/c.toml"
"""


def make_tree(root: Path) -> Path:
    """root/instances/{MANIFEST.toml, smoke/, other/, more/}; returns root."""
    inst = root / "instances"
    files = ["smoke/a.toml", "smoke/b.toml", "other/c.toml", "other/notes.md",
             "more/d.dzn", "more/e.txt", "more/jolyonb", "more/f.toml",
             "more/README.md", "more/.hidden.toml", "more/data.json", "more/sub/g.toml"]
    for rel in files:
        (inst / rel).parent.mkdir(parents=True, exist_ok=True)
        (inst / rel).write_text("# not parsed by the config loader\n", encoding="utf-8")
    (inst / "empty").mkdir()
    (inst / "MANIFEST.toml").write_text(MANIFEST, encoding="utf-8")
    return root


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(tmp_path)


# --------------------------------------------------------------------------- valid configs
def test_valid_config_resolves_instances_paths_and_defaults(tree: Path) -> None:
    text = conf(head="", top="""\
        name = "round"
        instances = ["../../instances/more",          # a directory: known extensions or none
                     "../../instances/other/*.toml",  # a glob
                     "../../instances/smoke/b.toml",  # an explicit file
                     "@smoke",                        # b.toml again (kept once), then a.toml
                     "../../instances/more/d.dzn"]    # again: kept once
        output = "../out"
    """)
    path = write(tree / "campaigns" / "sub", text)
    cfg = load_config(path)
    inst = tree / "instances"
    assert cfg.name == "round"
    assert cfg.path == path
    assert cfg.instance_paths == (
        inst / "more/d.dzn", inst / "more/e.txt", inst / "more/f.toml", inst / "more/jolyonb",
        inst / "other/c.toml", inst / "smoke/b.toml", inst / "smoke/a.toml",
    )
    assert all(".." not in p.parts for p in cfg.instance_paths)
    assert cfg.output == tree / "campaigns" / "out"
    assert cfg.patterns == ("../../instances/more", "../../instances/other/*.toml",
                            "../../instances/smoke/b.toml", "@smoke", "../../instances/more/d.dzn")
    assert cfg.text == text
    # defaults
    assert cfg.task == spec_of(Question())
    assert cfg.limits == Limits() == Limits(time_s=60.0, memory_mb=4096, grace_s=5.0)
    assert (cfg.repetitions, cfg.seeds, cfg.jobs) == (1, None, 1)
    assert (cfg.executor, cfg.scheduler, cfg.workers) == ("local", None, "warm")
    assert [p.label for p in cfg.pairs] == ["fake/placement"]


def test_every_key_set(tmp_path: Path) -> None:
    path = write(tmp_path, conf(top="""\
        task = "count-3"
        repetitions = 2
        seeds = [3, 0, 7]
        jobs = 4
        executor = "dask"
        scheduler = "tcp://host:8786"
        workers = "cold"
        output = "/abs/results"
    """, tables="""\
        [limits]
        time_s = 1.5
        memory_mb = 64
        grace_s = 0

        [[pairs]]
        backend = "fake"
        formulation = "cell"
    """))
    cfg = load_config(path)
    assert cfg.task == spec_of(Question.count(3))
    assert (cfg.repetitions, cfg.seeds, cfg.jobs) == (2, (3, 0, 7), 4)
    assert (cfg.executor, cfg.scheduler, cfg.workers) == ("dask", "tcp://host:8786", "cold")
    assert cfg.output == Path("/abs/results")
    assert cfg.limits == Limits(time_s=1.5, memory_mb=64, grace_s=0.0)
    assert [p.label for p in cfg.pairs] == ["fake/cell"]


def test_default_output_is_results_slash_name(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, conf(head='name = "my-campaign"\ninstances = ["a.toml"]\n')))
    assert cfg.output == Path("results") / "my-campaign"


def test_relative_paths_resolve_against_the_config_directory(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tree / "campaigns", conf(head='name = "t"\ninstances = ["../instances/smoke", "x.toml"]\n',
                                          top='output = "res"'))
    monkeypatch.chdir(tree / "instances" / "more")  # somewhere else entirely
    cfg = load_config(path)
    assert cfg.instance_paths == (tree / "instances/smoke/a.toml", tree / "instances/smoke/b.toml",
                                  tree / "campaigns/x.toml")
    assert cfg.output == tree / "campaigns" / "res"


def test_suite_uses_the_nearest_manifest_above(tree: Path) -> None:
    near = make_tree(tree / "campaigns")  # campaigns/instances/MANIFEST.toml shadows the outer one
    path = write(tree / "campaigns" / "deep" / "er", conf(head='name = "t"\ninstances = ["@other"]\n'))
    assert load_config(path).instance_paths == (near / "instances" / "other" / "c.toml",)
    # next to the config is nearest of all
    path = write(tree / "campaigns", conf(head='name = "t"\ninstances = ["@smoke"]\n'))
    assert load_config(path).instance_paths == (near / "instances/smoke/b.toml", near / "instances/smoke/a.toml")


def test_relative_config_path_finds_the_manifest_above_the_working_directory(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tree / "configs", conf(head='name = "t"\ninstances = ["@smoke", "../instances/other"]\n'))
    monkeypatch.chdir(tree / "configs")
    cfg = load_config("campaign.toml")
    assert [p.name for p in cfg.instance_paths] == ["b.toml", "a.toml", "c.toml"]
    assert all(p.is_file() for p in cfg.instance_paths)
    assert [os.path.realpath(p) for p in cfg.instance_paths] == [
        os.path.realpath(tree / "instances" / rel) for rel in ("smoke/b.toml", "smoke/a.toml", "other/c.toml")]


def test_glob_magic_in_the_config_directory_is_taken_literally(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "runs[1]*")
    path = write(root, conf(head='name = "t"\ninstances = ["instances/other", "instances/smoke/*.toml"]\n'))
    cfg = load_config(path)
    assert cfg.instance_paths == (root / "instances/other/c.toml", root / "instances/smoke/a.toml",
                                  root / "instances/smoke/b.toml")


def test_recursive_glob(tree: Path) -> None:
    path = write(tree, conf(head='name = "t"\ninstances = ["instances/more/**/*.toml"]\n'))
    assert load_config(path).instance_paths == (tree / "instances/more/f.toml", tree / "instances/more/sub/g.toml")


def test_resolve_instances_directly(tree: Path) -> None:
    cfg_file = tree / "c.toml"
    assert resolve_instances(["instances/other", "@other"], tree, cfg_file) == [tree / "instances/other/c.toml"]
    assert resolve_instances(["instances/empty"], tree, cfg_file, require=False) == []
    with pytest.raises(ConfigError, match=r"instances\[0\]"):
        resolve_instances(["instances/empty"], tree, cfg_file)


def test_repo_smoke_config_loads_and_resolves_the_smoke_suite() -> None:
    cfg = load_config(REPO / "configs" / "smoke.toml")
    smoke_dir = REPO / "instances" / "smoke"
    expected = sorted(smoke_dir.glob("*.toml"))
    assert len(expected) == 4
    assert sorted(cfg.instance_paths) == expected
    assert len(set(cfg.instance_paths)) == 4
    assert all(p.is_file() for p in cfg.instance_paths)
    assert cfg.name == "smoke"
    assert cfg.task == spec_of(Question.count(2))
    assert cfg.limits == Limits(time_s=20.0, memory_mb=4096, grace_s=2.0)
    assert cfg.output == REPO / "results" / "smoke"
    labels = [p.label for p in cfg.pairs]
    assert labels == ["cpsat/placement", "cpsat/cell", "mip/placement", "mip/cell", "mip/ship-pairs",
                      "sat/placement", "sat/cell"]


def test_repo_smoke_config_from_the_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    cfg = load_config("configs/smoke.toml")
    assert sorted(cfg.instance_paths) == sorted(Path("instances/smoke").glob("*.toml"))
    assert cfg.output == Path("results/smoke")


@pytest.mark.parametrize("path", sorted((REPO / "configs").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_config_loads_and_finds_instances(path: Path) -> None:
    cfg = load_config(path)
    assert cfg.pairs and cfg.instance_paths
    assert all(p.exists() for p in cfg.instance_paths)


# --------------------------------------------------------------------------- pairs
def test_pair_labels_sorted_and_typed(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, conf(tables="""\
        [[pairs]]
        backend = "sat"
        options = { solver = "glucose4", encoding = "totalizer" }

        [[pairs]]
        backend = "fake"
        formulation = "cell"
        options = { threads = 2, seconds = 1, exhausted = false, mode = "sleep" }

        [[pairs]]
        backend = "fake"
        options = { threads = "3" }

        [[pairs]]
        backend = "cpsat"
        formulation = "cell"
    """)))
    assert [p.label for p in cfg.pairs] == [
        "sat[encoding=totalizer,solver=glucose4]/placement",
        "fake[exhausted=false,mode=sleep,seconds=1.0,threads=2]/cell",
        "fake[threads=3]/placement",
        "cpsat/cell",
    ]
    fake = cfg.pairs[1]
    assert fake.options == (("exhausted", False), ("mode", "sleep"), ("seconds", 1.0), ("threads", 2))
    assert type(fake.option_dict["seconds"]) is float and type(fake.option_dict["threads"]) is int
    assert cfg.pairs[2].option_dict == {"threads": 3}
    assert cfg.pairs[3].options == ()


def test_pair_label_is_deterministic() -> None:
    a = PairSpec("sat", "cell", (("encoding", "totalizer"), ("solver", "glucose4")))
    assert a.label == "sat[encoding=totalizer,solver=glucose4]/cell"
    assert PairSpec("mip", "ship-pairs").label == "mip/ship-pairs"
    data = {"name": "t", "instances": ["a.toml"],
            "pairs": [{"backend": "sat", "options": {"solver": "glucose4", "encoding": "totalizer"}}]}
    flipped = {"name": "t", "instances": ["a.toml"],
               "pairs": [{"options": {"encoding": "totalizer", "solver": "glucose4"}, "backend": "sat"}]}
    one = parse_config(data, Path("x.toml"), require_instances=False).pairs
    two = parse_config(flipped, Path("x.toml"), require_instances=False).pairs
    assert one == two
    assert one[0].label == "sat[encoding=totalizer,solver=glucose4]/placement"


@pytest.mark.parametrize("second", [
    '{ backend = "fake" }',
    '{ backend = "fake", formulation = "placement" }',
    '{ backend = "fake", options = {} }',
])
def test_duplicate_plain_pair_is_an_error(tmp_path: Path, second: str) -> None:
    msg = fails_text(tmp_path, conf(top=f'pairs = [{{ backend = "fake" }}, {second}]', tables=""), "pairs[1]")
    assert "fake/placement" in msg and "twice" in msg


def test_duplicate_pair_after_conversion_is_an_error(tmp_path: Path) -> None:
    msg = fails_text(tmp_path, conf(tables="""\
        [[pairs]]
        backend = "cpsat"

        [[pairs]]
        backend = "fake"
        options = { threads = 2, seconds = 1 }

        [[pairs]]
        backend = "fake"
        options = { seconds = 1.0, threads = "2" }
    """), "pairs[2]")
    assert "fake[seconds=1.0,threads=2]/placement" in msg


@pytest.mark.parametrize("pair, key, words", [
    ('backend = "gurobi"', "pairs[1]", ["'gurobi'", "cpsat"]),
    ('backend = "fake"\nformulation = "ship-pairs"', "pairs[1]", ["'ship-pairs'", "placement"]),
    ('backend = "fake"\noptions = { colour = "red" }', "pairs[1]", ["'colour'", "threads"]),
    ('backend = "fake"\noptions = { mode = "dance" }', "pairs[1]", ["'mode'", "must be one of answer, sleep, ", "not 'dance'"]),
    ('backend = "fake"\noptions = { threads = 0 }', "pairs[1]", ["'threads'", ">= 1, not 0"]),
    ('backend = "fake"\noptions = { threads = 2.5 }', "pairs[1]", ["'threads'"]),
    ('backend = "fake"\noptions = { seconds = "soon" }', "pairs[1]", ["'seconds'"]),
    ('backend = "sat"\noptions = { solver = "minisat99" }', "pairs[1]", ["'solver'", "must be one of cadical103, ", "minisatep, not 'minisat99'"]),
    ('backend = "fake"\noptions = { threads = true }', "pairs[1].options.threads", ["a boolean"]),
    ('backend = "fake"\noptions = { exhausted = 1 }', "pairs[1].options.exhausted", ["an integer"]),
    ('backend = "fake"\noptions = { pidfile = ["x"] }', "pairs[1].options.pidfile", ["a list"]),
    ('backend = "fake"\noptions = { mode = 3 }', "pairs[1].options.mode", ["an integer"]),
    ('backend = "fake"\ncolour = "red"', "pairs[1].colour", ["unknown key"]),
    ('backend = 1', "pairs[1].backend", ["a string", "an integer"]),
    ('formulation = "cell"', "pairs[1].backend", ["missing"]),
    ('backend = "fake"\nformulation = ["cell"]', "pairs[1].formulation", ["a string", "a list"]),
    ('backend = "fake"\noptions = "threads=2"', "pairs[1].options", ["a table", "a string"]),
])
def test_bad_pair(tmp_path: Path, pair: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(tables=f'[[pairs]]\nbackend = "cpsat"\n\n[[pairs]]\n{pair}\n'), key)
    for word in words:
        assert word in msg, msg


@pytest.mark.parametrize("top, key, words", [
    ("pairs = []", "pairs", ["at least one"]),
    ("pairs = [1]", "pairs[0]", ["an integer"]),
    ('pairs = { backend = "fake" }', "pairs", ["a list", "a table"]),
])
def test_bad_pairs_list(tmp_path: Path, top: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(top=top, tables=""), key)
    for word in words:
        assert word in msg, msg


def test_missing_pairs(tmp_path: Path) -> None:
    assert "missing" in fails_text(tmp_path, conf(tables=""), "pairs")


# --------------------------------------------------------------------------- task
@pytest.mark.parametrize("line, task", [
    ("", Question()),
    ('task = "solve"', Question()),
    ('task = "count-2"', Question.count(2)),
    ('task = "count-0"', Question.count(0)),
    ('task = { kind = "count", k = 0 }', Question.count(0)),
    ('task = { kind = "count", k = 7 }', Question.count(7)),
    ('task = { kind = "solve" }', Question()),
])
def test_task_forms(tmp_path: Path, line: str, task: Question) -> None:
    assert load_config(write(tmp_path, conf(top=line))).task == spec_of(task)


@pytest.mark.parametrize("line, key, words", [
    ('task = "count"', "task", ["'count'"]),
    ('task = "count-x"', "task", ["'count-x'"]),
    ('task = "count--1"', "task", []),
    ('task = "count-\u00b2"', "task", []),
    ('task = "Solve"', "task", []),
    ("task = 3", "task", ["an integer"]),
    ("task = [1]", "task", ["a list"]),
    ('task = { kind = "enumerate" }', "task.kind", ["'enumerate'"]),
    ("task = { kind = 2 }", "task.kind", ["a string", "an integer"]),
    ("task = { k = 2 }", "task.kind", ["missing"]),
    ('task = { kind = "count" }', "task.k", ["missing"]),
    ('task = { kind = "count", k = -1 }', "task.k", [">= 0"]),
    ('task = { kind = "count", k = true }', "task.k", ["a boolean"]),
    ('task = { kind = "count", k = 2.0 }', "task.k", ["an integer", "a number"]),
    ('task = { kind = "solve", k = 2 }', "task.k", []),
    ('task = { kind = "count", k = 2, extra = 1 }', "task.extra", ["unknown key"]),
])
def test_bad_task(tmp_path: Path, line: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(top=line), key)
    for word in words:
        assert word in msg, msg


# --------------------------------------------------------------------------- limits
def test_limits_defaults_and_ints_for_floats(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, conf(tables="[limits]\ntime_s = 10\n\n" + FAKE)))
    assert cfg.limits == Limits(time_s=10.0, memory_mb=4096, grace_s=5.0)
    assert type(cfg.limits.time_s) is float
    cfg = load_config(write(tmp_path, conf(tables="[limits]\ngrace_s = 0\nmemory_mb = 64\n\n" + FAKE)))
    assert cfg.limits == Limits(time_s=60.0, memory_mb=64, grace_s=0.0)
    assert type(cfg.limits.grace_s) is float and type(cfg.limits.memory_mb) is int


@pytest.mark.parametrize("line, key, words", [
    ("time_s = 0", "limits.time_s", ["> 0"]),
    ("time_s = -1.5", "limits.time_s", ["> 0"]),
    ("time_s = nan", "limits.time_s", []),
    ("time_s = inf", "limits.time_s", []),
    ("time_s = true", "limits.time_s", ["a boolean"]),
    ('time_s = "10"', "limits.time_s", ["a number", "a string"]),
    ("grace_s = -0.5", "limits.grace_s", [">= 0"]),
    ("grace_s = false", "limits.grace_s", ["a boolean"]),
    ("memory_mb = 63", "limits.memory_mb", ["64"]),
    ("memory_mb = 0", "limits.memory_mb", ["64"]),
    ("memory_mb = 4096.0", "limits.memory_mb", ["an integer", "a number"]),
    ("memory_mb = true", "limits.memory_mb", ["a boolean"]),
    ("colour = 1", "limits.colour", ["unknown key"]),
])
def test_bad_limits(tmp_path: Path, line: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(tables=f"[limits]\n{line}\n\n{FAKE}"), key)
    for word in words:
        assert word in msg, msg


def test_limits_not_a_table(tmp_path: Path) -> None:
    assert "an integer" in fails_text(tmp_path, conf(top="limits = 5"), "limits")


# --------------------------------------------------------------------------- [check]: check --baseline's thresholds
TWO = FAKE + '\n[[pairs]]\nbackend = "sat"\nformulation = "cell"\n'


def test_check_table_gives_thresholds_per_pair(tmp_path: Path) -> None:
    from harness.core.thresholds import Thresholds

    cfg = load_config(write(tmp_path, conf(tables=TWO + '\n[check]\nratio = 2.5\nfloor_s = 0\n'
                                           '[check.ratio_by_pair]\n"sat/cell" = 3\n"s*" = 5\n'
                                           '[check.floor_by_pair]\n"fake/*" = 0.5\n')))
    limits = Thresholds.of(cfg.check)
    assert (limits.ratio("sat/cell"), limits.ratio("fake/placement")) == (3.0, 2.5)  # the exact label beats s*
    assert (limits.floor("sat/cell"), limits.floor("fake/placement")) == (0.0, 0.5)
    assert load_config(write(tmp_path, conf(tables=TWO))).check == type(cfg.check)()  # no [check]: nothing given


@pytest.mark.parametrize("table, key, words", [
    ("ratio = 1", "check.ratio", ["> 1"]),
    ("ratio = 0.5", "check.ratio", ["> 1"]),
    ("ratio = nan", "check.ratio", ["> 1"]),
    ('ratio = "2"', "check.ratio", ["a number", "a string"]),
    ("floor_s = -0.1", "check.floor_s", [">= 0"]),
    ("floor_s = inf", "check.floor_s", [">= 0"]),
    ("colour = 1", "check.colour", ["unknown key", "ratio_by_pair"]),
    ("ratio_by_pair = 3", "check.ratio_by_pair", ["a table", "an integer"]),
    ('[check.ratio_by_pair]\n"sat/cell" = 1', 'check.ratio_by_pair."sat/cell"', ["> 1"]),
    ('[check.ratio_by_pair]\n"sat/cell" = true', 'check.ratio_by_pair."sat/cell"', ["a boolean"]),
    ('[check.ratio_by_pair]\n"mip/cell" = 3', 'check.ratio_by_pair."mip/cell"',
     ["matches none of the config's pairs", "fake/placement, sat/cell"]),
    ('[check.floor_by_pair]\n"mip/*" = 1', 'check.floor_by_pair."mip/*"', ["matches none"]),
    ('[check.floor_by_pair]\n"sat/cell" = -1', 'check.floor_by_pair."sat/cell"', [">= 0"]),
])
def test_bad_check_table(tmp_path: Path, table: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(tables=f"{TWO}\n[check]\n{table}\n"), key)
    for word in words:
        assert word in msg, msg


def test_check_not_a_table(tmp_path: Path) -> None:
    assert "an integer" in fails_text(tmp_path, conf(top="check = 5"), "check")


# --------------------------------------------------------------------------- top level, files
@pytest.mark.parametrize("text, key, words", [
    (conf(top='colour = "red"'), "colour", ["unknown key", "instances"]),
    (conf(top='"a\\nb" = 1'), "'a\\nb'", ["unknown key"]),
    (conf(head='instances = ["a.toml"]\n'), "name", ["missing"]),
    (conf(head='name = 3\ninstances = ["a.toml"]\n'), "name", ["a string", "an integer"]),
    (conf(head='name = "  "\ninstances = ["a.toml"]\n'), "name", ["empty"]),
    (conf(head='name = "t"\n'), "instances", ["missing"]),
    (conf(head='name = "t"\ninstances = "a.toml"\n'), "instances", ["a list", "a string"]),
    (conf(head='name = "t"\ninstances = []\n'), "instances", ["at least one"]),
    (conf(head='name = "t"\ninstances = ["a.toml", 1]\n'), "instances[1]", ["non-empty string"]),
    (conf(head='name = "t"\ninstances = ["a.toml", ""]\n'), "instances[1]", ["non-empty string"]),
    (conf(top="repetitions = 0"), "repetitions", [">= 1"]),
    (conf(top="repetitions = 1.5"), "repetitions", ["an integer", "a number"]),
    (conf(top="jobs = 0"), "jobs", [">= 1"]),
    (conf(top="jobs = true"), "jobs", ["an integer", "a boolean"]),
    (conf(top='executor = "pbs"'), "executor", ["'pbs'", "'slurm'"]),
    (conf(top="executor = 1"), "executor", ["a string", "an integer"]),
    (conf(top='workers = "lukewarm"'), "workers", ["'lukewarm'"]),
    (conf(top="output = 1"), "output", ["a string", "an integer"]),
    (conf(top="scheduler = []"), "scheduler", ["a string", "a list"]),
    (conf(top="retries = -1"), "retries", [">= 0"]),
    (conf(top='retries = "2"'), "retries", ["an integer", "a string"]),
])
def test_bad_top_level(tmp_path: Path, text: str, key: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, text, key)
    for word in words:
        assert word in msg, msg


def test_unknown_key_in_a_pair_names_the_pair(tmp_path: Path) -> None:
    text = conf(tables='[[pairs]]\nbackend = "fake"\n\n[[pairs]]\nbackend = "cpsat"\ncolour = "blue"\n')
    msg = fails_text(tmp_path, text, "pairs[1].colour")
    assert "backend, formulation, options" in msg


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    msg = fails_text(tmp_path, 'name = "t"\nwhat is this\n')
    assert "not valid TOML" in msg and "line 2" in msg
    assert "not valid TOML" in fails_text(tmp_path, 'name = "t"\ninstances = [\n')
    msg = fails_text(tmp_path, 'name = "t"\nname = "u"\n')
    assert "not valid TOML" in msg


def test_missing_or_unreadable_file_names_the_file(tmp_path: Path) -> None:
    assert "cannot read" in fails(tmp_path / "nope.toml")
    assert "cannot read" in fails(tmp_path)  # a directory
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"name = \"\xff\"\n")
    assert "cannot read" in fails(binary)


@pytest.mark.parametrize("patterns, key", [
    (["a.toml", "instances/nothing/*.toml"], "instances[1]"),
    (["instances/empty"], "instances[0]"),
    (["instances/other", "instances/smoke/*.dzn"], "instances[1]"),
])
def test_pattern_matching_nothing(tree: Path, patterns: list[str], key: str) -> None:
    head = f'name = "t"\ninstances = {patterns!r}\n'.replace("'", '"')
    path = write(tree, conf(head=head))
    msg = fails(path, key)
    assert "matches no instance file" in msg
    assert repr(patterns[int(key[-2])]) in msg
    assert load_config(path, require_instances=False).name == "t"


def test_unknown_suite_names_the_suites(tree: Path) -> None:
    path = write(tree / "campaigns", conf(head='name = "t"\ninstances = ["../instances/other", "@nope"]\n'))
    msg = fails(path, "instances[1]")
    assert "@nope" in msg and "other, smoke" in msg


def test_suite_without_a_manifest(tmp_path: Path) -> None:
    if any((p / "instances" / "MANIFEST.toml").is_file() for p in tmp_path.parents):
        pytest.skip("a MANIFEST.toml above the temporary directory")
    msg = fails_text(tmp_path, conf(head='name = "t"\ninstances = ["@smoke"]\n'), "instances[0]")
    assert "MANIFEST.toml" in msg


# --------------------------------------------------------------------------- seeds
def test_seeds_keep_their_order(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, conf(top="seeds = [5, 0, 2]")))
    assert cfg.seeds == (5, 0, 2)
    # a pair may set its own seed when the config has no seeds
    cfg = load_config(write(tmp_path, conf(tables='[[pairs]]\nbackend = "fake"\noptions = { seed = 4 }\n')))
    assert cfg.seeds is None and cfg.pairs[0].option_dict == {"seed": 4}


@pytest.mark.parametrize("line, words", [
    ("seeds = []", ["non-empty"]),
    ("seeds = [-1]", [">= 0"]),
    ("seeds = [1.5]", ["integers"]),
    ("seeds = [true]", ["integers"]),
    ('seeds = ["1"]', ["integers"]),
    ("seeds = 1", ["a list", "an integer"]),
    ("seeds = [1, 2, 1]", ["twice"]),
])
def test_bad_seeds(tmp_path: Path, line: str, words: list[str]) -> None:
    msg = fails_text(tmp_path, conf(top=line), "seeds")
    for word in words:
        assert word in msg, msg


def test_seeds_conflict_with_a_pair_seed_option(tmp_path: Path) -> None:
    text = conf(top="seeds = [0, 1]", tables=FAKE + '\n[[pairs]]\nbackend = "fake"\noptions = { seed = 3 }\n')
    msg = fails_text(tmp_path, text, "seeds")
    assert "fake[seed=3]/placement" in msg


# --------------------------------------------------------------------------- hash
HASH_BASE = """\
name = "h"
instances = ["a.toml", "b.toml"]
task = "count-2"
seeds = [0, 1]
repetitions = 1
{top}
[limits]
time_s = 10
memory_mb = 1024
grace_s = 1
{limits}
[[pairs]]
backend = "fake"
options = {{ threads = 2, mode = "answer" }}

[[pairs]]
backend = "sat"
formulation = "cell"
{pairs}
"""


def hash_of(folder: Path, top: str = "", limits: str = "", pairs: str = "", base: str = HASH_BASE) -> str:
    return load_config(write(folder, base.format(top=top, limits=limits, pairs=pairs))).hash


def test_hash_same_for_the_same_content(tmp_path: Path) -> None:
    h = hash_of(tmp_path / "one")
    assert len(h) == 16 and int(h, 16) >= 0
    assert hash_of(tmp_path / "two") == h  # another file, same content
    reformatted = HASH_BASE.replace('options = {{ threads = 2, mode = "answer" }}',
                                    '# same options, other order and spelling\n'
                                    'options = {{ mode = "answer", threads = "2" }}')
    assert hash_of(tmp_path / "three", base=reformatted) == h


@pytest.mark.parametrize("top", [
    "jobs = 8", 'executor = "dask"\nscheduler = "tcp://h:8786"', 'output = "elsewhere"', 'workers = "cold"',
    '[check]\nratio = 3\n[check.ratio_by_pair]\n"sat/*" = 4',
])
def test_hash_ignores_how_runs_execute(tmp_path: Path, top: str) -> None:
    assert hash_of(tmp_path / "a") == hash_of(tmp_path / "b", top=top)


@pytest.mark.parametrize("change", [
    {},
    {"base": HASH_BASE.replace("time_s = 10", "time_s = 11")},
    {"base": HASH_BASE.replace("memory_mb = 1024", "memory_mb = 2048")},
    {"base": HASH_BASE.replace("grace_s = 1", "grace_s = 2")},
    {"base": HASH_BASE.replace('task = "count-2"', 'task = "count-3"')},
    {"base": HASH_BASE.replace('task = "count-2"', 'task = "solve"')},
    {"base": HASH_BASE.replace("seeds = [0, 1]", "seeds = [0, 2]")},
    {"base": HASH_BASE.replace("seeds = [0, 1]", "")},
    {"base": HASH_BASE.replace("repetitions = 1", "repetitions = 3")},
    {"base": HASH_BASE.replace("threads = 2", "threads = 4")},
    {"base": HASH_BASE.replace('formulation = "cell"', 'formulation = "placement"')},
    {"pairs": '\n[[pairs]]\nbackend = "cpsat"\n'},
    {"limits": "output_mb = 8"},
], ids=["unchanged", "time_s", "memory_mb", "grace_s", "task-k", "task-kind", "seeds", "no-seeds",
        "repetitions", "option", "formulation", "extra-pair", "output_mb"])
def test_hash_changes_with_what_decides_results(tmp_path: Path, change: dict[str, str]) -> None:
    same = not change
    assert (hash_of(tmp_path / "a") == hash_of(tmp_path / "b", **change)) is same


def test_the_default_output_cap_named_or_not_leaves_the_hash_as_it_was(tmp_path: Path) -> None:
    """Configs written before the output cap existed keep their hash (their stores resume); naming the default
    changes nothing either."""
    assert hash_of(tmp_path / "a") == hash_of(tmp_path / "b", limits="output_mb = 64")
    assert load_config(write(tmp_path / "c", HASH_BASE.format(top="", limits="output_mb = 8", pairs=""))
                       ).limits.output_mb == 8


# --------------------------------------------------------------------------- the command line
@pytest.mark.parametrize("text, words", [
    (conf(top='output = "{out}"', tables='[[pairs]]\nbackend = "fake"\ncolour = "red"\n'), ["pairs[0].colour"]),
    (conf(top='output = "{out}"', tables='[[pairs]]\nbackend = "gurobi"\n'), ["pairs[0]", "gurobi"]),
    (conf(top='output = "{out}"\njobs = 0'), ["jobs"]),
    ('output = "{out}"\nname = \n', ["not valid TOML"]),
    (conf(top='output = "{out}"', tables="[limits]\ntime_s = -1\n\n" + FAKE), ["limits.time_s"]),
])
def test_cli_run_reports_a_bad_config_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch, text: str,
                                                  words: list[str]) -> None:
    out = tmp_path / "out"
    path = write(tmp_path / "cfg", text.replace("{out}", str(out)))
    monkeypatch.chdir(tmp_path)  # a default results/ directory would land here
    assert main(["run", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("battlebench: error: ")
    assert str(path) in lines[0]
    for word in words:
        assert word in lines[0]
    assert captured.out == ""
    assert not out.exists()
    assert not (tmp_path / "results").exists()


def test_cli_run_missing_config(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "nope.toml"
    assert main(["run", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("battlebench: error: ") and str(path) in lines[0]
    assert list(tmp_path.iterdir()) == []


# -- [report]: what the report ranks by, and A/A controls ------------------------------------------

TWO_FAKES = '[[pairs]]\nbackend = "fake"\n[[pairs]]\nbackend = "fake"\nformulation = "cell"\n'


def test_report_table_rank_by_and_controls(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, conf('[report]\nrank_by = "wall"\ncontrols = ["fake/cell"]\n', TWO_FAKES)))
    assert cfg.rank_by == "wall" and cfg.controls == ("fake/cell",)
    # the control runs right after the pair it copies, as its own pair
    assert [p.label for p in cfg.pairs] == ["fake/placement", "fake/cell", "fake/cell~aa"]
    assert cfg.pairs[2].control and not cfg.pairs[1].control
    plain = load_config(write(tmp_path / "plain", conf("", TWO_FAKES)))
    assert plain.rank_by == "auto" and plain.controls == () and len(plain.pairs) == 2
    assert plain.hash != cfg.hash  # the control's runs decide results
    only_rank = load_config(write(tmp_path / "rank", conf('[report]\nrank_by = "wall"\n', TWO_FAKES)))
    assert only_rank.hash == plain.hash  # how the report ranks does not


@pytest.mark.parametrize("table, key, problem", [
    ('rank_by = "fast"', "report.rank_by", "must be one of auto, cpu, wall, not 'fast'"),
    ("rank_by = 1", "report.rank_by", "must be a string"),
    ('controls = ["sat/cell"]', "report.controls[0]", "'sat/cell' is not a pair of this campaign (its pairs: "
                                                      "fake/placement, fake/cell)"),
    ('controls = ["fake/cell", "fake/cell"]', "report.controls[1]", "'fake/cell' is listed twice"),
    ("controls = [1]", "report.controls[0]", "must be a pair's label (a string), not an integer"),
    ('controls = "fake/cell"', "report.controls", "must be a list"),
    ("speed = 1", "report.speed", ""),
])
def test_bad_report_tables_are_one_line_errors(tmp_path: Path, table: str, key: str, problem: str) -> None:
    msg = fails(write(tmp_path, conf(f"[report]\n{table}\n", TWO_FAKES)), key)
    assert problem in msg


def test_a_control_runs_interleaved_each_copy_first_on_every_other_instance(tmp_path: Path) -> None:
    from harness.runner.campaign import expand

    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.toml").write_text("")
    text = ('name = "t"\ninstances = ["a.toml", "b.toml", "c.toml"]\n[report]\ncontrols = ["fake/placement"]\n'
            + TWO_FAKES)
    specs = expand(load_config(write(tmp_path, text)))
    order = [(s.instance_name, s.pair.label) for s in specs]
    assert order == [
        ("a", "fake/placement"), ("a", "fake/placement~aa"), ("a", "fake/cell"),
        ("b", "fake/placement~aa"), ("b", "fake/placement"), ("b", "fake/cell"),
        ("c", "fake/placement"), ("c", "fake/placement~aa"), ("c", "fake/cell"),
    ]
    assert len({s.run_id for s in specs}) == len(specs)


# --------------------------------------------------------------------------- each task's own words
HEAD = 'name = "t"\ninstances = ["a.toml"]\n'
TASKS = {  # task line, the pair in the task's own words, the same pair in the generic words
    "count": ('task = "deployments"', 'counter = "dp"\ncounted = "deployments"',
              'backend = "dp"\nformulation = "deployments"'),
    "play": ('task = "play"', 'strategy = "density"\nrule = "sunk"', 'backend = "density"\nformulation = "sunk"'),
    "value": ('task = "value"', 'strategy = "density"\nrule = "none"', 'backend = "density"\nformulation = "none"'),
}


def text(task: str, pair: str) -> str:
    return f"{HEAD}{TASKS[task][0]}\n[[pairs]]\n{pair}\n"


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_tasks_own_words_and_the_generic_ones_make_the_same_campaign(tmp_path, task):
    own = load_config(write(tmp_path / "own", text(task, TASKS[task][1])), require_instances=False)
    generic = load_config(write(tmp_path / "generic", text(task, TASKS[task][2])), require_instances=False)
    assert own.pairs == generic.pairs and own.hash == generic.hash
    pair = own.pairs[0]
    assert (pair.plugin, pair.variant) == tuple(line.split('"')[1] for line in TASKS[task][1].splitlines())


@pytest.mark.parametrize("task", sorted(TASKS))
@pytest.mark.parametrize("line", [0, 1])
def test_a_pair_naming_one_idea_twice_is_one_config_error(tmp_path, task, line):
    own, generic = (TASKS[task][i].splitlines()[line] for i in (1, 2))
    generic_key = generic.split()[0]
    msg = fails_text(tmp_path, text(task, f"{TASKS[task][1]}\n{generic}"), f"pairs[0].{generic_key}")
    assert f"name it once: {own.split()[0]} or {generic_key}, not both" in msg


def test_the_count_tasks_error_names_its_word(tmp_path):
    msg = fails_text(tmp_path, text("count", 'counter = "dp"\ncounted = "boards"'), "pairs[0].counted")
    assert "leave counted out or set it to 'deployments', not 'boards'" in msg


def test_the_play_tasks_error_names_its_word(tmp_path):
    msg = fails_text(tmp_path, text("play", 'strategy = "density"\nrule = "loud"'), "pairs[0].rule")
    assert "announcement rule" in msg


def test_the_solve_task_takes_no_other_tasks_words(tmp_path):
    msg = fails_text(tmp_path, f'{HEAD}[[pairs]]\ncounter = "dp"\n', "pairs[0].counter")
    assert "backend" in msg
