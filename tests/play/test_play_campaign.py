"""The play task in a campaign: games stored as runs, reported, and guarded by ``check``."""

from __future__ import annotations

import json
import sqlite3

import pytest
from clirun import ROOT, run

SMALL = ROOT / "instances" / "deployments" / "tiny" / "t5x5_3_2x2.toml"


def _config(tmp_path, pairs, games=12, extra="", board=SMALL):
    cfg = tmp_path / "play.toml"
    cfg.write_text(f'name = "p"\ninstances = ["{board}"]\ntask = "play"\ngames = {games}\nseeds = [3]\n{extra}'
                   f'pairs = [{", ".join(pairs)}]\nlimits = {{ time_s = 60 }}\noutput = "{tmp_path / "out"}"\n')
    return cfg


def test_a_play_campaign_stores_each_game_and_reports_shots(capsys, tmp_path):
    cfg = _config(tmp_path, ['{ backend = "random" }', '{ backend = "density" }',
                             '{ backend = "thompson", options = { block = 500 } }'])
    code, _, err = run(capsys, "run", cfg)
    assert code == 0, err
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        rows = db.execute("select pair, repetition, shots, status, verdict, detail from runs").fetchall()
        assert db.execute("select count(*) from runs where count is not null").fetchone()[0] == 0
    assert len(rows) == 36 and {r[3] for r in rows} == {"sat"} and {r[4] for r in rows} == {"ok"}
    assert {r[0] for r in rows} == {"random/ship", "density/ship", "thompson[block=500]/ship"}
    by_game: dict = {}
    for _pair, game, shots, _, _, detail in rows:
        d = json.loads(detail)
        assert 7 <= shots <= 25 and d["shots"] == shots and len(d["sequence"].split(";")) == shots
        by_game.setdefault(game, set()).add(d["deployment"])
    assert all(len(ids) == 1 for ids in by_game.values())  # every strategy met the same fleet in game g
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0, out
    code, _, err = run(capsys, "report", tmp_path / "out")
    summary = (tmp_path / "out" / "report" / "summary.md").read_text()
    assert code == 0, err
    assert "## Games" in summary and "density/ship" in summary and "paired" in summary
    headline = next(line for line in summary.splitlines() if line.startswith("**Headline.**"))
    assert "plays best" in headline and "on the same deployments" in headline and "random/ship +" in headline
    assert (tmp_path / "out" / "report" / "play_shots.png").is_file()
    # the section's own figure goes the report's one way: SVG and PDF beside the PNG, listed with the files
    assert (tmp_path / "out" / "report" / "play_shots.pdf").read_bytes().startswith(b"%PDF-")
    assert "<svg" in (tmp_path / "out" / "report" / "play_shots.svg").read_text() and "[play_shots.svg]" in summary


def test_check_fails_when_random_misses_its_exact_mean(capsys, tmp_path):
    cfg = _config(tmp_path, ['{ backend = "random" }'], games=30)
    assert run(capsys, "run", cfg)[0] == 0
    assert run(capsys, "check", tmp_path / "out")[0] == 0
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:  # a random strategy that is too lucky
        db.execute("update runs set shots = 8")
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "random-mean" in out and "misses the exact" in out, out


def test_check_fails_on_a_game_its_replay_contradicts_or_that_did_not_finish(capsys, tmp_path):
    cfg = _config(tmp_path, ['{ backend = "density" }'], games=3)
    assert run(capsys, "run", cfg)[0] == 0
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        db.execute("update runs set status = 'wrong', verdict = 'shot 3: [0, 1] announced as hit' "
                   "where repetition = 2")
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "game-wrong" in out and "announced as hit" in out, out
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        db.execute("update runs set status = 'timeout', verdict = 'ok', shots = null, error = 'time limit' "
                   "where repetition = 2")
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "game-unfinished" in out and "game 1 of seed 3: timeout" in out, out


@pytest.mark.parametrize("pairs, extra, message", [
    (['{ backend = "nope" }'], "", "unknown strategy 'nope'"),
    (['{ backend = "random", formulation = "loud" }'], "", "announcement rule"),
    (['{ backend = "shiponly:ShipOnly", formulation = "sunk" }'], "", "under the ship rule, not 'sunk'"),
    (['{ backend = "thompson", options = { blok = 3 } }'], "", "has no option 'blok'"),
    (['{ backend = "random" }'], "repetitions = 2\n", "repeats by games"),
])
def test_an_invalid_play_config_fails_before_any_game(capsys, tmp_path, pairs, extra, message):
    code, _, err = run(capsys, "run", _config(tmp_path, pairs, extra=extra))
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "results.sqlite").exists()


def test_a_board_with_hints_gives_error_games_not_a_crash(capsys, tmp_path):
    hinted = ROOT / "instances" / "deployments" / "tiny" / "t6x6_position.toml"
    code, _, _ = run(capsys, "run", _config(tmp_path, ['{ backend = "random" }'], games=2, board=hinted))
    assert code == 3  # some run ended in error
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "has no hints or clues" in out


