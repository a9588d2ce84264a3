"""Copilot CLI sessions → Common exactly, from the event log and from the store database."""

from __future__ import annotations

import os
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from copilot_fixtures import CWD, DB_ONLY_ID, FLAT_ID, LOG_ID, build_store

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, Unconvertible
from txcript.harnesses.copilot.store import CopilotStore

H = harnesses.get("copilot")


def at(second: int) -> datetime:
    return datetime(2026, 11, 10, 8, 0, second, tzinfo=UTC)


def test_an_event_log_gives_exactly_this_common_with_one_warning(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = CopilotStore(tmp_path)
    with pytest.warns(TranscriptWarning) as said:
        got = H.to_common(store.load(str(tmp_path / "session-state" / LOG_ID)))
    assert len(said) == 1
    assert "quantum.entangle" in str(said[0].message) and "sub-agent" in str(said[0].message)
    assert got == m.Transcript(
        meta=m.Meta(
            id=LOG_ID,
            timestamp=at(0),
            cwd=CWD,
            git_branch="feature/nav",
            title="Nav fix",
            cli_version="1.0.102",
            model="claude-sonnet-4.5",
        ),
        messages=(
            m.Message(
                "user",
                (
                    m.Text("Fix the nav\nand check links"),
                    m.Image(m.ImageSource("base64", "image/png", "iVBORw0KGgo=")),
                ),
                at(1),
            ),
            m.Message(
                "assistant",
                (
                    m.Thinking("Find the nav component."),
                    m.Text("Looking."),
                    m.ToolUse(
                        "toolu_a",
                        m.Raw("bash", {"command": "grep -r nav src", "description": "find nav"}),
                    ),
                    m.ToolUse("toolu_b", m.Raw("view", {"path": "/home/dev/site/missing.html"})),
                ),
                at(3),
                model="claude-sonnet-4.5",
                usage=m.Usage(900, 30, cache_read_input_tokens=100, cache_creation_input_tokens=0),
            ),
            m.Message(
                "user",
                (
                    m.ToolResult("toolu_a", "src/nav.tsx"),
                    m.ToolResult("toolu_b", "Path does not exist", is_error=True),
                ),
                at(5),
            ),
            m.Message(
                "assistant",
                (
                    m.Thinking("Summarise.", signature="opaque-sig"),
                    m.Text("The nav is in src/nav.tsx; missing.html does not exist."),
                ),
                at(8),
                model="claude-sonnet-4.5",
                usage=m.Usage(1000, 12),
            ),
        ),
    )


def test_a_session_only_in_the_store_database_is_read_from_its_rows(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = CopilotStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        got = H.to_common(store.load(f"{tmp_path / 'session-store.db'}#{DB_ONLY_ID}"))
    first = datetime(2026, 11, 1, 7, 1, tzinfo=UTC)
    second = datetime(2026, 11, 1, 7, 4, tzinfo=UTC)
    assert got == m.Transcript(
        meta=m.Meta(
            id=DB_ONLY_ID,
            timestamp=datetime(2026, 11, 1, 7, tzinfo=UTC),
            cwd=CWD,
            git_branch="main",
            title="Bump deps",
            model="gpt-5",
        ),
        messages=(
            m.Message("user", (m.Text("Bump the deps"),), first),
            m.Message(
                "assistant",
                (m.Text("Bumped 3 packages."),),
                first,
                model="gpt-5",
                usage=m.Usage(1200, 50, cache_read_input_tokens=400, cache_creation_input_tokens=0),
            ),
            m.Message("user", (m.Text("Run the build"),), second),
            m.Message(
                "assistant",
                (m.Text("Build passes."),),
                second,
                model="gpt-5",
                usage=m.Usage(800, 5, cache_read_input_tokens=0, cache_creation_input_tokens=20),
            ),
        ),
    )


def test_the_same_session_in_both_is_read_from_its_event_log(tmp_path: Path) -> None:
    build_store(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        found = CopilotStore(tmp_path).discover()
    assert sorted(d.meta_id for d in found) == sorted([LOG_ID, DB_ONLY_ID, FLAT_ID])
    (logged,) = [d for d in found if d.meta_id == LOG_ID]
    assert logged.reference == str(tmp_path / "session-state" / LOG_ID)


def test_discovery_gives_the_metadata_a_load_gives(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = CopilotStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        for entry in store.discover():
            meta = H.meta_of(store.load(entry.reference))
            assert (
                entry.meta_id,
                entry.timestamp,
                entry.title,
                entry.cwd,
                entry.model,
                entry.git_branch,
            ) == (meta.id, meta.timestamp, meta.title, meta.cwd, meta.model, meta.git_branch)


def test_the_flat_legacy_log_is_read(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = CopilotStore(tmp_path)
    got = H.to_common(store.load(str(tmp_path / "history-session-state" / f"{FLAT_ID}.jsonl")))
    assert [(x.role, x.content) for x in got.messages] == [
        ("user", (m.Text("hello"),)),
        ("assistant", (m.Text("hi"),)),
    ]
    assert got.meta.cwd == "/old" and got.meta.title == "hello"


def test_reads_create_nothing_beside_the_database(tmp_path: Path) -> None:
    build_store(tmp_path)
    before = sorted(os.listdir(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        CopilotStore(tmp_path).discover()
    assert sorted(os.listdir(tmp_path)) == before


def test_it_is_a_read_only_source(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = CopilotStore(tmp_path)
    native = store.load(str(tmp_path / "session-state" / LOG_ID))
    with pytest.raises(Unconvertible, match="validates a resumed session strictly"):
        store.save(native)
    with pytest.raises(BadInput, match="nothing was deleted"):
        store.delete(str(tmp_path / "session-state" / LOG_ID))
    assert not H.provides("from_common")
    assert H.resume_command(LOG_ID) == ["copilot", f"--resume={LOG_ID}"]


def test_a_corrupt_store_database_is_one_warning_and_the_logs_still_list(tmp_path: Path) -> None:
    build_store(tmp_path)
    (tmp_path / "session-store.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    with pytest.warns(TranscriptWarning, match="session-store.db"):
        found = CopilotStore(tmp_path).discover()
    assert sorted(d.meta_id for d in found) == sorted([LOG_ID, FLAT_ID])
