"""The campaign progress display and the closing summary, with a fake clock and a StringIO."""

from __future__ import annotations

import io
import re

import pytest

from harness.core.status import Status
from harness.runner.progress import MIN_REDRAW_S, Progress, format_duration, summary_table


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def rec(status="sat", pair="p", instance="i", wall_s=1.0, cpu_s=None):
    return {"status": status, "pair": pair, "instance": instance, "wall_s": wall_s, "cpu_s": cpu_s}


def plain(total, **kw):
    clock, out = Clock(), io.StringIO()
    return Progress(total, stream=out, live=False, clock=clock, **kw), clock, out


def live(total, **kw):
    clock, out = Clock(), io.StringIO()
    return Progress(total, stream=out, live=True, clock=clock, **kw), clock, out


# ---- the line and its arithmetic ----------------------------------------------------


def test_format_duration():
    assert format_duration(0) == "0:00:00"
    assert format_duration(72.4) == "0:01:12"
    assert format_duration(3600 * 27 + 61) == "27:01:01"
    assert format_duration(-3) == "0:00:00"


def test_line_matches_the_documented_shape():
    p, clock, _ = plain(80)
    p.start()
    for status, n in (("sat", 20), ("unsat", 10), ("timeout", 3), ("error", 1)):
        for _ in range(n):
            p.update(rec(status))
    clock.advance(72)
    assert p.line() == (
        "[34/80  42%] solved 30  timeout 3  memout 0  error 1  wrong 0  elapsed 0:01:12  eta 0:01:37"
    )


def test_done_is_padded_to_the_width_of_total():
    p, _, _ = plain(100)
    p.start()
    assert p.line().startswith("[  0/100   0%] solved 0")


def test_eta_unknown_before_the_first_run():
    p, clock, _ = plain(10)
    p.start()
    clock.advance(30)
    assert p.eta() is None
    assert p.line().endswith("elapsed 0:00:30  eta ?")


def test_eta_is_elapsed_per_run_times_remaining():
    p, clock, _ = plain(10)
    p.start()
    clock.advance(8)
    p.update(rec())
    p.update(rec())
    assert p.eta() == pytest.approx(8 / 2 * 8)
    clock.advance(2)
    assert p.eta() == pytest.approx(10 / 2 * 8)
    for _ in range(8):
        p.update(rec())
    assert p.eta() == 0 and p.remaining == 0
    assert "[10/10 100%]" in p.line()


def test_resumed_runs_count_as_done_but_not_in_the_rate():
    p, clock, out = plain(80)
    p.start(already_done=12)
    assert out.getvalue().splitlines()[0] == "campaign: 80 runs, 12 already stored, 68 to execute"
    assert p.done == 12 and p.eta() is None
    clock.advance(10)
    p.update(rec())
    # one run in 10 s this session: 67 remaining take 670 s, not 10/13*67
    assert p.done == 13 and p.remaining == 67
    assert p.eta() == pytest.approx(670)
    assert "[13/80  16%]" in p.line()


def test_after_a_resume_the_eta_is_the_remaining_runs_expected_cost():
    """The old ETA took the session's rate: a slow start (30 s to the first run of 1 s) said 0:29:30 for 0:00:59."""
    p, clock, _ = plain(80)
    stored = [rec(pair="fast", wall_s=w) for w in (0.5, 1.0, 1.5)] * 4  # 12 stored, median 1 s
    p.start(already_done=12, stored=stored, todo=[("fast", 60.0)] * 60 + [("slow", 60.0)] * 8)
    assert p.eta() == pytest.approx(60 * 1.0 + 8 * 1.0)  # "slow" has no run yet: the median of all known
    clock.advance(30)
    p.update(rec(pair="slow", wall_s=20.0))
    assert p.eta() == pytest.approx(60 * 1.0 + 7 * 20.0)  # not 30 s / 1 run x 67
    assert "eta 0:03:20" in p.line()


def test_the_eta_falls_back_to_the_time_limit_spreads_over_jobs_and_counts_runs_in_flight():
    p, clock, _ = plain(6, jobs=2)
    p.start(todo=[("a", 10.0)] * 4 + [("b", 30.0)] * 2)
    assert p.eta() == pytest.approx((4 * 10 + 2 * 30) / 2)  # nothing known: each run at its pair's limit
    p.update(rec(pair="a", wall_s=2.0))
    p.running = lambda: [("i", "a", 1.5), ("j", "b", 4.0)]
    # a: 3 x 2 s, b: 2 x the median of all known (2 s); in flight 1.5 s and 2 s of theirs spent
    assert p.eta() == pytest.approx((3 * 2 + 2 * 2 - 1.5 - 2) / 2)
    for pair in ("a", "a", "a", "b"):
        p.update(rec(pair=pair, wall_s=2.0))
    p.running = None
    assert p.eta() == pytest.approx(2.0 / 1)  # one run left: one job busy, not two


