"""Antigravity: the exact Common output of a conversation database, discovery, and its warnings."""

from __future__ import annotations

import os
import sqlite3
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from agy_fixtures import (
    CONVERSATION,
    CWD,
    T0,
    Conversation,
    Step,
    encrypted_files,
    foreign_database,
    kitchen_sink,
    metadata,
    pb_text,
    write_conversation,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import TxcriptError

H = harnesses.get("antigravity")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def at(second: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=T0 + second)


MODEL = "antigravity-model-9999"

EXPECTED = m.Transcript(
    meta=m.Meta(
        id=CONVERSATION,
        timestamp=at(0),
        cwd=CWD,
        git_branch="main",
        title="Run the test suite",
        model=MODEL,
    ),
    messages=(
        m.Message(
            role="user",
            content=(m.Text(text="Run the tests, then read the README"),),
            timestamp=at(1),
        ),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="The suite first.", signature="c2lnbmF0dXJl"),
                m.Text(text="Running the tests."),
                m.ToolUse(
                    id="call-run",
                    tool=m.Raw(
                        tool_name="run_command",
                        input={
                            "CommandLine": "npm test",
                            "toolAction": "Running",
                            "toolSummary": "tests",
                        },
                    ),
                ),
            ),
            timestamp=at(2),
            model=MODEL,
            usage=m.Usage(input_tokens=120, output_tokens=40, cache_read_input_tokens=30),
        ),
        m.Message(
            role="user",
            content=(m.ToolResult(tool_use_id="call-run", content="12 passing\n"),),
            timestamp=at(3),
        ),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(
                    id="call-view",
                    tool=m.Raw(
                        tool_name="view_file", input={"AbsolutePath": "/work/app/README.md"}
                    ),
                ),
                m.ToolUse(
                    id="call-grep", tool=m.Raw(tool_name="grep_search", input={"Query": "TODO"})
                ),
            ),
            timestamp=at(4),
            model=MODEL,
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(
                    tool_use_id="call-view", content="README.md: no such file", is_error=True
                ),
                m.ToolResult(tool_use_id="call-grep", content={"2": "src/a.ts:3: TODO", "3": 1}),
            ),
            timestamp=at(5),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="All 12 tests pass; there is no README."),),
            timestamp=at(9),
            model=MODEL,
            stop_reason="end_turn",
        ),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(
                    id="call-late",
                    tool=m.Raw(tool_name="run_command", input={"CommandLine": "npm run build"}),
                ),
            ),
            timestamp=at(10),
            model=MODEL,
        ),
    ),
)


def build(root: Path, conversation: Conversation | None = None) -> Path:
    return write_conversation(root, conversation or kitchen_sink())


def said(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, TranscriptWarning)]


def test_a_conversation_database_reads_as_exactly_this_common_transcript(tmp_path: Path) -> None:
    db = build(tmp_path)
    native = H.store(tmp_path).load(str(db))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        transcript = H.to_common(native)
    assert transcript == EXPECTED
    # The one step of a kind not known is counted in one warning; the bookkeeping steps (model
    # switch, checkpoint, ephemeral notice) and the call still running give none.
    assert said(record) == [
        f"antigravity conversation {CONVERSATION}: steps of a kind not read were left out "
        "(1 of type 777)"
    ]


def test_the_brain_folder_is_carried_with_the_database(tmp_path: Path) -> None:
    db = build(tmp_path)
    native = H.store(tmp_path).load(str(db))
    assert {f.path: f.data for f in native.brain} == kitchen_sink().brain
    assert native.user_version == 1
    assert [t.name for t in native.tables][:2] == ["trajectory_meta", "steps"]


def test_an_unknown_model_number_is_carried_and_written_back(tmp_path: Path) -> None:
    from txcript.harnesses.antigravity import steps as st

    with pytest.warns(TranscriptWarning, match="steps of a kind not read"):  # (the fixture's 777)
        transcript = H.to_common(H.store(tmp_path).load(str(build(tmp_path))))
    assert transcript.meta.model == "antigravity-model-9999"
    written = H.from_common(transcript)
    rows = written.table("steps")
    assert rows is not None
    models = {
        st.decode_step(r).model for r in rows.records() if r["step_type"] == st.PLANNER_RESPONSE
    }
    assert models == {9999}
    assert st.model_number("claude-opus-4-8") is None  # a name with no number is not invented


