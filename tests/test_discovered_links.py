"""Listing entries may name the session that spawned them; other rows keep the fixed shape; the
listing caches hold them in one fixed JSON layout."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

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


def test_a_listing_entry_encodes_as_the_caches_hold_it() -> None:
    """The metadata and search caches store ``msgspec.json`` of a Discovered: every field, in
    declaration order, nulls included. These bytes are what caches written before Discovered
    became a msgspec Struct (it was a dataclass) hold; a change here needs a cache format bump."""
    entry = Discovered("codex", "/r/a.jsonl", "id-1", T0, "t", None, "m", None, T0, 3, None)
    encoded = msgspec.json.encode(entry)
    before_added = (
        b'{"harness":"codex","reference":"/r/a.jsonl","meta_id":"id-1",'
        b'"timestamp":"2026-01-02T03:04:05Z","title":"t","cwd":null,"model":"m",'
        b'"git_branch":null,"updated_at":"2026-01-02T03:04:05Z","message_count":3,"parent":null'
    )
    assert encoded == before_added + b',"account":null,"kind":null,"also_in":[]}'
    assert msgspec.json.decode(encoded, type=Discovered) == entry
    # The fields added last (``account``, ``kind``, ``also_in``) have defaults: an entry
    # cached before them reads the same.
    assert msgspec.json.decode(before_added + b"}", type=Discovered) == entry
