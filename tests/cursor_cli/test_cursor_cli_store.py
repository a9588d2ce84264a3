"""Reading real Cursor CLI chat directories: exact Common output, and the directory untouched."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import warnings
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest
from cursor_cli_fixtures import (
    CALLS,
    CHAT_ID,
    CONTEXT,
    CREATED_MS,
    CWD,
    DONE,
    IMAGE,
    PATCH,
    PROMPT,
    RESULTS,
    SYSTEM,
    encode,
    graph,
    kitchen_sink_chat,
    md5,
    meta_row,
    meta_value,
    snapshot,
    text_step,
    user_node,
    write_chat,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.errors import BadInput
from txcript.harnesses.cursor_cli.store import CursorCliStore
from txcript.shared.timeutil import from_epoch_ms

H = harnesses.get("cursor")
START = from_epoch_ms(CREATED_MS)


def ms(offset: int) -> object:
    return START + timedelta(milliseconds=offset)


@pytest.fixture
def store(tmp_path: Path) -> CursorCliStore:
    return CursorCliStore(tmp_path / "dot-cursor")


def kitchen_sink_messages() -> tuple[m.Message, ...]:
    model = "claude-4.5-sonnet"
    return (
        m.Message(
            role="user",
            content=(
                m.Text(text="Why do the tests fail?"),
                m.Image(source=m.ImageSource(type="base64", media_type="image/png", data=IMAGE)),
            ),
            timestamp=ms(1000),
        ),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="Run the tests first.", signature="sig-1"),
                m.Text(text="Running the tests and reading the config."),
                m.ToolUse(
                    id="call-1", tool=m.Bash(command="npm test", workdir=CWD, timeout_ms=120000)
                ),
                m.ToolUse(
                    id="call-2", tool=m.Read(file_path=f"{CWD}/config.yaml", offset=1, limit=50)
                ),
            ),
            timestamp=ms(2000),
            model=model,
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="call-2", content="port: 80"),
                m.ToolResult(tool_use_id="call-1", content="1 failing", is_error=True),
            ),
            timestamp=ms(2000),
        ),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="", encrypted="opaque-redacted=="),
                m.ToolUse(
                    id="call-3",
                    tool=m.Edit(
                        file_path=f"{CWD}/config.yaml",
                        old_string="port: 80",
                        new_string="port: 8080",
                    ),
                ),
                m.ToolUse(id="call-4", tool=m.Raw(tool_name="ApplyPatch", input=PATCH)),
                m.ToolUse(
                    id="call-5",
                    tool=m.Raw(
                        tool_name="Glob", input={"glob_pattern": "*.ts", "target_directory": CWD}
                    ),
                ),
            ),
            timestamp=ms(3000),
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="call-3", content="ok"),
                m.ToolResult(tool_use_id="call-4", content="done"),
                m.ToolResult(tool_use_id="call-5", content=["a.ts"]),
            ),
            timestamp=ms(3000),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="Fixed the port; the tests pass now."),),
            timestamp=ms(3000),
            model=model,
        ),
    )


def load_quietly(store: CursorCliStore, directory: Path) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return H.to_common(store.load(str(directory)))


def assert_discovery_matches(store: CursorCliStore, transcript: m.Transcript) -> None:
    found = store.discover()
    assert len(found) == 1
    d = found[0]
    meta = transcript.meta
    assert (d.meta_id, d.timestamp, d.title, d.cwd, d.model, d.git_branch) == (
        meta.id,
        meta.timestamp,
        meta.title,
        meta.cwd,
        meta.model,
        meta.git_branch,
    )


@pytest.mark.parametrize("hex_meta", [True, False], ids=["hex-meta", "plain-meta"])
def test_kitchen_sink_chat_gives_exactly_the_expected_common(
    store: CursorCliStore, hex_meta: bool
) -> None:
    directory = kitchen_sink_chat(store.chats, hex_meta=hex_meta)
    before = snapshot(directory)
    transcript = load_quietly(store, directory)
    assert transcript == m.Transcript(
        meta=m.Meta(
            id=CHAT_ID,
            timestamp=START,
            cwd=CWD,
            title="Fix the tests (renamed)",
            model="claude-4.5-sonnet",
        ),
        messages=kitchen_sink_messages(),
    )
    assert_discovery_matches(store, transcript)
    assert snapshot(directory) == before
    assert sorted(p.name for p in directory.iterdir()) == [
        "meta.json",
        "prompt_history.json",
        "store.db",
    ]


def test_without_meta_json_the_title_is_the_meta_rows_name(store: CursorCliStore) -> None:
    directory = kitchen_sink_chat(store.chats, hex_meta=False, with_meta_json=False)
    before = snapshot(directory)
    transcript = load_quietly(store, directory)
    assert transcript.meta.title == "Fix the failing tests"
    assert transcript.messages == kitchen_sink_messages()
    assert_discovery_matches(store, transcript)
    assert snapshot(directory) == before


def test_early_build_meta_takes_cwd_from_the_injected_context(store: CursorCliStore) -> None:
    """No workspacePath, lastUsedModel or createdAt in the row, no meta.json, no graph."""
    blobs = [encode(v) for v in (SYSTEM, CONTEXT, PROMPT, CALLS, RESULTS, DONE)]
    row = {"agentId": CHAT_ID, "name": "", "mode": "auto-run"}
    directory = write_chat(store.chats, blobs, meta_value(row))
    before = snapshot(directory)
    transcript = load_quietly(store, directory)
    assert transcript.meta == m.Meta(
        id=CHAT_ID,
        timestamp=ms(1000),
        cwd=CWD,
        title="Why do the tests fail?",
        model="claude-4.5-sonnet",
    )
    assert [msg.role for msg in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert_discovery_matches(store, transcript)
    assert snapshot(directory) == before


def test_unwrapped_prompts_and_a_bucket_matching_the_current_directory(
    store: CursorCliStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Early builds write no ``<user_query>`` wrapper; cwd then comes from the bucket's md5."""
    workspace = tmp_path / "work" / "acme"
    (workspace / "src").mkdir(parents=True)
    monkeypatch.chdir(workspace / "src")
    prompt = {"role": "user", "content": [{"type": "text", "text": "list the files"}]}
    answer = {"id": "a", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}
    row = {"agentId": CHAT_ID, "name": "Files", "createdAt": CREATED_MS}
    directory = write_chat(
        store.chats, [encode(prompt), encode(answer)], meta_value(row), bucket=md5(str(workspace))
    )
    transcript = load_quietly(store, directory)
    assert transcript.meta.cwd == str(workspace)
    assert transcript.messages[0].content == (m.Text(text="list the files"),)
    assert [msg.timestamp for msg in transcript.messages] == [START, START]
    assert_discovery_matches(store, transcript)


