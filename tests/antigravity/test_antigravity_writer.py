"""Writing Antigravity conversations: both halves the CLI needs, all or nothing, undoable."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from pathlib import Path

import pytest
from agy_fixtures import CONVERSATION, SCHEMA, kitchen_sink, write_conversation
from hypothesis import HealthCheck, given, settings

from conftest import RunCli
from desktop_strategies import antigravity_transcripts
from txcript import harnesses
from txcript import model as m
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.antigravity import steps as st
from txcript.harnesses.antigravity import store as store_module
from txcript.shared import protobuf as pb

H = harnesses.get("antigravity")
NEW = "0d9c8b7a-6f5e-4d4c-8b3a-29180f7e6d5c"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def source() -> m.Transcript:
    cursor = harnesses.get("cursor_desktop")
    example = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
    transcript = cursor.to_common(cursor.from_text(example.read_text()))
    return m.Transcript(
        meta=m.Meta(id=NEW, timestamp=transcript.meta.timestamp, cwd="/work/app"),
        messages=transcript.messages,
    )


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# ------------------------------------------------------------------ both halves, well-formed


def test_a_written_conversation_has_a_well_formed_database(tmp_path: Path) -> None:
    saved = H.store(tmp_path).save(H.from_common(source()))
    db = tmp_path / "conversations" / f"{NEW}.db"
    assert saved.id == NEW and saved.reference == str(db)
    header = db.read_bytes()[:100]
    assert header.startswith(b"SQLite format 3\x00") and header[18:20] == b"\x02\x02"  # WAL
    assert not any(os.path.lexists(f"{db}{s}") for s in ("-wal", "-shm", "-journal"))
    with sqlite3.connect(f"file:{db}?immutable=1", uri=True) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (1,)
        tables = [r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE type='table'")]
        assert tables == list(SCHEMA)
        ((trajectory, cascade, kind, origin),) = conn.execute("SELECT * FROM trajectory_meta")
        assert (cascade, kind, origin) == (NEW, 4, 17) and trajectory != NEW
        rows = conn.execute(
            "SELECT idx, step_type, status, metadata, step_payload FROM steps ORDER BY idx"
        ).fetchall()
        ((blob,),) = conn.execute("SELECT data FROM trajectory_metadata_blob WHERE id = 'main'")
    assert [r[0] for r in rows] == list(range(len(rows))) and len(rows) == 6
    for _, kind, status, metadata, payload in rows:
        fields = pb.decode(payload)
        assert (st.varint(fields, 1), st.varint(fields, 4)) == (kind, status)
        assert st.raw(fields, 5) == metadata  # the metadata column is the Step's field 5
        assert st.raw(fields, st.PAYLOAD_FIELD[kind]) is not None
    assert [r[1] for r in rows] == [
        st.USER_INPUT,
        st.PLANNER_RESPONSE,
        st.RUN_COMMAND,
        st.PLANNER_RESPONSE,
        st.VIEW_FILE,
        st.PLANNER_RESPONSE,
    ]
    assert [r[2] for r in rows] == [st.DONE] * 4 + [st.ERROR, st.DONE]  # the failed read
    main = pb.decode(blob)
    assert st.text(main, st.BLOB_ID) == NEW and st.text(main, st.BLOB_CWD) == "/work/app"


def test_a_written_conversation_has_its_brain_folder_with_the_display_mirrors(
    tmp_path: Path,
) -> None:
    native = H.from_common(source())
    H.store(tmp_path).save(native)
    brain = tmp_path / "brain" / NEW
    assert brain.is_dir() and not brain.is_symlink()
    logs = brain / ".system_generated" / "logs"
    full = (logs / "transcript_full.jsonl").read_text()
    assert (logs / "transcript.jsonl").read_text() == full
    lines = [json.loads(line) for line in full.splitlines()]
    assert [line["step_index"] for line in lines] == list(range(6))
    assert [line["type"] for line in lines][:3] == ["USER_INPUT", "PLANNER_RESPONSE", "RUN_COMMAND"]
    assert lines[0]["source"] == "USER_EXPLICIT" and lines[1]["source"] == "MODEL"
    assert lines[0]["content"].startswith("<USER_REQUEST>\n")
    assert lines[1]["tool_calls"][0]["name"] == "Bash"
    assert lines[4]["status"] == "ERROR"


def test_the_copy_reads_back_with_every_call_result_and_error(tmp_path: Path) -> None:
    store = H.store(tmp_path)
    saved = store.save(H.from_common(source()))
    back = H.to_common(store.load(saved.reference))
    expected = source().messages
    assert [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolUse)] == [
        b for msg in expected for b in msg.content if isinstance(b, m.ToolUse)
    ]
    results = [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert [(r.tool_use_id, r.is_error) for r in results] == [
        ("toolu_01AbCdEfGhIjKlMnOpQrStUv", False),
        ("call_k2Zx9_fc_0a1b2c", True),
    ]
    # JSON output is kept as its compact text: the step's output slot holds text.
    assert results[1].content == '{"error":"ENOENT: no such file or directory"}'


# ---------------------------------------------------------------------- the codec's domain


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(antigravity_transcripts())
def test_codec_fixpoint_through_common_loses_nothing(transcript: m.Transcript) -> None:
    native = H.from_common(transcript)
    assert H.to_common(native) == transcript
    assert H.to_common(H.from_text(H.to_text(native))) == transcript


@settings(max_examples=40, deadline=None)
@given(antigravity_transcripts())
def test_from_common_is_deterministic(transcript: m.Transcript) -> None:
    assert H.to_text(H.from_common(transcript)) == H.to_text(H.from_common(transcript))


def test_the_store_round_trip_is_lossless(tmp_path: Path) -> None:
    write_conversation(tmp_path / "a", kitchen_sink())
    first = H.store(tmp_path / "a").load(
        str(tmp_path / "a" / "conversations" / f"{CONVERSATION}.db")
    )
    saved = H.store(tmp_path / "b").save(first)
    again = H.store(tmp_path / "b").load(saved.reference)
    assert again == first
    assert H.to_text(again) == H.to_text(first)


# -------------------------------------------------------------------- all or nothing, undo


def test_a_write_that_fails_at_the_database_leaves_no_brain_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conversations").mkdir()
    before = files(tmp_path)

    def broken(db: Path, conversation: object) -> None:
        db.write_bytes(b"half")
        raise StoreError(f"writing {db}: disk full")

    monkeypatch.setattr(store_module, "_build_database", broken)
    with pytest.raises(StoreError, match="disk full"):
        H.store(tmp_path).save(H.from_common(source()))
    assert files(tmp_path) == before
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["conversations"]


def test_an_existing_conversation_is_refused_then_replaced_with_a_backup(tmp_path: Path) -> None:
    store = H.store(tmp_path)
    store.save(H.from_common(source()))
    before = files(tmp_path)
    with pytest.raises(BadInput, match="already exists"):
        store.save(H.from_common(source()))
    assert files(tmp_path) == before
    saved = store.save(H.from_common(source()), force=True)
    assert saved.id == NEW
    backups = list((tmp_path / "txcript-data").rglob("*.files"))
    assert len(backups) == 1


@pytest.mark.parametrize("bad", ["../x", "a/b", "-x", "not-a-uuid"])
def test_a_hostile_id_is_refused_before_anything_is_written(tmp_path: Path, bad: str) -> None:
    native = H.from_common(source())
    hostile = type(native)(bad, native.tables, native.schema, native.user_version, native.brain)
    with pytest.raises(BadInput):
        H.store(tmp_path).save(hostile)
    assert not tmp_path.exists() or list(tmp_path.rglob("*")) == []


def test_a_brain_file_leading_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    from txcript.harnesses.antigravity.native import BrainFile

    native = H.from_common(source())
    hostile = type(native)(NEW, native.tables, native.schema, 1, (BrainFile("../../x", b"!"),))
    with pytest.raises(BadInput, match="brain file"):
        H.store(tmp_path).save(hostile)
    assert list(tmp_path.rglob("*")) == []


# ---------------------------------------------------------------------------------- delete


def test_delete_removes_the_database_and_the_brain_folder_and_restore_brings_them_back(
    tmp_path: Path, run_cli: RunCli
) -> None:
    write_conversation(tmp_path, kitchen_sink())
    before = files(tmp_path)
    env = {"ANTIGRAVITY_CLI_DIR": str(tmp_path), "TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    deleted = run_cli("delete", CONVERSATION, "--from", "antigravity", "--yes", env=env)
    assert deleted.code == 0, deleted.stderr
    assert not (tmp_path / "conversations" / f"{CONVERSATION}.db").exists()
    assert not (tmp_path / "brain" / CONVERSATION).exists()
    backup = deleted.stdout.split("undo with: txcript restore ", 1)[1].split()[0]
    restored = run_cli("restore", backup, "--yes", env=env)
    assert restored.code == 0, restored.stderr
    after = {k: v for k, v in files(tmp_path).items() if not k.startswith("data/")}
    assert after == before


def test_delete_refuses_a_database_outside_the_conversations_directory(tmp_path: Path) -> None:
    outside = write_conversation(tmp_path / "elsewhere", kitchen_sink())
    store = H.store(tmp_path / "root")
    (tmp_path / "root" / "conversations").mkdir(parents=True)
    with pytest.raises(BadInput, match="not a conversation database"):
        store.delete(str(outside))
    link = tmp_path / "root" / "conversations" / f"{CONVERSATION}.db"
    link.symlink_to(outside)
    with pytest.raises(BadInput, match="not a conversation database"):
        store.delete(str(link))  # the link resolves outside the store
    assert outside.exists()


def test_delete_refuses_a_brain_folder_that_links_out_of_the_store(tmp_path: Path) -> None:
    conversation = kitchen_sink()
    conversation.brain_dir = False
    db = write_conversation(tmp_path / "root", conversation)
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    (tmp_path / "root" / "brain").mkdir()
    (tmp_path / "root" / "brain" / CONVERSATION).symlink_to(target)
    with pytest.raises(StoreError, match="symbolic link"):
        H.store(tmp_path / "root").delete(str(db))
    assert db.exists() and (target / "keep.txt").read_text() == "mine"


def test_deleting_twice_is_an_error(tmp_path: Path) -> None:
    db = write_conversation(tmp_path, kitchen_sink())
    store = H.store(tmp_path)
    store.delete(str(db))
    with pytest.raises(TxcriptError):
        store.delete(str(db))


def test_continue_into_antigravity_prints_the_resume_command(
    tmp_path: Path, run_cli: RunCli
) -> None:
    example = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
    root = tmp_path / "agy"
    result = run_cli(
        "continue",
        str(example),
        "--with",
        "antigravity",
        "--out",
        str(root),
        "--json",
    )
    assert result.code == 0, result.stderr
    written = json.loads(result.stdout)
    assert written["resume_command"] == [
        "agy",
        f"--conversation={written['id']}",
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [d.meta_id for d in H.store(root).discover()] == [written["id"]]
    assert (root / "brain" / written["id"]).is_dir()


def test_a_message_with_text_after_its_call_reads_back_as_one_message() -> None:
    """One planner step holds thinking, text and calls in that order, so a message with text
    after its call is written as two steps. Read back as two messages, its call (still running
    at the end of the session) looked answered by nothing mid-session, and the next writer
    closed it with an error result the session never had (found by the conformance hop
    Codex → Antigravity → Codex). Steps of one instant are one message."""
    call = m.ToolUse(id="call-1", tool=m.Bash(command="make"))
    last = m.Message(
        role="assistant",
        content=(call, m.Text(text="Building.")),
        timestamp=source().meta.timestamp,
        model="antigravity-model-7",
        stop_reason="end_turn",
    )
    prompt = m.Message(role="user", content=(m.Text(text="build it"),), timestamp=last.timestamp)
    transcript = m.Transcript(
        meta=m.Meta(
            id=NEW, timestamp=last.timestamp, title="build it", model="antigravity-model-7"
        ),
        messages=(prompt, last),
    )
    native = H.from_common(transcript)
    steps_table = native.table("steps")
    assert steps_table is not None and len(steps_table.rows) == 3  # prompt + two planner steps
    assert H.to_common(native) == transcript
