"""The live display of a campaign while it executes, and the closing per-pair summary table.

Two modes.  *Live* (a terminal): one status line rewritten in place with ``\\r`` and
cleared with ``\\x1b[K``, redrawn on every update but at most ``MIN_REDRAW_S`` apart.
*Plain* (CI logs, pipes): a header line at start, a status line whenever ``interval_s``
has passed since the last printed line, and always a final line.  Time comes from an
injectable ``clock`` so that everything is testable with a fake clock and a StringIO.

Runs resumed from the store count as done, and their statuses in the counts.  The ETA is
the remaining runs' expected cost when the caller names them (``start(todo=...)``): per
pair, the median ``wall_s`` of its runs known so far (stored or executed this session)
times its runs still to go -- a pair with none yet costs the median of all known runs, or
its time limit when none is known -- less what the runs in flight have already spent,
spread over ``jobs`` parallel runs.  Without ``todo`` it is the session's rate:
``elapsed / runs executed this session * runs remaining`` (None before the first run).

The line names what is running (the longest-running run's instance, pair and elapsed
time, and how many others), when the executor can tell (``Progress.running``).  It is
fitted to the terminal's width by dropping the least useful parts first (zero counts,
then elapsed, then what is running), never by cutting the end off: the done count, the
solved count, WRONG and the ETA always stay.

Standard library only: the runner and the CLI import this without pandas or solvers.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable, TextIO

from harness.core.status import STATUS_ORDER, WHEN_PRESENT, shown_statuses

STATUSES = STATUS_ORDER
MIN_REDRAW_S = 0.1  # live mode: at most ~10 redraws a second
CLEAR = "\x1b[K"  # erase to the end of the line


def _status(record: dict[str, Any]) -> str:
    value = record.get("status")
    return str(getattr(value, "value", value))  # a Status enum or its plain text


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _columns(stream: Any) -> int | None:
    """The terminal width of ``stream``, or None when it is no terminal."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None


