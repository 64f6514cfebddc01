"""The minimal search's journal: a stopped generation resumes where it stopped, with the same puzzle."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys

import pytest

from harness.cli import main
from harness.generate.generator import minimal_hints
from harness.generate.journal import PARTIAL_DIR, Journal, question_id
from harness.generate.oracle import UniquenessOracle
from harness.puzzle.formats import read_instance
from harness.puzzle.plant import instance_from_board, random_board
import procs

FLEET = {1: 3, 2: 2, 3: 2, 4: 1}


def _planted(seed=5, size=10):
    rng = random.Random(seed)
    planted = random_board(size, size, FLEET, rng)
    return planted, instance_from_board(planted, FLEET, rng=rng)


class _Asked:
    """Wraps ``oracle.differs``: records each question, raises KeyboardInterrupt on call ``stop_at``."""

    def __init__(self, oracle, stop_at=None):
        self.questions = []
        self.real = oracle.differs
        self.stop_at = stop_at
        oracle.differs = self

    def __call__(self, cells, flip):
        if self.stop_at is not None and len(self.questions) == self.stop_at:
            raise KeyboardInterrupt
        self.questions.append(question_id(cells, flip))
        return self.real(cells, flip)


def _search(base, planted, journal=None, stop_at=None):
    oracle = UniquenessOracle(base, planted)
    asked = _Asked(oracle, stop_at)
    try:
        return minimal_hints(oracle, random.Random(0), journal=journal), asked.questions
    finally:
        oracle.close()


def test_a_stopped_search_resumes_where_it_stopped_and_gives_the_same_hints(tmp_path):
    planted, base = _planted()
    want, reference = _search(base, planted)
    assert len(reference) > 6
    path = tmp_path / "p.jsonl"
    journal = Journal(path, "key")
    with pytest.raises(KeyboardInterrupt):
        _search(base, planted, journal, stop_at=5)
    journal.close()
    assert len(path.read_text().splitlines()) == 1 + 5  # header and the five answers given

    again = Journal(path, "key")
    assert again.resumable == 5
    cells, asked = _search(base, planted, again)
    again.close()
    assert sorted(cells) == sorted(want)
    assert again.replayed == 5 and again.replayed_s > 0
    assert asked[0] == reference[5]  # the solver is asked the question the stopped run was asking
    assert again.to_meta()["answers_replayed"] == 5


def test_a_torn_last_line_is_dropped_and_another_puzzle_starts_afresh(tmp_path):
    path = tmp_path / "p.jsonl"
    j = Journal(path, "k1")
    j.record("q1", None, 0.5)
    j.record("q2", frozenset({(1, 2), (3, 4)}), 1.0)
    j.record("q3", frozenset(), 0.1)  # undecided
    j.close()
    path.write_text(path.read_text() + '{"q": "q4", "a": [[1,')  # the process died while writing
    j = Journal(path, "k1")
    assert j.resumable == 3
    assert j.lookup("q1") == (True, None)
    assert j.lookup("q2") == (True, frozenset({(1, 2), (3, 4)}))
    assert j.lookup("q3") == (True, frozenset())
    assert j.lookup("q4") == (False, None)
    j.close()
    assert all(json.loads(line) for line in path.read_text().splitlines())  # the torn line is gone

    before = path.read_text()
    other = Journal(path, "k2")  # another search under the same name: nothing is replayed, nothing is lost
    assert other.resumable == 0 and other.lookup("q1") == (False, None)
    other.close()
    assert json.loads(path.read_text().splitlines()[0])["key"] == "k2"
    assert other.set_aside is not None and other.set_aside.name.endswith(".stale")
    kept = Journal(other.set_aside, "k1")
    kept.close()
    assert other.set_aside.read_text() == before and kept.resumable == 3
    again = Journal(path, "k2")  # its own file: kept, nothing set aside
    assert again.set_aside is None and json.loads(path.read_text().splitlines()[0])["key"] == "k2"
    again.close()


def test_a_torn_header_is_nothing_to_keep_and_an_old_format_is_set_aside(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text('{"journal": 1, "ke')  # the process died writing the header: no answer was ever recorded
    j = Journal(path, "k")
    j.close()
    assert j.set_aside is None and list(tmp_path.iterdir()) == [path]
    path.write_text(json.dumps({"journal": 0, "key": "k"}) + "\n" + json.dumps({"q": "a", "a": "none"}) + "\n")
    j = Journal(path, "k")  # another format of the journal, same key: not ours to overwrite
    j.close()
    assert j.set_aside is not None and j.set_aside.read_text().count("\n") == 2 and j.resumable == 0


def test_a_question_off_the_recorded_path_drops_the_rest(tmp_path):
    path = tmp_path / "p.jsonl"
    j = Journal(path, "k")
    for q in ("a", "b", "c"):
        j.record(q, None, 0.0)
    j.close()
    j = Journal(path, "k")
    assert j.lookup("a") == (True, None)
    assert j.lookup("x") == (False, None)  # not "b": the search went elsewhere
    j.record("x", None, 0.0)
    j.close()
    assert [json.loads(line).get("q") for line in path.read_text().splitlines()] == [None, "a", "x"]
    (copy,) = tmp_path.glob("p.jsonl.*.stale")  # the file as it was before the cut: nothing recorded is lost
    assert [json.loads(line).get("q") for line in copy.read_text().splitlines()] == [None, "a", "b", "c"]
    copy.unlink()
    j = Journal(path, "k")
    j.finish()
    assert not path.exists() and not tmp_path.exists()  # the emptied directory goes too


def test_a_line_that_is_not_utf8_keeps_the_answers_before_it_and_a_copy_of_the_file(tmp_path):
    """Finding 13 of issue 32: one non-UTF-8 byte used to lose every recorded answer, silently."""
    path = tmp_path / "p.jsonl"
    j = Journal(path, "k")
    for q in ("a", "b", "c", "d"):
        j.record(q, None, 0.5)
    j.close()
    lines = path.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b'"c"', b'"\xff"')  # the third answer's line is damaged
    damaged = b"\n".join(lines)
    path.write_bytes(damaged)
    j = Journal(path, "k")
    assert j.resumable == 2 and j.cut is not None and j.cut.read_bytes() == damaged
    assert j.lookup("a") == (True, None) and j.lookup("b") == (True, None) and j.lookup("c") == (False, None)
    j.close()


def test_a_torn_last_line_is_dropped_without_a_copy(tmp_path):
    path = tmp_path / "p.jsonl"
    j = Journal(path, "k")
    j.record("a", None, 0.5)
    j.close()
    path.write_bytes(path.read_bytes() + b'{"q":"b","a":')  # the process died mid-write
    j = Journal(path, "k")
    assert j.resumable == 1 and j.cut is None and not list(tmp_path.glob("*.stale"))
    j.close()


def test_generate_interrupted_then_rerun_resumes_and_cleans_up(tmp_path, capsys, monkeypatch):
    argv = ["generate", "--rows", "10", "--cols", "10", "--hints", "minimal", "--seed", "3", "--certify",
            "sat/placement"]
    assert main([*argv, "--out", str(tmp_path / "ref")]) == 0
    ref = read_instance(tmp_path / "ref" / "gen_10x10_minimal_s3.toml")
    capsys.readouterr()

    real = UniquenessOracle.differs
    calls = []

    def stopping(self, cells, flip):
        if len(calls) == 4:
            raise KeyboardInterrupt
        calls.append(1)
        return real(self, cells, flip)

    out = tmp_path / "out"
    monkeypatch.setattr(UniquenessOracle, "differs", stopping)
    assert main([*argv, "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    journal = out / PARTIAL_DIR / "gen_10x10_minimal_s3.jsonl"
    assert len(err) == 1 and "interrupted" in err[0] and str(journal) in err[0]
    assert journal.exists() and not list(out.glob("*.toml"))

    monkeypatch.setattr(UniquenessOracle, "differs", real)
    assert main([*argv, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"resuming from {journal} (4 oracle answers recorded)" in captured.err
    made = read_instance(out / "gen_10x10_minimal_s3.toml")
    assert made.hints == ref.hints
    assert made.meta["generation"]["answers_replayed"] == 4
    assert not (out / PARTIAL_DIR).exists()


def test_a_rerun_with_other_settings_sets_the_old_journal_aside(tmp_path, capsys, monkeypatch):
    argv = ["generate", "--rows", "10", "--cols", "10", "--hints", "minimal", "--seed", "3"]
    real = UniquenessOracle.differs
    calls = []

    def stopping(self, cells, flip):
        if len(calls) == 4:
            raise KeyboardInterrupt
        calls.append(1)
        return real(self, cells, flip)

    out = tmp_path / "out"
    monkeypatch.setattr(UniquenessOracle, "differs", stopping)
    assert main([*argv, "--certify", "sat/placement", "--out", str(out)]) == 130
    journal = out / PARTIAL_DIR / "gen_10x10_minimal_s3.jsonl"
    before = journal.read_text()
    monkeypatch.setattr(UniquenessOracle, "differs", real)
    capsys.readouterr()
    assert main([*argv, "--certify", "cpsat/placement", "--out", str(out)]) == 0  # same name, another command
    err = capsys.readouterr().err
    stale = list((out / PARTIAL_DIR).glob("*.stale"))
    assert len(stale) == 1 and stale[0].read_text() == before  # the 4 answers of the other search are kept
    assert f"{journal} held another search's answers" in err and str(stale[0]) in err and "resuming" not in err
    assert (out / "gen_10x10_minimal_s3.toml").exists() and not journal.exists()


def test_ctrl_c_or_sigterm_leaves_a_clean_exit_and_a_journal_that_resumes(tmp_path):
    """Real signals (not simulated ones): solvers' native code must not crash the process."""
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "harness.cli", "generate", "--rows", "15", "--cols", "15", "--hints", "minimal",
           "--seed", "2", "--out", str(out)]
    journal = out / PARTIAL_DIR / "gen_15x15_minimal_s2.jsonl"
    for wait_lines, signum in ((3, signal.SIGINT), (12, signal.SIGTERM)):  # stopped twice, further each time
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True,  # SIGINT as from a terminal, even in a background job:
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        procs.wait_until(lambda n=wait_lines: journal.exists() and len(journal.read_text().splitlines()) > n, proc,
                         every=0.02)
        if proc.poll() is not None:
            pytest.fail(f"generation ended before it could be interrupted: {proc.communicate()}")
        os.kill(proc.pid, signum)
        _, err = procs.communicate(proc)
        assert proc.returncode == 130, err
        assert "interrupted" in err and "Fatal" not in err and "terminate" not in err
    done = procs.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "resuming from" in done.stderr
    made = read_instance(out / "gen_15x15_minimal_s2.toml")
    assert made.meta["generation"]["answers_replayed"] >= 12  # the second stop came after 12 answers or more
    assert main(["generate", "--rows", "15", "--cols", "15", "--hints", "minimal", "--seed", "2",
                 "--out", str(tmp_path / "ref")]) == 0  # uninterrupted
    assert made.hints == read_instance(tmp_path / "ref" / "gen_15x15_minimal_s2.toml").hints


