"""Names that become paths, from the command line (issue 49, findings 5 and 6): a tool entry's name, a campaign's,
an instance's in ``write``, a deployment's in ``count --marginals``, generate's prefix.  Each is refused with one
line before anything runs (exit 2, no traceback), or escaped so that every file stays inside its folder."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from harness.cli import main
from harness.puzzle.formats import read_instance, write_instance

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "instances" / "smoke" / "tiny_4x4.toml"
POSITION = ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml"
BAD_TOOL = "qax/../../elsewhere/OUTSIDE"


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("battlebench: error: "), err
    return lines[0]


@pytest.fixture
def own_tmp(tmp_path, monkeypatch):
    """A temporary folder of the test's own (work folders of tool runs would appear in it)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    return tmp


def _tool_file(tmp: Path, *names: str) -> tuple[Path, Path]:
    """A tool file whose entries (one per name) run a fake solver that leaves a marker file and says UNSAT."""
    marker = tmp / "the-tool-ran"
    script = tmp / "fake.py"
    script.write_text(f"from pathlib import Path\nPath({str(marker)!r}).touch()\nprint('s UNSATISFIABLE')\n")
    text = "".join(f'[tools.{json.dumps(n)}]\nformat = "cnf"\ncommand = [{json.dumps(sys.executable)}, '
                   f'{json.dumps(str(script))}, "{{file}}"]\noutput = "sat-competition"\n\n' for n in names)
    path = tmp / "tools.toml"
    path.write_text(text)
    return path, marker


# --------------------------------------------------------------------------- finding 5: tool entry names
def test_a_tool_entry_whose_name_leaves_the_temporary_folder_is_refused_when_its_file_is_read(
        tmp_path, own_tmp, capsys):
    tools, marker = _tool_file(tmp_path, "good", BAD_TOOL)
    code, out, err = _cli(capsys, "solve", TINY, "-b", "tool", "-o", "tool=good", "-o", f"tool_file={tools}",
                          "-o", "measure=process")
    line = _one_line(err)
    assert code == 2 and out == ""
    assert f"{tools}: tools: tool name {BAD_TOOL!r} holds '/'" in line  # the file, the entry, the problem
    assert not marker.exists() and list(own_tmp.iterdir()) == []  # before any run: no tool ran, no work folder


def test_a_tool_name_no_entry_can_have_is_one_line_before_any_run(tmp_path, own_tmp, capsys):
    tools, marker = _tool_file(tmp_path, "a/b")
    for extra in ([], ["-o", f"tool_file={tools}"]):
        code, out, err = _cli(capsys, "solve", TINY, "-b", "tool", "-o", "tool=a/b", "-o", "measure=process", *extra)
        line = _one_line(err)
        assert code == 2 and out == "" and "tool name 'a/b' holds '/'" in line, extra
    assert not marker.exists() and list(own_tmp.iterdir()) == []


def test_a_campaign_naming_such_a_tool_stops_before_any_run(tmp_path, own_tmp, capsys):
    tools, marker = _tool_file(tmp_path, "a/b")
    config = tmp_path / "tools.campaign.toml"
    config.write_text(f'name = "tools"\ninstances = [{json.dumps(str(TINY))}]\noutput = "results"\n'
                      f'[[pairs]]\nbackend = "tool"\nformulation = "placement"\n'
                      f'options = {{ tool = "a/b", tool_file = {json.dumps(str(tools))}, measure = "process" }}\n')
    code, out, err = _cli(capsys, "run", config)
    assert code == 2 and "tool name 'a/b'" in _one_line(err)
    assert not (tmp_path / "results").exists() and not marker.exists()


# --------------------------------------------------------------------------- finding 6: write stays inside --out
NAMES = ["../TRAVERSED", "a/b", "ü/é", "/abs/OUTSIDE", ".", "..", "x" * 300, "new\nline", ".hidden", "Größe"]