def test_two_boards_of_one_name_are_reported_apart(capsys, tmp_path):
    """Games are grouped by board file and content, not by name: two files named alike stay apart."""
    from harness.report.completeness import load_campaign
    from harness.report.play import paired_table, play_table

    other = tmp_path / "other.toml"
    other.write_text(SMALL.read_text().replace("rows = 5", "rows = 6"))
    cfg = _config(tmp_path, ['{ backend = "random" }', '{ backend = "density" }'], games=8)
    cfg.write_text(cfg.read_text().replace(f'instances = ["{SMALL}"]', f'instances = ["{SMALL}", "{other}"]'))
    assert run(capsys, "run", cfg)[0] == 0
    df = load_campaign(tmp_path / "out").runs
    table = play_table(df)
    assert len(table) == 4 and table["instance"].nunique() == 1 and table["board"].nunique() == 2
    assert set(table["games"]) == {8}
    paired = paired_table(df)
    assert set(paired["paired_games"]) == {8}


def test_games_belong_to_the_play_task_only(capsys, tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'name = "c"\ninstances = ["{SMALL}"]\ntask = "deployments"\ngames = 3\n'
                   f'pairs = [{{ backend = "dp" }}]\noutput = "{tmp_path / "out"}"\n')
    code, _, err = run(capsys, "run", cfg)
    assert code == 2 and "games: only the play task takes games" in err
    cfg = _config(tmp_path, ['{ backend = "random", games = 0 }'])
    code, _, err = run(capsys, "run", cfg)
    assert code == 2 and "pairs[0].games: must be >= 1" in err


def test_a_pair_may_play_fewer_games_and_games_advance_together(tmp_path):
    from harness.runner.campaign import expand
    from harness.runner.config import load_config

    cfg = _config(tmp_path, ['{ backend = "random" }', '{ backend = "posterior", games = 2 }'], games=4)
    runs = expand(load_config(cfg))
    assert [(r.pair.plugin, r.repetition) for r in runs] == [
        ("random", 1), ("posterior", 1), ("random", 2), ("posterior", 2), ("random", 3), ("random", 4)]
    assert len({r.run_id for r in runs}) == 6


def test_a_game_past_the_time_limit_is_a_timeout_and_fails_check(capsys, tmp_path):
    standard = ROOT / "instances" / "deployments" / "standard_10x10.toml"
    cfg = _config(tmp_path, ['{ backend = "posterior" }'], games=1, board=standard)
    cfg.write_text(cfg.read_text().replace("limits = { time_s = 60 }", "limits = { time_s = 0.05, grace_s = 1 }"))
    code, _, err = run(capsys, "run", cfg)
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        status, termination, count = db.execute("select status, termination, count from runs").fetchone()
    assert (status, termination, count) == ("timeout", "timeout", None), err
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "game-unfinished" in out and "timeout" in out, out


FORGERIES = [  # what the attack on the play store tried (issue 32, finding 1): each must fail check
    ("shots cut", "update runs set shots = shots - 3 where repetition = 2", "shots"),
    ("a miss flipped to a hit", "update runs set detail = json_set(detail, '$.sequence', "
     "replace(json_extract(detail, '$.sequence'), ',0;', ',1;')) where repetition = 2", "announced as hit"),
    ("the sequence truncated", "update runs set detail = json_set(detail, '$.sequence', substr("
     "json_extract(detail, '$.sequence'), 1, instr(json_extract(detail, '$.sequence'), ';') - 1)) "
     "where repetition = 2", "status"),
    ("a shot duplicated", "update runs set detail = json_set(detail, '$.sequence', json_extract(detail, "
     "'$.sequence') || ';' || substr(json_extract(detail, '$.sequence'), 1, instr(json_extract(detail, "
     "'$.sequence'), ';') - 1)) where repetition = 2", "fired after every ship cell was hit"),
    ("verdict wrong", "update runs set verdict = 'wrong' where repetition = 2", "verdict"),
    ("a game copied from another deployment", "update runs set detail = (select detail from runs as o "
     "where o.repetition = 3), shots = (select shots from runs as o where o.repetition = 3) "
     "where repetition = 2", "game"),
]


@pytest.mark.parametrize("what, sql, said", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_check_replays_every_game_and_fails_on_a_forged_store(capsys, tmp_path, what, sql, said):
    cfg = _config(tmp_path, ['{ backend = "density" }'], games=4)
    assert run(capsys, "run", cfg)[0] == 0
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 0 and "verdicts: 4 games replayed in 4 runs" in out, out
    with sqlite3.connect(tmp_path / "out" / "results.sqlite") as db:
        assert db.execute(sql).rowcount == 1
    code, out, _ = run(capsys, "check", tmp_path / "out")
    assert code == 1 and "contradicted when judged again" in out and "game 1" in out and said in out, out
