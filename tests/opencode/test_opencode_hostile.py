"""Hostile OpenCode stores: each gives a one-line error or a warning, never a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import opencode_fixtures as f
import pytest

from conftest import RunCli
from txcript import harnesses
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreUnreadable


def _store(root: Path):  # type: ignore[no-untyped-def]
    store = harnesses.get("opencode").store(root)
    assert store is not None
    return store


def test_a_truncated_database_is_skipped_with_a_warning_and_loads_with_an_error(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = tmp_path / "opencode"
    db = f.build_db(root / "opencode.db", f.CURRENT_DDL, [f.main_session()])
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    with pytest.warns(TranscriptWarning, match="truncated"):
        assert _store(root).discover() == []
    with pytest.raises(StoreUnreadable, match="truncated"):
        _store(root).load(f"{db}#{f.MAIN_ID}")
    result = run_cli("list", env={"XDG_DATA_HOME": str(tmp_path)})
    assert result.code == 0 and "Traceback" not in result.stderr
    assert "truncated" in result.stderr


def test_a_database_of_another_app_is_not_an_opencode_database(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    root.mkdir()
    conn = sqlite3.connect(root / "opencode-dev.db")
    conn.execute("CREATE TABLE session (key TEXT, value TEXT)")
    conn.commit()
    conn.close()
    with pytest.warns(TranscriptWarning, match="not an OpenCode database"):
        assert _store(root).discover() == []


def test_parts_that_are_not_objects_or_lost_their_message_are_skipped_with_warnings(
    tmp_path: Path,
) -> None:
    root = tmp_path / "opencode"
    db = f.build_db(root / "opencode.db", f.CURRENT_DDL, [f.untitled_session()])
    conn = sqlite3.connect(db)
    message = "msg_b00000000001BBBBBBBBBBBBBB"
    for part_id, data in (("prt_x1", "[1, 2]"), ("prt_x2", "{not json"), ("prt_x3", '"text"')):
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, 0, 0, ?)", (part_id, message, f.UNTITLED_ID, data)
        )
    conn.execute(
        "INSERT INTO part VALUES ('prt_x4', 'msg_gone', ?, 0, 0, ?)",
        (f.UNTITLED_ID, '{"type":"text","text":"orphan"}'),
    )
    conn.execute(
        "INSERT INTO message VALUES ('msg_z', ?, 0, 0, '[]')",
        (f.UNTITLED_ID,),
    )
    conn.commit()
    conn.close()
    harness = harnesses.get("opencode")
    native = _store(root).load(f"{db}#{f.UNTITLED_ID}")
    with pytest.warns(TranscriptWarning) as caught:
        transcript = harness.to_common(native)
    messages = " | ".join(str(w.message) for w in caught)
    assert "prt_x1 is not a JSON object" in messages
    assert "prt_x2 is not a JSON object" in messages
    assert "missing message" in messages and "msg_gone" in messages
    assert "msg_z is not a JSON object" in messages
    assert [b.text for msg in transcript.messages for b in msg.content] == ["hello"]  # type: ignore[union-attr]
    # nothing is lost on the way back: the store round trip keeps the odd rows
    _store(root).save(native)
    assert _store(root).load(f"{db}#{f.UNTITLED_ID}") == native


def test_a_file_store_json_that_is_a_directory_is_skipped_with_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    f.storage_layout(root)
    (root / "storage" / "session" / "a1b2c3" / "ses_dir.json").mkdir()
    part_dir = root / "storage" / "part" / "msg_d00000000001DDDDDDDDDDDDDD" / "prt_0.json"
    part_dir.mkdir()
    with pytest.warns(TranscriptWarning, match="is a directory"):
        found = _store(root).discover()
    assert [d.meta_id for d in found] == [f.FILES_ID]
    with pytest.warns(TranscriptWarning, match="is a directory"):
        native = _store(root).load(found[0].reference)
    assert len(native.messages) == 2


def test_unknown_references_and_hostile_ids_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "opencode"
    db = f.build_db(root / "opencode.db", f.CURRENT_DDL, [f.main_session()])
    store = _store(root)
    with pytest.raises(BadInput, match="no OpenCode session"):
        store.load(f"{db}#ses_missing")
    with pytest.raises(BadInput):
        store.load(str(tmp_path / "nowhere.json"))
    native = store.load(f"{db}#{f.MAIN_ID}")
    for hostile in ("--dangerously-skip-permissions", "../../x", "ses_a/b", ""):
        native.session["id"] = hostile
        with pytest.raises(BadInput):
            store.save(native)
