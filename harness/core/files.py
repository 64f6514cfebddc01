"""Reading the text files battlebench takes as input: bounded in size, decoded, every failure one line.

An instance, a deployment file or a config is text of a few kilobytes; a device or a huge
file named by mistake (``/dev/zero``, a disk image) must not be read until the machine
runs out of memory: reading stops at :data:`MAX_BYTES`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MAX_BYTES = 64 * 1024 * 1024
"""The largest input file read (64 MiB; the largest shipped instance, 100 x 100, is under 30 KiB)."""


def sha256_of(path: str | Path) -> str:
    """The sha256 (hex) of a file of any size, read in blocks (``hashlib.file_digest``)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The file's text (UTF-8); ValueError with one line saying why it cannot be had (OSError for I/O)."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit // (1024 * 1024)} MiB: not an input file")
    if b"\0" in data:
        raise ValueError("not a text file (it holds NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from None


__all__ = ["MAX_BYTES", "read_text"]
