"""Listing entries may name the session that spawned them; other rows keep the fixed shape."""

from __future__ import annotations

from datetime import UTC, datetime

from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.operations import session_row

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_a_sub_agent_row_names_its_parent_and_a_main_row_has_no_parent_key() -> None:
    meta = Meta(id="child", timestamp=T0, title="look around")
    child = Discovered.from_meta("gemini", "/x/child.json", meta, parent="parent-id")
    main = Discovered.from_meta("gemini", "/x/main.jsonl", Meta(id="parent-id", timestamp=T0))
    assert session_row(child)["parent"] == "parent-id"
    assert "parent" not in session_row(main)
    assert set(session_row(main)) == {
        "harness",
        "id",
        "title",
        "cwd",
        "model",
        "timestamp",
        "updated_at",
        "messages",
    }


def test_saved_has_no_notes_unless_the_store_gives_some() -> None:
    assert Saved(id="a", reference="r", location="l").notes == ()
