"""Direct lookup in the Codex store: rollout file names carry the thread id, so an id or id
prefix reads only the rollouts so named, and names what a full discovery names."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from codex_fixtures import BARE_ID, LEGACY_ID, SESSION_ID, bare_text, current_text, legacy_text

from lookup_checks import assert_same_answers
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.codex.store import CodexStore

H = harnesses.get("codex")
T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
ONE = "77770000-1111-4333-8444-555555555551"
TWO = "77770000-2222-4333-8444-555555555552"


def transcript(session_id: str, title: str, minutes: int) -> m.Transcript:
    at = T0 + timedelta(minutes=minutes)
    return m.Transcript(
        meta=m.Meta(id=session_id, timestamp=at, cwd="/repo", title=title),
        messages=(m.Message(role="user", content=(m.Text(text="hello"),), timestamp=at),),
    )


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(root))
    for relative, text in (
        (f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{SESSION_ID}.jsonl", current_text),
        (f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{BARE_ID}.jsonl", bare_text),
        (f"archived_sessions/rollout-2025-04-16-{LEGACY_ID}.json", legacy_text),
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text().encode("utf-8"))
    store = CodexStore(root)
    store.save(H.from_common(transcript(ONE, "first thread", 1)))
    store.save(H.from_common(transcript(TWO, "second thread", 2)))
    return root


def test_ids_and_prefixes_resolve_like_discovery(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    direct = [SESSION_ID, BARE_ID, LEGACY_ID, ONE, TWO, "77770000-1", ONE[:-1], f"{TWO}#1"]
    others = ["7777", "first thread", "second thread#1", "none-such", "rollout-2026"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the fixtures' malformed line
        assert_same_answers(monkeypatch, CodexStore, direct, others)
        assert_same_answers(monkeypatch, CodexStore, direct, others, scope="codex")


def test_lookup_lists_as_discovery_does(root: Path) -> None:
    store = CodexStore(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        listed = {d.meta_id: d for d in store.discover()}
        assert len(listed) == 5
        for session_id, session in listed.items():
            assert store.lookup(session_id) == [session]
        assert [d.meta_id for d in store.lookup("7777")] == [ONE, TWO]
        assert store.lookup("rollout") == []  # a name's date part is not its id