def test_without_time_limits_or_known_runs_the_eta_is_the_sessions_rate():
    p, clock, _ = plain(3)
    p.start(todo=[("a", None)] * 3)
    assert p.eta() is None
    clock.advance(6)
    p.update(rec(pair="b", wall_s=None))
    assert p.eta() == pytest.approx(6 / 1 * 2)


def test_counts_per_status_and_enum_statuses():
    p, _, _ = plain(6)
    p.start()
    for s in (Status.SAT, "unsat", "timeout", Status.MEMOUT, "error", "wrong"):
        p.update(rec(s))
    assert p.counts == {"sat": 1, "unsat": 1, "timeout": 1, "unknown": 0, "memout": 1, "error": 1, "wrong": 1,
                        "lost": 0}
    assert p.solved == 2
    assert "unknown" not in p.line() and "lost" not in p.line()  # shown only once a run is unknown, or lost
    p.update(rec(Status.UNKNOWN))
    assert p.counts["unknown"] == 1 and "unknown 1" in p.line() and p.solved == 2
    p.update(rec(Status.LOST))
    assert p.counts["lost"] == 1 and "lost 1" in p.line() and p.solved == 2


def test_the_summary_has_an_unknown_column_only_where_a_run_is_unknown():
    from harness.runner.progress import summary_table

    records = [{"pair": "a", "status": "sat", "wall_s": 1.0, "cpu_s": 1.0},
               {"pair": "a", "status": "timeout", "wall_s": 2.0, "cpu_s": 2.0}]
    header = summary_table(records).splitlines()[0].split()
    assert "unknown" not in header and "other" not in header
    header = summary_table(records + [{"pair": "a", "status": "unknown", "wall_s": 0.5}]).splitlines()[0].split()
    assert header[header.index("timeout") + 1] == "unknown" and "other" not in header


def test_wrong_is_made_visible():
    p, _, _ = plain(5)
    p.start()
    assert "wrong 0" in p.line() and "WRONG" not in p.line()
    p.update(rec("wrong"))
    p.update(rec("wrong"))
    assert "WRONG 2" in p.line()


def test_unknown_status_is_counted_apart():
    p, _, _ = plain(2)
    p.start()
    p.update(rec("bogus"))
    assert p.done == 1 and sum(p.counts.values()) == 0
    assert "other 1" in p.line()


# ---- plain mode ---------------------------------------------------------------------


def test_plain_prints_at_most_one_line_per_interval_and_a_final_line():
    p, clock, out = plain(100, interval_s=10)
    p.start()
    for _ in range(50):  # 50 runs over 49 s, ticks in between
        p.update(rec())
        p.tick()
        clock.advance(1)
    p.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("campaign: 100 runs")
    status_lines = lines[1:]
    assert len(status_lines) == 4 + 1  # at 10, 20, 30, 40 s, then the final line
    assert status_lines[-1].startswith("[ 50/100  50%]")
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_plain_prints_on_tick_during_a_long_run():
    p, clock, out = plain(3, interval_s=10)
    p.start()
    clock.advance(9)
    p.tick()
    assert len(out.getvalue().splitlines()) == 1
    clock.advance(1)
    p.tick()
    assert out.getvalue().splitlines()[-1] == (
        "[0/3   0%] solved 0  timeout 0  memout 0  error 0  wrong 0  elapsed 0:00:10  eta ?"
    )
    clock.advance(5)
    p.tick()
    assert len(out.getvalue().splitlines()) == 2


def test_plain_always_prints_a_final_line_even_right_after_another():
    p, clock, out = plain(1, interval_s=10)
    p.start()
    clock.advance(10)
    p.update(rec())
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and lines[1] == lines[2]


def test_close_is_idempotent_and_marks_an_interruption():
    p, _, out = plain(4)
    p.start()
    p.update(rec())
    p.close(interrupted=True)
    p.close()
    p.tick()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].endswith("interrupted")


def test_context_manager_closes_as_interrupted_on_an_exception():
    clock, out = Clock(), io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with Progress(3, stream=out, live=False, clock=clock) as p:
            p.start()
            raise KeyboardInterrupt
    assert out.getvalue().splitlines()[-1].endswith("interrupted")


