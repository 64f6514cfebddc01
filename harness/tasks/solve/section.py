"""The solve task's report section: agreement, the verifier run again, races, the selector, solver names checked.

What ``report`` and ``check`` add for solve runs (:class:`SolveSection`), and the check of a
stored ``solver_version`` against the options its run ran (:func:`mislabelled`,
:func:`corrected_solvers`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.backends.base import solver_label
from harness.backends.registry import get_backend
from harness.core.task import ReportSection
from harness.errors import InputError


class SolveSection(ReportSection):
    """What report and check add for solve runs: agreement of boards and statuses, the verifier run again on
    the stored boards, races, and the recorded solver names checked against the options."""

    title = "Puzzles"

    def problems(self, frame: Any, manifest: dict | None, manifest_path: Any) -> list:
        from harness.report.agreement import check_agreement

        return check_agreement(frame, manifest)

    def agreement(self, frame: Any) -> str:
        return "every board verified, all pairs agree"

    def recheck(self, frame: Any, results: Path) -> Any:
        from harness.report.reverify import reverify

        return reverify(frame, results)

    def notes(self, frame: Any) -> list[str]:
        return [f"metadata: {line}" for line in mislabelled(frame)]

    def prepare(self, frame: Any) -> Any:
        fixed = corrected_solvers(frame)
        if fixed is None:
            return frame
        out = frame.copy()
        out["solver_version"] = fixed
        return out

    def tables(self, frame: Any) -> dict[str, Any]:
        from harness.report.claims import claims_table, has_claims
        from harness.report.races import is_race, race_table

        out = {"races": race_table(frame)} if is_race(frame).any() else {}
        if has_claims(frame):
            out["claims"] = claims_table(frame)
        return out

    def studies(self, frame: Any, results: Path) -> tuple[dict[str, Any], dict[str, Any]]:
        from harness.selection.section import selector_study

        return selector_study(frame, results)

    def html(self, tables: dict[str, Any], figures: dict[str, str], html_table: Any) -> list[tuple[str, str, str]]:
        from harness.report.claims import NOTE
        from harness.selection import section as selection

        out = selection.html(tables, figures, html_table)
        if "claims" in tables:
            out.append(("claims", "Claims: certified, trusted or rejected", f'<p class="sub">{NOTE}</p>'
                        + html_table(tables["claims"].round(3))))
        if "races" in tables:
            out.append(("races", "Races: which leg won", f'<p class="sub">{RACE_NOTE}</p>'
                        + html_table(tables["races"].round(3))))
        return out

    def markdown(self, tables: dict[str, Any], pngs: list[str], markdown_table: Any) -> list[str]:
        from harness.report.claims import NOTE
        from harness.selection import section as selection

        out = selection.markdown(tables, pngs, markdown_table)
        if "claims" in tables:
            out += ["## Claims: certified, trusted or rejected", "", NOTE, "",
                    markdown_table(tables["claims"].round(3)), ""]
        if "races" in tables:
            out += ["## Races: which leg won", "", RACE_NOTE, "", markdown_table(tables["races"].round(3)), ""]
        return out


RACE_NOTE = ("A race runs its pairs at once, each in its own worker; the first decided answer wins and the others "
             "are killed. Its wall time is the winner's; its CPU time is every leg's together.")


def true_solver(backend: str, options_json: Any, versions_json: Any) -> str | None:
    """What a run's ``solver_version`` should say, from its stored options and versions (None: cannot tell)."""
    import json

    try:
        cls = get_backend(backend)
        options = json.loads(options_json or "{}")
        versions = json.loads(versions_json or "{}")
    except (InputError, TypeError, ValueError):
        return None
    if not isinstance(options, dict) or not isinstance(versions, dict) or "race" in options:
        return None
    return solver_label(cls, options, versions)


def _names_another(stored: str, truth: str, options_json: Any) -> bool:
    """Does a stored ``solver_version`` name another solver than its run's options ran?  A label of an older
    style that names the chosen solver through its driver (``cpmpy 1.1.1 (choco)``) does not."""
    import json

    if stored.split()[0] == truth.split()[0]:
        return False
    try:
        chosen = json.loads(options_json or "{}").get("solver")
    except (TypeError, ValueError, AttributeError):
        chosen = None
    return not (isinstance(chosen, str) and stored.endswith(f"({chosen})"))


def corrected_solvers(frame: Any) -> Any:
    """The ``solver_version`` column with every mislabelled run's value replaced by what its options ran (None
    when no run is mislabelled)."""
    values = list(frame["solver_version"])
    changed = False
    for i, rec in enumerate(frame[["backend", "options", "versions", "solver_version"]].to_dict("records")):
        stored = rec["solver_version"]
        if isinstance(stored, str) and stored:
            truth = true_solver(str(rec["backend"]), rec["options"], rec["versions"])
            if truth is not None and _names_another(stored, truth, rec["options"]):
                values[i], changed = truth, True
    if not changed:
        return None
    import pandas as pd

    return pd.Series(values, index=frame.index, dtype=frame["solver_version"].dtype)


def mislabelled(frame: Any) -> list[str]:
    """One line per pair whose stored ``solver_version`` names another solver than its options ran (stores made
    before each backend named its own solver: ``mip[engine=scip]`` runs recorded HiGHS)."""
    out: dict[str, list] = {}
    for rec in frame[["pair", "backend", "options", "versions", "solver_version"]].to_dict("records"):
        stored = rec["solver_version"]
        if not isinstance(stored, str) or not stored:
            continue
        truth = true_solver(str(rec["backend"]), rec["options"], rec["versions"])
        if truth is not None and _names_another(stored, truth, rec["options"]):
            out.setdefault(str(rec["pair"]), []).append((stored, truth))
    return [f"{len(runs)} runs of {pair} record solver {runs[0][0]!r} but ran {runs[0][1]!r} (by their options "
            "and versions); the report shows the latter" for pair, runs in out.items()]


__all__ = ["RACE_NOTE", "SolveSection", "corrected_solvers", "mislabelled", "true_solver"]
