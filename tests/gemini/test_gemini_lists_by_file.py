"""The Gemini store lists by file (:class:`txcript.harnesses.base.ListsByFile`): a chat's
fingerprint covers its file, its project's marker (else the registry), and every chat that may
hold another copy of its session; the chats it names list exactly as a full discovery lists
them, each one alone too, so a copy that loses to another lists nothing."""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest
from gemini_fixtures import (
    LEGACY_ID,
    LOG_ID,
    PROJECT_HASH,
    ROOT_PATH,
    SLUG,
    build_store,
    legacy_document,
    log_text,
    put,
)

from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.base import Discovered, lists_by_file
from txcript.harnesses.gemini.store import GeminiStore


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The fixtures' store (a log, its sub-agent chat, a legacy chat in the slug and the sha256
    directory), plus a chat named otherwise, a log in a project with no marker (its root comes
    from the registry), and a damaged chat."""
    root = tmp_path / ".gemini"
    build_store(root)
    put(root / "tmp" / SLUG / "chats" / "notes.jsonl", log_text())  # a copy of the log
    other = root / "tmp" / "other" / "chats"
    registry = json.loads((root / "projects.json").read_text())
    registry["projects"]["/home/dev/other"] = "other"
    (root / "projects.json").write_text(json.dumps(registry))
    put(
        other / "session-2026-03-01T10-00-aaaabbbb.jsonl",
        log_text().replace(LOG_ID, "aaaabbbb-0000-4000-8000-000000000001"),
    )
    put(root / "tmp" / SLUG / "chats" / "session-2026-03-02T10-00-deadbeef.jsonl", "{not json\n")
    return root


def quietly(call: object, *args: object) -> list[Discovered]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the damaged chat
        found = call(*args)  # type: ignore[operator]
    return sorted(found, key=lambda d: (d.reference, d.meta_id))


def test_the_named_chats_list_as_discovery_does_together_and_one_by_one(root: Path) -> None:
    store = GeminiStore(root)
    assert lists_by_file(store) is store
    files = store.fingerprinted()
    whole = quietly(store.discover)
    assert len(files) == 7
    assert quietly(store.discover_references, list(files)) == whole
    for reference in files:
        alone = [d for d in whole if d.reference == reference]
        assert quietly(store.discover_references, [reference]) == alone, reference
    losers = [r for r in files if not any(d.reference == r for d in whole)]
    assert len(losers) == 3  # the hash dir's legacy copy, the log's copy, the damaged chat
    assert store.fingerprints(files) == files


def _moved(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {Path(r).name for r in before if after.get(r) != before[r]}


def test_a_copy_updated_later_moves_both_copies_and_lists_instead(root: Path) -> None:
    store = GeminiStore(root)
    before = store.fingerprinted()
    hash_copy = root / "tmp" / PROJECT_HASH / "chats" / "session-2025-09-01T08-00-3f2a1b4c.json"
    newer = legacy_document()
    newer["lastUpdated"] = "2030-01-01T00:00:00.000Z"
    hash_copy.write_text(json.dumps(newer))
    after = store.fingerprinted()
    # Both copies bear that name; the chat named otherwise may hold it too.
    assert _moved(before, after) == {hash_copy.name, "notes.jsonl"}
    assert len([r for r in before if after[r] != before[r]]) == 3
    slug_copy = str(root / "tmp" / SLUG / "chats" / hash_copy.name)
    assert quietly(store.discover_references, [slug_copy]) == []
    (listed,) = quietly(store.discover_references, [str(hash_copy)])
    assert listed.meta_id == LEGACY_ID


def test_a_chat_named_otherwise_weighs_against_every_main_chat(root: Path) -> None:
    store = GeminiStore(root)
    before = store.fingerprinted()
    notes = root / "tmp" / SLUG / "chats" / "notes.jsonl"
    later = os.stat(notes).st_mtime + 5
    os.utime(notes, (later, later))
    moved = _moved(before, store.fingerprinted())
    assert "notes.jsonl" in moved and "k3x9q2.json" not in moved  # not the sub-agent chat
    assert {n for n in moved if n.startswith("session-")} == {
        Path(r).name for r in before if Path(r).name.startswith("session-")
    }


def test_the_registry_moves_only_the_chats_of_projects_without_a_marker(root: Path) -> None:
    store = GeminiStore(root)
    before = store.fingerprinted()
    registry = root / "projects.json"
    registry.write_text(registry.read_text() + "\n")
    moved = _moved(before, store.fingerprinted())
    # The hash directory has no marker; "other" has none either; their rivals move with them.
    assert "session-2026-03-01T10-00-aaaabbbb.jsonl" in moved
    assert "k3x9q2.json" not in moved


def test_a_marker_names_the_cwd_and_moves_its_projects_chats(root: Path) -> None:
    store = GeminiStore(root)
    before = store.fingerprinted()
    other = root / "tmp" / "other"
    put(other / ".project_root", "/elsewhere/other")
    after = store.fingerprinted()
    (chat,) = [r for r in before if r.startswith(str(other))]
    assert after[chat] != before[chat]
    assert [d.cwd for d in quietly(store.discover_references, [chat])] == ["/elsewhere/other"]
    assert ROOT_PATH != "/elsewhere/other"


def test_a_chat_gone_since_is_not_listed(root: Path) -> None:
    store = GeminiStore(root)
    files = store.fingerprinted()
    (chat,) = [r for r in files if "aaaabbbb" in r]
    os.unlink(chat)
    assert quietly(store.discover_references, [chat]) == []
    assert store.fingerprints([chat]) == {chat: ""}
