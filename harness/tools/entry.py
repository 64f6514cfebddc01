"""Tool entries: one solver binary declared as data — the format it reads, its command, its version command, the
parser of its answer and the line that installs it — read from ``builtin.toml`` or a user's TOML file."""

from __future__ import annotations

import importlib.util
import inspect
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from harness.core.paths import check_name
from harness.core.plugins import import_target
from harness.errors import BackendError, UsageError
from harness.tools.parsers import PARSERS, ToolOutput

FORMATS = ("cnf", "wcnf", "opb", "lp", "mps", "smt2", "xcsp3", "fzn", "asp")  # the formats the tool backend writes
FIELDS = {"format", "command", "output", "parser", "version", "version_pattern", "install", "enumerate",
          "enumerate_all", "proof", "proof_args"}
PROOF_FORMATS = ("drup", "drat")  # what a tool entry's ``proof`` may declare (text: what the checkers read)
# {seed1}: seed + 1, for tools whose 0 means "the clock"; {python}: this Python; {package:NAME}: the folder of
# the installed Python package NAME (a binary or jar a package ships)
# {enumerate} (a whole argument): where the arguments of the tool's own enumeration go (default: at the end)
PLACEHOLDERS = ("{file}", "{out}", "{seed}", "{seed1}", "{python}", "{package:NAME}", "{enumerate}")
_PLACEHOLDER = re.compile(r"\{(file|out|seed1|seed|python|package:[A-Za-z0-9_.]+|k)\}")


def _package_dir(name: str) -> str | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _fill(arg: str, values: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        key = m.group(1)
        if key.startswith("package:"):
            return _package_dir(key[8:]) or f"<no package {key[8:]}>"
        return values.get(key, m.group(0))

    return _PLACEHOLDER.sub(one, arg)


@dataclass(frozen=True)
class Tool:
    """One solver binary: ``command`` is its argument vector with ``{file}``, ``{out}`` and ``{seed}`` filled in
    per call; ``output`` names its parser: a built-in one (:data:`harness.tools.parsers.PARSERS`) or the entry's
    own ``module:function`` (its ``parser`` field), loaded and checked when the entry is read."""

    name: str
    format: str
    command: tuple[str, ...]
    output: str
    version: tuple[str, ...] = ()
    version_pattern: str = r"(\S+)"
    install: str = ""
    origin: str = "built-in"
    enumerate: tuple[str, ...] = ()  # arguments asking for {k} models (its own enumeration), if it has one
    enumerate_all: tuple[str, ...] = ()  # arguments asking for every model
    proof: str = ""  # the proof format it writes of an unsat answer ("drat", "drup"), if it writes one
    proof_args: tuple[str, ...] = ()  # the arguments that make it write that proof to {proof} (after the command)
    own_parser: Callable[[str, str], ToolOutput] | None = field(default=None, compare=False, repr=False)

    def parse(self, stdout: str, out: str) -> ToolOutput:
        """What the tool said, read by its parser from its standard output and its ``{out}`` file's text."""
        if self.own_parser is None:
            return PARSERS[self.output](stdout, out)
        said = self.own_parser(stdout, out)
        if not isinstance(said, ToolOutput):
            raise BackendError(f"its parser {self.output!r} returned {type(said).__name__}, not a ToolOutput")
        return said

    def missing(self) -> str | None:
        """None when the binary is on the PATH (or at its path) and every package path it names exists, else one
        line saying how to install it."""
        how = f": {self.install}" if self.install else ""
        program = _fill(self.command[0], {"python": sys.executable})
        if not shutil.which(program):
            return f"tool {self.name!r} is not installed here ({program} not found){how}"
        for arg in self.command:
            if "{package:" in arg:
                path = _fill(arg, {}).split("=", 1)[-1]  # (an environment setting: its value)
                if not Path(path).exists():
                    return f"tool {self.name!r} is not installed here ({path} not found){how}"
        return None

    def argv(self, file: Path, out: Path, seed: int, enumerate_args: list[str] | None = None,
             proof: Path | None = None) -> list[str]:
        """The command for one call; ``enumerate_args`` (:meth:`enumerate_args`) go where the command has the
        argument ``{enumerate}``, else at its end (without them, ``{enumerate}`` is dropped); with ``proof``, the
        entry's ``proof_args`` (``{proof}`` filled in) after everything."""
        values = {"file": str(file), "out": str(out), "seed": str(seed), "seed1": str(seed + 1),
                  "python": sys.executable}
        extra = list(enumerate_args or [])
        if proof is not None:
            extra += [a.replace("{proof}", str(proof)) for a in self.proof_args]
        out_argv: list[str] = []
        for a in self.command:
            if a == "{enumerate}":
                out_argv += extra
                extra = []
            else:
                out_argv.append(_fill(a, values))
        return out_argv + extra

    def enumerate_args(self, k: int | None) -> list[str]:
        """The arguments asking for ``k`` models (``None``: all of them)."""
        if k is None:
            return list(self.enumerate_all)
        return [_fill(a, {"k": str(k)}) for a in self.enumerate]

    def version_argv(self) -> list[str]:
        return [_fill(a, {"python": sys.executable}) for a in self.version]

    def version_of(self) -> str | None:
        """The version its version command prints (None when it has none or the command fails); asked once per
        process."""
        return _version(tuple(self.version_argv()), self.version_pattern)


@lru_cache(maxsize=None)
def _version(argv: tuple[str, ...], pattern: str) -> str | None:
    if not argv or not shutil.which(argv[0]):
        return None
    try:
        got = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(pattern, got.stdout + "\n" + got.stderr)
    return found.group(1) if found and found.groups() else (found.group(0) if found else None)


def _entry(name: str, table: object, where: str) -> Tool:
    check_name(name, "tool name", f"{where}: tools")  # it becomes part of the name of the tool's work folder
    if not isinstance(table, dict):
        raise UsageError(f"{where}: tools.{name}: expected a table of fields")
    unknown = sorted(set(table) - FIELDS)
    if unknown:
        raise UsageError(f"{where}: tools.{name}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(FIELDS))})")
    if "output" in table and "parser" in table:
        raise UsageError(f"{where}: tools.{name}: output and parser both name a parser (give one)")
    for key in ("format", "command", "output"):
        if key not in table and not (key == "output" and "parser" in table):
            raise UsageError(f"{where}: tools.{name}: missing field {key!r}"
                             + (" (or parser = \"module:function\")" if key == "output" else ""))
    if table["format"] not in FORMATS:
        raise UsageError(f"{where}: tools.{name}: format {table['format']!r} is not one the tool backend writes "
                         f"({', '.join(FORMATS)})")
    own = _own_parser(table["parser"], f"{where}: tools.{name}: parser", where) if "parser" in table else None
    if own is None and table["output"] not in PARSERS:
        raise UsageError(f"{where}: tools.{name}: output {table['output']!r} names no parser "
                         f"({', '.join(sorted(PARSERS))})")
    if "proof" in table or "proof_args" in table:
        if table.get("proof") not in PROOF_FORMATS or table["format"] != "cnf":
            raise UsageError(f"{where}: tools.{name}: proof must be one of {', '.join(PROOF_FORMATS)}, for a tool "
                             "of format cnf (the checkers read DIMACS)")
        args = table.get("proof_args")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args) or \
                not any("{proof}" in a for a in args):
            raise UsageError(f"{where}: tools.{name}: proof_args must be a list of strings with {{proof}} (where "
                             "the tool writes its proof)")
    for key in ("command", "version", "enumerate", "enumerate_all"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value) or (key == "command"
                                                                                            and not value):
            raise UsageError(f"{where}: tools.{name}: {key} must be a list of strings (an argument vector)")
    if not any("{file}" in a for a in table["command"]):
        raise UsageError(f"{where}: tools.{name}: command has no {{file}} (where the input file goes)")
    if bool(table.get("enumerate")) != bool(table.get("enumerate_all")):
        raise UsageError(f"{where}: tools.{name}: enumerate and enumerate_all go together (K models; all models)")
    if table.get("enumerate") and not any("{k}" in a for a in table["enumerate"]):
        raise UsageError(f"{where}: tools.{name}: enumerate has no {{k}} (how many models to ask for)")
    for key in ("command", "enumerate", "enumerate_all"):  # (a version command may hold dpkg's ${Version})
        allowed = PLACEHOLDERS + ("{k}",) if key == "enumerate" else PLACEHOLDERS
        for a in table.get(key, []):
            for ph in re.findall(r"\{[^}]*\}", a):
                if ph not in allowed and not (ph.startswith("{package:") and _PLACEHOLDER.fullmatch(ph)):
                    raise UsageError(f"{where}: tools.{name}: {key} placeholder {ph} is not one of "
                                     f"{', '.join(allowed)}")
    pattern = table.get("version_pattern", r"(\S+)")
    try:
        re.compile(pattern)
    except (re.error, TypeError) as exc:
        raise UsageError(f"{where}: tools.{name}: version_pattern is not a regular expression: {exc}") from None
    return Tool(name, table["format"], tuple(table["command"]), table.get("parser") or table["output"],
                tuple(table.get("version", ())), pattern, str(table.get("install", "")), where,
                tuple(table.get("enumerate", ())), tuple(table.get("enumerate_all", ())),
                str(table.get("proof", "")), tuple(table.get("proof_args", ())), own)


