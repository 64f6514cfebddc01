"""Tool entries: one solver binary declared as data — the format it reads, its command, its version command, the
parser of its answer and the line that installs it — read from ``builtin.toml`` or a user's TOML file."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from harness.errors import UsageError
from harness.tools.parsers import PARSERS

FORMATS = ("cnf", "opb", "lp")  # the file formats the tool backend writes
FIELDS = {"format", "command", "output", "version", "version_pattern", "install"}
PLACEHOLDERS = ("{file}", "{out}", "{seed}", "{seed1}")  # {seed1}: seed + 1, for tools whose 0 means "the clock"


@dataclass(frozen=True)
class Tool:
    """One solver binary: ``command`` is its argument vector with ``{file}``, ``{out}`` and ``{seed}`` filled in
    per call; ``output`` names its parser (:data:`harness.tools.parsers.PARSERS`)."""

    name: str
    format: str
    command: tuple[str, ...]
    output: str
    version: tuple[str, ...] = ()
    version_pattern: str = r"(\S+)"
    install: str = ""
    origin: str = "built-in"

    def missing(self) -> str | None:
        """None when the binary is on the PATH (or at its path), else one line saying how to install it."""
        if shutil.which(self.command[0]):
            return None
        how = f": {self.install}" if self.install else ""
        return f"tool {self.name!r} is not installed here ({self.command[0]} not found){how}"

    def argv(self, file: Path, out: Path, seed: int) -> list[str]:
        values = {"file": str(file), "out": str(out), "seed": str(seed), "seed1": str(seed + 1)}
        return [re.sub(r"\{(file|out|seed1|seed)\}", lambda m: values[m.group(1)], a) for a in self.command]

    def version_of(self) -> str | None:
        """The version its version command prints (None when it has none or the command fails)."""
        if not self.version or not shutil.which(self.version[0]):
            return None
        try:
            got = subprocess.run(self.version, capture_output=True, text=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = re.search(self.version_pattern, got.stdout + "\n" + got.stderr)
        return found.group(1) if found and found.groups() else (found.group(0) if found else None)


def _entry(name: str, table: object, where: str) -> Tool:
    if not isinstance(table, dict):
        raise UsageError(f"{where}: tools.{name}: expected a table of fields")
    unknown = sorted(set(table) - FIELDS)
    if unknown:
        raise UsageError(f"{where}: tools.{name}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(FIELDS))})")
    for key in ("format", "command", "output"):
        if key not in table:
            raise UsageError(f"{where}: tools.{name}: missing field {key!r}")
    if table["format"] not in FORMATS:
        raise UsageError(f"{where}: tools.{name}: format {table['format']!r} is not one the tool backend writes "
                         f"({', '.join(FORMATS)})")
    if table["output"] not in PARSERS:
        raise UsageError(f"{where}: tools.{name}: output {table['output']!r} names no parser "
                         f"({', '.join(sorted(PARSERS))})")
    for key in ("command", "version"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value) or (key == "command"
                                                                                            and not value):
            raise UsageError(f"{where}: tools.{name}: {key} must be a list of strings (an argument vector)")
    if not any("{file}" in a for a in table["command"]):
        raise UsageError(f"{where}: tools.{name}: command has no {{file}} (where the input file goes)")
    for a in table["command"]:
        for ph in re.findall(r"\{[^}]*\}", a):
            if ph not in PLACEHOLDERS:
                raise UsageError(f"{where}: tools.{name}: command placeholder {ph} is not one of "
                                 f"{', '.join(PLACEHOLDERS)}")
    pattern = table.get("version_pattern", r"(\S+)")
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise UsageError(f"{where}: tools.{name}: version_pattern is not a regular expression: {exc}") from None
    return Tool(name, table["format"], tuple(table["command"]), table["output"], tuple(table.get("version", ())),
                pattern, str(table.get("install", "")), where)


def parse_tools(text: str, where: str) -> dict[str, Tool]:
    """The ``[tools.NAME]`` entries of a TOML text (``where`` names it in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{where}: not valid TOML: {exc}") from None
    tools = data.get("tools")
    if not isinstance(tools, dict) or not tools or set(data) - {"tools"}:
        raise UsageError(f"{where}: expected only [tools.NAME] tables")
    return {name: _entry(name, table, where) for name, table in tools.items()}


def load_tools(path: str | Path) -> dict[str, Tool]:
    """A user's tool file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the tool file: {exc.strerror or exc}") from None
    return parse_tools(text, str(path))


@lru_cache(maxsize=1)
def builtin_tools() -> dict[str, Tool]:
    return parse_tools(resources.files("harness.tools").joinpath("builtin.toml").read_text(), "built-in")


def find_tool(name: str, tool_file: str | Path | None = None) -> Tool:
    """The tool ``name``: from ``tool_file`` when given (its entries first), else built in."""
    tools = dict(builtin_tools())
    if tool_file:
        tools.update(load_tools(tool_file))
    if name not in tools:
        where = f" in {tool_file} or built in" if tool_file else " built in"
        raise UsageError(f"no tool named {name!r}{where} (known: {', '.join(sorted(tools))})")
    return tools[name]


__all__ = ["FORMATS", "Tool", "builtin_tools", "find_tool", "load_tools", "parse_tools"]