def test_update_before_start_starts():
    p, _, out = plain(2)
    p.update(rec())
    p.close()
    assert out.getvalue().startswith("campaign: 2 runs, 0 already stored, 2 to execute\n")
    assert out.getvalue().splitlines()[-1].startswith("[1/2  50%] solved 1")


def test_singular_header():
    p, _, out = plain(1)
    p.start()
    assert out.getvalue() == "campaign: 1 run, 0 already stored, 1 to execute\n"


def test_default_mode_follows_isatty():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert Progress(1, stream=Tty()).live is True
    assert Progress(1, stream=io.StringIO()).live is False


# ---- live mode ----------------------------------------------------------------------


def test_live_rewrites_one_line_and_ends_it_only_at_close():
    p, clock, out = live(5)
    p.start(already_done=1)
    header, rest = out.getvalue().split("\n", 1)
    assert header == "campaign: 5 runs, 1 already stored, 4 to execute"
    for _ in range(4):
        clock.advance(1)
        p.update(rec())
    assert "\n" not in out.getvalue()[len(header) + 1:]
    assert out.getvalue().count("\r") == 1 + 4  # start, then every update
    assert "\x1b[K" in out.getvalue()
    p.close()
    text = out.getvalue()
    assert text.endswith("\n") and text.count("\n") == 2
    final = text.rsplit("\r", 1)[1]
    assert final.startswith("[5/5 100%] solved 4") and "elapsed 0:00:04" in final


def test_live_redraws_at_most_ten_times_a_second():
    p, clock, out = live(1000)
    p.start()
    for _ in range(100):  # 100 updates within half a second
        clock.advance(0.005)
        p.update(rec())
    assert out.getvalue().count("\r") <= 1 + 0.5 / MIN_REDRAW_S + 1
    clock.advance(MIN_REDRAW_S)
    p.tick()
    assert out.getvalue().rsplit("\r", 1)[1].startswith("[ 100/1000  10%]")


def test_live_tick_refreshes_elapsed():
    p, clock, out = live(3)
    p.start()
    clock.advance(65)
    p.tick()
    assert "elapsed 0:01:05" in out.getvalue().rsplit("\r", 1)[1]


def test_live_pads_a_shorter_line_over_a_longer_one():
    p, clock, out = live(3)
    p.start()
    for _ in range(2):
        p.update(rec("wrong"))
    clock.advance(1)
    p.tick()
    long = out.getvalue().rsplit("\r", 1)[1].removesuffix("\x1b[K")
    p.counts["wrong"] = 0  # shorter line: "wrong 0" and no eta digits beyond
    p.executed = 0
    clock.advance(1)
    p.tick()
    short = out.getvalue().rsplit("\r", 1)[1].removesuffix("\x1b[K")
    assert len(short) >= len(long) and short.rstrip() != short


def test_live_note_keeps_the_status_line():
    p, _, out = live(3)
    p.start()
    p.note("worker 123 crashed")
    text = out.getvalue()
    assert "worker 123 crashed\n" in text
    assert text.rsplit("\n", 1)[1].lstrip("\r").startswith("[0/3")


# ---- the summary table --------------------------------------------------------------


def test_summary_counts_per_pair_in_first_seen_order():
    records = [
        rec("sat", "b/cell", wall_s=1.0, cpu_s=0.9),
        rec("sat", "a/placement", wall_s=2.0),
        rec("timeout", "b/cell", wall_s=10.0, cpu_s=9.5),
        rec("unsat", "b/cell", wall_s=3.0, cpu_s=2.5),
        rec("memout", "a/placement", wall_s=None),
        rec("error", "a/placement", wall_s=0.5),
    ]
    lines = summary_table(records).splitlines()
    assert lines[0].split() == ["pair", "runs", "sat", "unsat", "timeout", "memout", "error", "wrong",
                                "median", "wall_s", "total", "wall_s", "total", "cpu_s"]
    assert set(lines[1]) <= {"-", " "}
    b, a = lines[2].split(), lines[3].split()
    assert b == ["b/cell", "3", "1", "1", "1", "0", "0", "0", "3.000", "14.000", "12.900"]
    assert a == ["a/placement", "3", "1", "0", "0", "1", "1", "0", "1.250", "2.500", "-"]
    assert lines[-1].split() == ["all", "6", "2", "1", "1", "1", "1", "0", "2.000", "16.500", "12.900"]
    assert "WRONG" not in summary_table(records)


