"""The Python page's promises: every ```python block of docs/how-to/python.md runs, in order, as printed.

The blocks run one after another in one namespace, in a checkout-like folder (``instances``
linked), in a child interpreter: some run a solver in process (``isolated=False``), and no test
imports a solver library into the pytest process.  A ``# -> TEXT`` comment is what the block
prints: each must be a line of the block's output, in the order the comments come.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
import procs

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "how-to" / "python.md"
TEXT = PAGE.read_text()
BLOCKS = re.findall(r"^```python\n(.*?)^```", TEXT, re.S | re.M)

DRIVER = """
import contextlib, io, json, sys, traceback
blocks, report = json.loads(sys.argv[1]), sys.argv[2]
space, out = {"__name__": "__main__"}, []
for i, code in enumerate(blocks, 1):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, f"<python block {i}>", "exec"), space)
    except BaseException:
        out.append({"stdout": buf.getvalue(), "error": traceback.format_exc()})
        break
    out.append({"stdout": buf.getvalue(), "error": None})
with open(report, "w") as f:
    json.dump(out, f)
"""


def _expected(block: str) -> list[str]:
    return [m.group(1).rstrip() for m in re.finditer(r"#\s*->\s?(.*)$", block, re.M)]


def _in_order(wanted: list[str], lines: list[str]) -> list[str]:
    """The wanted lines that are not found in ``lines`` in their order (a subsequence)."""
    it = iter(lines)
    return [w for w in wanted if not any(line.rstrip() == w for line in it)]


def test_the_page_is_linked_and_its_blocks_say_what_they_print():
    assert len(BLOCKS) >= 8 and all(_expected(b) for b in BLOCKS[:6])
    assert "how-to/python.md" in (ROOT / "mkdocs.yml").read_text()
    assert "(python.md)" in (ROOT / "docs" / "how-to" / "index.md").read_text()
    assert "(docs/how-to/python.md)" in (ROOT / "README.md").read_text()


def test_the_page_names_every_function_of_the_api():
    import inspect

    from harness import api

    functions = [n for n in api.__all__ if inspect.isfunction(getattr(api, n))]
    assert len(functions) >= 9
    for name in functions:
        assert f"api.{name}(" in TEXT, name


def test_every_python_block_runs_in_order_as_printed(tmp_path):
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    report = tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = procs.run([sys.executable, "-c", DRIVER, json.dumps(BLOCKS), str(report)], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    ran = json.loads(report.read_text())
    for i, (block, done) in enumerate(zip(BLOCKS, ran), 1):
        assert done["error"] is None, (f"block {i}", block, done["stdout"][-2000:], done["error"])
        missing = _in_order(_expected(block), done["stdout"].splitlines())
        assert not missing, (f"block {i} does not print these, in this order", missing, done["stdout"][-2000:])
    assert len(ran) == len(BLOCKS)
    assert (tmp_path / "results" / "notebook" / "report" / "index.html").is_file()
