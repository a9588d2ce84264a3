"""Grok: both build generations read exactly, the display log written so Grok sees the copy,
and the prompt-index hazard of the reference implementation closed."""

from __future__ import annotations

import copy
import json
import os
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import grok_fixtures as fx
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreError

GROK = harnesses.get("grok")

#: The newer build's session, as Common (usage and stop reasons from ``turn_completed``).
NEWER: dict[str, Any] = {
    "meta": {
        "id": "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "timestamp": "2026-01-01T10:00:00Z",
        "cwd": "/home/dev/acme app",
        "git_branch": "main",
        "title": "Fix the build",
        "model": "grok-code-fast-1",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Why does the build fail?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                },
            ],
            "timestamp": "2026-01-01T10:00:01Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "text": "Check the build script.",
                    "encrypted": "gAAAA-encrypted",
                },
                {"type": "text", "text": "Let me run it."},
                {
                    "type": "tool_use",
                    "id": "call_sh",
                    "tool": {
                        "name": "Bash",
                        "command": "npm run build",
                        "workdir": "/home/dev/acme app",
                        "timeout_ms": 30000,
                    },
                },
                {
                    "type": "tool_use",
                    "id": "call_rd",
                    "tool": {"name": "Read", "file_path": "/home/dev/acme app/package.json"},
                },
            ],
            "timestamp": "2026-01-01T10:00:02Z",
            "model": "grok-code-fast-1",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_sh",
                    "content": "error TS2304: foo",
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "call_rd", "content": '{"name":"acme"}'},
            ],
            "timestamp": "2026-01-01T10:00:05Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "call_sr",
                    "tool": {
                        "name": "Edit",
                        "file_path": "/home/dev/acme app/src/a.ts",
                        "old_string": "foo",
                        "new_string": "bar",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "call_bad",
                    "tool": {"name": "Raw", "tool_name": "Glob", "input": "{not json"},
                },
            ],
            "timestamp": "2026-01-01T10:00:06Z",
            "model": "grok-code-fast-1",
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_sr", "content": "ok"},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_bad",
                    "content": "bad arguments",
                    "is_error": True,
                },
            ],
            "timestamp": "2026-01-01T10:00:07Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Fixed: `foo` was undefined."}],
            "timestamp": "2026-01-01T10:00:08Z",
            "model": "grok-code-fast-1",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 5400, "output_tokens": 320, "cache_read_input_tokens": 4000},
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "thanks, stop here"}],
            "timestamp": "2026-01-01T10:00:20Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Stopping"}],
            "timestamp": "2026-01-01T10:00:21Z",
            "model": "grok-code-fast-1",
            "stop_reason": "aborted",
            "usage": {"input_tokens": 6000, "output_tokens": 3},
        },
    ],
}


def _older() -> dict[str, Any]:
    """The older build's session: the same conversation, turns matched by order, no usage, and
    the start time taken from the display log (its summary has none)."""
    older = copy.deepcopy(NEWER)
    older["meta"]["id"] = fx.OLDER_ID
    older["meta"]["timestamp"] = "2026-01-01T10:00:01Z"
    for message in older["messages"]:
        message.pop("usage", None)
    return older


def _read(root: Path) -> m.Transcript:
    store = GROK.store(root)
    assert store is not None
    (found,) = store.discover()
    assert found.meta_id == GROK.meta_of(store.load(found.reference)).id
    return GROK.to_common(store.load(found.reference))


def _exact(transcript: m.Transcript) -> Any:
    return json.loads(m.to_json(transcript))


