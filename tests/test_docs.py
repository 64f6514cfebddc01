"""The documentation's promises: every command it shows works, its examples parse, the site builds.

Every ```sh block of README.md and of every page under docs/ is read: each `battlebench ...` line
must parse with the real parser and name files that exist (or that an earlier command of the
pages writes or copies); each `.venv/bin/python benchmarks/...` line must name a script that
exists (in benchmarks/ or experiments/). The quick commands — the README's tour, the tutorials —
run verbatim in a checkout-like folder with the venv on PATH (as after `source
.venv/bin/activate`); a run of more than about 20 s is marked slow. The site builds with
`mkdocs build --strict` (no warning), its command-line reference generated from the parser.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from harness.cli import build_parser
import procs

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
TEXT = {p: p.read_text() for p in PAGES}


def _rel(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


PRODUCED = {"scratch/sb.dzn", "scratch/mine.dzn", "scratch/puzzle7"}  # files an earlier command of the pages writes
COPIED = {"scratch/mysolver/": "examples/backend-template/", "scratch/mycounter/": "examples/counter-template/",
          "scratch/mystrategy/": "examples/strategy-template/"}  # folders an earlier command of the pages copies
MOVED = (("benchmarks/", "experiments/"), ("reports/", "experiments/"))  # either place will do (being moved)


def _titled_files() -> dict[str, str]:
    """Files a page shows whole, to be saved by the reader: ```toml title="NAME" blocks."""
    out: dict[str, str] = {}
    for text in TEXT.values():
        for name, body in re.findall(r'^```\w+ title="([^"]+)"\n(.*?)^```', text, re.S | re.M):
            out[name] = body
    return out


TITLED = _titled_files()


def _exists(path: str, *, folder: bool = False) -> bool:
    if path in TITLED or path in PRODUCED:
        return True
    for copy, source in COPIED.items():
        if path.startswith(copy):
            path = source + path[len(copy):]
    candidates = [path] + [new + path[len(old):] for old, new in MOVED if path.startswith(old)]
    test = Path.is_dir if folder else Path.is_file
    return any(test(ROOT / c) or (not folder and glob.glob(str(ROOT / c)) and "*" in c) for c in candidates)


def _sh_blocks(text: str) -> list[str]:
    return re.findall(r"^ *```sh\n(.*?)^ *```", text, re.S | re.M)


