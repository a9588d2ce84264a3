"""Amp: a legacy local thread read exactly, its non-conversation parts never read as messages,
and writing refused (current Amp never reads a local file)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import amp_fixtures as fx
import pytest

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import Unconvertible
from txcript.harnesses.amp import store as amp_store

AMP = harnesses.get("amp")

EXPECTED: dict[str, Any] = {
    "meta": {
        "id": fx.THREAD_ID,
        "timestamp": "2026-01-01T10:00:00Z",
        "cwd": "/home/dev/acme app",
        "git_branch": "fix/flaky",
        "title": "Fix the flaky test",
        "cli_version": "0.0.1768123456",
        "model": "claude-sonnet-4-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The date test is flaky. Look at it."},
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
                {"type": "thinking", "text": "Read the test first.", "signature": "sig-1"},
                {"type": "text", "text": "Reading it."},
                {
                    "type": "tool_use",
                    "id": "toolu_read",
                    "tool": {
                        "name": "Read",
                        "file_path": "/home/dev/acme app/date.test.ts",
                        "offset": 1,
                        "limit": 40,
                    },
                },
                {
                    "type": "tool_use",
                    "id": "toolu_bash",
                    "tool": {
                        "name": "Bash",
                        "command": "pnpm test date",
                        "workdir": "/home/dev/acme app",
                    },
                },
            ],
            "timestamp": "2026-01-01T10:00:05Z",
            "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 1200,
                "output_tokens": 80,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 150,
            },
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_read",
                    "content": {"content": "it('parses', …)"},
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_bash",
                    "content": "exit 1: expected 2026-01-01",
                    "is_error": True,
                },
            ],
            "timestamp": "2026-01-01T10:00:09Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_edit",
                    "tool": {
                        "name": "Edit",
                        "file_path": "/home/dev/acme app/date.ts",
                        "old_string": "new Date()",
                        "new_string": "fixedNow()",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "toolu_oracle",
                    "tool": {"name": "Raw", "tool_name": "oracle", "input": {"task": "review"}},
                },
            ],
            "timestamp": "2026-01-01T10:00:12Z",
            "model": "claude-sonnet-4-5",
            "stop_reason": "aborted",
            "usage": {"input_tokens": 1400, "output_tokens": 40},
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_edit",
                    "content": "[rejected-by-user]",
                    "is_error": True,
                },
                {"type": "text", "text": "No, keep new Date()."},
            ],
            "timestamp": "2026-01-01T10:00:20Z",
        },
        # still streaming: no stop reason
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Understood"}],
            "timestamp": "2026-01-01T10:00:20Z",
        },
    ],
}


def _load(root: Path) -> m.Transcript:
    store = AMP.store(root)
    assert store is not None
    (found,) = store.discover()
    return AMP.to_common(store.load(found.reference))


def test_a_legacy_thread_with_a_ledger_and_a_debug_copy_reads_exactly(tmp_path: Path) -> None:
    fx.write_store(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        transcript = _load(tmp_path)
    assert json.loads(m.to_json(transcript)) == EXPECTED


def test_the_ledger_and_the_debug_copy_are_never_conversation(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """The debug copy holds the whole last request (system prompt included) and the ledger a
    model name of its own: neither reaches a message, the text view or a search."""
    path = fx.write_store(tmp_path / "amp")
    text = m.to_json(_load(tmp_path / "amp"))
    for planted in (fx.SYSTEM_PROMPT, "DEBUG-COPY-OF-REQUEST", fx.LEDGER_MODEL, "AGENTS.md"):
        assert planted not in text
    env = {"XDG_DATA_HOME": str(tmp_path)}
    viewed = run_cli("view", fx.THREAD_ID, "--from", "amp", env=env)
    assert viewed.code == 0, viewed.stderr
    assert "flaky" in viewed.stdout and fx.SYSTEM_PROMPT not in viewed.stdout
    found = run_cli("query", "SECRET-SYSTEM-PROMPT", "--from", "amp", "--json", env=env)
    assert found.code == 1, found.stderr  # nothing matched: exit 1, as grep does
    assert json.loads(found.stdout) == []
    # the native form is still the document, byte for byte
    native = run_cli("export", fx.THREAD_ID, "--from", "amp", "--format", "native", env=env)
    assert native.stdout.rstrip("\n") == path.read_text().rstrip("\n")


def test_discovery_opens_only_thread_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fx.write_store(tmp_path)
    opened: list[str] = []
    real = amp_store.read_regular

    def spy(path: Any, *, limit: int) -> bytes:
        opened.append(Path(path).name)
        return real(path, limit=limit)

    monkeypatch.setattr(amp_store, "read_regular", spy)
    store = AMP.store(tmp_path)
    assert store is not None
    (found,) = store.discover()
    assert found.meta_id == fx.THREAD_ID and found.cwd == "/home/dev/acme app"
    assert opened == [f"{fx.THREAD_ID}.json"]


def test_an_exported_document_is_recognised_without_from(tmp_path: Path, run_cli: RunCli) -> None:
    """What ``amp threads export <T-id>`` prints is the same document: given as a file, it is
    read as Amp."""
    path = tmp_path / "exported.json"
    path.write_text(fx.thread_text())
    done = run_cli("export", str(path), "--format", "common")
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout) == EXPECTED


def test_unknown_roles_and_blocks_are_counted_in_one_warning() -> None:
    document = fx.legacy_thread()
    document["messages"].append({"role": "robot", "content": []})
    document["messages"][1]["content"].append({"type": "sparkle"})
    document["messages"][1]["content"].append({"type": "sparkle"})
    native = AMP.from_text(fx.thread_text(document))
    with pytest.warns(TranscriptWarning) as said:
        AMP.to_common(native)
    assert [str(w.message) for w in said] == [
        f"Amp thread {fx.THREAD_ID}: skipped what is not conversation txcript knows "
        "(2 block 'sparkle', 1 role 'robot')"
    ]


def test_continuing_into_amp_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    fx.write_store(tmp_path / "amp")
    env = {"XDG_DATA_HOME": str(tmp_path)}
    done = run_cli("continue", fx.THREAD_ID, "--with", "amp", "--no-resume", env=env)
    assert (done.code, done.stderr) == (
        2,
        "txcript: error: cannot convert to amp: writing Amp is not supported yet\n",
    )
    with pytest.raises(Unconvertible):
        AMP.from_common(AMP.to_common(AMP.from_text(fx.thread_text())))
    store = AMP.store(tmp_path / "amp")
    assert store is not None
    with pytest.raises(Unconvertible, match="read-only"):
        store.delete(str(tmp_path / "amp" / "threads" / f"{fx.THREAD_ID}.json"))


def test_a_file_that_is_not_a_thread_is_skipped_with_one_warning(tmp_path: Path) -> None:
    fx.write_store(tmp_path)
    (tmp_path / "threads" / "T-broken.json").write_text('{"id": "T-broken", "messa')
    (tmp_path / "threads" / "T-list.json").write_text("[1, 2]")
    store = AMP.store(tmp_path)
    assert store is not None
    with pytest.warns(TranscriptWarning, match="skipped 2 file"):
        assert [d.meta_id for d in store.discover()] == [fx.THREAD_ID]


def test_the_editor_extension_store_is_read_at_the_default_root(
    isolated_home: Path, tmp_path: Path
) -> None:
    fx.write_store(isolated_home / ".local" / "share" / "amp")
    older = fx.legacy_thread()
    older["id"] = "T-00000000-1111-4222-8333-444444444444"
    extension = isolated_home / ".config" / "Cursor" / "User" / "globalStorage"
    (extension / "sourcegraph.amp" / "threads3").mkdir(parents=True)
    (extension / "sourcegraph.amp" / "threads3" / f"{older['id']}.json").write_text(
        fx.thread_text(older)
    )
    store = AMP.store()
    assert store is not None
    assert sorted(d.meta_id for d in store.discover()) == sorted([fx.THREAD_ID, older["id"]])
    # a store opened at another root reads only that root
    other = AMP.store(isolated_home / ".local" / "share" / "amp-copy")
    assert other is not None and other.discover() == []