def format_duration(seconds: float) -> str:
    """``H:MM:SS`` (hours unbounded), rounded to the second."""
    total = max(0, int(round(seconds)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def _runs(n: int, unit: str = "run") -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


class Progress:
    """The live display of a campaign: ``start``, then ``update`` per run and ``tick``, then ``close``."""

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        live: bool | None = None,
        interval_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        title: str = "campaign",
        unit: str = "run",
        resumed: str = "already stored",
        jobs: int = 1,
    ) -> None:
        self.total = int(total)
        self.title = title  # the header's first word: campaign, generate
        self.unit = unit  # what is counted: run, seed
        self.resumed = resumed  # what the header calls the ones not executed again
        self.stream = sys.stderr if stream is None else stream
        self.live = _isatty(self.stream) if live is None else bool(live)
        self.interval_s = float(interval_s)
        self.clock = clock
        self.jobs = max(1, int(jobs))
        self.counts = dict.fromkeys(STATUSES, 0)
        self.other = 0  # records whose status is none of STATUSES
        self.already_done = 0
        self.executed = 0
        self.running: Callable[[], list[tuple[str, str, float]]] | None = None
        """What is running now: (instance, pair, seconds so far) per run in flight."""
        self._left: dict[str, int] | None = None  # per pair: runs still to go (None: not told)
        self._limit: dict[str, float] = {}  # per pair: the longest time limit of its runs to go
        self._walls: dict[str, list[float]] = {}  # per pair: wall_s of its runs known so far
        self._t0: float | None = None
        self._last_print: float | None = None  # plain mode: when the last line was written
        self._last_draw: float | None = None  # live mode: when the line was last redrawn
        self._drawn = 0  # live mode: width of the line on screen
        self._closed = False
        self._closing = False  # the final line names nothing as running

    # ---- state -------------------------------------------------------------------

    @property
    def done(self) -> int:
        return self.already_done + self.executed

    @property
    def remaining(self) -> int:
        return max(0, self.total - self.done)

    @property
    def solved(self) -> int:
        return self.counts["sat"] + self.counts["unsat"]

    def elapsed(self) -> float:
        """Seconds since ``start`` (0 before it)."""
        return 0.0 if self._t0 is None else max(0.0, self.clock() - self._t0)

    def eta(self) -> float | None:
        """Seconds still to go: the remaining runs' expected cost (see the module), or this session's rate."""
        if self.remaining == 0:
            return 0.0
        if self._left is None:
            return None if self.executed == 0 else self.elapsed() / self.executed * self.remaining
        left = sum(self._left.values())
        if left == 0:
            return 0.0
        known = [w for walls in self._walls.values() for w in walls]
        typical = statistics.median(known) if known else None

        def expected(pair: str) -> float | None:
            walls = self._walls.get(pair)
            if walls:
                return statistics.median(walls)
            return typical if typical is not None else self._limit.get(pair)

        each = {pair: expected(pair) for pair, n in self._left.items() if n}
        if None in each.values():  # a pair with no known run and no time limit
            return None if self.executed == 0 else self.elapsed() / self.executed * self.remaining
        cost = sum(n * (each.get(pair) or 0.0) for pair, n in self._left.items())
        cost -= sum(min(secs, each.get(pair) or 0.0) for _, pair, secs in self._in_flight())
        return max(0.0, cost) / min(self.jobs, left)

    def _in_flight(self) -> list[tuple[str, str, float]]:
        if self.running is None:
            return []
        try:
            return sorted(self.running(), key=lambda r: -r[2])
        except Exception:  # noqa: BLE001 - a display must never end a campaign
            return []

    def line(self, *, interrupted: bool = False, width: int | None = None) -> str:
        """The status line, e.g. ``[ 34/80  42%] solved 30  timeout 3 ... eta 0:01:37  running ...``.

        With ``width``, parts are dropped (least useful first: zero counts, elapsed, what
        is running, then the other counts) until the line is shorter than ``width``; the
        running part is shortened before it is dropped.  Done, WRONG and the ETA always
        stay (solved too, down to about 50 columns).
        """
        digits = len(str(self.total))
        percent = 100 * self.done // self.total if self.total > 0 else 100
        wrong = self.counts["wrong"]
        eta = self.eta()
        # (text, priority): 0 always kept; higher numbers are dropped first
        parts: list[tuple[str, int]] = [
            (f"[{self.done:>{digits}}/{self.total} {percent:>3}%] solved {self.solved}", 0)]
        for status in ("timeout", "unknown", "memout", "error", "lost"):
            n = self.counts[status]
            if n or status not in WHEN_PRESENT:  # (unknown, lost: only when some run is)
                parts.append((f"{status} {n}", 1 if n else 5))
        parts.append((f"WRONG {wrong}", 0) if wrong else ("wrong 0", 5))
        if self.other:
            parts.append((f"other {self.other}", 1))
        parts.append((f"elapsed {format_duration(self.elapsed())}", 4))
        parts.append(("eta ?" if eta is None else f"eta {format_duration(eta)}", 0))
        if interrupted:
            parts.append(("interrupted", 0))
        flight = [] if interrupted or self._closing else self._in_flight()
        if flight:
            instance, pair, secs = flight[0]
            more = f" (+{len(flight) - 1} more)" if len(flight) > 1 else ""
            parts.append((f"running {instance} {pair} {format_duration(secs)}{more}", 3))
        text = "  ".join(t for t, _ in parts)
        if width is None or len(text) < width:
            return text
        for drop in (5, 4):
            parts = [(t, p) for t, p in parts if p != drop]
            text = "  ".join(t for t, _ in parts)
            if len(text) < width:
                return text
        if flight:  # shorten what is running to what is left, or drop it
            rest = "  ".join(t for t, p in parts if p != 3)
            room = width - 1 - len(rest) - 2
            running = next(t for t, p in parts if p == 3)
            if room >= 24:
                return rest + "  " + running[: room - 1] + "…"
            parts = [(t, p) for t, p in parts if p != 3]
        for drop in (1,):  # the non-zero counts of timeouts, memouts, errors
            text = "  ".join(t for t, _ in parts)
            if len(text) < width:
                return text
            parts = [(t, p) for t, p in parts if p != drop]
        text = " ".join(t for t, _ in parts)
        if len(text) < width:
            return text
        keep = [parts[0][0].split("]")[0] + "]", *(t for t, _ in parts[1:] if t.startswith(("WRONG", "eta")))]
        return " ".join(keep)  # done / total, WRONG and the ETA: the least a line can say

    # ---- events ------------------------------------------------------------------

    def start(self, already_done: int = 0, stored: list[dict[str, Any]] | None = None,
              todo: list[tuple[str, float | None]] | None = None) -> None:
        """Begin: ``already_done`` runs were resumed from the store and are not executed again.

        ``stored``: their records, whose statuses are counted from the start and whose
        ``wall_s`` per ``pair`` the ETA expects of the pair's remaining runs; ``todo``: the
        runs to execute as ``(pair, time limit in seconds)`` (without it, the ETA is the
        session's rate).
        """
        self.already_done = max(0, int(already_done))
        for record in stored or []:
            status = _status(record)
            if status in self.counts:
                self.counts[status] += 1
            else:
                self.other += 1
            self._known(record)
        if todo is not None:
            self._left = {}
            for pair, limit in todo:
                self._left[pair] = self._left.get(pair, 0) + 1
                if limit is not None:
                    self._limit[pair] = max(self._limit.get(pair, 0.0), float(limit))
        self._t0 = self.clock()
        to_execute = max(0, self.total - self.already_done)
        self._write(
            f"{self.title}: {_runs(self.total, self.unit)}, {self.already_done} {self.resumed}, "
            f"{to_execute} to execute\n"
        )
        self._last_print = self._t0
        if self.live:
            self._draw(force=True)

    def update(self, record: dict[str, Any]) -> None:
        """One run finished (``record`` has at least ``status``; ``pair``, ``instance``, ``wall_s``)."""
        if self._t0 is None:
            self.start()
        status = _status(record)
        if status in self.counts:
            self.counts[status] += 1
        else:
            self.other += 1
        self.executed += 1
        self._known(record)
        pair = str(record.get("pair"))
        if self._left and self._left.get(pair, 0) > 0:
            self._left[pair] -= 1
        self._refresh()

    def _known(self, record: dict[str, Any]) -> None:
        wall = _seconds(record.get("wall_s"))
        if wall is not None:
            self._walls.setdefault(str(record.get("pair")), []).append(wall)

    def tick(self) -> None:
        """Called periodically even without updates: live mode refreshes, plain mode may print."""
        if self._t0 is not None:
            self._refresh()

    def note(self, text: str) -> None:
        """Print a message line without breaking the live status line."""
        if self.live and self._drawn and not self._closed:
            self._write("\r" + " " * self._drawn + "\r" + CLEAR + text.rstrip("\n") + "\n")
            self._drawn = 0
            self._draw(force=True)
        else:
            self._write(text.rstrip("\n") + "\n")

    def close(self, interrupted: bool = False) -> None:
        """The final line (live mode: the line is finished with a newline).  Idempotent."""
        if self._closed:
            return
        if self._t0 is None:
            self.start()
        self._closing = True
        if self.live:
            self._draw(force=True, interrupted=interrupted)
            self._write("\n")
        else:
            self._write(self.line(interrupted=interrupted) + "\n")
        self._closed = True

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(interrupted=exc_type is not None)

    # ---- output ------------------------------------------------------------------

    def _refresh(self) -> None:
        if self._closed:
            return
        if self.live:
            self._draw()
            return
        now = self.clock()
        if self._last_print is None or now - self._last_print >= self.interval_s:
            self._write(self.line() + "\n")
            self._last_print = now

    def _draw(self, *, force: bool = False, interrupted: bool = False) -> None:
        now = self.clock()
        if not force and self._last_draw is not None and now - self._last_draw < MIN_REDRAW_S:
            return
        columns = _columns(self.stream)
        # a wrapped line cannot be rewritten with \r: fit the terminal (80 columns if unknown)
        text = self.line(interrupted=interrupted, width=columns or 80)
        self._write("\r" + text.ljust(self._drawn) + CLEAR)
        self._drawn = len(text)
        self._last_draw = now

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


# ---- the closing summary -----------------------------------------------------------

SUMMARY_COLUMNS = ("pair", "runs", *shown_statuses(()), "median wall_s", "total wall_s", "total cpu_s")
"""The summary's columns where no run is ``unknown`` (then it has its column after ``timeout``)."""


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None  # None, NaN, text
    return float(value)


def _row(label: str, records: list[dict[str, Any]], with_other: bool, shown: tuple[str, ...]) -> list[str]:
    statuses = [_status(r) for r in records]
    walls = [w for w in (_seconds(r.get("wall_s")) for r in records) if w is not None]
    row = [label, str(len(records))] + [str(statuses.count(s)) for s in shown]
    if with_other:
        row.append(str(sum(1 for s in statuses if s not in STATUSES)))
    row.append(f"{statistics.median(walls):.3f}" if walls else "-")
    row.append(f"{sum(walls):.3f}" if walls else "-")
    cpus = [c for c in (_seconds(r.get("cpu_s")) for r in records) if c is not None]
    row.append(f"{sum(cpus):.3f}" if cpus else "-")
    return row


def summary_table(records: list[dict[str, Any]]) -> str:
    """One aligned row per pair (first-seen order) and a final ``all`` row.

    Columns: pair, runs, the statuses (``unknown`` only where a run is), median and total ``wall_s`` (runs without a
    ``wall_s`` are left out of both; ``-`` when none has one), total ``cpu_s``.  An ``other`` column
    appears only if some status is none of them.  Wrong runs get a warning line.
    """
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        pair = record.get("pair")
        by_pair.setdefault("?" if pair is None else str(pair), []).append(record)
    with_other = any(_status(r) not in STATUSES for r in records)
    shown = shown_statuses(_status(r) for r in records)
    header = ["pair", "runs", *shown, *SUMMARY_COLUMNS[-3:]]
    if with_other:
        header.insert(-3, "other")
    body = [_row(pair, rows, with_other, shown) for pair, rows in by_pair.items()]
    total = _row("all", list(records), with_other, shown)
    widths = [max(len(row[i]) for row in [header, *body, total]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    lines = [fmt(header), rule, *(fmt(r) for r in body)]
    if body:
        lines.append(rule)
    lines.append(fmt(total))
    wrong = sum(1 for r in records if _status(r) == "wrong")
    if wrong:
        lines.append(f"WRONG: {_runs(wrong)} returned a board the verifier rejected")
    return "\n".join(lines)


__all__ = ["Progress", "summary_table", "format_duration", "STATUSES", "MIN_REDRAW_S"]