def _commands(block: str) -> list[str]:
    """A block's command lines: continuations joined, comments and a trailing `&` stripped, `&&` chains split."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"(^|\s+)#.*$", "", line).strip().rstrip("&").strip()
        out += [part.strip() for part in line.split("&&") if part.strip()]
    return out


def _all_commands() -> list[tuple[str, str]]:
    return [(_rel(page), c) for page in PAGES for block in _sh_blocks(TEXT[page]) for c in _commands(block)]


def _battlebench(line: str) -> list[str] | None:
    argv = shlex.split(line)
    if argv and argv[0] in ("battlebench", ".venv/bin/battlebench"):
        return argv[1:]
    return None


def test_every_page_shows_commands_in_sh_blocks():
    """No command hides in an untagged block, where the tests below would not see it."""
    for page in PAGES:
        for block in re.findall(r"^ *```\n(.*?)^ *```", TEXT[page], re.S | re.M):
            assert not re.search(r"^\s*battlebench ", block, re.M), f"{_rel(page)}: tag the block ```sh"


def test_every_battlebench_command_parses_and_names_files_that_exist():
    parser = build_parser()
    seen = 0
    for page, line in _all_commands():
        argv = _battlebench(line)
        if argv is None:
            if re.match(r"(\.venv/bin/)?python3? (benchmarks|experiments)/", line):
                assert _exists(shlex.split(line)[1]), (page, line)
            continue
        seen += 1
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            raise AssertionError(f"{page}: the command does not parse: {line}") from None
        where = (page, line)
        if args.command == "run":
            assert _exists(args.config), where
        if args.command in ("solve", "count", "write"):
            assert all(_exists(p) for p in args.paths), where
        if args.command == "convert":
            assert _exists(args.src), where
        if args.command == "play":
            for board in (args.optimal, args.board):
                assert board is None or _exists(board), where
        if args.command in ("check", "report", "export", "compare"):
            stores = (args.new, args.old) if args.command == "compare" else (args.results,
                                                                              getattr(args, "baseline", None))
            for store in stores:
                if store and store.startswith("reports/"):
                    assert _exists(store, folder=True), where
    assert seen >= 100


WRITABLE = ("scratch/", "results/", "/tmp")  # what a reader's commands may write: ignored by git, or outside the clone
REGENERATED = ("reports/", "experiments/")  # committed results, written again by the commands that made them


def _written(line: str) -> list[str]:
    """The files and folders a command line of the pages writes (the stores' own files aside)."""
    argv = shlex.split(line)
    if argv[:2] == ["cp", "-r"]:
        return [argv[-1]]
    out = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--out", "--output", "-O")]
    args = _battlebench(line)
    if args is not None:
        args = build_parser().parse_args(args)
        if args.command == "convert" and args.dst != "-":
            out.append(args.dst)
        if args.command == "count" and args.marginals:
            out.append(args.png_dir or "/tmp")  # default: the system's temporary folder
        if args.command == "play" and args.strip:
            out.append(args.strip)
    return out


def test_what_the_pages_write_lands_where_git_ignores_it():
    """The tour and the tutorials leave the clone's root as it was: every file a command writes (and every file a
    page asks to save) goes to scratch/, results/ or /tmp, both of the clone's folders ignored by git, or remakes a
    committed report."""
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "/scratch/" in ignored and "/results/" in ignored
    written = [(page, line, path) for page, line in _all_commands() for path in _written(line)]
    written += [("a titled block", name, name) for name in TITLED]
    assert any(path.startswith("scratch/") for _, _, path in written)
    for page, line, path in written:
        assert path.startswith(WRITABLE + REGENERATED), (page, line, path)
    for page in PAGES:  # the tour and the tutorials make the folder before a command that needs it there
        text = "\n".join(_commands("\n".join(_sh_blocks(TEXT[page]))))
        first = re.search(r"(convert|cp -r) \S+ scratch/", text)
        if first:
            assert "mkdir -p scratch" in text[:first.start()] or re.search(r"--out scratch/", text[:first.start()]), \
                _rel(page)


def test_links_to_files_outside_docs_exist():
    """Relative links into the repository (reports, instances, source) resolve from the page, as on GitHub."""
    for page in PAGES:
        for target in re.findall(r"(?<!!)\]\(([^)\s]+)\)", TEXT[page]):
            if re.match(r"^[a-z]+:|^#", target):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            rel = os.path.relpath(path, ROOT)
            assert not rel.startswith(".."), (_rel(page), target)
            if rel.endswith(".md") and rel.startswith("docs/") and rel[5:] in ("reference/cli.md",
                                                                               "reference/glossary.md"):
                continue  # generated when the site is built
            assert path.exists(), (_rel(page), target)


def test_bare_battlebench_commands_come_after_the_venv_is_activated():
    """In the README and the tutorials (read start to finish), `source .venv/bin/activate` comes first; the other
    pages say so in their section's index."""
    for page in [ROOT / "README.md"] + sorted((ROOT / "docs" / "tutorials").glob("*.md")):
        text = TEXT[page]
        bare = [m.start() for m in re.finditer(r"^battlebench ", text, re.M)]
        if bare:
            assert "\nsource .venv/bin/activate\n" in text[:bare[0]], _rel(page)
    for index in ("how-to", "reference"):
        assert "source .venv/bin/activate" in TEXT[ROOT / "docs" / index / "index.md"] or index == "reference"


# -- the examples -------------------------------------------------------------------------------------------------

def _toml_block(page: str, marker: str) -> str:
    blocks = [b for b in re.findall(r"^ *```toml\n(.*?)^ *```", TEXT[ROOT / page], re.S | re.M) if marker in b]
    assert len(blocks) == 1, (page, marker)
    return blocks[0]


def test_the_native_instance_example_parses():
    from harness.puzzle.formats import parse_instance
    from harness.puzzle.instance import Hint

    block = _toml_block("docs/reference/formats.md", "[size]")
    block = "\n".join(line[3:] if line.startswith("   ") else line for line in block.splitlines())
    inst = parse_instance(block, "native", file="formats.md")
    assert (inst.rows, inst.cols) == (6, 6) and inst.col_clues[4] is None
    assert inst.hints[(1, 1)] is Hint.WATER and inst.hints[(2, 0)] is Hint.TOP


def test_the_config_example_is_valid():
    import tomllib

    from harness.runner.config import parse_config

    # the example lives next to configs/ in a checkout: resolve it from there
    cfg = ROOT / "configs" / "reference-example.toml"
    config = parse_config(tomllib.loads(_toml_block("docs/reference/config.md", 'name = "example"')), cfg,
                          require_instances=True)
    assert config.task.label == "count-2" and config.limits.grace_s == 5
    assert [p.label for p in config.pairs] == ["sat[encoding=totalizer,solver=glucose4]/placement",
                                                 "cpsat/placement", "cpsat/placement~aa",  # its A/A control
                                                 "race[cpsat/placement,sat[solver=glucose4]/placement]"]
    assert config.rank_by == "auto" and config.controls == ("cpsat/placement",)
    assert len(config.instance_paths) == 4 + 3  # the smoke directory and the seeds suite


def test_the_per_task_pairs_example_is_valid():
    import tomllib

    from harness.runner.config import parse_config

    pairs = tomllib.loads(_toml_block("docs/reference/config.md", 'counter = "dp"'))["pairs"]
    labels = [parse_config({"name": "x", "instances": ["a.toml"], "task": task, "pairs": [pair]},
                           ROOT / "configs" / "x.toml", require_instances=False).pairs[0].label
              for task, pair in zip(("deployments", "play"), pairs, strict=True)]
    assert labels == ["dp[split=2]/deployments", "thompson/sunk"]


def test_the_tutorial_config_is_valid(tmp_path):
    import tomllib

    from harness.runner.config import parse_config

    (tmp_path / "scratch" / "my-puzzles").mkdir(parents=True)
    (tmp_path / "scratch" / "my-puzzles" / "a.toml").write_text((ROOT / "instances/smoke/tiny_4x4.toml").read_text())
    config = parse_config(tomllib.loads(TITLED["scratch/my-campaign.toml"]), tmp_path / "scratch" / "my-campaign.toml",
                          require_instances=True)
    assert [p.label for p in config.pairs] == ["cpsat/placement", "sat/cell", "mip/placement"]


def test_the_store_page_names_every_table_and_column():
    from harness.core.record import COLUMNS
    from harness.store.sqlite import PLAN_COLUMNS

    store = (ROOT / "docs" / "reference" / "store.md").read_text()
    records = (ROOT / "docs" / "reference" / "records.md").read_text()
    for column in PLAN_COLUMNS:
        assert f"`{column}`" in store, column
    for column in COLUMNS:
        assert f"`{column}`" in records, column
    for table in ("runs", "planned_runs", "campaign_meta"):
        assert f"`{table}`" in store


def test_the_cli_reference_has_every_command_and_option():
    import argparse

    from harness.cli.reference import render

    text = render()
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert f"\n## {name}\n" in text, name
        for action in command._actions:
            if action.help is argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in text, (name, option)
    assert "(default: " in text


# -- run as printed -----------------------------------------------------------------------------------------------

def _env() -> dict[str, str]:  # the venv on PATH, as after `source .venv/bin/activate`
    return dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}",
                PYTHONPATH=str(ROOT))