def test_a_newer_build_with_token_usage_reads_exactly(tmp_path: Path) -> None:
    fx.write_newer(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        assert _exact(_read(tmp_path)) == NEWER


def test_an_older_build_without_token_usage_reads_exactly(tmp_path: Path) -> None:
    fx.write_older(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        assert _exact(_read(tmp_path)) == _older()


def test_discovery_lists_what_a_load_gives(tmp_path: Path) -> None:
    fx.write_newer(tmp_path)
    fx.write_older(tmp_path)
    store = GROK.store(tmp_path)
    assert store is not None
    for found in store.discover():
        meta = GROK.meta_of(store.load(found.reference))
        assert (found.meta_id, found.timestamp, found.cwd, found.title, found.model) == (
            meta.id,
            meta.timestamp,
            meta.cwd,
            meta.title,
            meta.model,
        )
        assert found.git_branch == meta.git_branch == "main"


def test_directories_without_a_log_are_not_sessions(tmp_path: Path) -> None:
    fx.write_newer(tmp_path)
    stray = tmp_path / "sessions" / fx.PROJECT / "11111111-2222-4333-8444-555555555555"
    stray.mkdir()
    (stray / "summary.json").write_text('{"info": {"id": "x"}}')
    (tmp_path / "sessions" / fx.PROJECT / "notes.txt").write_text("not a session")
    store = GROK.store(tmp_path)
    assert store is not None
    assert [d.meta_id for d in store.discover()] == [fx.SESSION_ID]
    with pytest.raises(StoreError, match="no Grok session log"):
        store.delete(str(stray))


def test_the_writer_regenerates_both_logs_and_the_summary(tmp_path: Path) -> None:
    """Grok sees a session only through its display log: the copy has one update per block,
    stamped with the message's time, the failure and the stop reason on it."""
    fx.write_newer(tmp_path / "src")
    source = _read(tmp_path / "src")
    store = GROK.store(tmp_path / "dst")
    assert store is not None
    saved = store.save(GROK.from_common(source))
    directory = Path(saved.reference)
    assert directory == tmp_path / "dst" / "sessions" / fx.PROJECT / fx.SESSION_ID
    assert sorted(os.listdir(directory)) == ["chat_history.jsonl", "summary.json", "updates.jsonl"]
    updates = [json.loads(x) for x in (directory / "updates.jsonl").read_text().splitlines()]
    kinds = [u["params"]["update"]["sessionUpdate"] for u in updates]
    assert kinds[:3] == [*["user_message_chunk"] * 2, "agent_thought_chunk"]
    assert kinds.count("turn_completed") == 2
    failed = [
        u["params"]["update"]["toolCallId"]
        for u in updates
        if u["params"]["update"].get("status") == "failed"
    ]
    assert failed == ["call_sh", "call_bad"]
    assert {u["params"]["sessionId"] for u in updates} == {fx.SESSION_ID}
    stops = [
        u["params"]["update"].get("stop_reason")
        for u in updates
        if kinds[updates.index(u)] == "turn_completed"
    ]
    assert stops == ["end_turn", "cancelled"]
    chat = [json.loads(x) for x in (directory / "chat_history.jsonl").read_text().splitlines()]
    assert chat[0] == {
        "content": [
            {"text": "<user_query>\nWhy does the build fail?\n</user_query>", "type": "text"}
        ],
        "prompt_index": 0,
        "type": "user",
    }
    summary = json.loads((directory / "summary.json").read_text())
    assert summary["info"] == {"id": fx.SESSION_ID, "cwd": fx.CWD}
    assert (summary["generated_title"], summary["current_model_id"], summary["head_branch"]) == (
        "Fix the build",
        fx.MODEL,
        "main",
    )
    assert summary["chat_format_version"] == 1
    assert _exact(_read(tmp_path / "dst")) == NEWER


def test_a_session_is_replaced_only_when_forced(tmp_path: Path) -> None:
    fx.write_newer(tmp_path)
    store = GROK.store(tmp_path)
    assert store is not None
    native = GROK.from_common(_read(tmp_path))
    before = (Path(store.discover()[0].reference) / "updates.jsonl").read_bytes()
    with pytest.raises(BadInput, match="already holds"):
        store.save(native)
    assert (Path(store.discover()[0].reference) / "updates.jsonl").read_bytes() == before
    saved = store.save(native, force=True)
    assert sorted(os.listdir(Path(saved.reference).parent)) == [
        fx.SESSION_ID,
        "prompt_history.jsonl",
    ]
    assert _exact(_read(tmp_path)) == NEWER


def _hostile_line(index: int, *, inner: bool = True) -> str:
    update: dict[str, Any] = {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": "x"},
    }
    meta: dict[str, Any] = {"agentTimestampMs": 1767261601000}
    (update if inner else meta)["_meta" if inner else "promptIndex"] = (
        {"promptIndex": index} if inner else index
    )
    line = {
        "timestamp": 1767261601,
        "method": "session/update",
        "params": {"sessionId": fx.SESSION_ID, "update": update, "_meta": meta},
    }
    return json.dumps(line) + "\n"


@pytest.mark.parametrize("inner", [True, False], ids=["in-update", "beside-update"])
@pytest.mark.parametrize("index", [10**12, 2**64 - 1, 2**63, -1])
def test_a_huge_prompt_index_counts_as_absent(tmp_path: Path, index: int, inner: bool) -> None:
    """Regression (the reference's OOM): one update naming prompt 10^12 made a reader size a
    vector from it. Here an index only names a turn, and one out of range names none: a
    directory holding just that line loads, with nothing allocated for it and an empty
    conversation; in a whole session such indexes leave the turns matched by order."""
    directory = tmp_path / "sessions" / fx.PROJECT / fx.SESSION_ID
    directory.mkdir(parents=True)
    (directory / "updates.jsonl").write_text(_hostile_line(index, inner=inner))
    store = GROK.store(tmp_path)
    assert store is not None
    native = store.load(str(directory))
    tracemalloc.start()
    try:
        transcript = GROK.to_common(native)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert transcript.messages == ()
    assert peak < 8 << 20
    fx.write_newer(tmp_path / "whole")
    whole = next((tmp_path / "whole" / "sessions" / fx.PROJECT).iterdir())
    text = (whole / "updates.jsonl").read_text()
    assert '"promptIndex":0' in text
    (whole / "updates.jsonl").write_text(text.replace('"promptIndex":0', f'"promptIndex":{index}'))
    assert len(_read(tmp_path / "whole").messages) == len(NEWER["messages"])


def test_delete_refuses_what_is_not_a_session_of_the_store(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / fx.SESSION_ID
    outside.mkdir(parents=True)
    (outside / "updates.jsonl").write_text(_hostile_line(0))
    root = tmp_path / "grok"
    fx.write_newer(root)
    store = GROK.store(root)
    assert store is not None
    with pytest.raises(BadInput):
        store.delete(str(outside))
    link = root / "sessions" / fx.PROJECT / "22222222-3333-4444-8555-666666666666"
    link.symlink_to(outside, target_is_directory=True)
    with pytest.raises(StoreError, match="symbolic link"):
        store.delete(str(link))
    assert (outside / "updates.jsonl").exists()
    assert [d.meta_id for d in store.discover()] == [fx.SESSION_ID]


def test_delete_backs_the_directory_up_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    fx.write_newer(tmp_path / "grok")
    store = GROK.store(tmp_path / "grok")
    assert store is not None
    (found,) = store.discover()
    store.delete(found.reference)
    assert store.discover() == []
    assert list((tmp_path / "data").rglob("updates.jsonl"))


def test_text_holding_unicode_line_separators_stays_one_line(tmp_path: Path) -> None:
    """Regression (found by the fixpoint property): the logs were split with ``splitlines``,
    which also breaks at U+0085, U+2028 and the other Unicode separators that JSON writes raw,
    so a prompt holding one lost its line and the message."""
    text = "one\u2028two\x85three\u2029four\x1cfive"
    when = m.Message(
        role="user", content=(m.Text(text),), timestamp=m.Meta(id="", timestamp=_t()).timestamp
    )
    meta = m.Meta(id=fx.SESSION_ID, timestamp=_t(), cwd=fx.CWD)
    transcript = m.Transcript(meta=meta, messages=(when,))
    store = GROK.store(tmp_path)
    assert store is not None
    saved = store.save(GROK.from_common(transcript))
    assert GROK.to_common(store.load(saved.reference)) == transcript


def _t() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 1, 1, tzinfo=UTC)