def test_discovery_lists_what_a_load_gives_and_skips_encrypted_and_foreign_files(
    tmp_path: Path,
) -> None:
    db = build(tmp_path)
    encrypted_files(tmp_path)
    foreign_database(tmp_path / "conversations" / "cache.db")
    (tmp_path / "conversations" / ".txcript-half.db").write_bytes(b"")  # a temporary file
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        found = H.store(tmp_path).discover()
    assert len(found) == 1
    meta = EXPECTED.meta
    listed = found[0]
    assert (listed.meta_id, listed.timestamp, listed.title, listed.cwd, listed.model) == (
        meta.id,
        meta.timestamp,
        meta.title,
        meta.cwd,
        meta.model,
    )
    assert listed.git_branch == meta.git_branch and listed.reference == str(db)
    assert said(record) == [
        "skipping 3 encrypted Antigravity conversation file(s) (*.pb): the older app's format "
        "cannot be read",
        f"skipping 1 database(s) in {tmp_path / 'conversations'} that are not Antigravity "
        "conversations",
    ]


def test_a_missing_root_lists_nothing(tmp_path: Path) -> None:
    assert H.store(tmp_path / "absent").discover() == []


def test_the_title_falls_back_to_the_first_prompt_and_the_cwd_to_the_metadata_field(
    tmp_path: Path,
) -> None:
    conversation = Conversation(
        steps=[Step(14, 3, metadata(1), pb_text(1, "first line\nsecond line"))],
        main=pb_text(6, CONVERSATION) + pb_text(7, "C:\\Users\\dev\\app"),
    )
    meta = H.to_common(H.store(tmp_path).load(str(build(tmp_path, conversation)))).meta
    assert (meta.title, meta.cwd, meta.timestamp) == ("first line", "C:\\Users\\dev\\app", at(1))


def test_a_step_that_is_not_protobuf_is_left_out_with_one_warning(tmp_path: Path) -> None:
    db = build(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE steps SET step_payload = ?, metadata = NULL WHERE idx IN (8, 9)", (b"\x07\xff",)
        )
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        transcript = H.to_common(H.store(tmp_path).load(str(db)))
    assert transcript.messages == EXPECTED.messages
    assert said(record)[0] == (
        f"antigravity conversation {CONVERSATION}: 2 step(s) are not protobuf; left out"
    )


def test_a_step_payload_that_is_the_payload_alone_reads_too(tmp_path: Path) -> None:
    """Without the Step wrapper the row's columns give the type, status and metadata."""
    db = build(tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE steps SET step_payload = ? WHERE idx = 0", (pb_text(1, "hello"),))
    with pytest.warns(TranscriptWarning, match="steps of a kind not read"):  # (the fixture's 777)
        transcript = H.to_common(H.store(tmp_path).load(str(db)))
    assert transcript.messages[0] == m.Message(
        role="user", content=(m.Text(text="hello"),), timestamp=at(1)
    )


@pytest.mark.parametrize(
    "damage",
    [
        lambda db: db.write_bytes(db.read_bytes()[:700]),
        lambda db: db.write_bytes(b"not a database at all, just text"),
    ],
    ids=["truncated", "not-sqlite"],
)
def test_a_damaged_database_is_one_line_naming_it(tmp_path: Path, damage, run_cli: RunCli) -> None:  # type: ignore[no-untyped-def]
    db = build(tmp_path)
    damage(db)
    with pytest.raises(TxcriptError, match=str(db)):
        H.store(tmp_path).load(str(db))
    result = run_cli("list", "--from", "antigravity", env={"ANTIGRAVITY_CLI_DIR": str(tmp_path)})
    assert result.code == 0
    assert "Traceback" not in result.stderr
    assert result.stderr.count("warning") == 1 and str(db) in result.stderr


def test_reads_change_no_byte_and_create_no_file(tmp_path: Path) -> None:
    build(tmp_path)
    encrypted_files(tmp_path)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}
    store = H.store(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for found in store.discover():
            H.to_common(store.load(found.reference))
            store.fingerprints([found.reference])
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_the_listing_is_kept_and_follows_a_change(tmp_path: Path) -> None:
    db = build(tmp_path)
    old = 1_700_000_000_000_000_000
    os.utime(db, ns=(old, old))
    store = H.store(tmp_path)
    assert store.discover()[0].title == "Run the test suite"
    conversation = kitchen_sink()
    conversation.steps = [*conversation.steps[:7], Step(23, 3, metadata(7), pb_text(10, "Renamed"))]
    db.unlink()
    write_conversation(tmp_path, conversation)
    os.utime(db, ns=(old + 10**9, old + 10**9))
    assert store.discover()[0].title == "Renamed"


def test_the_cli_lists_and_views_the_conversation(tmp_path: Path, run_cli: RunCli) -> None:
    build(tmp_path)
    env = {"ANTIGRAVITY_CLI_DIR": str(tmp_path)}
    listed = run_cli("list", "--from", "agy", "--json", env=env)
    assert listed.code == 0, listed.stderr
    assert '"title": "Run the test suite"' in listed.stdout
    viewed = run_cli("view", CONVERSATION[:8], "--from", "antigravity", env=env)
    assert viewed.code == 0, viewed.stderr
    assert "README.md: no such file" in viewed.stdout