def _checkout(tmp_path: Path) -> Path:
    for name in ("instances", "configs", "examples", "reports"):
        (tmp_path / name).symlink_to(ROOT / name)
    for name, body in TITLED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    return tmp_path


def _run_page(tmp_path: Path, page: str, *, skip: tuple[str, ...] = (), first_block_only: bool = False) -> int:
    """Every command line of the page's sh blocks, verbatim, in order, in a checkout-like folder; a line's
    comment `# exit N` says the exit code it should end with (default 0). How many ran."""
    cwd = _checkout(tmp_path)
    blocks = _sh_blocks(TEXT[ROOT / page])
    ran = 0
    for block in blocks[:1] if first_block_only else blocks:
        for raw in block.replace("\\\n", " ").splitlines():
            expected = re.search(r"#\s*exit (\d+)", raw)
            command = re.sub(r"(^|\s+)#.*$", "", raw).strip()
            if not command or command == "source .venv/bin/activate" or any(s in command for s in skip):
                continue
            res = procs.run(["bash", "-c", command], cwd=cwd, env=_env(), capture_output=True, text=True)
            want = int(expected.group(1)) if expected else 0
            assert res.returncode == want, (page, command, res.stdout[-2000:], res.stderr[-2000:])
            ran += 1
    return ran


