"""harness.core.paths: which names are safe path parts, the one-line refusal of check_name, and path_part's escape
(kept when safe, else readable, one-to-one and always one file name inside the folder it is put in)."""

from __future__ import annotations

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
