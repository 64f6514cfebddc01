"""A small campaign for the fake backend: good boards, a wrong board, a broken file."""

from __future__ import annotations

from pathlib import Path

from harness.puzzle.formats import write_instance
from harness.puzzle.instance import Instance

GOOD = ["O.", "..", ".O"]
TOUCHING = ["O.", ".O", ".."]


def make_suite(folder: Path, n: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        inst = Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                        name=f"good{i}", meta={"fake_boards": [GOOD]})
        write_instance(inst, folder / f"good{i}.toml", "native")
    bad = Instance(rows=3, cols=2, fleet={1: 2}, row_clues=(1, 0, 1), col_clues=(1, 1),
                   name="wrongboard", meta={"fake_boards": [TOUCHING]})
    write_instance(bad, folder / "wrongboard.toml", "native")
    (folder / "broken.toml").write_text("[size]\nrows = 3\ncols = -2\n")
    return folder


def write_config(tmp_path: Path, pairs: str, *, time_s: float = 5, extra: str = "", name: str = "t") -> Path:
    make_suite(tmp_path / "inst")
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'name = "{name}"\ninstances = ["inst"]\noutput = "out"\n{extra}\n'
                   f"[limits]\ntime_s = {time_s}\ngrace_s = 1\nmemory_mb = 2048\n{pairs}")
    return cfg


FAKE = '[[pairs]]\nbackend = "fake"\n[[pairs]]\nbackend = "fake"\nformulation = "cell"\n'