def test_a_hint_cpsat_cannot_settle_ends_the_seed_and_a_rerun_resumes(tmp_path, capsys, monkeypatch):
    argv = ["generate", "--rows", "10", "--cols", "10", "--hints", "minimal", "--seed", "4", "--certify",
            "sat/placement"]
    assert main([*argv, "--out", str(tmp_path / "ref")]) == 0
    ref = read_instance(tmp_path / "ref" / "gen_10x10_minimal_s4.toml")
    from harness.generate.oracle import Undecided

    def undecided(self, cells, flip):
        raise Undecided()  # as when CP-SAT runs past --question-limit

    out = tmp_path / "out"
    monkeypatch.setattr(UniquenessOracle, "differs", undecided)
    capsys.readouterr()
    assert main([*argv, "--question-limit", "7", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    journal = out / PARTIAL_DIR / "gen_10x10_minimal_s4.jsonl"
    assert len(err) == 1 and err[0].startswith("battlebench: error: seed 4: CP-SAT could not decide within 7 s")
    assert "--question-limit" in err[0] and str(journal) in err[0]
    undecided_batches = len(journal.read_text().splitlines()) - 1
    assert undecided_batches >= 4  # 16 -> 8 -> 4 -> 2 before the single hint

    monkeypatch.undo()
    assert main([*argv, "--out", str(out)]) == 0
    made = read_instance(out / "gen_10x10_minimal_s4.toml")
    assert made.hints == ref.hints  # batches split by "undecided" still give the greedy result
    assert made.meta["generation"]["answers_replayed"] == undecided_batches


def test_question_limit_must_be_positive(tmp_path, capsys):
    assert main(["generate", "--rows", "6", "--cols", "6", "--question-limit", "0", "--out", str(tmp_path)]) == 2
    assert "--question-limit" in capsys.readouterr().err
