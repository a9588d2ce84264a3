"""Hostile Antigravity stores and documents: one error line or one warning, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from agy_fixtures import CONVERSATION, kitchen_sink, write_conversation

from txcript import harnesses
from txcript.errors import Malformed, StoreError

H = harnesses.get("antigravity")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def test_a_database_locked_by_a_writer_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = write_conversation(tmp_path, kitchen_sink())
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    monkeypatch.setenv("TXCRIPT_BUSY_TIMEOUT", "0")
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError, match="locked"):
            H.store(tmp_path).load(str(db))
    finally:
        holder.close()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(conversation_id=7), "conversation_id"),
        (lambda d: d.update(tables="steps"), "tables"),
        (lambda d: d["tables"][1].update(rows=[[1]]), "tables[1].rows[0]"),
        (
            lambda d: d["tables"][1]["rows"][0].__setitem__(4, {"hex": "zz"}),
            "tables[1].rows[0][4].hex",
        ),
        (lambda d: d.update(brain=[{"path": 1, "data": ""}]), "brain[0].path"),
        (lambda d: d.update(user_version="1"), "user_version"),
    ],
)
def test_a_text_form_of_the_wrong_shape_names_the_field(change, field: str) -> None:  # type: ignore[no-untyped-def]
    document = json.loads(H.to_text(H.from_common(_transcript())))
    change(document)
    with pytest.raises(Malformed, match=field.replace("[", r"\[").replace("]", r"\]")):
        H.from_text(json.dumps(document))


def test_hostile_numbers_in_a_step_do_not_become_values(tmp_path: Path) -> None:
    """A usage count or a time past what Common holds is left out, not carried into an
    overflow; the conversation still reads."""
    from agy_fixtures import Conversation, Step, pb_bytes, pb_int, pb_text

    huge = (1 << 64) - 1
    meta = pb_bytes(1, pb_int(1, huge)) + pb_bytes(9, pb_int(2, huge)) + pb_int(11, huge)
    conversation = Conversation(
        conversation_id=CONVERSATION,
        steps=[Step(15, 3, meta, pb_text(1, "hi"))],
        main=pb_text(6, CONVERSATION),
    )
    db = write_conversation(tmp_path, conversation)
    transcript = H.to_common(H.store(tmp_path).load(str(db)))
    (message,) = transcript.messages
    assert message.usage is None and message.model is None
    assert message.timestamp == transcript.meta.timestamp


def _transcript():  # type: ignore[no-untyped-def]
    cursor = harnesses.get("cursor_desktop")
    example = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
    return cursor.to_common(cursor.from_text(example.read_text()))
