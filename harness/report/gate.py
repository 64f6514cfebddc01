"""The verdict of ``battlebench check``: one pass over a store that fails on anything a CI gate must not let through.

A check *fails* (exit 1) when any of these holds, each reported on its own lines:

* the store holds no runs (nothing was checked);
* the campaign is incomplete: planned runs are missing (or stored as lost), or the store records no plan so
  completeness cannot be told (unless ``allow_incomplete``);
* some run ended in ``error`` (unless ``allow_errors``), listed by message;
* the stored results disagree (each task's section, :mod:`harness.report.sections`: a
  wrong board, unsat against a verified board, counts that disagree, the manifest
  contradicted; a game its replay contradicts, ``random`` off its exact mean);
* a stored verdict contradicts the verifier run again on the subject file (the solve
  task's :func:`harness.report.reverify.reverify`; a board listed twice in one answer);
* a run could not be judged again: *not verified*, its subject file found nowhere
  (:mod:`harness.report.locate`; unless ``allow_unverified``, and never when nothing at all
  was judged again), or *stale*, the file there has changed since the run;
* a stored run contradicts the plan the store records (its ``task``, ``question``, pair or
  instance columns edited: :func:`harness.report.completeness.against_plan`);
* with a baseline: a regression (:func:`harness.report.regression.compare`, on CPU
  time unless ``time="wall"``), each pair judged by its own ratio and floor when the
  options or the campaign config's ``[check]`` table give one (:mod:`harness.core.thresholds`).

A store that cannot be read (missing, damaged) is not a failed check but bad input: the
caller gets the :class:`~harness.errors.InputError` (exit 2).  Only the runs of the plan
are checked (:mod:`harness.report.completeness`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pandas as pd

from harness.core.failures import group_failures, render_failures
from harness.core.thresholds import Given, Thresholds, from_options, parse_check, unmatched
from harness.errors import UsageError
from harness.report.manifest import find_manifest, load_manifest, manifest_sentence
from harness.report.problem_text import render_problems
from harness.report.completeness import Campaign, load_campaign
from harness.report.data import stored_config
from harness.report.nodes import comparable
from harness.report.regression import compare, improvements, matches, render_regressions, timed, wall_fallbacks
from harness.report.sections import Part, all_problems, parts_of, unknown_note

PASSED, FAILED = 0, 1


@dataclass(frozen=True)
class CheckOptions:
    """What ``check`` is asked: ``ratio`` / ``floor_s`` for every pair (None: the config's, else 2 and 0.1 s),
    ``ratio_by_pair`` / ``floor_by_pair`` (PAIR or pattern, value) in the order given (:mod:`harness.core.thresholds`)."""

    baseline: str | None = None
    ratio: float | None = None
    floor_s: float | None = None
    ratio_by_pair: tuple[tuple[str, float], ...] = ()
    floor_by_pair: tuple[tuple[str, float], ...] = ()
    time: str = "cpu"
    manifest: str | None = None
    allow_incomplete: bool = False
    allow_errors: bool = False
    allow_unverified: bool = False
    proofs: bool = False  # check every stored proof again (harness.proofs.recheck)
    proof_limit_s: float | None = 600.0  # each checker's time on each stored proof
    checkers: tuple[str, ...] | None = None  # the checkers that check stored proofs again (None: all at hand)
    proof_jobs: int = 1  # stored proofs checked again at a time
    node_class: str | None = None  # check only the runs of the node class whose name contains it


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{n} {word}s"


def stored_check(campaign: Campaign) -> Given:
    """The thresholds of the ``[check]`` table of the config the store records (none in a store made by hand)."""
    where = f"{campaign.directory / 'results.sqlite'} (its config)"
    return parse_check(stored_config(campaign.meta, where).get("check", {}), Path(where))


def _every(value: float | None) -> list[tuple[str | None, float]]:
    return [] if value is None else [(None, value)]


def thresholds(opts: CheckOptions, campaign: Campaign, baseline: Campaign | None) -> Thresholds:
    """The options' thresholds over the stored config's; a per-pair option matching no pair of either campaign
    is a UsageError."""
    given = from_options(_every(opts.ratio) + list(opts.ratio_by_pair),
                         _every(opts.floor_s) + list(opts.floor_by_pair))
    frames = [campaign.runs] + ([baseline.runs] if baseline is not None else [])
    pairs = sorted({str(p) for f in frames for p in f["pair"].dropna()})
    bad = unmatched(given.per_pair(), pairs)
    if bad is not None:
        raise UsageError(f"{bad.source}: names no pair of "
                         f"{' or '.join(str(c.directory) for c in (campaign, baseline) if c is not None)} "
                         f"(pairs: {', '.join(pairs) or 'none'})")
    return Thresholds.of(given, stored_check(campaign))


def run_check(results: str | Path, opts: CheckOptions, out: TextIO) -> int:
    """Check the store in ``results``; write the findings to ``out``; return 0 (passed) or 1 (failed)."""
    campaign = load_campaign(results, opts.node_class, every_class=True)
    baseline = load_campaign(opts.baseline, every_class=True) if opts.baseline else None  # bad input first
    limits = thresholds(opts, campaign, baseline)
    df = campaign.runs
    if df.empty:
        return _nothing_stored(results, campaign, out)
    if campaign.twin:
        print(f"store: {campaign.twin}", file=out)
    if campaign.nodes.sentence():
        print(f"nodes: {campaign.nodes.sentence()}", file=out)
    failures = _completeness(campaign, opts, out)
    failures += _contradicted(campaign, out)
    parts = parts_of(df)
    _notes(df, parts, out)
    _refusals(df, out)
    failures += _errors(df, opts, out)
    failures += _agreement(df, parts, Path(results), opts, out)
    agains = _verdicts(df, parts, Path(results), out, failures)
    allowed = _unverified(agains, opts, out, failures)
    failures += _claims(df, Path(results), opts, out)
    _generated(df, Path(results), out)
    if baseline is not None:
        apart = comparable(campaign.nodes, baseline.nodes)
        if apart is not None:  # times of two node classes: nothing to compare them by
            print(f"regression: not judged: {apart}; times of two node classes are not comparable", file=out)
            failures.append("regressions not judged across node classes")
        else:
            failures += _coverage(baseline, df, opts, limits, out)
            failures += _regressions(baseline, df, opts, limits, out)
    return _verdict(failures, len(df), allowed, out)


def _nothing_stored(results: str | Path, campaign: Campaign, out: TextIO) -> int:
    """An empty store proves nothing: say so and fail."""
    c = campaign.completeness
    print(f"store: {results}: no runs stored"
          + (f" of {c.planned} planned" if c.known else "")
          + (f" ({c.lost} stored as lost with their worker or node: not measured)" if c.lost else "")
          + ": nothing was checked", file=out)
    print("check: FAILED: an empty store proves nothing", file=out)
    return FAILED


def _completeness(campaign: Campaign, opts: CheckOptions, out: TextIO) -> list[str]:
    """Are all planned runs stored (or can it not be told)? The failure, unless ``--allow-incomplete``."""
    c = campaign.completeness
    if c.complete:
        print(f"completeness: all {c.planned} planned runs are stored"
              + (f" ({c.outside} stored runs outside the plan are left out)" if c.outside else ""), file=out)
        return []
    if c.known:
        per_pair = ", ".join(f"{p} {m}" for p, m in c.missing_by_pair().items())
        text = f"{c.missing} of {c.planned} planned runs are missing ({per_pair})"
        if c.lost:
            text += (f"; {c.lost} of them lost with their worker or node on every attempt (stored as lost, not "
                     "measured: running the same config again executes them)")
    else:
        text = ("unknown: the store records no plan (made before battlebench kept one, or by hand); "
                "run its config again with `battlebench run` to record it (stored runs are not "
                "executed again)")
    if opts.allow_incomplete:
        print(f"completeness: {text}; allowed by --allow-incomplete", file=out)
        return []
    print(f"completeness: {text}", file=out)
    return ["incomplete" if c.known else "completeness unknown"]


def _notes(df: pd.DataFrame, parts: list[Part], out: TextIO) -> None:
    """The notes of each task's section (and of runs no installed task owns): said, never failed on."""
    for note in unknown_note(parts) + [n for part in parts for n in part.section.notes(part.frame(df))]:
        print(note, file=out)


def _refusals(df: pd.DataFrame, out: TextIO) -> None:
    """Runs a plugin declined: not errors, but said."""
    refused = group_failures(df.to_dict("records"), ("refused",))
    if refused:
        print(f"refused: {_plural(sum(g.count for g in refused), 'run')} declined by their plugin "
              "(not counted as errors):", file=out)
        print(render_failures(refused), file=out)


def _errors(df: pd.DataFrame, opts: CheckOptions, out: TextIO) -> list[str]:
    """Runs that ended in error, grouped by message; a failure unless ``--allow-errors``."""
    errors = group_failures(df.to_dict("records"), ("error",))
    n_errors = sum(g.count for g in errors)
    if not n_errors:
        print("errors: none", file=out)
        return []
    print(f"errors: {_plural(n_errors, 'run')} ended in error"
          + ("; allowed by --allow-errors" if opts.allow_errors else "") + ":", file=out)
    print(render_failures(errors), file=out)
    return [] if opts.allow_errors else [_plural(n_errors, "error run")]


def _agreement(df: pd.DataFrame, parts: list[Part], results: Path, opts: CheckOptions, out: TextIO) -> list[str]:
    """The problems of each task's section (disagreements, the manifest contradicted), and what the store was
    compared against."""
    manifest_path = Path(opts.manifest) if opts.manifest else find_manifest(results)
    manifest = load_manifest(manifest_path) if manifest_path else None
    problems = all_problems(df, manifest, manifest_path, parts)
    n_inst, n_pairs = df["instance_key"].nunique(), df["pair"].nunique()
    failures = []
    if problems:
        print(render_problems(problems), file=out)
        print(f"check: {_plural(len(problems), 'problem')} in {_plural(len(df), 'run')} "
              f"({_plural(n_inst, 'instance')}, {_plural(n_pairs, 'pair')})", file=out)
        failures.append(_plural(len(problems), "disagreement"))
    else:
        said = [s for s in (p.section.agreement(p.frame(df)) for p in parts) if s]
        print(f"agreement: {_plural(len(df), 'run')}, {_plural(n_inst, 'instance')}, {_plural(n_pairs, 'pair')}: "
              f"{'; '.join(said) or 'all pairs agree'}", file=out)
    expected = manifest_sentence(df, manifest, manifest_path)
    if expected:
        print(expected, file=out)
    return failures


def _contradicted(campaign: Campaign, out: TextIO) -> list[str]:
    """Stored runs whose columns say another run than the plan the store records: each a failure."""
    wrong = campaign.contradicted
    if not wrong:
        return []
    for line in wrong[:10]:
        print(f"plan: {line}", file=out)
    if len(wrong) > 10:
        print(f"plan: ... and {len(wrong) - 10} more", file=out)
    return [_plural(len(wrong), "stored run") + " contradicting the recorded plan"]


def _verdicts(df: pd.DataFrame, parts: list[Part], results: Path, out: TextIO, failures: list[str]) -> list:
    """The stored verdicts judged again from the subject files (each task's re-check); a contradiction fails.
    Returns what each re-check found (:class:`harness.report.reverify.Reverified`)."""
    agains = []
    for part in parts:
        again = part.section.recheck(part.frame(df), results)
        if again is None:
            continue
        agains.append(again)
        if again.mismatches:
            for instance, pair, stored, now in again.mismatches[:10]:
                print(f"verdicts: {instance} {pair}: stored {stored!r}, judged again {now!r}", file=out)
            if len(again.mismatches) > 10:
                print(f"verdicts: ... and {len(again.mismatches) - 10} more", file=out)
            failures.append(_plural(len(again.mismatches), "stored result") + " contradicted when judged again")
        print(f"verdicts: {again.sentence()}", file=out)
    return agains


def _generated(df: pd.DataFrame, results: Path, out: TextIO) -> None:
    """How the store's generated puzzles were certified when they were made (each file's ``[meta.certificate]``,
    :mod:`harness.generate.generator`): by a checked proof of the claim (``generate --proof``), or on the
    certifying pair's word.  One line, when any puzzle carries a certificate; it judges nothing."""
    from harness.report.locate import locator_of
    from harness.report.reverify import find_instance

    if not {"instance_path", "instance_hash"} <= set(df.columns):
        return
    located = locator_of(results)
    proven = worded = 0
    for path, digest in df[["instance_path", "instance_hash"]].drop_duplicates().itertuples(index=False):
        inst = find_instance(str(path or ""), str(digest or ""), located)
        cert = inst.meta.get("certificate") if inst is not None else None
        if not hasattr(cert, "get"):
            continue
        if cert.get("certified") == "certified":
            proven += 1
        else:
            worded += 1
    if proven or worded:
        print(f"generated puzzles: {_plural(proven + worded, 'file')} with the generator's certificate: {proven} "
              f"with its claim proven by a checked proof (generate --proof), {worded} on the certifying pair's "
              "word", file=out)


def _claims(df: pd.DataFrame, results: Path, opts: CheckOptions, out: TextIO) -> list[str]:
    """How the runs' claims (unsat, no further board) were established; a rejected one fails; with ``proofs``,
    every stored proof checked again (:mod:`harness.proofs.recheck`): a contradiction fails, and so do a proof
    no checker finished (not confirmed), a proof two lineages' checkers judge differently and checking
    nothing."""
    from harness.proofs.recheck import claims_line, recheck_proofs
    from harness.report.data import clean

    if "claim" not in df.columns:
        records: list[dict] = []
    else:
        records = [{k: clean(v) for k, v in r.items()} for r in df.to_dict("records")]
    line, rejected = claims_line(records)
    if line:
        print(line, file=out)
    failures = [_plural(rejected, "claim") + " whose proof a checker refused"] if rejected else []
    if not opts.proofs:
        return failures
    again = recheck_proofs(records, results, opts.proof_limit_s, checkers=opts.checkers, jobs=opts.proof_jobs)
    for found, how in ((again.mismatches, "checked again"), (again.unconfirmed, "not confirmed")):
        for instance, pair, stored, now in found[:10]:
            print(f"proofs: {instance} {pair}: stored {stored!r}, {how}: {now}", file=out)
        if len(found) > 10:
            print(f"proofs: ... and {len(found) - 10} more {how}", file=out)
    if not again.checked:
        print("proofs: the store keeps no proof to check again (runs with the pair option proof = \"check\" "
              "keep theirs)", file=out)
        return failures + ["no stored proof was checked again"]
    print(f"proofs: {again.sentence()}", file=out)
    if again.mismatches:
        failures.append(_plural(len(again.mismatches), "stored proof") + " contradicted when checked again")
    if again.unconfirmed:
        failures.append(_plural(len(again.unconfirmed), "stored proof") + " not confirmed: no checker finished "
                        "within the limit (--proof-limit)")
    for instance, pair, said in again.disagreed[:10]:
        print(f"proofs: {instance} {pair}: the checkers' lineages disagree: {said}", file=out)
    if again.disagreed:
        failures.append(_plural(len(again.disagreed), "stored proof") + " on which checkers of two lineages "
                        "disagree")
    return failures


def _unverified(agains: list, opts: CheckOptions, out: TextIO, failures: list[str]) -> int:
    """Where the subject files were found; the runs that could not be judged again, because their file is
    nowhere (*not verified*: a failure unless ``--allow-unverified``) or has changed since the run (*stale*:
    a failure); a check that judged nothing again fails whatever it is allowed.  Returns the runs not verified
    that were allowed."""
    allowed = 0
    for again in agains:
        located = getattr(again, "located", None)
        if located is None:
            continue
        where = located.sentence()
        if where:
            print(where, file=out)
        if located.changed:
            print(f"stale: {_plural(located.changed, 'run')} not judged again, their instance file changed since "
                  f"they ran: {located.stale_text()}", file=out)
            failures.append(f"{_plural(located.changed, 'run')} on a changed instance file (stale)")
        if located.not_found:
            n = located.not_found
            print(f"not verified: {_plural(n, 'run')}, {located.missing_text()}"
                  + ("; allowed by --allow-unverified" if opts.allow_unverified else
                     " (--allow-unverified to pass without them)"), file=out)
            if opts.allow_unverified:
                allowed += n
            else:
                failures.append(f"{_plural(n, 'run')} not verified")
    judged = sum(a.runs for a in agains)
    unjudged = sum(a.located.not_found + a.located.changed for a in agains if getattr(a, "located", None))
    if unjudged and not judged:
        print(f"not verified: nothing was judged again (no subject file of the {_plural(unjudged, 'run')} "
              "was found as it was)", file=out)
        failures.append("nothing was judged again")
    return allowed


def _coverage(baseline: Campaign, df: pd.DataFrame, opts: CheckOptions, limits: Thresholds,
              out: TextIO) -> list[str]:
    """How much of the baseline the store matches, and how many matches are long enough to time; comparing
    nothing (no match, or no match timed) fails."""
    old = baseline.runs
    matched, total = matches(old, df)
    if not total or not matched:
        print(f"regression: {'the baseline holds no runs' if not total else 'no run matches the baseline'}"
              f" ({opts.baseline}): nothing was compared", file=out)
        return ["nothing compared with the baseline"]
    print(f"regression: {matched} of the baseline's {_plural(total, 'instance × pair')} compared"
          + ("" if baseline.completeness.complete else
             f"; the baseline is incomplete ({baseline.completeness.sentence() or 'no plan'})"), file=out)
    n_timed = timed(old, df, time=opts.time, thresholds=limits)
    floor = ("its pair's floor" if limits.per_pair_floors else
             f"the floor of {limits.overall[1].value:g} s")
    if n_timed:
        print(f"regression: {n_timed} of them timed (decided alike, a median at or above {floor})", file=out)
        return []
    print(f"regression: no match has a {opts.time} time at or above {floor}: "
          "no slowdown could be judged (lower --floor, or time longer runs)", file=out)
    return ["no time compared with the baseline"]


def _regressions(baseline: Campaign, df: pd.DataFrame, opts: CheckOptions, limits: Thresholds,
                 out: TextIO) -> list[str]:
    """The slowdowns against the baseline (each a failure), the matches judged on wall time for want of CPU
    time, and the improvements (said, never failed on)."""
    old = baseline.runs
    regressions = compare(old, df, time=opts.time, thresholds=limits)
    better = improvements(old, df, time=opts.time, thresholds=limits)
    if opts.time == "cpu":
        fallback = wall_fallbacks(old, df)
        if fallback:
            print(f"regression: {_plural(fallback, 'match')} lack cpu_s on one side (a store made "
                  "before battlebench recorded it): judged on wall time", file=out)
    failures = []
    if regressions:
        print(render_regressions(regressions), file=out)
        print(f"check: {_plural(len(regressions), 'regression')} against {opts.baseline}", file=out)
        failures.append(_plural(len(regressions), "regression"))
    else:
        print(f"regression: none against {opts.baseline} ({opts.time} time, {limits.sentence()})", file=out)
    if better:
        print(f"improvements: {len(better)}", file=out)
        print(render_regressions(better), file=out)
    return failures


def _verdict(failures: list[str], runs: int, unverified: int, out: TextIO) -> int:
    """The last line: FAILED with every failure, or passed (saying how many runs it passed unverified)."""
    if failures:
        print(f"check: FAILED: {'; '.join(failures)}", file=out)
        return FAILED
    print(f"check: passed ({runs} runs"
          + (f"; {unverified} not verified, allowed by --allow-unverified" if unverified else "") + ")", file=out)
    return PASSED


__all__ = ["CheckOptions", "FAILED", "PASSED", "run_check", "stored_check", "thresholds"]