NOT_HERE = ("pip install", "python3 -m venv", ".venv/bin/")  # installs, and CI's own lines


@pytest.mark.slow
def test_the_first_campaign_tutorial_runs_as_printed(tmp_path):
    assert _run_page(tmp_path, "docs/tutorials/first-campaign.md") == 7
    assert (tmp_path / "scratch" / "results" / "my-campaign" / "report" / "index.html").is_file()
    assert (tmp_path / "scratch" / "results" / "my-campaign" / "results.csv").is_file()


@pytest.mark.slow
def test_the_ci_gate_tutorial_runs_as_printed(tmp_path):
    """The campaign (about a minute), the check against the committed baseline, the slowed copy that fails it, its
    comparison and the per-pair threshold that lets it pass."""
    assert _run_page(tmp_path, "docs/tutorials/ci-gate.md", skip=NOT_HERE) == 7


@pytest.mark.slow
def test_the_counting_tutorial_runs_as_printed(tmp_path):
    """The `count` lines, verbatim (the campaign, about 6 minutes, is parsed above)."""
    assert _run_page(tmp_path, "docs/tutorials/count-deployments.md", first_block_only=True) == 5


@pytest.mark.slow
def test_the_play_tutorial_runs_as_printed(tmp_path):
    """The `play` lines, verbatim (the campaign, about 12 minutes, is parsed above)."""
    assert _run_page(tmp_path, "docs/tutorials/play-strategies.md", first_block_only=True) == 4
    assert (Path("/tmp") / "posterior-strip.png").is_file()  # the file the page names


# -- the site -----------------------------------------------------------------------------------------------------

def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs-material is not installed (pip install mkdocs-material)")
    pytest.importorskip("material", reason="mkdocs-material is not installed (pip install mkdocs-material)")
    res = procs.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                          "-d", str(tmp_path / "site")], cwd=ROOT, env=dict(_env(), NO_MKDOCS_2_WARNING="1"),
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert not re.search(r"^WARNING", res.stderr, re.M), res.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "--time-limit" in cli and "battlebench run" in cli
    glossary = (tmp_path / "site" / "reference" / "glossary" / "index.html").read_text()
    assert "deployment" in glossary and "verdict" in glossary


# The docs' hand-kept lists of plugins and tools, each compared with its registry: a plugin or tool added to the
# code (or removed) and not to the page fails here, naming the page, the list and what is missing or extra.
def _first_column(page: str, heading: str) -> list[str]:
    """The first cells of the rows of the first table under the line ``heading`` of ``page``."""
    lines = (ROOT / page).read_text().splitlines()
    rows = []
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("|"):
            rows.append(line.split("|")[1].strip())
        elif rows or line.startswith("#"):
            break
    return rows[2:]  # the header and its rule aside


