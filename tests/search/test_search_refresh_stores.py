"""A warm query lists and reads only what changed in every store of files, not only Claude
Code's: each store's fingerprints cover what its listing reads (Codex's thread names in
``session_index.jsonl``, Cursor CLI's database, WAL and side files, Gemini's duplicate copies and
project registry), so a change there lists again exactly the sessions it may change."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from searchfixtures import ONE, THREE, TWO, Counted, transcript
from searchfixtures import ids as _ids

from txcript import harnesses
from txcript.search import find


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _titles() -> dict[str, str | None]:
    return {m.session.meta_id: m.session.title for m in find("", limit=100)}


def _save(harness_id: str, root: Path, item: Any) -> Path:
    harness = harnesses.get(harness_id)
    store = harness.store(root)
    assert store is not None
    return Path(store.save(harness.from_common(item), force=True).reference)


def _three_sessions(
    harness_id: str, root: Path, store_class: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, Path, Counted]:
    """Two sessions saved, queried (both listed and read), queried again (nothing), then a
    third saved and queried (only it listed and read): each store's opening steps."""
    one = _save(harness_id, root, transcript(ONE, [("user", "alpha")], day=0))
    two = _save(harness_id, root, transcript(TWO, [("user", "beta")], day=1))
    counted = Counted(monkeypatch, store_class)

    assert _ids() == [TWO, ONE]
    assert counted.take() == ([ONE, TWO], [sorted([str(one), str(two)])])
    assert _ids("beta") == [TWO]
    assert counted.take() == ([], [])  # nothing changed: nothing listed, nothing read

    three = _save(harness_id, root, transcript(THREE, [("user", "gamma")], day=2))
    assert _ids("gamma") == [THREE]
    assert counted.take() == ([THREE], [[str(three)]])
    return one, two, three, counted


# ------------------------------------------------------------------------------------ Codex


