"""OpenClaw: an agent dir with its ``sessions.json`` index, read whole; writes only while the
gateway is stopped, with the index replaced atomically and every other entry kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pi_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.errors import StoreError, TxcriptError
from txcript.harnesses.pi import openclaw

CLAW = harnesses.get("openclaw")
START = datetime(2026, 11, 1, 10, tzinfo=UTC)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process table OpenClaw's check sees (empty: the gateway is stopped)."""
    running: list[int] = []
    monkeypatch.setattr(openclaw, "find_processes", lambda names: list(running))
    return running


def test_agent_dir_with_its_index_gives_every_session_exactly(tmp_path: Path) -> None:
    sessions = f.write_openclaw(tmp_path / "state")
    store = CLAW.store(tmp_path / "state")
    found = {d.meta_id: d for d in store.discover()}
    # Rotated and checkpoint copies are not sessions; the unindexed older one is.
    assert set(found) == {f.SID_CLAW, f.SID_CLAW_ORPHAN}
    indexed = found[f.SID_CLAW]
    assert indexed.reference == str(sessions / f"{f.SID_CLAW}.jsonl")
    assert (indexed.title, indexed.model, indexed.harness) == (
        "Telegram: me",
        "claude-opus-4-8",
        "openclaw",
    )
    native = store.load(indexed.reference)
    assert native.index_key == "agent:main:main"
    assert native.index_entry == f.OPENCLAW_INDEX["agent:main:main"]
    assert CLAW.to_common(native) == m.Transcript(
        meta=m.Meta(
            id=f.SID_CLAW,
            timestamp=START,
            cwd="/home/u/.openclaw/workspace",
            title="Telegram: me",
            model="claude-opus-4-8",
        ),
        messages=(
            m.Message(
                role="user",
                content=(m.Text("[Telegram] what's on today?"),),
                timestamp=START + timedelta(seconds=1),
            ),
            m.Message(
                role="assistant",
                content=(m.Text("Two meetings."),),
                timestamp=START + timedelta(seconds=2),
                model="claude-opus-4-8",
                stop_reason="end_turn",
                usage=m.Usage(input_tokens=120, output_tokens=30, cache_read_input_tokens=800),
            ),
        ),
    )
    orphan = CLAW.to_common(store.load(found[f.SID_CLAW_ORPHAN].reference))
    assert orphan.meta.title == "yesterday's question" and orphan.meta.model is None


def test_a_damaged_index_is_warned_and_the_transcripts_still_list(tmp_path: Path) -> None:
    sessions = f.write_openclaw(tmp_path)
    (sessions / "sessions.json").write_text("[1, 2")
    with pytest.warns(UserWarning, match="OpenClaw index"):
        found = CLAW.store(tmp_path).discover()
    assert {d.meta_id for d in found} == {f.SID_CLAW, f.SID_CLAW_ORPHAN}


def test_save_adds_one_entry_and_keeps_the_others(tmp_path: Path, gateway: list[int]) -> None:
    sessions = f.write_openclaw(tmp_path)
    source = harnesses.get("pi").to_common(harnesses.get("pi").from_text(f.v3()))
    saved = CLAW.store(tmp_path).save(CLAW.from_common(source))
    assert saved.location == str(sessions / f"{f.SID_V3}.jsonl")
    assert any("SQLite" in note for note in saved.notes)
    index = json.loads((sessions / "sessions.json").read_text())
    assert {k: v for k, v in index.items() if k in f.OPENCLAW_INDEX} == f.OPENCLAW_INDEX
    entry = index[f"agent:main:import-{f.SID_V3}"]
    assert entry["sessionId"] == f.SID_V3 and entry["displayName"] == "Kimi batch"
    listed = {d.meta_id: d.title for d in CLAW.store(tmp_path).discover()}
    assert listed[f.SID_V3] == "Kimi batch"
    assert CLAW.resume_command(f.SID_V3) == ["openclaw", "resume", f.SID_V3]


def test_store_round_trip_keeps_the_index_entry(tmp_path: Path, gateway: list[int]) -> None:
    f.write_openclaw(tmp_path / "a")
    store = CLAW.store(tmp_path / "a")
    native = store.load(
        str(tmp_path / "a" / "agents" / "main" / "sessions" / f"{f.SID_CLAW}.jsonl")
    )
    fresh = CLAW.store(tmp_path / "b")
    saved = fresh.save(native)
    again = fresh.load(saved.reference)
    assert again == native
    assert (again.index_key, again.index_entry) == (native.index_key, native.index_entry)
    assert (
        Path(saved.location).read_bytes()
        == (tmp_path / "a" / "agents" / "main" / "sessions" / f"{f.SID_CLAW}.jsonl").read_bytes()
    )