def _named(cells: list[str]) -> set[str]:
    """The backticked names of cells, before any parenthesis (``cpsat`` (OR-Tools ...), ``cpsat``, ``sat``)."""
    return {n for cell in cells if "module:Class" not in cell for n in re.findall(r"`([^`]+)`", cell.split("(")[0])}


def _registries() -> dict[str, set[str]]:
    from harness.backends.registry import BACKENDS
    from harness.core.task import TASK_BUILTINS
    from harness.counting.counters import COUNTERS
    from harness.play.strategies import STRATEGIES
    from harness.tools import builtin_tools

    return {"backends": set(BACKENDS), "counters": set(COUNTERS), "strategies": set(STRATEGIES),
            "tasks": set(TASK_BUILTINS), "tools": set(builtin_tools())}


def _lists() -> list[tuple[str, str, set[str]]]:
    """(where, registry, the names the docs list there)."""
    builtins = "docs/reference/builtins.md"
    text = (ROOT / builtins).read_text()
    tool_row = next(line for line in text.splitlines() if line.startswith("| `tool` "))
    tools = re.search(r"`tool` \((.*?); or yours", tool_row.split("|")[3]).group(1)
    tasks = text[text.index("## Tasks"):].split("\n\n")[1].split(":")[0]
    return [
        (f"{builtins} ## Backends", "backends", _named(_first_column(builtins, "## Backends"))),
        (f"{builtins} ## Counters", "counters", _named(_first_column(builtins, "## Counters"))),
        (f"{builtins} ## Strategies", "strategies", _named(_first_column(builtins, "## Strategies"))),
        (f"{builtins} ## Tasks", "tasks", set(re.findall(r"`([^`]+)`", tasks))),
        (f"{builtins}, the tool row's options", "tools", {t.strip() for t in re.split(r"[,;]", tools)}),
        ("docs/reference/plugins/tasks.md ## The four built-in tasks", "tasks",
         {cell.split()[0] for cell in _first_column("docs/reference/plugins/tasks.md", "## The four built-in tasks")}),
        ("docs/how-to/solver-binaries.md, the built-in tools' table", "tools",
         _named(_first_column("docs/how-to/solver-binaries.md", "Built in (`harness/tools/builtin.toml`):"))),
        *((f"the glossary (harness/__init__.py), {word}", registry, _glossary_names(word))
          for word, registry in (("backend", "backends"), ("counter", "counters"), ("strategy", "strategies"))),
    ]


def _glossary_names(word: str) -> set[str]:
    """The ``names`` of a glossary entry's text (the reference page generated from it lists the same)."""
    import harness

    entry = re.search(rf"^{word}\n((?:    .*\n)+)", harness.__doc__, re.M).group(1)
    entry = entry.split("formulation")[0]  # not the names of what is not a plugin
    return set(re.findall(r"``([a-z][a-z-]*)``", entry)) - {"refuses"}


@pytest.mark.parametrize("where, registry, listed", _lists(), ids=lambda x: x if isinstance(x, str) else "")
def test_each_docs_list_of_plugins_and_tools_is_its_registry(where, registry, listed):
    known = _registries()[registry]
    assert listed == known, f"{where}: missing {sorted(known - listed)}, extra {sorted(listed - known)} " \
                            f"(the {registry} registry)"


def test_a_docs_list_that_misses_a_name_is_caught():
    listed = _named(_first_column("docs/reference/builtins.md", "## Backends"))
    assert listed == _registries()["backends"] and listed - {"cpsat"} != _registries()["backends"]
    assert _named(["`cpsat`, `sat`", "`dp` (default)", "any class (`module:Class`, entry points)"]) == {"cpsat", "sat",
                                                                                                      "dp"}
    assert len(_lists()) == 10 and all(listed for _, _, listed in _lists())  # every list found and non-empty
