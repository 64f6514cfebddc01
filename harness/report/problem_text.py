"""Disagreements as plain text for a terminal (``battlebench check``): a header per problem, its boards side
by side.
"""

from __future__ import annotations

import textwrap

from harness.report.agreement import Problem

_MIN_WIDTH = 14
_MAX_TEXT = 28
_GAP = 2
_INDENT = "  "


def _column(title: str, board: list[str], verdict: str) -> tuple[int, list[str], list[str], list[str]]:
    rows = list(board) if board else ["(no board)"]
    board_w = max((len(r) for r in rows), default=0)
    w = max(_MIN_WIDTH, board_w, min(len(title), _MAX_TEXT), min(len(verdict), _MAX_TEXT))
    wrap = lambda text: textwrap.wrap(text, w, break_long_words=True, break_on_hyphens=False) or [""]  # noqa: E731
    return w, wrap(title), rows, wrap(verdict)


def _render_columns(cols: list[tuple[int, list[str], list[str], list[str]]]) -> list[str]:
    lines = []
    for part in (1, 2, 3):
        height = max(len(c[part]) for c in cols)
        for i in range(height):
            cells = [(c[part][i] if i < len(c[part]) else "").ljust(c[0] + _GAP) for c in cols]
            lines.append((_INDENT + "".join(cells)).rstrip())
    return lines


def render_problems(problems: list[Problem], width: int = 100) -> str:
    """Plain text for a terminal: a header per problem, then its boards side by side.

    Each board is a column titled with its pair, rows aligned, with its verdict (``ok``
    or the violated rule) under it; columns wrap to ``width`` characters.
    """
    if not problems:
        return "no problems: the stored results agree\n"
    out: list[str] = []
    for p in problems:
        out.append(f"{p.kind}  {p.message}")
        cols = [_column(t, b, v) for t, b, v in p.boards]
        chunk: list = []
        used = len(_INDENT)
        for col in cols:
            if chunk and used + col[0] + _GAP > width:
                out.extend(_render_columns(chunk))
                out.append("")
                chunk, used = [], len(_INDENT)
            chunk.append(col)
            used += col[0] + _GAP
        if chunk:
            out.extend(_render_columns(chunk))
        out.append("")
    n = len(problems)
    out.append(f"{n} problem{'s' if n != 1 else ''}")
    return "\n".join(out) + "\n"


__all__ = ["render_problems"]
