"""The report's words: table titles, notes, figure captions, how the pairs were ranked and how to read the measures.

Shared by the HTML page (:mod:`harness.report.page`) and the Markdown summary (:mod:`harness.report.markdown`),
so both say the same thing.
"""

from __future__ import annotations

from harness.report import noise
from harness.report.data import MEASURE_WORDS, Measures

TABLE_TITLES = {
    "pairs": "Pairs",
    "virtual_best": "Virtual best solver, per instance",
    "pivot_sgm": "Shifted geometric mean time (s): formulation × backend",
    "pivot_solved": "Instances solved: formulation × backend",
    "best_formulation_per_backend": "Best formulation per backend",
    "best_backend_per_formulation": "Best backend per formulation",
    "repetitions": "Repetitions: spread over the runs of one pair on one instance",
    "size_winners": "Winner at each board size",
    "size_growth": "Time vs board size: the best pair of each backend",
    "controls": "A/A controls: the machine's run-to-run noise",
}
CONTROLS_NOTE = ("Each control is a pair run a second time, interleaved with it on every instance (each copy first "
                 "on every other instance). ratio = the control's shifted geometric mean / the pair's, over the "
                 "instances both copies solved, with its paired 95% interval; floor = the largest factor that "
                 "ratio reaches within its interval, either way round. A pair whose ratio to its group's winner "
                 "has an interval reaching below the floor is tied with it within the machine's noise "
                 "(tie = machine).")
SIZE_NOTE = ("Per size, pairs are scored as above on that size's instances only. ratio = the runner-up's "
             "shifted geometric mean / the winner's; growth = the shifted geometric mean at the largest size / "
             "at the smallest (unsolved at the limit, so a pair that times out grows less than it would).")

FIGURE_CAPTIONS = {
    "cactus": "Cactus plot. For each pair, how many instances it solves within a given time "
              "(per instance, the median over repetitions). Higher and further left is better; "
              "where a line ends is the number the pair solved.",
    "profile": "Performance profile (Dolan–Moré). For each pair, the fraction of instances on "
               "which its time is within a factor τ of the fastest pair's; at τ = 1, the fraction "
               "where it is the fastest. Unsolved instances never count. Higher is better.",
    "scatter": "Each other pair against the best pair, one point per instance (log-log). Above "
               "the diagonal the best pair is faster; dotted lines are 10× apart. Unsolved runs "
               "are crosses on the border, at the time limit.",
    "size": "Time against instance size (rows × cols) per pair; the line joins each pair's "
            "median per size. Unsolved runs are crosses at the time limit.",
}


def ranking_sentence(measures: Measures) -> str:
    """How the pairs were ranked, for the page: which measure, asked how, and which pairs fell back to wall."""
    asked = {"auto": "the default: CPU time for pairs that use one core (threads = 1, no split, not a race), "
                     "wall time for parallel pairs",
             "cpu": "asked for by rank_by = cpu", "wall": "asked for by rank_by = wall"}[measures.asked]
    used = " and ".join(MEASURE_WORDS[m] for m in measures.used) or "no measure (no runs)"
    text = f"Ranked by {used} ({asked})."
    if measures.mixed:
        counts = {m: sum(1 for v in measures.by_pair.values() if v == m) for m in measures.used}
        text += (" The campaign mixes one-core and parallel pairs: each group is ranked apart, with its own "
                 "winner, ratios and virtual best (" + ", ".join(f"{n} by {MEASURE_WORDS[m]}"
                                                                for m, n in counts.items()) + ").")
    if measures.no_cpu:
        text += (f" Ranked by wall time for want of recorded CPU time: {', '.join(measures.no_cpu)} (a store "
                 "made before cpu_s was recorded).")
    return text


def measure_notes(shift_s: float) -> list[tuple[str, str]]:
    """(measure, how to read it) for the page's and the summary's "Measures" list; ``shift_s`` the SGM's shift."""
    return [
        ("measure (ranked by)", "what a pair's times are: cpu (cpu_s, user + system CPU time of the worker's "
                                "process tree) or wall (wall_s). By default a pair that uses one core is ranked "
                                "by CPU time, which other work on the machine hardly stretches, and a parallel "
                                "pair by wall time (its CPU time adds up its cores); [report] rank_by in the "
                                "config or report --rank-by chooses one for all. Every figure of merit (SGM, "
                                "PAR-k, × winner, intervals, VBS gap, the figures) is in the pair's measure; "
                                "median wall and median CPU are both shown whatever it is."),
        ("solved", "a run is solved when its status is sat or unsat (a wrong answer is not solved); "
                   "with repetitions, a pair solves an instance when more than half its runs do, and "
                   "its time there is the median over the runs."),
        ("PAR-2 / PAR-10 (par2_s, par10_s)", "penalized average runtime: the mean over instances of "
                                             "the time, an unsolved instance counting 2 × (10 ×) the "
                                             "time limit. Lower is better."),
        ("SGM (sgm_s, sgm_ratio)", f"shifted geometric mean of the times, exp(mean(log(t + {shift_s:g}))) "
                                   f"− {shift_s:g} with shift {shift_s:g} s (unsolved at the limit): "
                                   "a typical time in which fast instances do not vanish and one slow "
                                   "one does not dominate; sgm_ratio (× winner) is relative to the winner."),
        ("VBS (virtual best solver)", "per instance, the fastest pair; vbs_gap_s is a pair's mean "
                                      "time beyond it, unique_solves the instances only this pair solved."),
        ("95% CI, × winner, tie", "sgm_s [95% CI]: the interval of a percentile bootstrap over the "
                                  "instances (2,000 resamples, fixed seed): how much the score depends on "
                                  "which instances were drawn. × winner: sgm_s / the winner's, with its "
                                  "paired bootstrap interval. A pair that solved as many instances as the "
                                  "winner is tied with it (tie = noise) when that interval contains 1, or "
                                  f"(tie = resolution) when the two means differ by less than "
                                  f"{noise.RESOLUTION_S * 1000:g} ms, the timer's resolution; the headline "
                                  "then names no single winner. With one run per pair and instance, "
                                  "run-to-run timing noise is not in the interval: use repetitions, and "
                                  "A/A controls (tie = machine: the interval reaches below the noise floor "
                                  "the controls measured)."),
        ("times", "wall_s measured by the runner, from dispatch to answer, in seconds; cpu_s is the "
                  "user + system CPU time of the worker's process tree during the run (above wall_s "
                  "when the solver runs threads; far below it when the machine was busy or the "
                  "solver waited); build_share is the share of in-worker time spent building the model."),
        ("complete", "the store records every run its config expands to; a run not stored is missing. "
                     "Pairs are ranked only on the instances where every planned run is stored; the "
                     "matrix and the failures list every stored run."),
    ]


__all__ = ["CONTROLS_NOTE", "FIGURE_CAPTIONS", "SIZE_NOTE", "TABLE_TITLES", "measure_notes", "ranking_sentence"]