def test_summary_columns_are_aligned():
    records = [rec("sat", "x", wall_s=1.0), rec("timeout", "a-much-longer-pair-label", wall_s=1234.5)]
    lines = summary_table(records).splitlines()
    assert len({len(line) for line in lines}) == 1  # numbers are right-aligned to the last column
    header = lines[0]
    ends = [m.end() for m in re.finditer(r"\S+(?: wall_s| cpu_s)?", header)][1:]
    for line in lines[2:]:
        if set(line) <= {"-", " "}:
            continue
        assert [m.end() for m in re.finditer(r"\S+", line)][1:] == ends


def test_summary_without_any_wall_s():
    table = summary_table([rec("error", "p", wall_s=None), rec("error", "p", wall_s=float("nan"))])
    assert table.splitlines()[-1].split() == ["all", "2", "0", "0", "0", "0", "2", "0", "-", "-", "-"]


def test_summary_shows_wrong():
    table = summary_table([rec("wrong", "p"), rec("sat", "p")])
    assert table.splitlines()[2].split()[7] == "1"
    assert table.splitlines()[-1] == "WRONG: 1 run returned a board the verifier rejected"


def test_summary_of_nothing():
    lines = summary_table([]).splitlines()
    assert lines[0].startswith("pair") and lines[-1].split() == ["all", "0"] + ["0"] * 6 + ["-", "-", "-"]


def test_summary_other_column_only_when_needed():
    table = summary_table([rec("bogus", "p"), rec("sat", "p")])
    assert "other" in table.splitlines()[0]
    assert table.splitlines()[-1].split()[:9] == ["all", "2", "1", "0", "0", "0", "0", "0", "1"]
    assert "other" not in summary_table([rec("sat")])


# ---- what is running, fitting the terminal, resumed counts -----------------------------------


def test_the_line_names_the_longest_running_run():
    p, clock, _ = plain(10)
    p.start()
    p.running = lambda: [("small", "sat/cell", 3.0), ("sb_30_30_10_0", "mip/ship-pairs", 75.0)]
    line = p.line()
    assert line.endswith("running sb_30_30_10_0 mip/ship-pairs 0:01:15 (+1 more)")
    p.running = lambda: []
    assert "running" not in p.line()
    p.running = lambda: 1 / 0  # a broken source never ends the campaign
    assert "running" not in p.line()


@pytest.mark.parametrize("width", [80, 60, 44])
def test_the_line_fits_the_width_and_never_loses_the_eta(width):
    p, clock, _ = plain(12345)
    p.start(already_done=6000)
    for status in ("sat", "timeout", "error", "wrong"):
        p.update(rec(status))
    clock.advance(3600 * 5)
    p.running = lambda: [("a_rather_long_instance_name_30x20_seed_512", "sat[encoding=totalizer,solver=cadical195]/cell",
                          1234.0)]
    full = p.line()
    assert len(full) > 80
    line = p.line(width=width)
    assert len(line) < width, line
    assert re.search(r"eta \d+:\d\d:\d\d", line) and "WRONG 1" in line and "[ 6004/12345" in line


def test_at_80_columns_zero_counts_go_first_then_elapsed():
    p, clock, _ = plain(100)
    p.start()
    p.update(rec("sat"))
    p.running = lambda: [("inst", "cpsat/placement", 2.0)]
    line = p.line(width=80)
    assert "memout 0" not in line and "running inst cpsat/placement" in line and "eta" in line


def test_a_live_line_on_a_narrow_terminal_keeps_the_eta(monkeypatch):
    import harness.runner.progress as progress

    monkeypatch.setattr(progress, "_columns", lambda stream: 50)
    p, clock, out = live(200)
    p.start()
    p.running = lambda: [("instance_with_a_long_name", "sat[solver=glucose4]/placement", 12.0)]
    p.update(rec("sat"))
    clock.advance(1)
    p.tick()
    last = out.getvalue().split("\r")[-1].replace(progress.CLEAR, "")
    assert len(last.rstrip()) < 50 and "eta" in last


def test_resumed_runs_count_in_the_statuses():
    p, clock, _ = plain(10)
    p.start(already_done=3, stored=[rec("sat"), rec("timeout"), rec("error")])
    assert (p.solved, p.counts["timeout"], p.counts["error"], p.done) == (1, 1, 1, 3)
    p.update(rec("sat"))
    assert p.solved == 2 and p.done == 4


def test_eta_is_zero_when_nothing_is_left_even_if_nothing_ran():
    p, clock, _ = plain(4)
    p.start(already_done=4)
    assert p.eta() == 0.0 and "eta 0:00:00" in p.line()