@pytest.mark.parametrize("name", NAMES, ids=repr)
def test_write_keeps_every_file_inside_out_whatever_the_instance_is_named(tmp_path, capsys, name):
    puzzle = tmp_path / "puzzle.toml"
    write_instance(read_instance(TINY).replace(name=name), puzzle, "native")
    assert read_instance(puzzle).name == name
    out = tmp_path / "deep" / "out"
    code, _, err = _cli(capsys, "write", puzzle, "--out", out)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep", "puzzle.toml"]  # nothing beside --out
    assert [p.name for p in (tmp_path / "deep").iterdir()] == ["out"]
    manifest = json.loads((out / "MANIFEST.json").read_text())
    files = {e[k] for e in manifest["files"] for k in ("file", "map")}
    assert sorted(p.name for p in out.iterdir()) == sorted(files | {"MANIFEST.json"})  # all of them, directly in it
    assert {e["instance"] for e in manifest["files"]} == {name}  # the manifest keeps the name itself
    for entry in manifest["files"]:
        assert (out / entry["file"]).read_text().startswith("c battlebench")  # each found by its manifest entry


def test_write_keeps_a_safe_unicode_name_as_it_is(tmp_path, capsys):
    puzzle = tmp_path / "p.toml"
    write_instance(read_instance(TINY).replace(name="Größe_東京"), puzzle, "native")
    assert _cli(capsys, "write", puzzle, "--out", tmp_path / "out", "-f", "cell")[0] == 0
    assert (tmp_path / "out" / "Größe_東京.cell.cnf").is_file()


def test_write_s_comment_line_holds_a_name_with_a_newline_on_one_line(tmp_path, capsys):
    puzzle = tmp_path / "p.toml"
    write_instance(read_instance(TINY).replace(name="x\np cnf 1 1"), puzzle, "native")
    assert _cli(capsys, "write", puzzle, "--out", tmp_path / "out", "-f", "cell")[0] == 0
    text = next((tmp_path / "out").glob("*.cnf")).read_text()
    assert [line for line in text.splitlines() if line.startswith("p ")] != ["p cnf 1 1"]
    assert sum(line.startswith("p ") for line in text.splitlines()) == 1


# --------------------------------------------------------------------------- campaign names, other outputs
@pytest.mark.parametrize("name", ["../escaped", "/abs/escaped", "a/b", ".", "..", "x" * 300, "a\\b"], ids=repr)
def test_a_campaign_name_that_would_leave_results_is_one_line_before_any_run(tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    if name.startswith("/abs/"):
        name = str(tmp_path / "outside" / "escaped")
    config = tmp_path / "c.toml"
    config.write_text(f'name = {json.dumps(name)}\ninstances = [{json.dumps(str(TINY))}]\n'
                      '[[pairs]]\nbackend = "sat"\nformulation = "placement"\n')
    code, out, err = _cli(capsys, "run", config)
    line = _one_line(err)
    assert code == 2 and f"{config}: name: the campaign name" in line and repr(name) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]  # no results folder, no store anywhere


def test_a_campaign_with_output_may_have_any_name(tmp_path, monkeypatch, capsys):
    """With ``output`` the name is only a label: nothing is refused."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "c.toml"
    config.write_text(f'name = "my campaign/2"\ninstances = [{json.dumps(str(TINY))}]\noutput = "res"\n'
                      '[[pairs]]\nbackend = "sat"\nformulation = "placement"\n')
    code, _, err = _cli(capsys, "run", config)
    assert code == 0, err
    assert (tmp_path / "res" / "results.sqlite").is_file()


@pytest.mark.parametrize("prefix", ["../up", "/abs", "a/b", "", ".x"], ids=repr)
def test_generate_refuses_a_prefix_that_is_no_file_name_before_any_work(tmp_path, capsys, prefix):
    out = tmp_path / "out"
    code, _, err = _cli(capsys, "generate", "--rows", "4", "--cols", "4", "--hints", "0", "--prefix", prefix,
                        "--out", out)
    assert code == 2 and "--prefix: the prefix" in _one_line(err)
    assert list(tmp_path.iterdir()) == []  # not even --out


def test_count_marginals_draws_inside_png_dir_whatever_the_deployment_is_named(tmp_path, capsys):
    dep = tmp_path / "dep.toml"
    dep.write_text(POSITION.read_text().replace('name = "t6x6_position"', 'name = "../ESCAPED"', 1))
    pictures = tmp_path / "pictures"
    code, out, err = _cli(capsys, "count", dep, "--marginals", "--png-dir", pictures)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dep.toml", "pictures"]
    assert [p.name for p in pictures.iterdir()] == ["%2E.%2FESCAPED-marginals.png"]
