"""Hostile Cursor CLI stores: one-line errors or a warning with a fallback, never a traceback."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest
from cursor_cli_fixtures import (
    CHAT_ID,
    CWD,
    DONE,
    PROMPT,
    digest,
    encode,
    graph,
    kitchen_sink_chat,
    meta_row,
    meta_value,
    pb_bytes,
    snapshot,
    user_node,
    write_chat,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import StoreUnreadable
from txcript.harnesses.cursor_cli.store import CursorCliStore
from txcript.shared import protobuf as pb

H = harnesses.get("cursor")
TEXTS = ["Why do the tests fail?", "Fixed the port; the tests pass now."]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CursorCliStore:
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    return CursorCliStore(tmp_path / "dot-cursor")


def texts_of(transcript: m.Transcript) -> list[str]:
    return [b.text for msg in transcript.messages for b in msg.content if isinstance(b, m.Text)]


def read_with_warnings(store: CursorCliStore, directory: Path) -> tuple[m.Transcript, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        transcript = H.to_common(store.load(str(directory)))
    return transcript, [str(w.message) for w in caught if issubclass(w.category, TranscriptWarning)]


def chat_with_root(store: CursorCliStore, extra: list[bytes], root: bytes) -> Path:
    """A two-message chat whose meta row names ``root`` (stored only if listed in ``extra``)."""
    messages = [encode(PROMPT), encode(DONE)]
    return write_chat(
        store.chats,
        [*messages, *extra],
        meta_value(meta_row(digest(root), workspacePath=CWD)),
    )


def test_a_truncated_store_db_is_a_one_line_error_and_is_skipped_by_listing(
    store: CursorCliStore, run_cli: RunCli, isolated_home: Path
) -> None:
    directory = kitchen_sink_chat(store.chats)
    db = directory / "store.db"
    db.write_bytes(db.read_bytes()[:1500])
    with pytest.raises(StoreUnreadable, match="truncated") as caught:
        store.load(str(directory))
    assert "\n" not in str(caught.value)
    with pytest.warns(TranscriptWarning, match="skipping the Cursor CLI chat"):
        assert store.discover() == []
    live = kitchen_sink_chat(isolated_home / ".cursor" / "chats")
    (live / "store.db").write_bytes(b"SQLite format 3\x00" + b"\x10\x00" * 20)
    result = run_cli("list", "--from", "cursor")
    assert result.code == 0
    assert "Traceback" not in result.stderr
    assert "txcript: warning: skipping the Cursor CLI chat" in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not a database at all, just text" * 10, "not an SQLite database"),
        (b"", "not a Cursor CLI store"),
    ],
)
def test_a_store_db_that_is_not_the_agents_is_refused(
    store: CursorCliStore, content: bytes, message: str
) -> None:
    directory = kitchen_sink_chat(store.chats)
    (directory / "store.db").write_bytes(content)
    with pytest.raises(StoreUnreadable, match=message):
        store.load(str(directory))


def test_a_blob_whose_id_is_not_its_hash_is_read_with_a_warning(store: CursorCliStore) -> None:
    directory = kitchen_sink_chat(store.chats)
    conn = sqlite3.connect(directory / "store.db")
    with conn:
        conn.execute("UPDATE blobs SET id = ? WHERE data = ?", ("f" * 64, encode(DONE)))
    conn.close()
    transcript, caught = read_with_warnings(store, directory)
    assert any("not the SHA-256 of their data" in w for w in caught)
    # The root no longer finds the renamed message: one warning, then row order.
    assert any("dangling digest" in w for w in caught)
    assert texts_of(transcript)[-1] == "Fixed the port; the tests pass now."


def test_a_graph_with_a_cycle_falls_back_to_row_order(store: CursorCliStore) -> None:
    """A turn that names the root back: the walk stops, warns once, and the chat still reads.

    Real hashes cannot name each other, so the store is written with ids chosen by hand (the
    agent's ids are hashes; a corrupted store need not be).
    """
    messages = [encode(PROMPT), encode(DONE)]
    turn_id, root_id = "a" * 64, "b" * 64
    turn = pb_bytes(2, bytes.fromhex(root_id))
    root = b"".join(pb_bytes(1, bytes.fromhex(digest(b))) for b in messages) + pb_bytes(
        8, bytes.fromhex(turn_id)
    )
    directory = write_chat(store.chats, messages, meta_value(meta_row(root_id, workspacePath=CWD)))
    conn = sqlite3.connect(directory / "store.db")
    with conn:
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (turn_id, turn))
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (root_id, root))
    conn.close()
    transcript, caught = read_with_warnings(store, directory)
    assert [w for w in caught if "cycle" in w], caught
    assert texts_of(transcript) == TEXTS


def test_a_turn_naming_a_missing_node_is_a_dangling_digest(store: CursorCliStore) -> None:
    turn = pb_bytes(1, bytes.fromhex("c" * 64))
    messages = [encode(PROMPT), encode(DONE)]
    root = b"".join(pb_bytes(1, bytes.fromhex(digest(b))) for b in messages)
    root += pb_bytes(8, bytes.fromhex(digest(turn)))
    directory = chat_with_root(store, [turn, root], root)
    transcript, caught = read_with_warnings(store, directory)
    assert [w for w in caught if "is no blob" in w], caught
    assert texts_of(transcript) == TEXTS


def test_a_root_that_points_at_nothing_falls_back_to_row_order(store: CursorCliStore) -> None:
    g = graph([encode(DONE), encode(PROMPT)], [[user_node("x")]])
    directory = chat_with_root(store, [], g.root)  # the root itself is never stored
    transcript, caught = read_with_warnings(store, directory)
    assert [w for w in caught if "names no blob" in w], caught
    assert texts_of(transcript) == TEXTS


@pytest.mark.parametrize(
    "root",
    [b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x0a\x05ab", b"\x0b\x00"],
    ids=["huge-varint", "runs-past-end", "group"],
)
def test_a_root_that_is_not_protobuf_falls_back(store: CursorCliStore, root: bytes) -> None:
    directory = chat_with_root(store, [root], root)
    transcript, caught = read_with_warnings(store, directory)
    assert [w for w in caught if "not protobuf" in w], caught
    assert texts_of(transcript) == TEXTS


def test_the_root_order_is_used_when_it_differs_from_row_order(store: CursorCliStore) -> None:
    """Proof the graph is read: rows hold the answer first, the root lists the prompt first."""
    messages = [encode(DONE), encode(PROMPT)]
    g = graph(list(reversed(messages)), [[user_node("Why do the tests fail?")]])
    directory = write_chat(
        store.chats,
        [*messages, *g.nodes, g.root],
        meta_value(meta_row(g.root_id, workspacePath=CWD)),
    )
    transcript, caught = read_with_warnings(store, directory)
    assert caught == []
    assert texts_of(transcript) == TEXTS


def test_a_meta_row_that_is_not_json_warns_and_uses_the_other_sources(
    store: CursorCliStore,
) -> None:
    directory = write_chat(
        store.chats,
        [encode(PROMPT), encode(DONE)],
        "deadbeef-not json {",
        meta_json={"schemaVersion": 1, "title": "From meta.json", "createdAtMs": 1764583200000},
    )
    before = snapshot(directory)
    transcript, caught = read_with_warnings(store, directory)
    assert [w for w in caught if "meta row is not JSON" in w], caught
    assert transcript.meta.id == CHAT_ID
    assert transcript.meta.title == "From meta.json"
    assert transcript.meta.cwd is None
    assert texts_of(transcript) == TEXTS
    assert snapshot(directory) == before


def test_blobs_that_are_not_messages_are_skipped_with_a_warning(store: CursorCliStore) -> None:
    odd = [b"{not json", encode({"role": "robot", "content": "beep"}), encode([1, 2])]
    directory = write_chat(
        store.chats,
        [encode(PROMPT), *odd, encode(DONE)],
        meta_value(meta_row(None, workspacePath=CWD)),
    )
    transcript, caught = read_with_warnings(store, directory)
    assert texts_of(transcript) == TEXTS
    assert len([w for w in caught if "skipped" in w]) == 2, caught  # a JSON list is no blob


def test_hostile_meta_text_never_reaches_the_terminal_raw(
    run_cli: RunCli, isolated_home: Path
) -> None:
    chats = isolated_home / ".cursor" / "chats"
    write_chat(
        chats,
        [encode(PROMPT), encode(DONE)],
        meta_value(meta_row(None, workspacePath=CWD, name="evil\x1b]0;pwned\x07title")),
    )
    result = run_cli("list", "--from", "cursor")
    assert result.code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "title" in result.stdout


def test_decoder_is_linear_on_long_inputs() -> None:
    """A long run of tiny fields decodes without recursion (no depth to exhaust)."""
    data = pb_bytes(1, b"") * 100_000
    assert len(pb.decode(data)) == 100_000
    assert pb.decode(pb_bytes(3, b"x")) == [(3, pb.LEN, b"x")]
