"""Names that become file or folder names: checked (:func:`check_name`) or escaped (:func:`path_part`) here only.

A tool entry's name, a campaign's name, an instance's name, a strategy's or a generator's prefix
end up in a path: a work folder's prefix, the results folder, ``battlebench write``'s files, a
picture.  A name is a *safe path part* when it is one file name that stays where it is put:

* not empty, at most :data:`MAX_BYTES` bytes of UTF-8 (a file system takes 255, and the
  harness adds suffixes such as ``.placement.map.json``);
* only letters and digits (any script: ``Größe``, ``東京`` are kept) and the marks of
  :data:`SAFE_PUNCTUATION` (``._-+=,@~``): no ``/``, ``\\``, NUL, space, control or
  formatting character (the right-to-left override among them), no ``%``;
* not starting with ``.`` (so neither ``.`` nor ``..``, nor a hidden file).

Where a name must be exactly what the user wrote (a tool's, a campaign's folder, a prefix
that becomes an instance's name), :func:`check_name` refuses any other with one line
(:class:`~harness.errors.UnsafeName`) before anything runs.  Where a name is data that only
*also* names a file (an instance's name in ``write``, a deployment's in ``count --marginals``),
:func:`path_part` keeps a safe name as it is and escapes any other, readably and one-to-one.
"""

from __future__ import annotations

import hashlib

from harness.errors import UnsafeName

MAX_BYTES = 200
"""The longest safe path part, in bytes of UTF-8 (a file system allows 255; the rest is left for suffixes)."""

SAFE_PUNCTUATION = "._-+=,@~"
"""The marks a safe path part may hold besides letters and digits."""

_HASHED = 16  # hex digits of the hash that ends a shortened escaped name


def _safe_char(ch: str) -> bool:
    return ch.isalnum() or ch in SAFE_PUNCTUATION


def unsafe(name: object) -> str | None:
    """None when ``name`` is a safe path part, else the problem, as the end of a sentence about the name."""
    if not isinstance(name, str):
        return f"is a {type(name).__name__}, not a string"
    if not name:
        return "is empty"
    if name in (".", ".."):
        return f"is {name!r}: it names a folder, not a file"
    if name.startswith("."):
        return "starts with '.' (a hidden file)"
    for ch in name:
        if ch == "\0":
            return "holds a NUL character"
        if ch in "/\\":
            return f"holds {ch!r} (a folder separator)"
        if not _safe_char(ch):
            return f"holds {ch!r} (a name may hold letters, digits and {SAFE_PUNCTUATION})"
    size = len(name.encode("utf-8"))
    if size > MAX_BYTES:
        return f"is {size} bytes long (at most {MAX_BYTES})"
    return None


def check_name(name: object, what: str, where: str) -> str:
    """``name`` itself when it is a safe path part; else :class:`~harness.errors.UnsafeName`, one line
    ``WHERE: WHAT 'NAME' PROBLEM`` (``where``: the file and the place, or the option, it came from)."""
    problem = unsafe(name)
    if problem is not None:
        raise UnsafeName(name, what, where, problem)
    return name  # type: ignore[return-value]  (unsafe() returned None: a str)


def _escape(ch: str, first: bool) -> str:
    if _safe_char(ch) and not (first and ch == "."):
        return ch
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))


def path_part(name: str) -> str:
    """``name`` as one safe file name: itself when it is one, else every other character as ``%XX`` per byte of
    its UTF-8 (``../x`` is ``%2E.%2Fx``, ``a/b`` is ``a%2Fb``; ``%`` itself is ``%25``, so no two names meet),
    the empty name as ``%``; a result longer than :data:`MAX_BYTES` keeps its head and ends in ``%~`` and 16 hex
    digits of the name's SHA-256."""
    if unsafe(name) is None:
        return name
    if not name:
        return "%"
    pieces = [_escape(ch, i == 0) for i, ch in enumerate(name)]
    escaped = "".join(pieces)
    if len(escaped.encode("utf-8")) <= MAX_BYTES:
        return escaped
    tail = "%~" + hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASHED]
    head, size = [], len(tail)
    for piece in pieces:
        size += len(piece.encode("utf-8"))
        if size > MAX_BYTES:
            break
        head.append(piece)
    return "".join(head) + tail


__all__ = ["MAX_BYTES", "SAFE_PUNCTUATION", "check_name", "path_part", "unsafe"]
