"""Writing Cursor CLI chats: the shapes the agent resumes, all or nothing, never over a chat."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cursor_cli_fixtures import CHAT_ID, CWD, kitchen_sink_chat, md5, snapshot

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.errors import BadInput, StoreError
from txcript.harnesses.cursor_cli import graph
from txcript.harnesses.cursor_cli.head import decode_meta_value
from txcript.harnesses.cursor_cli.native import Blob, CursorChat, bucket_of
from txcript.harnesses.cursor_cli.store import CursorCliStore
from txcript.shared import backups
from txcript.shared import protobuf as pb

H = harnesses.get("cursor")
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
OK_ID = "7d3c2b1a-0f9e-4d8c-b7a6-958473625140"


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))


def sample(session_id: str = "0b7c2f1e-1111-4222-8333-944455556666") -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(id=session_id, timestamp=T0, cwd="/repo", title="Cross", model="gpt-5"),
        messages=(
            m.Message(role="user", content=(m.Text(text="fix the bug"),), timestamp=T0),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="look", signature="sig"),
                    m.ToolUse(
                        id="call-1",
                        tool=m.Edit(
                            file_path="/repo/a.rs", old_string="i <= n", new_string="i < n"
                        ),
                    ),
                    m.ToolUse(id="call-2", tool=m.Bash(command="cargo test", workdir="/repo")),
                ),
                timestamp=T0,
                model="gpt-5",
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult(tool_use_id="call-1", content="patched"),
                    m.ToolResult(tool_use_id="call-2", content="1 failed", is_error=True),
                ),
                timestamp=T0,
            ),
            m.Message(role="assistant", content=(m.Text(text="done"),), timestamp=T0),
        ),
    )


def rows(chat: CursorChat) -> dict[str, Any]:
    return {
        "blobs": [(b.id, b.data, b.text) for b in chat.blobs],
        "meta": list(chat.meta),
        "meta_json": chat.meta_json,
        "prompt_history": chat.prompt_history,
        "schema": chat.schema,
        "user_version": chat.user_version,
    }


def test_store_round_trip_keeps_every_blob_and_meta_row(tmp_path: Path) -> None:
    source = CursorCliStore(tmp_path / "a")
    directory = kitchen_sink_chat(source.chats)
    loaded = source.load(str(directory))
    target = CursorCliStore(tmp_path / "b")
    saved = target.save(loaded)
    assert Path(saved.reference) == target.chats / md5(CWD) / CHAT_ID
    again = target.load(saved.reference)
    assert rows(again) == rows(loaded)
    assert sorted(p.name for p in Path(saved.reference).iterdir()) == sorted(
        p.name for p in directory.iterdir()
    )
    for name in ("meta.json", "prompt_history.json"):
        assert (Path(saved.reference) / name).read_bytes() == (directory / name).read_bytes()
    # A WAL database like the agent's, with nothing left beside it.
    header = (Path(saved.reference) / "store.db").read_bytes()[:20]
    assert (header[18], header[19]) == (2, 2)
    assert H.to_common(again) == H.to_common(loaded)


def test_from_common_writes_what_resume_needs() -> None:
    chat = H.from_common(sample())
    assert chat.bucket == hashlib.md5(b"/repo").hexdigest()
    assert chat.chat_id == "0b7c2f1e-1111-4222-8333-944455556666"
    for blob in chat.blobs:
        assert blob.id == hashlib.sha256(blob.data).hexdigest()
    [row] = chat.meta
    assert row.key == "0"
    meta = decode_meta_value(row.value)
    assert isinstance(row.value, str) and bytes.fromhex(row.value)  # hex-encoded JSON
    assert meta["agentId"] == chat.chat_id
    assert meta["workspacePath"] == "/repo"
    assert meta["lastUsedModel"] == "gpt-5"
    assert meta["name"] == "Cross"
    by_id = {b.id: b for b in chat.blobs}
    root = by_id[meta["latestRootBlobId"]]
    assert root.data[:1] == b"\x0a"
    fields = pb.decode(root.data)
    listed = [v.hex() for n, _, v in fields if n == 1 and isinstance(v, bytes)]
    roles = [json.loads(by_id[i].data)["role"] for i in listed]
    assert roles == ["user", "assistant", "tool", "assistant"]
    turns = [v.hex() for n, _, v in fields if n == 8 and isinstance(v, bytes)]
    assert len(turns) == 1
    steps = [v.hex() for n, _, v in pb.decode(by_id[turns[0]].data) if n == 2]
    kinds = [pb.decode(by_id[s].data)[0][0] for s in steps]
    assert kinds == [graph.STEP_THINKING, graph.STEP_TOOL, graph.STEP_TOOL, graph.STEP_TEXT]
    edit = pb.decode(pb.decode(by_id[steps[1]].data)[0][2])  # type: ignore[arg-type]
    assert (edit[0][0], edit[-1]) == (graph.TOOL_EDIT, (57, 2, b"call-1"))
    user = json.loads(by_id[listed[0]].data)
    assert user == {
        "role": "user",
        "content": [{"type": "text", "text": "<user_query>\nfix the bug\n</user_query>"}],
        "createdAt": 1772355600000,
    }
    tool = json.loads(by_id[listed[2]].data)["content"]
    assert tool[1] == {
        "type": "tool-result",
        "toolCallId": "call-2",
        "toolName": "Shell",
        "result": "1 failed",
        "isError": True,
    }
    assert json.loads(chat.meta_json or b"") == {
        "schemaVersion": 1,
        "title": "Cross",
        "createdAtMs": 1772355600000,
        "updatedAtMs": 1772355600000,
        "hasConversation": True,
    }
    assert json.loads(chat.prompt_history or b"") == ["fix the bug"]
    assert H.to_common(chat) == sample()


def test_saving_over_an_existing_chat_is_refused_without_force(tmp_path: Path) -> None:
    store = CursorCliStore(tmp_path)
    saved = store.save(H.from_common(sample()))
    before = snapshot(Path(saved.reference))
    changed = m.Transcript(meta=sample().meta, messages=sample().messages[:1])
    with pytest.raises(BadInput, match="already exists"):
        store.save(H.from_common(changed))
    assert snapshot(Path(saved.reference)) == before
    store.save(H.from_common(changed), force=True)
    assert len(H.to_common(store.load(saved.reference)).messages) == 1
    [backup] = [b for b in backups.list_backups() if b.operation == "save"]
    backups.restore(backup)
    assert len(H.to_common(store.load(saved.reference)).messages) == 4
    assert not [p for p in Path(saved.reference).parent.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize(
    ("session_id", "cwd", "message"),
    [
        ("../escape", "/repo", "not usable as a file name"),
        ("a/b", "/repo", "not usable as a file name"),
        ("", "/repo", "not usable as a file name"),
        ("--dangerously-skip-permissions", "/repo", "UUID"),
        ("not-a-uuid", "/repo", "UUID"),
        (OK_ID, "relative/dir", "not an absolute path"),
        (OK_ID, "/repo\x1b[31m", "control character"),
        (OK_ID, "/re\npo", "control character"),
    ],
)
def test_hostile_ids_and_cwds_are_refused_before_writing(
    tmp_path: Path, session_id: str, cwd: str | None, message: str
) -> None:
    store = CursorCliStore(tmp_path / "root")
    base = sample(session_id)
    transcript = m.Transcript(
        meta=m.Meta(id=session_id, timestamp=T0, cwd=cwd), messages=base.messages
    )
    with pytest.raises(BadInput, match=message):
        store.save(H.from_common(transcript))
    assert not (tmp_path / "root").exists()


def test_a_chat_with_no_cwd_is_filed_under_the_current_directory(
    tmp_path: Path, workspace: Path
) -> None:
    """It used to be refused ("needs a working directory"), even for ``--out``; now, as the
    agent does for a chat with no workspace path, it goes under the md5 of where it is saved
    from, and its meta keeps no workspace path."""
    store = CursorCliStore(tmp_path / "root")
    transcript = m.Transcript(meta=m.Meta(id=OK_ID, timestamp=T0), messages=sample().messages)
    saved = store.save(H.from_common(transcript))
    assert Path(saved.reference).parent.name == bucket_of(str(workspace))
    assert H.to_common(store.load(saved.reference)).meta.cwd == str(workspace)


def test_a_save_that_fails_half_way_leaves_nothing(tmp_path: Path) -> None:
    store = CursorCliStore(tmp_path / "root")
    chat = H.from_common(sample())
    broken = CursorChat(
        chat_id=chat.chat_id,
        blobs=(*chat.blobs, Blob(chat.blobs[0].id, b"duplicate")),
        meta=chat.meta,
        bucket=chat.bucket,
        meta_json=chat.meta_json,
    )
    with pytest.raises(StoreError, match="UNIQUE"):
        store.save(broken)
    assert not (tmp_path / "root").exists()


def test_delete_backs_up_and_restore_brings_the_chat_back(tmp_path: Path) -> None:
    store = CursorCliStore(tmp_path)
    directory = kitchen_sink_chat(store.chats)
    before = {k: v[0] for k, v in snapshot(directory).items()}
    store.delete(str(directory))
    assert not directory.exists()
    assert store.discover() == []
    [backup] = [b for b in backups.list_backups() if b.operation == "delete"]
    assert backup.session == CHAT_ID
    backups.restore(backup)
    assert {k: v[0] for k, v in snapshot(directory).items()} == before
    with pytest.raises(BadInput):
        store.delete(str(tmp_path / "elsewhere"))
    with pytest.raises(BadInput):
        store.delete(str(store.chats / md5(CWD)))


def test_continue_into_cursor_cli_through_the_cli(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    document = tmp_path / "session.json"
    document.write_text(m.to_json(sample()))
    result = run_cli(
        "continue", str(document), "--with", "cursor_cli", "--no-resume", "--json",
        env={"TXCRIPT_DATA_DIR": str(tmp_path / "data")},
    )  # fmt: skip
    assert result.code == 0, result.stderr
    written = json.loads(result.stdout)
    assert written["harness"] == "cursor"
    assert written["resume_command"] == ["agent", f"--resume={written['id']}"]
    location = Path(written["location"])
    assert location.parent.parent == isolated_home / ".cursor" / "chats"
    listed = run_cli("list", "--from", "cursor", "--json")
    assert [e["id"] for e in json.loads(listed.stdout)] == [written["id"]]
    view = run_cli("export", written["id"], "--format", "common")
    assert view.code == 0, view.stderr
    assert len(json.loads(view.stdout)["messages"]) == 4
    deleted = run_cli("delete", written["id"], "--from", "cursor", "--yes",
                      env={"TXCRIPT_DATA_DIR": str(tmp_path / "data")})  # fmt: skip
    assert deleted.code == 0, deleted.stderr
    assert not location.exists()


def test_saved_chats_are_real_sqlite_with_the_agents_schema(tmp_path: Path) -> None:
    store = CursorCliStore(tmp_path)
    saved = store.save(H.from_common(sample()))
    assert sorted(os.listdir(saved.reference)) == ["meta.json", "prompt_history.json", "store.db"]
    db = Path(saved.reference) / "store.db"
    conn = sqlite3.connect(db.as_uri() + "?mode=ro", uri=True)
    try:
        tables = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
        assert tables == {
            "blobs": "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)",
            "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
        }
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    finally:
        conn.close()
