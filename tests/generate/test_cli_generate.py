"""``battlebench generate`` as a user runs it: files written, claims true, the recorded command reproduces."""

from __future__ import annotations

import shlex

import pytest

from harness.cli import main
from harness.puzzle.brute import count_boards
from harness.puzzle.formats import read_instance


def test_generate_writes_certified_files_and_the_recorded_command_reproduces(tmp_path, capsys):
    out = tmp_path / "a"
    code = main(["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal",
                 "--number", "3", "--seed", "10", "--certify", "sat/cell", "--out", str(out)])
    assert code == 0
    files = sorted(out.glob("*.toml"))
    assert [f.name for f in files] == [f"gen_7x7_minimal_s{s}.toml" for s in (10, 11, 12)]
    for f in files:
        inst = read_instance(f)
        assert count_boards(inst, limit=2) == 1
        assert inst.meta["certificate"]["count"] == 1 and inst.meta["certificate"]["complete"]
        argv = shlex.split(inst.meta["command"].replace("--out DIR", f"--out {tmp_path / 'b'}"))[1:]
        assert main(argv) == 0
        again = read_instance(tmp_path / "b" / f.name)
        assert again.content_hash() == inst.content_hash()
    assert "wrote" in capsys.readouterr().out


def test_unsat_without_a_cause_cycles_through_causes(tmp_path):
    out = tmp_path / "u"
    assert main(["generate", "--rows", "8", "--cols", "8", "--unsat", "--number", "5", "--certify", "sat/cell",
                 "--out", str(out)]) == 0
    causes = set()
    for f in out.glob("*.toml"):
        inst = read_instance(f)
        assert inst.meta["expected_status"] == "unsat"
        assert count_boards(inst, limit=1) == 0
        causes.add(inst.meta["unsat"]["cause"])
    assert len(causes) == 5


@pytest.mark.parametrize("argv,needle", [
    (["--fleet", "1:2,x"], "--fleet"),
    (["--certify", "sat/nope"], "nope"),
    (["--hints", "lots"], "--hints"),
    (["--unsat", "sideways"], "--unsat"),
    (["--number", "0"], "--number must be >= 1, not 0"),
    (["--question-limit", "0"], "--question-limit must be a positive number of seconds, not 0"),
    (["--unknown-clues", "1.5"], "--unknown-clues"),
])
def test_bad_arguments_are_one_line_and_write_nothing(tmp_path, capsys, argv, needle):
    out = tmp_path / "x"
    assert main(["generate", "--rows", "6", "--cols", "6", "--out", str(out), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0]
    assert not out.exists()


def test_a_seed_that_cannot_be_made_is_reported_and_the_others_kept(tmp_path, capsys):
    out = tmp_path / "f"
    code = main(["generate", "--rows", "3", "--cols", "3", "--fleet", "3:3", "--number", "2",
                 "--certify", "sat/cell", "--out", str(out)])
    assert code == 1
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("battlebench: error:")]
    assert len(err) == 2 and all("cannot place the fleet" in line for line in err)


def test_keep_existing_skips_seeds_made_by_the_same_command(tmp_path, capsys):
    out = tmp_path / "k"
    argv = ["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal",
            "--certify", "sat/cell", "--out", str(out)]
    assert main([*argv, "--seed", "1"]) == 0
    first = (out / "gen_7x7_minimal_s1.toml").read_text()
    (out / "gen_7x7_minimal_s2.toml").write_text("not toml [")  # broken: made again
    capsys.readouterr()
    assert main([*argv, "--seed", "1", "--number", "3", "--keep-existing"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("kept ") and "s1.toml" in lines[0]
    assert [line.split()[1].rsplit("/", 1)[-1] for line in lines[1:]] == ["gen_7x7_minimal_s2.toml",
                                                                          "gen_7x7_minimal_s3.toml"]
    assert (out / "gen_7x7_minimal_s1.toml").read_text() == first
    assert count_boards(read_instance(out / "gen_7x7_minimal_s2.toml"), limit=2) == 1
    # another command (other hints) for the same name is not "the same": it is made again
    (out / "gen_7x7_minimal_s1.toml").write_text(first.replace("--hints minimal", "--hints unique"))
    assert main([*argv, "--seed", "1", "--keep-existing"]) == 0
    assert capsys.readouterr().out.startswith("wrote ")


def test_generate_puts_the_sigterm_handler_back(tmp_path):
    import signal

    before = signal.getsignal(signal.SIGTERM)
    assert main(["generate", "--rows", "6", "--cols", "6", "--fleet", "1:2,2:1", "--hints", "unique",
                 "--certify", "sat/cell", "--out", str(tmp_path)]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_generate_proof_certifies_each_claim_by_a_checked_proof_recorded_in_the_file(tmp_path, capsys):
    from harness.proofs.checkers import available_checkers

    if not available_checkers("drup"):
        pytest.skip("no proof checker installed")
    base = ["generate", "--rows", "7", "--cols", "7", "--fleet", "1:2,2:1,3:1", "--hints", "minimal", "--seed", "4"]
    assert main([*base, "--proof", "--out", str(tmp_path / "unique")]) == 0
    assert main([*base, "--proof", "--unsat", "clue-sum", "--out", str(tmp_path / "unsat")]) == 0
    for folder, claim in (("unique", "no further board"), ("unsat", "unsat")):
        [path] = (tmp_path / folder).glob("*.toml")
        meta = read_instance(path).meta
        cert = meta["certificate"]
        assert cert["pair"] == "sat[proof=check]/placement" and cert["claim"] == claim
        assert cert["certified"] == "certified" and len(cert["proof"]["sha256"]) == 64
        assert any(c["outcome"] == "accepted" for c in cert["proof"]["checks"])
        assert f"its claim {claim!r} certified: accepted by" in meta["expected_evidence"]
        assert "--certify 'sat[proof=check]/placement'" in meta["command"]  # the command reproduces it
    # check on a store of the generated suite says how its puzzles' claims were certified when made
    cfg = tmp_path / "suite.toml"
    cfg.write_text(f'name = "suite"\ninstances = ["{tmp_path}/unique/*.toml", "{tmp_path}/unsat/*.toml"]\n'
                   'task = "count-2"\n[[pairs]]\nbackend = "cpsat"\n[limits]\ntime_s = 30\n')
    assert main(["run", str(cfg), "--progress", "plain", "--output", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    assert main(["check", str(tmp_path / "out")]) == 0
    assert "generated puzzles: 2 files with the generator's certificate: 2 with its claim proven by a checked " \
           "proof" in capsys.readouterr().out
    capsys.readouterr()
    assert main([*base, "--proof", "--certify", "cpsat/placement", "--out", str(tmp_path / "no")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "proof" in err[0] and "cpsat" in err[0]
