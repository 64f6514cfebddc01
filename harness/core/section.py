"""The report section of a task: what it adds to ``report`` and ``check`` for its runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

class ReportSection:
    """What a task adds to ``report`` and ``check`` for its runs; every method has a harmless default.

    ``frame`` is the typed results frame of the task's runs only (:mod:`harness.report.data`).
    """

    title = ""
    ranks_by_time = True  # are its pairs ranked by time (the pairs tables, the headline), or by its own measure?

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        """Disagreements among the runs (``check`` fails on any): :class:`harness.report.agreement.Problem`."""
        return []

    def agreement(self, frame: Any) -> str:
        """What ``check`` says when there is no problem, after "every run agrees"."""
        return ""

    def recheck(self, frame: Any, results: Path) -> Any:
        """The stored verdicts judged again from the subject files, or None (not applicable)."""
        return None

    def notes(self, frame: Any) -> list[str]:
        """Facts ``check`` reports without failing (metadata it corrected, ...)."""
        return []

    def prepare(self, frame: Any) -> Any:
        """The runs as the report shows them (a stored value corrected, as :meth:`notes` says); the frame
        itself when nothing changes."""
        return frame

    def tables(self, frame: Any) -> dict[str, Any]:
        """Extra tables (written as CSV beside the report)."""
        return {}

    def figures(self, frame: Any) -> dict[str, Any]:
        """Extra figures (matplotlib), by file stem."""
        return {}

    def studies(self, frame: Any, results: Path) -> tuple[dict[str, Any], dict[str, Any]]:
        """Extra (tables, figures) that need the store's subject files (``results``: the store's folder), such as
        the solve task's selector."""
        return {}, {}

    def headline(self, tables: dict[str, Any]) -> str | None:
        """The headline when this task's own measure ranks its pairs (``ranks_by_time`` False)."""
        return None

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        """(id, title, HTML) sections of ``index.html``; ``figures`` are base64 PNGs by stem."""
        return []

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        """Lines of ``summary.md``."""
        return []
