"""Instance file formats: detect, read, parse, write and format instances.

======= ====================== =====================================================
format  extension              what it is (each module's docstring has the details)
======= ====================== =====================================================
native  ``.toml``              battlebench's own TOML; lossless (meta, touching, ``?``)
dzn     ``.dzn``               MiniZinc solbat data; no ``?`` clues, no ``*`` hints
ascii   ``.txt``, ``.ascii``   seed-001's ASCII art (``ships``/``across``/``down`` + grid)
jolyonb (none)                 jolyonb/puzzles' comma-separated lines; no middle hints
======= ====================== =====================================================

Every problem is an :class:`~harness.errors.InstanceFormatError` whose text is
``FILE:PLACE: PROBLEM``; writing an instance a format cannot express raises one whose
place names the clue, cell or rule that does not fit.  Unknown format names are
:class:`~harness.errors.UsageError`.  The instance name is the file's own name where
the format has one (native ``meta.name``), else the file's stem.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from harness.errors import InstanceFormatError, UsageError
from harness.puzzle.formats import ascii, dzn, jolyonb, native
from harness.puzzle.instance import Instance

FORMATS = ("native", "dzn", "ascii", "jolyonb")
_MODULES: dict[str, ModuleType] = {"native": native, "dzn": dzn, "ascii": ascii, "jolyonb": jolyonb}
EXTENSIONS = {".toml": "native", ".dzn": "dzn", ".txt": "ascii", ".ascii": "ascii"}
_JOLYONB_LINE = re.compile(r"^\s*(\?|[+-]?\d+)(\s*,\s*(\?|[+-]?\d+))*\s*,?\s*$")


def _module(fmt: str) -> ModuleType:
    try:
        return _MODULES[fmt]
    except KeyError:
        raise UsageError(f"unknown instance format {fmt!r} (expected one of {', '.join(FORMATS)})") from None


def _read_text(path: Path) -> str:
    from harness.core.files import read_text

    try:
        return read_text(path)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InstanceFormatError(f"cannot read: {reason}", file=str(path)) from None


def sniff_format(text: str) -> str | None:
    """Guess the format from content alone; None when nothing fits."""
    if re.search(r"^\s*\[(fleet|clues|meta|size)\]", text, re.M):
        return "native"
    if re.search(r"^\s*(height|width|rowsum|colsum|maxship)\s*=", text, re.M):
        return "dzn"
    if re.search(r"^\s*(ships|across|down)\s*=", text, re.M):
        return "ascii"
    data = [s for s in text.splitlines() if s.strip() and not s.lstrip().startswith("#")]
    if len(data) >= 3 and all(_JOLYONB_LINE.match(s) for s in data[:3]):
        return "jolyonb"
    return None


def detect_format(path: str | Path) -> str:
    """The format of a file: by extension, else (no extension or an unknown one) by content."""
    path = Path(path)
    fmt = EXTENSIONS.get(path.suffix.lower())
    if fmt:
        return fmt
    fmt = sniff_format(_read_text(path))
    if fmt is None:
        raise InstanceFormatError(
            f"cannot tell the instance format (use an extension: {', '.join(EXTENSIONS)})", file=str(path)
        )
    return fmt


def parse_instance(text: str, fmt: str, *, file: str = "<string>", name: str | None = None) -> Instance:
    """Parse instance text in format ``fmt``; ``name`` overrides the file's own name."""
    return _module(fmt).parse(text, file=file, name=name)


def read_instance(path: str | Path, fmt: str | None = None) -> Instance:
    """Read an instance file, detecting its format unless ``fmt`` is given."""
    path = Path(path)
    mod = _module(fmt) if fmt else None
    text = _read_text(path)
    if mod is None:
        found = EXTENSIONS.get(path.suffix.lower()) or sniff_format(text)
        if found is None:
            raise InstanceFormatError(
                f"cannot tell the instance format (use an extension: {', '.join(EXTENSIONS)})", file=str(path)
            )
        mod = _module(found)
    return mod.parse(text, file=str(path), name=None)


def format_instance(inst: Instance, fmt: str) -> str:
    """The text of ``inst`` in format ``fmt`` (InstanceFormatError if it cannot be expressed)."""
    return _module(fmt).format(inst)


def output_format(path: str | Path) -> str:
    """The format a file written to ``path`` gets: by its extension; no extension: jolyonb.

    Unlike :func:`detect_format` it never reads the file (it need not exist yet).
    """
    path = Path(path)
    fmt = "jolyonb" if path.suffix == "" else EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        raise UsageError(f"{path}: cannot tell the format from the extension {path.suffix!r}; give one of "
                         f"{', '.join(FORMATS)}")
    return fmt


def write_instance(inst: Instance, path: str | Path, fmt: str | None = None) -> None:
    """Write ``inst`` to ``path``; the format from ``fmt`` or the extension (none: jolyonb)."""
    path = Path(path)
    if fmt is None:
        fmt = output_format(path)
    try:
        text = format_instance(inst, fmt)
    except InstanceFormatError as err:
        raise err.located(file=str(path)) from None
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InstanceFormatError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None


__all__ = ["FORMATS", "EXTENSIONS", "detect_format", "sniff_format", "parse_instance", "read_instance",
           "format_instance", "output_format", "write_instance"]
