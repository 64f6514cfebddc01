"""The minimal-hint search's journal: every oracle answer on disk, so a stopped generation resumes.

A minimal-hint 30x20 puzzle can take an hour of solver questions.  Killing the command
(Ctrl-C, a batch system's time limit, a crash) must not lose them: each answer the
oracle gives :func:`~harness.generate.generator.minimal_hints` is appended to a JSON-lines
file as soon as it is known, and the same command run again replays the answers in
order instead of asking the solver.  The search is deterministic given its answers, so
the replay walks the same path; a question that differs from the recorded one (another
version, a hand-edited file) ends the replay there and the rest of the file is dropped.

File layout: a header line ``{"journal": 1, "key": ...}`` naming the puzzle (its
regenerating command, the planted board and the harness version), then one line per
answer ``{"q": question hash, "a": "none" | "undecided" | [[row, col], ...], "s": seconds}``.
A file with another key (another search under the same name: other settings, another
harness version) is never overwritten: it is moved aside to ``NAME.jsonl.<hash>.stale``
(``Journal.set_aside``), where its answers stay for whoever wants them, and the journal
starts afresh.  A line that cannot be read (torn by a crash while it was written, a byte
that is not UTF-8, an edit) ends the answers taken from the file; the whole file is first
copied aside the same way, so that nothing recorded is ever lost.  The file is deleted
once the puzzle is written.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Sequence

from harness.puzzle.instance import Cell

VERSION = 1
PARTIAL_DIR = ".partial"  # battlebench generate keeps journals in OUT/.partial/NAME.jsonl
UNDECIDED = "undecided"

Answer = frozenset[Cell] | None
"""``None``: the batch can go; a set: where a board found disagrees (empty: undecided)."""


def question_id(rest: Sequence[Cell], chunk: Sequence[Cell]) -> str:
    """A short hash naming one question (the hints kept and the cells asked about)."""
    text = json.dumps([sorted(rest), sorted(chunk)], separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _encode(answer: Answer) -> Any:
    if answer is None:
        return "none"
    if not answer:
        return UNDECIDED
    return sorted([r, c] for r, c in answer)


def decode_answer(value: Any) -> Answer:
    """An answer as a journal line stores it, read back (the inverse of the encoding above)."""
    if value == "none":
        return None
    if value == UNDECIDED:
        return frozenset()
    return frozenset((int(r), int(c)) for r, c in value)


class Journal:
    """Answers of one puzzle's minimal-hint search, replayed then appended (module docstring)."""

    def __init__(self, path: Path | str, key: str):
        self.path = Path(path)
        self.key = key
        self._next = 0
        self.replayed = 0  # answers taken from the file in this run
        self.replayed_s = 0.0  # the seconds they took when first asked
        self.set_aside: Path | None = None  # where a journal of another search under this name was moved
        self.cut: Path | None = None  # where the whole file was copied before lines that could not be read were cut
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            data = b""
        if data and not self._ours(data):
            self.set_aside = self._stale(data)
            os.replace(self.path, self.set_aside)
            data = b""
        self._replay: list[tuple[str, Answer, float]] = self._load(data)
        if not self._replay:
            self._write([json.dumps({"journal": VERSION, "key": key})])
        self._file = self.path.open("a")

    @property
    def resumable(self) -> int:
        """How many recorded answers this run may replay (all of them, unless the search left
        the recorded path, which drops the rest)."""
        return len(self._replay)

    def _ours(self, data: bytes) -> bool:
        """Whether the file's header names this search (a file with only our header, or none readable, is
        nothing to keep: a torn first line means no answer was ever recorded after it)."""
        first = data.split(b"\n", 1)[0]
        try:
            header = json.loads(first)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return data.count(b"\n") <= 1
        return isinstance(header, dict) and header.get("journal") == VERSION and header.get("key") == self.key

    def _stale(self, data: bytes) -> Path:
        return self.path.with_name(f"{self.path.name}.{hashlib.sha256(data).hexdigest()[:8]}.stale")

    def _load(self, data: bytes) -> list[tuple[str, Answer, float]]:
        """The answers recorded in ``data``, a file of this search (``_ours``) or nothing worth keeping; read
        line by line, up to the first line that cannot be read (the file is copied aside before it is cut)."""
        raw = [line for line in data.split(b"\n")]
        if raw and raw[-1] == b"":
            raw.pop()
        if not raw:
            return []
        try:
            header = raw[0].decode()
        except UnicodeDecodeError:
            return []  # _ours judged it: no answer was recorded after an unreadable header
        lines, entries = [header], []
        for line in raw[1:]:
            try:
                text = line.decode()
                item = json.loads(text)
                entries.append((str(item["q"]), decode_answer(item["a"]), float(item.get("s", 0.0))))
                lines.append(text)
            except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError):
                break  # a torn or damaged line: what follows is not trusted
        if len(entries) < len(raw) - 1:
            torn = len(entries) == len(raw) - 2 and not data.endswith(b"\n")  # a crash mid-write: nothing lost
            if not torn:
                self.cut = self._stale(data)
                self.cut.write_bytes(data)  # the whole file as it was, before the cut
            self._write(lines)  # drop what is not trusted
        return entries

    def _keep(self, n: int) -> None:
        """Rewrite the file with the header and the first ``n`` good entries (the whole file copied aside first)."""
        data = self.path.read_bytes()
        self.cut = self._stale(data)
        self.cut.write_bytes(data)
        self._write(data.decode(errors="replace").splitlines()[:n + 1])

    def _write(self, lines: list[str]) -> None:
        """Replace the file at once (a crash midway leaves the old one, never half of it)."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, self.path)

    def lookup(self, qid: str) -> tuple[bool, Answer]:
        """``(True, answer)`` when the next recorded answer is for ``qid``; else ``(False, None)``."""
        if self._next >= len(self._replay):
            return False, None
        q, answer, seconds = self._replay[self._next]
        if q != qid:  # the search left the recorded path: drop the rest of the file
            self._file.close()
            self._keep(self._next)
            self._replay = self._replay[:self._next]
            self._file = self.path.open("a")
            return False, None
        self._next += 1
        self.replayed += 1
        self.replayed_s += seconds
        return True, answer

    def record(self, qid: str, answer: Answer, seconds: float) -> None:
        """Append an answer the oracle just gave (flushed at once)."""
        self._file.write(json.dumps({"q": qid, "a": _encode(answer), "s": round(seconds, 4)},
                                    separators=(",", ":")) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def finish(self) -> None:
        """The puzzle is written: the journal is not needed any more."""
        self.close()
        self.path.unlink(missing_ok=True)
        try:
            self.path.parent.rmdir()  # only when empty
        except OSError:
            pass

    def to_meta(self) -> dict[str, Any]:
        if not self.replayed:
            return {}
        return {"answers_replayed": self.replayed, "replayed_s": round(self.replayed_s, 4)}


def answers_on_disk(path: Path | str) -> int:
    """How many answers the journal at ``path`` holds (0 when there is none): a search's progress,
    read from outside the process making it (a torn last line counts; the header does not)."""
    try:
        with open(path, "rb") as f:
            return max(0, sum(1 for line in f if line.strip()) - 1)
    except OSError:
        return 0


__all__ = ["Journal", "question_id", "answers_on_disk", "decode_answer", "PARTIAL_DIR"]
