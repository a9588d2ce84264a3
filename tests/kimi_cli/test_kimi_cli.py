"""Kimi CLI sessions → Common exactly, in both layouts; the writer's files and index entry."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from kimi_cli_fixtures import FLAT_ID, KEY, SESSION_ID, T0, WORK_DIR, build_store, index

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreError
from txcript.harnesses.kimi_cli.store import KimiCliStore

H = harnesses.get("kimi_cli")
START = datetime.fromtimestamp(T0, tz=UTC)


def at(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


def load(root: Path, reference: str) -> m.Transcript:
    return H.to_common(KimiCliStore(root).load(reference))


def test_a_session_directory_gives_exactly_this_common_with_one_warning(tmp_path: Path) -> None:
    build_store(tmp_path)
    reference = str(tmp_path / "sessions" / KEY / SESSION_ID)
    with pytest.warns(TranscriptWarning) as said:
        got = load(tmp_path, reference)
    assert len(said) == 1 and "HologramShift" in str(said[0].message)
    assert got == m.Transcript(
        meta=m.Meta(id=SESSION_ID, timestamp=at(0), cwd=WORK_DIR, title="Fix the failing test"),
        messages=(
            m.Message("user", (m.Text("Fix the failing test"),), at(0)),
            m.Message(
                "assistant",
                (
                    m.Thinking("Look at the test first.", signature="enc-1"),
                    m.Text("Reading it."),
                    m.ToolUse(
                        "tool_a", m.Read(file_path="tests/test_cart.py", offset=10, limit=40)
                    ),
                    m.ToolUse("tool_b", m.Bash(command="pytest -q", timeout_ms=120000)),
                ),
                at(1),
            ),
            m.Message(
                "user",
                (
                    m.ToolResult("tool_a", "def test_total(): ..."),
                    m.ToolResult(
                        "tool_b", "Command failed with exit code 1.\n1 failed", is_error=True
                    ),
                ),
                at(1),
            ),
            m.Message(
                "assistant",
                (
                    m.Text("Patching."),
                    m.ToolUse(
                        "tool_c", m.Edit(file_path="cart.py", old_string="a+b", new_string="a + b")
                    ),
                    m.ToolUse("tool_d", m.Raw(tool_name="Shell", input="{not json")),
                ),
                at(4),
            ),
            m.Message(
                "user",
                (
                    m.ToolResult("tool_c", "<system>File edited.</system>"),
                    m.ToolResult("tool_d", "bad arguments", is_error=True),
                ),
                at(4),
            ),
            m.Message("assistant", (m.Text("Fixed."),), at(6)),
        ),
    )


def test_the_oldest_flat_layout_is_read_the_same_way(tmp_path: Path) -> None:
    build_store(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        got = load(tmp_path, str(tmp_path / "sessions" / KEY / f"{FLAT_ID}.jsonl"))
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    assert got == m.Transcript(
        # No wire, so the title is the first prompt's, as the copy with a wire reads back.
        meta=m.Meta(id=FLAT_ID, timestamp=epoch, cwd=WORK_DIR, title="Old flat session"),
        messages=(
            m.Message("user", (m.Text("Old flat session"),), epoch),
            m.Message("assistant", (m.Text("Hello."),), epoch),
        ),
    )


def test_discovery_lists_both_layouts_with_the_metadata_a_load_gives(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = KimiCliStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        found = store.discover()
        assert sorted(d.meta_id for d in found) == sorted([SESSION_ID, FLAT_ID])
        for entry in found:
            meta = H.meta_of(store.load(entry.reference))
            assert (entry.meta_id, entry.timestamp, entry.title, entry.cwd) == (
                meta.id,
                meta.timestamp,
                meta.title,
                meta.cwd,
            )


def test_a_custom_title_in_state_json_wins(tmp_path: Path) -> None:
    build_store(tmp_path)
    directory = tmp_path / "sessions" / KEY / SESSION_ID
    (directory / "state.json").write_text(json.dumps({"version": 1, "custom_title": "Cart fix"}))
    (entry,) = [d for d in KimiCliStore(tmp_path).discover() if d.meta_id == SESSION_ID]
    assert entry.title == "Cart fix"


def test_a_copy_gets_its_directory_and_an_index_entry_and_reads_back(tmp_path: Path) -> None:
    build_store(tmp_path / "src")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        source = load(tmp_path / "src", str(tmp_path / "src" / "sessions" / KEY / SESSION_ID))
    root = tmp_path / "kimi"
    root.mkdir()
    other = index("/elsewhere")
    (root / "kimi.json").write_text(json.dumps(other, indent=2))
    copy = m.Transcript(
        meta=m.Meta(
            id="3b4c5d6e-7f80-4192-8a3b-4c5d6e7f8091",
            timestamp=at(0),
            cwd="/home/dev/new",
            title="Cart",
        ),
        messages=source.messages,
    )
    saved = KimiCliStore(root).save(H.from_common(copy))
    directory = Path(saved.location)
    assert directory.parent.name == __import__("hashlib").md5(b"/home/dev/new").hexdigest()
    assert sorted(p.name for p in directory.iterdir()) == [
        "context.jsonl",
        "state.json",
        "wire.jsonl",
    ]
    listed = json.loads((root / "kimi.json").read_text())["work_dirs"]
    assert [d["path"] for d in listed] == ["/elsewhere", "/home/dev/new"]
    wire = [json.loads(x) for x in (directory / "wire.jsonl").read_text().splitlines()]
    assert wire[0] == {"type": "metadata", "protocol_version": "1.10"}
    assert [w["message"]["type"] for w in wire[1:]] == [
        "TurnBegin",
        "StepBegin",
        "StepBegin",
        "StepBegin",
        "TurnEnd",
    ]
    back = H.to_common(KimiCliStore(root).load(saved.reference))
    assert back.meta == m.Meta(id=copy.meta.id, timestamp=at(0), cwd="/home/dev/new", title="Cart")
    calls = [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolUse)]
    results = [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert [c.tool for c in calls] == [
        c.tool
        for c in (b for msg in source.messages for b in msg.content if isinstance(b, m.ToolUse))
    ]
    assert [(r.tool_use_id, r.is_error) for r in results] == [
        ("tool_a", False),
        ("tool_b", True),
        ("tool_c", False),
        ("tool_d", True),
    ]
    with pytest.raises(BadInput, match="refusing to overwrite"):
        KimiCliStore(root).save(H.from_common(copy))


def test_an_index_that_does_not_parse_is_never_touched(tmp_path: Path) -> None:
    (tmp_path / "kimi.json").write_text("{broken")
    copy = m.Transcript(
        meta=m.Meta(id="3b4c5d6e-7f80-4192-8a3b-4c5d6e7f8091", timestamp=at(0), cwd="/w"),
        messages=(m.Message("user", (m.Text("hi"),), at(0)),),
    )
    with pytest.raises(StoreError, match="not touching it"):
        KimiCliStore(tmp_path).save(H.from_common(copy))
    assert (tmp_path / "kimi.json").read_text() == "{broken"
    assert not (tmp_path / "sessions").exists()


@pytest.mark.parametrize("bad", ["../x", "a/b", "-x"])
def test_a_hostile_id_is_refused_before_any_byte(tmp_path: Path, bad: str) -> None:
    copy = m.Transcript(meta=m.Meta(id=bad, timestamp=at(0), cwd="/w"))
    with pytest.raises(BadInput):
        KimiCliStore(tmp_path).save(H.from_common(copy))
    assert not any(tmp_path.iterdir())


def test_delete_backs_the_session_up_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    build_store(tmp_path / "kimi")
    store = KimiCliStore(tmp_path / "kimi")
    directory = tmp_path / "kimi" / "sessions" / KEY / SESSION_ID
    store.delete(str(directory))
    assert not directory.exists()
    assert [d.meta_id for d in store.discover()] == [FLAT_ID]
    with pytest.raises(StoreError):
        store.delete(str(tmp_path / "kimi" / "kimi.json"))


def test_resume_runs_kimi_r_from_the_work_directory() -> None:
    assert H.resume_command(SESSION_ID) == ["kimi", "-r", SESSION_ID]
    assert H.resume_in_cwd


def test_a_slash_command_the_user_ran_is_written_as_its_prompt_not_dropped() -> None:
    """Regression: a user-side Command and its output vanished from the copy; they are the
    prompt that ran it and the user's text after it."""
    transcript = m.Transcript(
        meta=m.Meta(id=SESSION_ID, timestamp=at(0), cwd=WORK_DIR, title="t"),
        messages=(
            m.Message(
                "user",
                (m.ToolUse("c1", m.Command(command="/init")), m.ToolResult("c1", "done")),
                at(0),
            ),
        ),
    )
    back = H.to_common(H.from_common(transcript))
    assert back.messages == (m.Message("user", (m.Text("/init"), m.Text("done")), at(0)),)