def test_save_refuses_while_the_gateway_runs(tmp_path: Path, gateway: list[int]) -> None:
    sessions = f.write_openclaw(tmp_path)
    before = {p.name: p.read_bytes() for p in sessions.iterdir()}
    gateway.append(4242)
    native = CLAW.from_common(harnesses.get("pi").to_common(harnesses.get("pi").from_text(f.v3())))
    with pytest.raises(openclaw.GatewayRunning, match=r"pid 4242.*--force"):
        CLAW.store(tmp_path).save(native)
    assert {p.name: p.read_bytes() for p in sessions.iterdir()} == before
    assert CLAW.store(tmp_path).save(native, force=True).id == f.SID_V3


def test_the_gateway_check_names_its_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(openclaw, "find_processes", lambda names: asked.append(tuple(names)) or [])
    CLAW.refuse_while_running()
    assert "openclaw-gateway" in asked[0] and "openclaw-gatewa" in asked[0]


def test_save_refuses_an_index_that_is_not_an_object(tmp_path: Path, gateway: list[int]) -> None:
    sessions = f.write_openclaw(tmp_path)
    (sessions / "sessions.json").write_text("[]")
    native = CLAW.from_common(harnesses.get("pi").to_common(harnesses.get("pi").from_text(f.v3())))
    with pytest.raises(StoreError, match="not a JSON object"):
        CLAW.store(tmp_path).save(native)
    assert not (sessions / f"{f.SID_V3}.jsonl").exists()


def test_a_failed_index_write_takes_the_transcript_back(
    tmp_path: Path, gateway: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions = f.write_openclaw(tmp_path)
    index_before = (sessions / "sessions.json").read_bytes()

    def refuse(*args: object, **kwargs: object) -> bytes:
        raise StoreError("disk full")

    monkeypatch.setattr(openclaw, "_dumps_index", refuse)
    native = CLAW.from_common(harnesses.get("pi").to_common(harnesses.get("pi").from_text(f.v3())))
    with pytest.raises(StoreError, match="disk full"):
        CLAW.store(tmp_path).save(native)
    assert not (sessions / f"{f.SID_V3}.jsonl").exists()
    assert (sessions / "sessions.json").read_bytes() == index_before


def test_delete_removes_the_file_and_its_entry_and_restore_undoes_both(
    tmp_path: Path, gateway: list[int]
) -> None:
    from txcript.shared import backups

    sessions = f.write_openclaw(tmp_path)
    before = {p.name: p.read_bytes() for p in sessions.iterdir()}
    CLAW.store(tmp_path).delete(str(sessions / f"{f.SID_CLAW}.jsonl"))
    index = json.loads((sessions / "sessions.json").read_text())
    assert list(index) == ["cron:daily"]
    assert not (sessions / f"{f.SID_CLAW}.jsonl").exists()
    gateway.append(7)
    with pytest.raises(TxcriptError, match="OpenClaw is running"):
        CLAW.store(tmp_path).delete(str(sessions / f"{f.SID_CLAW_ORPHAN}.jsonl"))
    (backup,) = backups.list_backups()
    backups.restore(backup)
    assert {p.name: p.read_bytes() for p in sessions.iterdir()} == before


def test_a_reset_inside_a_session_starts_the_conversation_afresh() -> None:
    """OpenClaw's ``reset`` entry (``/new`` that keeps the session id) is a boundary like a
    compaction, without a summary: what came before it is not conversation any more, except the
    entries it keeps from ``firstKeptEntryId``."""
    values = [
        f.header(f.SID_CLAW),
        f.entry("message", "r1", None, 1, message=f.user("OLD window", 1)),
        f.entry("message", "r2", "r1", 2, message=f.user("kept by the reset", 2)),
        f.entry("reset", "r3", "r2", 3, firstKeptEntryId="r2"),
        f.entry("message", "r4", "r3", 4, message=f.user("new window", 4)),
    ]
    transcript = CLAW.to_common(CLAW.from_text(f.text(values)))
    assert [b.text for msg in transcript.messages for b in msg.content] == [
        "kept by the reset",
        "new window",
    ]
    plain = [*values[:3], f.entry("reset", "r3", "r2", 3), values[4]]
    assert [msg.content for msg in CLAW.to_common(CLAW.from_text(f.text(plain))).messages] == [
        (m.Text("new window"),)
    ]


def test_side_rows_do_not_move_the_leaf() -> None:
    """An OpenClaw side row (``appendMode: "side"``) hangs off the tree without becoming the
    visible leaf: the conversation still ends where the user left it."""
    values = [
        f.header(f.SID_CLAW),
        f.entry("message", "s1", None, 1, message=f.user("question", 1)),
        f.entry("message", "s2", "s1", 2, message=f.user("SIDE note", 2), appendMode="side"),
        f.entry("message", "s3", "s1", 3, message=f.user("follow-up", 3)),
        f.entry("message", "s4", "s2", 4, message=f.user("SIDE again", 4), appendMode="side"),
    ]
    transcript = CLAW.to_common(CLAW.from_text(f.text(values)))
    assert [b.text for msg in transcript.messages for b in msg.content] == ["question", "follow-up"]
