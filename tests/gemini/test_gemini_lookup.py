"""Direct lookup in the Gemini store: a main chat is named after its id's first 8 characters and
a sub-agent chat after its id, so an id or id prefix reads only the chats so named (plus any
chat named otherwise), and names what a full discovery names."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from gemini_fixtures import (
    LEGACY_ID,
    LOG_ID,
    SLUG,
    SUBAGENT_ID,
    build_store,
    legacy_document,
    put,
)

from lookup_checks import assert_same_answers
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.gemini.store import GeminiStore

#: Shares its first 8 characters with LOG_ID: one name head, two sessions.
SAME_HEAD = LOG_ID[:8] + "-0000-4000-8000-000000000001"
#: A chat whose file name says nothing about its id.
ODD_NAME_ID = "0dd0dd00-1111-4222-8333-444444444444"


def chat(session_id: str, title: str, started: str) -> str:
    document = legacy_document()
    document.update(sessionId=session_id, startTime=started, lastUpdated=started)
    document["messages"] = [
        {"id": "u1", "timestamp": started, "type": "user", "content": title},
        {"id": "g1", "timestamp": started, "type": "gemini", "content": "ok", "model": "m"},
    ]
    return json.dumps(document, indent=2)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / ".gemini"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    build_store(root)
    chats = root / "tmp" / SLUG / "chats"
    put(
        chats / f"session-2026-03-01T10-00-{SAME_HEAD[:8]}.json",
        chat(SAME_HEAD, "same head", "2026-03-01T10:00:00.000Z"),
    )
    put(chats / "renamed-by-hand.json", chat(ODD_NAME_ID, "odd name", "2026-03-02T10:00:00.000Z"))
    # Discovery warns about this one; a lookup of another id never reads it.
    put(chats / f"session-2026-03-03T10-00-{'9' * 8}.jsonl", "not json\n")
    return root


def test_lookup_lists_each_id_as_discovery_does(root: Path) -> None:
    store = GeminiStore(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        listed = store.discover()
        assert {d.meta_id for d in listed} >= {LOG_ID, LEGACY_ID, SUBAGENT_ID, SAME_HEAD}
        for session in listed:
            same = [d for d in listed if d.meta_id == session.meta_id]
            assert store.lookup(session.meta_id) == same
        assert sorted(d.meta_id for d in store.lookup(LOG_ID[:8])) == sorted([LOG_ID, SAME_HEAD])
        assert store.lookup("session-2026") == []  # a name's date part is not an id
        assert store.lookup("../") == []


def test_the_legacy_chat_in_two_project_dirs_is_one_session_by_lookup_too(root: Path) -> None:
    store = GeminiStore(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        (found,) = store.lookup(LEGACY_ID)
        (listed,) = [d for d in store.discover() if d.meta_id == LEGACY_ID]
    assert found == listed


def test_a_lookup_reads_only_the_files_its_name_allows(root: Path) -> None:
    store = GeminiStore(root)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert [d.meta_id for d in store.lookup(ODD_NAME_ID)] == [ODD_NAME_ID]
        assert [d.meta_id for d in store.lookup(SUBAGENT_ID)] == [SUBAGENT_ID]
    assert [str(w.message) for w in seen] == []  # the unreadable chat was never opened
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        store.discover()
    assert any("9999" in str(w.message) for w in seen)


def test_ids_and_prefixes_resolve_like_discovery(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    direct = [LOG_ID, LEGACY_ID, SAME_HEAD, ODD_NAME_ID, LOG_ID[:10], "0dd0", f"{LEGACY_ID}#1"]
    others = [LOG_ID[:8], "odd name", "nothing-like-it", "zzzz#1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        assert_same_answers(monkeypatch, GeminiStore, direct, others)
        assert_same_answers(monkeypatch, GeminiStore, direct, others, scope="gemini")
