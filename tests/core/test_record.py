"""The record schema is data: the shared schema plus what each task declares its columns hold, docs/reference/records.md
shows the table made of them, and the vocabulary the records use is the glossary's."""

from __future__ import annotations

from pathlib import Path

import harness
from harness.core.columns import builtin_tasks, records_markdown
from harness.core.record import COLUMNS, SCHEMA, STATUS_VALUES, TERMINATION_VALUES
from harness.core.status import Status, Termination

ROOT = Path(__file__).resolve().parents[2]


def test_docs_records_shows_the_schema_as_the_code_has_it():
    text = (ROOT / "docs" / "reference" / "records.md").read_text()
    block = text.split("<!-- generated: harness.core.columns.records_markdown() -->\n", 1)[1]
    block = block.split("\n<!-- end generated -->", 1)[0]
    assert block == records_markdown(builtin_tasks()), \
        "regenerate the table of docs/reference/records.md from records_markdown(builtin_tasks())"


def test_every_column_is_described_and_each_task_declares_shared_columns():
    assert list(COLUMNS) == list(SCHEMA)
    assert all(meaning for _, meaning in SCHEMA.values())
    for cls in builtin_tasks():
        assert cls.columns and set(cls.columns) <= set(COLUMNS) and all(cls.columns.values()), cls.name
    # the four built-ins tell apart what the plugin and the question are
    assert [cls.columns["backend"] for cls in builtin_tasks()][:3] == ["the backend", "the counter", "the strategy"]
    assert [cls.columns["question"] for cls in builtin_tasks()][2:] == ["play", "value"]


def test_the_page_names_each_task_in_its_task_column_and_differs_only_where_declared():
    lines = records_markdown(builtin_tasks()).splitlines()
    assert lines[0] == "| column | type | solve | count | play | value |"
    assert "| `task` | TEXT | solve | count | play | value |" in lines
    assert any(line.startswith("| `question` | TEXT | solve or count-K | deployments or boards |") for line in lines)
    assert any(line.startswith("| `wall_s` | REAL | measured by the runner") and line.endswith("| same | same | same |")
               for line in lines)


def test_the_vocabularies_are_the_enums():
    assert set(STATUS_VALUES) == {str(s) for s in Status}
    assert set(TERMINATION_VALUES) == {str(t) for t in Termination}


def test_the_glossary_defines_exactly_its_words():
    doc = harness.__doc__
    entries = [line.strip() for line in doc.splitlines() if line and not line.startswith(" ") and line.strip()]
    entries = entries[entries.index("task"):]  # after the introduction
    words = [w.strip() for e in entries for w in e.split(",")]
    assert words == list(harness.GLOSSARY)
    for word in ("solve", "count", "play"):  # each task's meanings are given
        assert f"{word} --" in doc