def _own_parser(target: object, what: str, where: str) -> Callable[[str, str], ToolOutput]:
    """The entry's ``parser = "module:function"``, imported now (from the tool file's folder, the current
    directory or an installed package) and checked: a callable taking what a built-in parser takes
    ``(stdout, out)``."""
    if not isinstance(target, str) or not all(target.partition(":")[::2]):
        raise UsageError(f"{what}: {target!r} is not of the form \"module:function\"")
    folder = str(Path(where).resolve().parent) if where != "built-in" else None
    if folder and folder not in sys.path:
        sys.path.append(folder)  # a parser module beside its tool file (the workers read the file too)
    function = import_target(target, f"{what} {target!r}")
    if not callable(function):
        raise UsageError(f"{what} {target!r}: {type(function).__name__} is not callable")
    try:
        inspect.signature(function).bind("", "")
    except TypeError as exc:
        raise UsageError(f"{what} {target!r}: takes no (stdout, out) as the built-in parsers do: {exc}") from None
    except ValueError:  # no signature to inspect (a builtin): trusted
        pass
    return function


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
    """The tool ``name``: from ``tool_file`` when given (its entries first), else built in; a name no entry can
    have (:func:`harness.core.paths.check_name`) is refused as such."""
    check_name(name, "tool name", "option tool")
    tools = dict(builtin_tools())
    if tool_file:
        tools.update(load_tools(tool_file))
    if name not in tools:
        where = f" in {tool_file} or built in" if tool_file else " built in"
        raise UsageError(f"no tool named {name!r}{where} (known: {', '.join(sorted(tools))})")
    return tools[name]


__all__ = ["FORMATS", "Tool", "builtin_tools", "find_tool", "load_tools", "parse_tools"]
