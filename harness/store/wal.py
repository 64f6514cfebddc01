"""Is a store's write-ahead log whole?  SQLite would silently drop committed runs after a damaged frame.

A results store is written in WAL mode: runs committed since the last checkpoint live in
``results.sqlite-wal``.  When SQLite opens such a file it replays frames up to the first
one whose checksum fails and ignores the rest, which is right for a *torn* tail (the
last transaction was being written when the process died) and wrong for a damaged
middle: then committed runs vanish without a word, and ``quick_check`` sees nothing.

:func:`wal_damage` reads the file as documented in SQLite's file format (a 32-byte
header, then frames of a 24-byte header and one page; cumulative Fletcher-like checksums
in the byte order the magic number names) and reports damage when

* the file is not empty but its header is not a valid WAL header, or
* a frame of the current generation (salts equal to the header's) fails its checksum
  and a later frame of the current generation ends a transaction (a commit frame):
  a committed transaction would be lost.

Frames of an older generation (left behind after the log was restarted) are ignored, as
SQLite ignores them.  Standard library only.
"""

from __future__ import annotations

import struct
from pathlib import Path

MAGIC = (0x377F0682, 0x377F0683)  # little-endian, big-endian checksums
HEADER = 32
FRAME_HEADER = 24
_MASK = 0xFFFFFFFF


def _checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & _MASK
        s1 = (s1 + words[i + 1] + s0) & _MASK
    return s0, s1


def wal_damage(path: str | Path) -> str | None:
    """Why the WAL file at ``path`` would lose committed data, or None (absent, empty, whole, torn tail)."""
    try:
        data = Path(path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if not data:
        return None
    if len(data) < HEADER:
        return f"the write-ahead log has {len(data)} bytes, less than its header"
    magic, _version, page_size, _seq, salt1, salt2, c0, c1 = struct.unpack(">8I", data[:HEADER])
    if magic not in MAGIC:
        return "the write-ahead log's header is not a WAL header"
    big = magic & 1 == 1
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return f"the write-ahead log's header names a page size of {page_size}"
    if _checksum(data[:24], big, 0, 0) != (c0, c1):
        return "the write-ahead log's header fails its checksum"
    s0, s1 = c0, c1
    frame = FRAME_HEADER + page_size
    broken_at = None
    offset, index = HEADER, 0
    while offset + frame <= len(data):
        head = data[offset:offset + FRAME_HEADER]
        _page, commit, f_salt1, f_salt2, f0, f1 = struct.unpack(">6I", head)
        current = (f_salt1, f_salt2) == (salt1, salt2)
        if broken_at is None:
            if not current:
                break  # an older generation: SQLite stops here, rightly
            t0, t1 = _checksum(head[:8], big, s0, s1)
            t0, t1 = _checksum(data[offset + FRAME_HEADER:offset + frame], big, t0, t1)
            if (t0, t1) != (f0, f1):
                broken_at = index
            else:
                s0, s1 = t0, t1
        elif current and commit:
            return (f"frame {broken_at} of the write-ahead log fails its checksum, and a committed "
                    f"transaction follows it (frame {index}): SQLite would drop it")
        offset += frame
        index += 1
    return None


__all__ = ["wal_damage"]
