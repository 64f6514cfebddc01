"""harness.core.paths: which names are safe path parts, the one-line refusal of check_name, and path_part's escape
(kept when safe, else readable, one-to-one and always one file name inside the folder it is put in)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.core.paths import MAX_BYTES, check_name, path_part, unsafe
from harness.errors import InputError, UnsafeName

# Names that must not become a path as they are: traversal, separators, absolute, empty, dot folders, NUL, too
# long, hidden, unicode separators and formatting characters, shell-awkward marks, the escape character itself.
HOSTILE = ["../TRAVERSED", "..", ".", "", "a/b", "/etc/passwd", "qax/../../elsewhere/OUTSIDE", "a\\b", "a\0b",
           "x" * (MAX_BYTES + 1), "é" * (MAX_BYTES // 2 + 1), ".hidden", "ü/é", "a\u202eb", "tab\there", "new\nline",
           "a b", "100%", "%2E", "a:b", "*", "$(rm -rf ~)", "\udc80"]
SAFE = ["tiny_4x4", "sb_12_12_5_0", "gen_5x5_unique_s3", "cadical", "fzn-gecode", "minisat-plus", "Größe", "東京",
        "a.b", "v1.2+local", "x" * MAX_BYTES, "a..b", "a~b"]


@pytest.mark.parametrize("name", SAFE)
def test_a_safe_name_is_kept_as_it_is(name):
    assert unsafe(name) is None
    assert check_name(name, "tool name", "tools.toml: tools") == name
    assert path_part(name) == name


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_check_name_refuses_each_unsafe_name_with_one_line_naming_where_and_what(name):
    with pytest.raises(UnsafeName) as info:
        check_name(name, "tool name", "tools.toml: tools")
    said = str(info.value)
    assert isinstance(info.value, InputError)  # the CLI prints it as one line, exit 2
    assert said.startswith("tools.toml: tools: tool name ") and repr(name) in said
    assert "\n" not in said.replace(repr(name), "")  # one line (the name's repr escapes its own newlines)


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_path_part_makes_every_name_one_file_inside_its_folder(tmp_path, name):
    part = path_part(name)
    assert part and not part.startswith(".") and not set(part) & {"/", "\\", "\0"}
    assert len(part.encode()) <= MAX_BYTES
    assert unsafe(part.replace("%", "_")) is None  # only letters, digits, the safe marks and its escapes
    target = tmp_path / f"{part}.placement.map.json"
    assert target.resolve().parent == tmp_path.resolve()
    target.write_text("written")  # a real file system takes it (no separator, NUL, or name over 255 bytes)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_path_part_is_readable_and_one_to_one():
    assert path_part("../TRAVERSED") == "%2E.%2FTRAVERSED"
    assert path_part("a/b") == "a%2Fb"
    assert path_part("ü/é") == "ü%2Fé"  # letters of any script are kept
    assert path_part("100%") == "100%25"  # the escape character is escaped: "%2E" and "." do not meet
    parts = [path_part(n) for n in HOSTILE + SAFE]
    assert len(set(parts)) == len(parts)


def test_a_long_name_is_shortened_with_a_hash_that_tells_long_names_apart():
    a, b = "x" * 300 + "a", "x" * 300 + "b"
    assert path_part(a) != path_part(b)
    assert all(len(path_part(n).encode()) <= MAX_BYTES for n in (a, b, "é" * 300, "/" * 300))
    assert path_part(a).startswith("x" * 100) and "%~" in path_part(a)


def test_unsafe_says_why_in_words():
    assert unsafe("") == "is empty"
    assert "folder separator" in unsafe("a/b")
    assert "NUL" in unsafe("a\0b")
    assert "hidden" in unsafe(".x")
    assert "bytes long" in unsafe("x" * 300)
    assert "not a string" in unsafe(3)


def test_no_escaped_name_can_leave_the_folder(tmp_path):
    """Every escaped name joined to a folder stays directly in it, also after the OS resolves it."""
    for name in HOSTILE:
        assert (tmp_path / path_part(name)).resolve().parent == tmp_path.resolve()
        assert Path(path_part(name)).name == path_part(name)


# --------------------------------------------------------------------------- one place: no module builds its own
PKG = Path(__file__).resolve().parents[2] / "harness"
GUARDS = {"path_part", "check_name"}
PATH_CALLS = {"with_name", "with_stem", "open", "Path", "joinpath"}
TEMP_CALLS = {"mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryDirectory"}
# What goes into a path without path_part or check_name, and why it is safe: (module, expression) -> reason.
NOT_NAMES = {
    ("selection/aslib.py", "name"): "an ASlib scenario's own file names (FILES, REQUIRED, the names check_scenario reads)",
    ("selection/features.py", "VERSION"): "the features' version, an int",
    ("selection/features.py", "__version__"): "harness's own version string",
    ("selection/features.py", "inst.content_hash()"): "a puzzle's content hash: 16 hex digits",
    ("core/cores.py", "cpu"): "a logical CPU's number, an int of sched_getaffinity (/sys/devices/system/cpu/cpuN)",
    ("backends/files.py", "stem"): "path_part(inst.name) and the formulation (placement | cell)",
    ("backends/files.py", "suffix(fmt)"): "a suffix of WRITE_FORMATS",
    ("backends/minizinc.py", "self.formulation"): "placement | cell, the package's own .mzn files",
    ("backends/tool.py", "suffix(self.tool.format)"): "a suffix of FORMATS (checked where entries are read)",
    ("backends/tool.py", "self.tool.proof"): "drup | drat, a proof format of PROOF_FORMATS (checked where entries are "
                                             "read)",
    ("backends/tool.py", "proof.name"): "the name of the tool call's own proof path (proof.drup | proof.drat)",
    ("proofs/recheck.py", "fmt"): "a record's proof_format, checked to be one of PROOF_FORMATS first",
    ("store/sqlite.py", "name"): "a kept file's name, checked to stay inside the store's folder",
    ("cli/export.py", "args.format"): "one of the export formats (argparse choices)",
    ("store/export.py", "fmt"): "one of the export formats",
    ("store/export.py", "path.name"): "the name of a path the user gave",
    ("store/export.py", "os.getpid()"): "a number",
    ("counting/counters/cluster.py", "key"): "hex digits of a SHA-256",
    ("generate/batch.py", "self.name"): "Settings.name: the prefix checked by Settings, the rest the harness's",
    ("generate/generator.py", "settings.name(seed)"): "as above",
    ("generate/journal.py", "self.path.name"): "the name of the journal's own path",
    ("generate/journal.py", "hashlib.sha256(data).hexdigest()[:8]"): "hex digits",
    ("report/render.py", "fmt"): "one of plots.FORMATS",
    ("report/compare.py", "name"): "one of FILES, the comparison's own file names",
    ("runner/worker.py", "pid"): "a number (/proc)",
    ("runner/worker.py", "entry"): "a /proc entry of digits",
    ("report/locate.py", "DB_NAME"): "the store's own file name (a constant)",
    ("report/locate.py", "GZ_NAME"): "the store's own file name (a constant)",
    ("store/sqlite.py", "DB_NAME"): "the store's own file name (a constant)",
    ("store/sqlite.py", "GZ_NAME"): "the store's own file name (a constant)",
    ("core/cgroups.py", "name"): "battlebench-PID-0, a cgroup's name of numbers",
    ("core/jitcache.py", "__version__"): "the harness's version",
    ("core/jitcache.py", "numba_version()"): "numba's version (the name of its dist-info folder)",
    ("core/jitcache.py", "name"): "a numba index file's name, from the package's own kernel sources",
    ("core/proctree.py", "pid"): "a number (/proc)",
    ("core/proctree.py", "tid"): "a number (/proc)",
    ("core/scratch.py", "PREFIX"): "the roots' own prefix (a constant)",
    ("runner/slurm.py", "DB_NAME"): "the store's own file name (a constant)",
    ("runner/slurm.py", "name"): "the store's own file names (DB_NAME and its -wal, -shm)",
    ("runner/slurm.py", "path.name"): "the name of a file the merge wrote into its own folder",
    ("store/merge.py", "DB_NAME"): "the store's own file name (a constant)",
    ("store/merge.py", "name"): "proofs/FILE: the name of a file a source store keeps (a sha256 and a suffix)",
    ("core/scratch.py", "os.getpid() if pid is None else pid"): "a number",
}


def _name_like(node: ast.AST) -> bool:
    last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return "name" in last.lower()


def _unguarded(tree: ast.AST):
    """(line, expression) of what goes into a path built from text: f-strings joined with ``/``, given to Path,
    open, with_name or a temporary file's prefix, and names joined with ``/``; path_part and check_name pass."""
    pieces = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if isinstance(node.right, ast.JoinedStr):
                pieces.append(node.right)
            elif _name_like(node.right):
                pieces.append(node.right)
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in PATH_CALLS and node.args and isinstance(node.args[0], ast.JoinedStr):
                pieces.append(node.args[0])
            if called in TEMP_CALLS:
                pieces += [k.value for k in node.keywords if k.arg in ("prefix", "suffix")
                           and isinstance(k.value, ast.JoinedStr)]
    for piece in pieces:
        values = [v.value for v in piece.values if isinstance(v, ast.FormattedValue)] \
            if isinstance(piece, ast.JoinedStr) else [piece]
        for value in values:
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in GUARDS):
                yield piece.lineno, ast.unparse(value)


def _found() -> dict[tuple[str, str], int]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        for line, expr in _unguarded(ast.parse(path.read_text())):
            out[(str(path.relative_to(PKG)), expr)] = line
    return out


def test_no_module_builds_a_path_from_a_name_itself():
    """Every name that becomes a path goes through core.paths; what else goes into one is listed with why."""
    found = _found()
    own = {f"{m}:{line}: {e}" for (m, e), line in found.items() if (m, e) not in NOT_NAMES}
    assert not own, f"build these paths with harness.core.paths.path_part or check_name: {sorted(own)}"
    stale = sorted(set(NOT_NAMES) - set(found))
    assert not stale, f"listed in NOT_NAMES but no longer in the code: {stale}"


def test_the_scan_finds_a_path_built_from_a_name():
    code = ('out / f"{inst.name}.cnf"\nout / dep.name\nPath(f"{x}.png")\nmkdtemp(prefix=f"bb-{tool}-")\n'
            'out / f"{path_part(inst.name)}.cnf"\nout / check_name(name, "w", "x")\n')
    assert [e for _, e in _unguarded(ast.parse(code))] == ["inst.name", "dep.name", "x", "tool"]