def test_the_newest_root_only_in_the_wal_is_read_and_nothing_changes(
    store: CursorCliStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's newest commit (turn 2 and the root naming it) exists only in ``-wal``.

    Opening ``store.db`` alone (or ``immutable=1``) would show turn 1 only; the read must see
    both turns, and leave the chat directory exactly as it was: no ``-shm``, same bytes, same
    mtimes.
    """
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    first = [encode(v) for v in (PROMPT, DONE)]
    g1 = graph(first, [[user_node("Why do the tests fail?"), text_step("Fixed")]])
    again = {
        "role": "user",
        "content": [{"type": "text", "text": "<user_query>\nthanks\n</user_query>"}],
    }
    reply = {"id": "msg-a9", "role": "assistant", "content": [{"type": "text", "text": "Welcome."}]}
    second = [*first, encode(again), encode(reply)]
    g2 = graph(second, [[user_node("Why do the tests fail?")], [user_node("thanks")]])
    directory = write_chat(
        store.chats,
        [*first, *g1.nodes, g1.root],
        meta_value(meta_row(g1.root_id, workspacePath=CWD)),
        wal_blobs=[encode(again), encode(reply), *g2.nodes, g2.root],
        wal_meta=meta_value(meta_row(g2.root_id, workspacePath=CWD)),
    )
    assert sorted(p.name for p in directory.iterdir()) == ["store.db", "store.db-wal"]
    # The fixture is what it claims: the main file alone names the older root.
    uri = (directory / "store.db").as_uri() + "?immutable=1"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        [(value,)] = conn.execute("SELECT value FROM meta WHERE key = '0'").fetchall()
    assert json.loads(bytes.fromhex(value))["latestRootBlobId"] == g1.root_id
    before = snapshot(directory)
    transcript = load_quietly(store, directory)
    prompt, done = kitchen_sink_messages()[0], kitchen_sink_messages()[-1]
    assert transcript == m.Transcript(
        meta=m.Meta(
            id=CHAT_ID,
            timestamp=START,
            cwd=CWD,
            title="Fix the failing tests",
            model="claude-4.5-sonnet",
        ),
        messages=(
            prompt,
            msgspec.structs.replace(done, timestamp=ms(1000)),
            m.Message(role="user", content=(m.Text(text="thanks"),), timestamp=ms(1000)),
            m.Message(role="assistant", content=(m.Text(text="Welcome."),), timestamp=ms(1000)),
        ),
    )
    assert_discovery_matches(store, transcript)
    assert snapshot(directory) == before
    assert sorted(p.name for p in directory.iterdir()) == ["store.db", "store.db-wal"]
    assert not any((tmp_path / "cache").rglob("store.db*")), "the private snapshot is removed"


def test_a_repeated_identical_prompt_is_one_blob_listed_twice_by_the_root(
    store: CursorCliStore,
) -> None:
    """Content addressing stores two identical messages once; only the root keeps both."""
    yes = encode(
        {"role": "user", "content": [{"type": "text", "text": "<user_query>\nyes\n</user_query>"}]}
    )
    a1 = encode({"id": "1", "role": "assistant", "content": [{"type": "text", "text": "Sure?"}]})
    a2 = encode({"id": "2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    g = graph([yes, a1, yes, a2], [[user_node("yes")], [user_node("yes")]])
    directory = write_chat(
        store.chats,
        [yes, a1, a2, *g.nodes, g.root],
        meta_value(meta_row(g.root_id, workspacePath=CWD)),
    )
    transcript = load_quietly(store, directory)
    texts = [b.text for msg in transcript.messages for b in msg.content if isinstance(b, m.Text)]
    assert texts == ["yes", "Sure?", "yes", "Done."]


def test_listing_never_reads_the_blobs_when_the_head_decides(
    store: CursorCliStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    kitchen_sink_chat(store.chats)
    from txcript.harnesses.cursor_cli import codec

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("discovery parsed the messages")

    monkeypatch.setattr(codec, "to_common", refuse)
    found = store.discover()
    assert [d.title for d in found] == ["Fix the tests (renamed)"]


def test_a_chat_directory_without_store_db_or_hidden_is_not_listed(store: CursorCliStore) -> None:
    kitchen_sink_chat(store.chats)
    (store.chats / md5(CWD) / "not-a-chat").mkdir()
    (store.chats / md5(CWD) / ".txcript-partial").mkdir()
    (store.chats / md5(CWD) / ".txcript-partial" / "store.db").write_bytes(b"")
    assert len(store.discover()) == 1
    assert CursorCliStore(store.root / "missing").discover() == []


def test_the_default_root_and_the_chats_override(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert H.default_root() == isolated_home / ".cursor"
    default = H.store()
    assert isinstance(default, CursorCliStore)
    assert default.chats == isolated_home / ".cursor" / "chats"
    monkeypatch.setenv("CURSOR_CHATS_DIR", str(tmp_path / "elsewhere"))
    moved = H.store()
    assert isinstance(moved, CursorCliStore)
    assert moved.chats == tmp_path / "elsewhere"
    assert H.resume_command(CHAT_ID) == ["agent", f"--resume={CHAT_ID}"]
    monkeypatch.setenv("TRANSCRIPT_CURSOR_RESUME_CMD", "cursor-agent --resume {id}")
    assert H.resume_command(CHAT_ID) == ["cursor-agent", "--resume", CHAT_ID]
    with pytest.raises(BadInput, match="UUID"):
        H.resume_command("--dangerously-skip-permissions")


def test_list_shows_the_chat_through_the_cli(run_cli: RunCli, isolated_home: Path) -> None:
    kitchen_sink_chat(isolated_home / ".cursor" / "chats")
    result = run_cli("list", "--from", "cursor_cli", "--json")
    assert result.code == 0, result.stderr
    [entry] = json.loads(result.stdout)
    assert (entry["harness"], entry["id"], entry["cwd"]) == ("cursor", CHAT_ID, CWD)
