"""The record schema is data: one table says what each column holds per task, docs/reference/records.md shows that table,
and the vocabulary the records use is the glossary's."""

from __future__ import annotations

from pathlib import Path

import harness
from harness.core.record import COLUMNS, PER_TASK, SCHEMA, STATUS_VALUES, TERMINATION_VALUES, records_markdown
from harness.core.status import Status, Termination

ROOT = Path(__file__).resolve().parents[2]


def test_docs_records_shows_the_schema_as_the_code_has_it():
    text = (ROOT / "docs" / "reference" / "records.md").read_text()
    block = text.split("<!-- generated: harness.core.record.records_markdown() -->\n", 1)[1]
    block = block.split("\n<!-- end generated -->", 1)[0]
    assert block == records_markdown(), "regenerate the table of docs/reference/records.md from records_markdown()"


def test_every_column_is_described_and_per_task_names_columns():
    assert list(COLUMNS) == list(SCHEMA)
    assert all(meaning for _, meaning in SCHEMA.values())
    assert set(PER_TASK) <= set(COLUMNS) and all(len(v) == 4 and all(v) for v in PER_TASK.values())


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
