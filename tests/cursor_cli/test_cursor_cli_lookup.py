"""Direct lookup in the Cursor CLI store: a chat's directory is named after its id, so an id or
id prefix reads only the chats so named, and names what a full discovery names."""

from __future__ import annotations

from pathlib import Path

import pytest
from cursor_cli_fixtures import (
    KITCHEN_SINK,
    encode,
    kitchen_graph,
    meta_row,
    meta_value,
    write_chat,
)

from lookup_checks import assert_same_answers
from txcript.harnesses.cursor_cli.store import CursorCliStore

IDS = {
    "9a9a0000-1111-4000-8000-000000000001": "Fix the login",
    "9a9a0000-2222-4000-8000-000000000002": "Add a test",
    "5e5e0000-3333-4000-8000-000000000003": "Rename things",
}


@pytest.fixture
def chats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    chats = tmp_path / "chats"
    monkeypatch.setenv("CURSOR_CHATS_DIR", str(chats))
    blobs = [encode(m) for m in KITCHEN_SINK]
    g = kitchen_graph(blobs)
    for offset, (chat_id, name) in enumerate(IDS.items()):
        row = meta_row(g.root_id, agentId=chat_id, name=name, createdAt=1764583200000 + offset)
        write_chat(chats, [*blobs, *g.nodes, g.root], meta_value(row), chat_id=chat_id)
    return chats


def test_ids_and_prefixes_resolve_like_discovery(
    chats: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = list(IDS)
    direct = [*ids, "9a9a0000-1", "5e", f"{ids[1]}#1"]
    others = ["9a9a", "Fix the login", "Add a test#1", "none-such"]
    assert_same_answers(monkeypatch, CursorCliStore, direct, others)
    assert_same_answers(monkeypatch, CursorCliStore, direct, others, scope="cursor")
    store = CursorCliStore(chats.parent, chats=chats)
    listed = {d.meta_id: d for d in store.discover()}
    assert set(listed) == set(ids)
    for chat_id, session in listed.items():
        assert store.lookup(chat_id) == [session]
