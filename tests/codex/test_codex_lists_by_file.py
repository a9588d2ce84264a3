"""The Codex store lists by file (:class:`txcript.harnesses.base.ListsByFile`): each rollout's
fingerprint covers what its listing reads (the rollout and ``session_index.jsonl``), and the
rollouts it names list exactly as a full discovery lists them, on every format generation."""

from __future__ import annotations

import json
import os
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
import zstandard
from codex_fixtures import BARE_ID, LEGACY_ID, SESSION_ID, bare_text, current_text, legacy_text
from test_codex_2026 import SID, chat_document, rollout_2026

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.base import Discovered, lists_by_file
from txcript.harnesses.codex.store import CodexStore

H = harnesses.get("codex")
T0 = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
NAMED = "88880000-1111-4333-8444-555555555551"
ZST = "88880000-2222-4333-8444-555555555552"


def put(root: Path, relative: str, data: bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def jsonl(records: list[object]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def sample(session_id: str, title: str | None) -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(id=session_id, timestamp=T0, cwd="/repo", title=title),
        messages=(m.Message(role="user", content=(m.Text(text="hello"),), timestamp=T0),),
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Every generation: current, bare and 2026 rollouts, both legacy documents, a compressed
    rollout, a compressed twin of a plain one, a named thread, and a stranger file."""
    root = tmp_path / "codex-home"
    put(
        root,
        f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{SESSION_ID}.jsonl",
        current_text().encode(),
    )
    bare = f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{BARE_ID}.jsonl"
    put(root, bare, bare_text().encode())
    put(root, bare + ".zst", zstandard.ZstdCompressor().compress(bare_text().encode()))
    put(root, f"archived_sessions/rollout-2025-04-16-{LEGACY_ID}.json", legacy_text().encode())
    put(root, f"sessions/2026/03/02/rollout-2026-03-02T08-15-00-{SID}.jsonl", jsonl(rollout_2026()))
    put(
        root,
        f"archived_sessions/rollout-2025-05-01-{SID}.json",
        json.dumps(chat_document()).encode(),
    )
    compressed = H.to_text(H.from_common(sample(ZST, None))).encode()
    put(
        root,
        f"sessions/2026/03/04/rollout-2026-03-04T05-06-07-{ZST}.jsonl.zst",
        zstandard.ZstdCompressor().compress(compressed),
    )
    put(root, "sessions/2026/03/04/rollout-2026-03-04T00-00-00-stranger.jsonl", b'{"a": 1}\n')
    CodexStore(root).save(H.from_common(sample(NAMED, "a named thread")))
    return root


def by_reference(found: list[Discovered]) -> list[Discovered]:
    return sorted(found, key=lambda d: d.reference)


def test_the_named_rollouts_list_as_discovery_does(root: Path) -> None:
    store = CodexStore(root)
    assert lists_by_file(store) is store
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the fixtures' malformed line
        files = store.fingerprinted()
        whole = store.discover()
        named = store.discover_references(files)
    assert len(whole) == 7
    assert all(files[d.reference] for d in whole)
    assert by_reference(named) == by_reference(whole)
    assert {d.title for d in whole if d.meta_id == NAMED} == {"a named thread"}
    # A compressed twin of a plain rollout is not looked at; a stranger file is, and lists nothing.
    assert not [r for r in files if r.endswith(f"{BARE_ID}.jsonl.zst")]
    assert [r for r in files if r.endswith("stranger.jsonl")]


def test_the_fingerprint_is_the_one_reading_takes(root: Path) -> None:
    store = CodexStore(root)
    files = store.fingerprinted()
    assert store.fingerprints(files) == files


def test_a_rename_in_the_index_moves_every_fingerprint(root: Path) -> None:
    store = CodexStore(root)
    before = store.fingerprinted()
    index = root / "session_index.jsonl"
    with index.open("a") as handle:
        handle.write(json.dumps({"id": SESSION_ID, "thread_name": "renamed"}) + "\n")
    after = store.fingerprinted()
    assert before.keys() == after.keys()
    assert all(after[r] != before[r] for r in before)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        (listed,) = [d for d in store.discover_references(after) if d.meta_id == SESSION_ID]
    assert listed.title == "renamed"


def test_an_index_that_appears_or_goes_moves_the_fingerprints(root: Path) -> None:
    store = CodexStore(root)
    index = root / "session_index.jsonl"
    held = store.fingerprinted()
    data = index.read_bytes()
    index.unlink()
    gone = store.fingerprinted()
    assert all(gone[r] != held[r] and gone[r] for r in held)
    index.write_bytes(data)
    assert all(v != gone[r] for r, v in store.fingerprinted().items())


def test_a_rollout_touched_moves_only_its_own_fingerprint(root: Path) -> None:
    store = CodexStore(root)
    before = store.fingerprinted()
    path = next(r for r in before if r.endswith(f"{SESSION_ID}.jsonl"))
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    after = store.fingerprinted()
    assert [r for r in before if after[r] != before[r]] == [path]


def test_references_gone_or_shadowed_since_are_not_listed(root: Path) -> None:
    store = CodexStore(root)
    files = store.fingerprinted()
    compressed = next(r for r in files if r.endswith(f"{ZST}.jsonl.zst"))
    plain = Path(compressed[: -len(".zst")])
    plain.write_text(H.to_text(H.from_common(sample(ZST, None))))  # its plain twin wins now
    gone = next(r for r in files if r.endswith(f"{BARE_ID}.jsonl"))
    os.unlink(gone)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert store.discover_references([compressed, gone]) == []
    assert not said
    assert [d.reference for d in store.discover_references([str(plain)])] == [str(plain)]