def test_a_warm_query_lists_and_reads_only_the_codex_rollouts_that_changed(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.harnesses.codex.store import CodexStore

    root = stores / "codex"
    one, _two, _three, counted = _three_sessions("codex", root, CodexStore, monkeypatch)

    with one.open("a") as handle:  # an appended message moves size and mtime
        said = [x for x in one.read_text().splitlines() if '"response_item"' in x and "alpha" in x]
        handle.write(said[-1].replace("alpha", "delta") + "\n")
    assert _ids("delta") == [ONE]
    assert counted.take() == ([ONE], [[str(one)]])

    one.unlink()
    assert _ids() == [THREE, TWO]
    assert counted.take() == ([], [])  # a gone rollout is pruned without listing anything


def test_a_thread_renamed_in_the_codex_index_is_listed_again_with_its_name(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.harnesses.codex.store import CodexStore

    root = stores / "codex"
    one = _save("codex", root, transcript(ONE, [("user", "alpha")], title="first", day=0))
    two = _save("codex", root, transcript(TWO, [("user", "beta")], day=1))
    assert _titles() == {ONE: "first", TWO: "beta"}
    counted = Counted(monkeypatch, CodexStore)
    assert _titles() == {ONE: "first", TWO: "beta"}
    assert counted.take() == ([], [])

    with (root / "session_index.jsonl").open("a") as handle:  # Codex renames by appending
        handle.write(json.dumps({"id": TWO, "thread_name": "renamed"}) + "\n")
    assert _titles() == {ONE: "first", TWO: "renamed"}
    # Any rename may name any rollout's thread: every rollout is listed (and read) again once.
    assert counted.take() == ([ONE, TWO], [sorted([str(one), str(two)])])
    assert [m.session.meta_id for m in find("renamed", limit=10)] == [TWO]
    assert counted.take() == ([], [])

    (root / "session_index.jsonl").unlink()  # the names go: the derived titles come back
    assert _titles() == {ONE: "alpha", TWO: "beta"}


# ------------------------------------------------------------------------------- Cursor CLI


def test_a_warm_query_lists_and_reads_only_the_cursor_cli_chats_that_changed(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.harnesses.cursor_cli.store import CursorCliStore

    chats = stores / "cursor-chats"
    monkeypatch.setenv("CURSOR_CHATS_DIR", str(chats))
    one, two, _three, counted = _three_sessions("cursor_cli", chats, CursorCliStore, monkeypatch)

    # A chat written again (the agent appends to store.db and its WAL) is listed and read again.
    _save("cursor_cli", chats, transcript(ONE, [("user", "alpha"), ("assistant", "delta")]))
    assert _ids("delta") == [ONE]
    assert counted.take() == ([ONE], [[str(one)]])

    meta = two / "meta.json"  # a rename through meta.json alone
    document = json.loads(meta.read_text())
    meta.write_text(json.dumps({**document, "title": "renamed"}))
    assert _titles()[TWO] == "renamed"
    assert counted.take() == ([TWO], [[str(two)]])

    for name in os.listdir(one):
        os.unlink(one / name)
    one.rmdir()
    assert _ids() == [THREE, TWO]
    assert counted.take() == ([], [])  # a gone chat is pruned without listing anything


# ----------------------------------------------------------------------------------- Gemini


@pytest.fixture
def gemini(stores: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(stores / "gemini-home"))
    return stores / "gemini-home" / ".gemini"


def test_a_warm_query_lists_and_reads_only_the_gemini_chats_that_changed(
    gemini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.harnesses.gemini.store import GeminiStore

    one, _two, _three, counted = _three_sessions("gemini", gemini, GeminiStore, monkeypatch)

    again = _save("gemini", gemini, transcript(ONE, [("user", "alpha"), ("assistant", "delta")]))
    assert again == one  # replaced in place
    assert _ids("delta") == [ONE]
    assert counted.take() == ([ONE], [[str(one)]])

    one.unlink()
    assert _ids() == [THREE, TWO]
    assert counted.take() == ([], [])  # a gone chat is pruned without listing anything


def test_a_second_copy_of_a_gemini_chat_is_weighed_and_never_listed_twice(
    gemini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini once kept a project's chats under the sha256 of its root, and a chat can sit in
    both directories: discovery lists the copy in the slug directory, and so does the index."""
    import hashlib

    from txcript.harnesses.gemini.store import GeminiStore

    one = _save("gemini", gemini, transcript(ONE, [("user", "alpha")], day=0))
    _save("gemini", gemini, transcript(TWO, [("user", "beta")], day=1))
    assert _ids() == [TWO, ONE]
    counted = Counted(monkeypatch, GeminiStore)

    hashed = gemini / "tmp" / hashlib.sha256(b"/work/acme").hexdigest() / "chats" / one.name
    hashed.parent.mkdir(parents=True)
    hashed.write_bytes(one.read_bytes())
    references = {m.session.meta_id: m.session.reference for m in find("", limit=10)}
    assert references == {ONE: str(one), TWO: references[TWO]}
    # The original's rivals moved, so it is listed (and read) again once, with the copy.
    assert counted.take() == ([ONE], [sorted([str(one), str(hashed)])])
    assert _ids("alpha") == [ONE]
    # The losing copy lists nothing: it is held as such, not weighed again on every query.
    assert counted.take() == ([], [])

    one.unlink()  # now the copy is the one discovery lists
    references = {m.session.meta_id: m.session.reference for m in find("", limit=10)}
    assert references == {ONE: str(hashed), TWO: references[TWO]}
    assert counted.take() == ([ONE], [[str(hashed)]])


# ------------------------------------------------------------------ Cursor agent transcripts


def _transcript_line(role: str, text: str) -> str:
    return json.dumps({"role": role, "message": {"content": [{"type": "text", "text": text}]}})


def test_a_warm_query_lists_and_reads_only_the_cursor_transcripts_that_changed(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.harnesses.cursor_cli.transcripts import TranscriptStore

    folder = isolated_home / ".cursor" / "projects" / "work-acme" / "agent-transcripts"
    paths = []
    for n, (session, text) in enumerate(((ONE, "alpha"), (TWO, "beta"))):
        path = folder / session / f"{session}.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text(_transcript_line("user", text) + "\n")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))
        paths.append(path)
    one, two = paths
    counted = Counted(monkeypatch, TranscriptStore)

    assert _ids() == [TWO, ONE]
    assert counted.take() == ([ONE, TWO], [sorted([str(one), str(two)])])
    assert _ids("beta") == [TWO]
    assert counted.take() == ([], [])

    with one.open("a") as handle:
        handle.write(_transcript_line("assistant", "delta") + "\n")
    assert _ids("delta") == [ONE]
    assert counted.take() == ([ONE], [[str(one)]])

    one.unlink()
    assert _ids() == [TWO]
    assert counted.take() == ([], [])
