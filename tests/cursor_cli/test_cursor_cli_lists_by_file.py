"""The Cursor CLI store lists by file (:class:`txcript.harnesses.base.ListsByFile`): a chat's
fingerprint covers every file its listing or load reads (``store.db``, its WAL and journal,
``meta.json``, ``prompt_history.json``) and the workspace its bucket resolves to, and the chats
it names list exactly as a full discovery lists them, on every generation the fixtures build."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest
from cursor_cli_fixtures import (
    CREATED_MS,
    CWD,
    KITCHEN_SINK,
    encode,
    kitchen_graph,
    kitchen_sink_chat,
    md5,
    meta_row,
    meta_value,
    write_chat,
)

from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.base import Discovered, lists_by_file
from txcript.harnesses.cursor_cli.store import CursorCliStore

PLAIN = "4c4c0000-1111-4000-8000-000000000001"
WAL = "4c4c0000-2222-4000-8000-000000000002"
BUCKETED = "4c4c0000-3333-4000-8000-000000000003"
BROKEN = "4c4c0000-4444-4000-8000-000000000004"


@pytest.fixture
def chats(tmp_path: Path, workspace: Path) -> Path:
    """A hex meta row with ``meta.json`` and prompts; a JSON meta row alone; a newest commit
    only in ``store.db-wal``; a build without ``workspacePath`` (cwd from the bucket); and a
    chat whose database is not one."""
    chats = tmp_path / "chats"
    kitchen_sink_chat(chats)
    blobs = [encode(m) for m in KITCHEN_SINK]
    g = kitchen_graph(blobs)
    every = [*blobs, *g.nodes, g.root]
    row = meta_row(g.root_id, agentId=PLAIN, workspacePath=CWD)
    write_chat(chats, every, meta_value(row, hex_meta=False), chat_id=PLAIN)
    older = meta_row(None, agentId=WAL, workspacePath=CWD)
    newer = meta_row(g.root_id, agentId=WAL, workspacePath=CWD, name="Renamed in the WAL")
    write_chat(
        chats, [], meta_value(older), chat_id=WAL, wal_blobs=every, wal_meta=meta_value(newer)
    )
    prompt = {"role": "user", "content": [{"type": "text", "text": "list the files"}]}
    bare = {"agentId": BUCKETED, "name": "Files", "createdAt": CREATED_MS}
    write_chat(
        chats, [encode(prompt)], meta_value(bare), chat_id=BUCKETED, bucket=md5(str(workspace))
    )
    broken = write_chat(chats, [], None, chat_id=BROKEN)
    (broken / "store.db").write_bytes(b"not a database" * 100)
    return chats


def by_reference(found: list[Discovered]) -> list[Discovered]:
    return sorted(found, key=lambda d: d.reference)


def listed(store: CursorCliStore, references: list[str] | None = None) -> list[Discovered]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the broken chat
        if references is None:
            return by_reference(store.discover())
        return by_reference(store.discover_references(references))


def test_the_named_chats_list_as_discovery_does(chats: Path, workspace: Path) -> None:
    store = CursorCliStore(chats.parent, chats=chats)
    assert lists_by_file(store) is store
    files = store.fingerprinted()
    whole = listed(store)
    assert len(files) == 5 and len(whole) == 4  # the broken chat is looked at, and skipped
    assert listed(store, list(files)) == whole
    assert {d.meta_id: d.title for d in whole}[WAL] == "Renamed in the WAL"
    assert {d.meta_id: d.cwd for d in whole}[BUCKETED] == str(workspace)
    assert store.fingerprints(files) == files


@pytest.mark.parametrize("name", ["store.db-wal", "store.db-journal", "meta.json"])
def test_a_file_the_chat_reads_that_appears_moves_its_fingerprint(chats: Path, name: str) -> None:
    store = CursorCliStore(chats.parent, chats=chats)
    before = store.fingerprinted()
    (plain,) = [r for r in before if r.endswith(PLAIN)]
    Path(plain, name).write_bytes(b"")
    after = store.fingerprinted()
    assert [r for r in before if after[r] != before[r]] == [plain]


@pytest.mark.parametrize("name", ["store.db", "store.db-wal", "meta.json", "prompt_history.json"])
def test_a_file_the_chat_reads_that_changes_moves_its_fingerprint(chats: Path, name: str) -> None:
    store = CursorCliStore(chats.parent, chats=chats)
    before = store.fingerprinted()
    held = [r for r in before if os.path.lexists(Path(r, name))]
    assert held
    path = Path(held[0], name)
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    after = store.fingerprinted()
    assert [r for r in before if after[r] != before[r]] == [held[0]]


def test_the_meta_json_title_is_what_a_rewritten_meta_json_says(chats: Path) -> None:
    store = CursorCliStore(chats.parent, chats=chats)
    before = store.fingerprinted()
    (kitchen,) = [r for r in before if os.path.lexists(Path(r, "meta.json"))]
    meta = Path(kitchen, "meta.json")
    document = json.loads(meta.read_text())
    meta.write_text(json.dumps({**document, "title": "A longer title, renamed again"}))
    after = store.fingerprinted()
    assert after[kitchen] != before[kitchen]
    assert [d.title for d in listed(store, [kitchen])] == ["A longer title, renamed again"]


def test_a_bucket_resolved_from_another_directory_moves_its_fingerprint(
    chats: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chat without ``workspacePath`` takes its cwd from the directory txcript runs in."""
    before = CursorCliStore(chats.parent, chats=chats).fingerprinted()
    monkeypatch.chdir(tmp_path)
    store = CursorCliStore(chats.parent, chats=chats)
    after = store.fingerprinted()
    (bucketed,) = [r for r in before if r.endswith(BUCKETED)]
    assert [r for r in before if after[r] != before[r]] == [bucketed]
    assert [d.cwd for d in listed(store, [bucketed])] == [None]


def test_a_chat_gone_since_is_not_listed(chats: Path) -> None:
    store = CursorCliStore(chats.parent, chats=chats)
    files = store.fingerprinted()
    (plain,) = [r for r in files if r.endswith(PLAIN)]
    Path(plain, "store.db").unlink()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert store.discover_references([plain]) == []
    assert not said
    assert store.fingerprints([plain]) == {plain: ""}
