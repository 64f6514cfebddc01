"""The value task's limits: a late answer keeps what it proved, the run's own deadline counts from its start (issue 49,
finding 8)."""

from __future__ import annotations

import json
import time
from fractions import Fraction

import pytest

from clirun import ROOT
from harness.core.limits import Limits
from harness.core.task import PairSpec, TaskSpec, make_spec
from harness.tasks.value import OPTIMAL, ValueRequest, ValueTask, execute_value
from latevalue import LatePool, exact_late, stopped_late

B33 = ROOT / "instances" / "optimal" / "r3x3_s2_s1.toml"  # 84 deployments, K = 3, optimum 269/42 (ship rule)


def _spec(limit_s=3.0):
    board = ValueTask.load(B33, str(B33))
    return make_spec(board, PairSpec(OPTIMAL, "ship", ()), TaskSpec("value", "value"), None, 1,
                     Limits(limit_s, None))


def test_a_late_answer_keeps_the_bound_it_proved():
    ex = ValueTask().execute(LatePool(stopped_late()), _spec(), {"costly": False})
    rec, d = ex.record, json.loads(ex.record["detail"])
    assert rec["status"] == "timeout" and rec["answer"] == "unknown" and rec["termination"] == "timeout"
    assert d["lower"] == "20/3" and d["upper"] is None, d  # the bound stays a bound (old code: lower null)
    assert d["late"]["after_s"] == 3.4 and d["late"]["limit_s"] == 3.0 and d["mean"] is None
    assert ex.result["lower"] == "20/3" and ex.result["late"] == d["late"]


def test_a_late_exact_value_is_kept_as_a_bound_pair_and_judged():
    from harness.tasks.value import answered

    ex = ValueTask().execute(LatePool(exact_late()), _spec(), {"costly": False})
    rec, d = ex.record, json.loads(ex.record["detail"])
    assert rec["status"] == "timeout" and rec["complete"] == 0 and rec["exhausted"] == 0
    assert d["lower"] == d["upper"] == "269/42" and d["expected"] is None and d["mean"] is None, d
    assert d["late"]["expected"] == "269/42" and rec["verdict"] == "ok"  # judged as a value in time is
    assert Fraction(answered(d)["expected"]) == Fraction(269, 42)  # what check judges again


def test_a_wrong_late_value_is_wrong():
    wrong = exact_late()
    wrong.expected, wrong.mean = "2/1", 2.0  # below K = 3 ship cells
    rec = ValueTask().execute(LatePool(wrong), _spec(), {"costly": False}).record
    assert rec["status"] == "wrong" and "outside" in rec["verdict"]


def test_the_runs_own_deadline_counts_from_its_start(monkeypatch):
    """Building the beliefs is inside the run's time: the search gets what is left of it (old code: the whole
    limit less the margin, however long the building took -- the answer came late)."""
    from harness.play import optimal

    seen = {}
    real_of, real_optimum = optimal.Beliefs.of, optimal.optimum

    def slow_of(*args, **kwargs):
        time.sleep(1.0)
        return real_of(*args, **kwargs)

    def spy(board, rule, time_limit=None, search=None, **kwargs):
        seen["time_limit"] = time_limit
        return real_optimum(board, rule, time_limit=time_limit, search=search, **kwargs)

    monkeypatch.setattr(optimal.Beliefs, "of", slow_of)
    monkeypatch.setattr(optimal, "optimum", spy)
    monkeypatch.setattr(optimal, "compiled_available", lambda: False)  # the Python search: nothing to compile
    board = ValueTask.load(B33, B33.name).value
    out = execute_value(ValueRequest(board, OPTIMAL, (), "ship", limits=Limits(10.0, None)))
    assert out.expected == "269/42"
    assert seen["time_limit"] <= 10.0 - 1.5 - 1.0, seen  # at most what the limit leaves after the sleep


def test_the_compiled_search_sizes_its_slices_to_look_at_the_clock_in_time():
    from harness.play.optimal import Beliefs, CompiledSearch

    search = CompiledSearch(Beliefs.of(ValueTask.load(B33, B33.name).value), slots=1024)
    now = time.monotonic()
    assert search._step(now) == search.SLICE  # no deadline: the full slice
    search.deadline = now + 10.0
    assert search._step(now) == 256  # no rate measured yet: a small first slice
    search._rate = 1000.0  # a slow board: 1,000 states a second
    assert search._step(now) == 100  # a tenth of a second's worth (old code: 20,000 states, 20 s)
    search.deadline = now + 0.05
    assert search._step(now) == 64  # half the time left, at least 64


def test_check_judges_a_late_value_again(tmp_path):
    """A stored late exact value is judged again from its board as one in time is: as stored it passes, forged below
    the ship cells it is caught (a late row is not skipped as having no value)."""
    import pandas as pd

    from harness.tasks.value import recheck_stored

    rec = ValueTask().execute(LatePool(exact_late()), _spec(), {"costly": False}).record
    out = recheck_stored(pd.DataFrame([rec]), tmp_path / "results.sqlite")
    assert out.runs == 1 and not out.mismatches and not out.unverifiable, out
    d = json.loads(rec["detail"])
    d["late"]["expected"], d["late"]["mean"] = "2/1", 2.0
    out = recheck_stored(pd.DataFrame([{**rec, "detail": json.dumps(d)}]), tmp_path / "results.sqlite")
    assert out.runs == 1 and out.mismatches and "outside" in out.mismatches[0][-1], out


def test_the_memo_table_is_not_grown_past_the_deadline():
    """Growing a large memo table takes seconds (every entry moved): one that would end past the deadline stops the
    search there instead, its table intact (old code grew it and answered late)."""
    from harness.play.optimal import Beliefs, CompiledSearch, Stopped

    search = CompiledSearch(Beliefs.of(ValueTask.load(B33, str(B33)).value), slots=1024)
    search._grow_rate = 1.0  # as measured on the last growth: a second per slot
    search.deadline = time.monotonic() + 60.0
    keys = search.keys
    with pytest.raises(Stopped, match="no time left to grow the memo table"):
        search._compact()
    assert search.keys is keys and search.compactions == 0
    search.deadline = None  # no deadline: it grows (compacts) as before
    assert search._compact() and search.compactions == 1
