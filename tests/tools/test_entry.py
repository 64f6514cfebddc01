"""harness.tools.entry: a tool entry's name becomes part of its work folder's name, so it is checked when the tool
file is read (one line naming the file and the entry) and when ``-o tool=NAME`` is looked up."""

from __future__ import annotations

import pytest

from harness.errors import UnsafeName
from harness.tools import builtin_tools, find_tool, load_tools
from harness.tools.entry import parse_tools

ENTRY = 'format = "cnf"\ncommand = ["true", "{file}"]\noutput = "sat-competition"\n'


@pytest.mark.parametrize("name", ["qax/../../elsewhere/OUTSIDE", "a/b", "/abs", "..", ".", "", "a\\b", "x" * 201,
                                  "with space", "tab\t"], ids=repr)
def test_a_tool_file_entry_named_what_no_file_name_can_be_is_refused_naming_the_file(tmp_path, name):
    path = tmp_path / "tools.toml"
    path.write_text(f'[tools.ok]\n{ENTRY}\n[tools."{name.encode("unicode_escape").decode()}"]\n{ENTRY}')
    with pytest.raises(UnsafeName) as info:
        load_tools(path)
    assert str(info.value).startswith(f"{path}: tools: tool name {name!r} ")


@pytest.mark.parametrize("name", ["a/b", "../x", ""], ids=repr)
def test_find_tool_refuses_a_name_no_entry_can_have_before_reading_any_file(name):
    with pytest.raises(UnsafeName, match=r"^option tool: tool name "):
        find_tool(name, "/nonexistent/tools.toml")  # refused as a name, not as a missing file


def test_every_built_in_name_and_a_unicode_name_are_kept():
    assert all(find_tool(name).name == name for name in builtin_tools())
    assert list(parse_tools(f'[tools."lösér-2"]\n{ENTRY}', "x.toml")) == ["lösér-2"]
