"""Damaged Cline, Roo and Kilo stores give one warning or one error line, never a traceback, and
what a listing shows is what a load gives even then."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from pathlib import Path

import cline_fixtures as f
import pytest

from conftest import RunCli
from txcript import harnesses
from txcript.errors import BadInput


def _listed_and_loaded(harness_id: str, root: Path) -> tuple[list[str], list[str]]:
    harness = harnesses.get(harness_id)
    store = harness.store(root)
    assert store is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        listed = store.discover()
        for found in listed:
            transcript = harness.to_common(store.load(found.reference))
            assert (found.title, found.cwd, found.model, found.timestamp) == (
                transcript.meta.title,
                transcript.meta.cwd,
                transcript.meta.model,
                transcript.meta.timestamp,
            )
    return [d.meta_id for d in listed], [str(w.message) for w in caught]


def test_a_history_cut_off_keeps_the_messages_before_the_cut_with_one_warning(
    tmp_path: Path,
) -> None:
    task = f.cline_xml_task(tmp_path)
    history = task / "api_conversation_history.json"
    data = history.read_bytes()
    history.write_bytes(data[: data.index(b"[execute_command for")])  # inside the 5th message
    listed, warned = _listed_and_loaded("cline", tmp_path)
    assert listed == [f.XML_TASK]
    assert warned == [
        f"{f.XML_TASK}: api_conversation_history.json is damaged (not whole JSON); read the 4 "
        "messages before the damage"
    ]
    store = harnesses.get("cline").store(tmp_path)
    assert store is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        transcript = harnesses.get("cline").to_common(store.load(str(task)))
    assert [msg.role for msg in transcript.messages] == ["user", "assistant", "user", "assistant"]


def test_a_chat_view_that_is_not_json_leaves_listing_and_load_agreeing(tmp_path: Path) -> None:
    task = f.cline_xml_task(tmp_path)
    ui = task / "ui_messages.json"
    ui.write_bytes(ui.read_bytes()[:-40])  # the first entry whole, the rest cut off
    listed, warned = _listed_and_loaded("cline", tmp_path)
    assert listed == [f.XML_TASK] and warned == []


def test_a_fifo_or_a_link_out_of_the_store_is_never_read(tmp_path: Path) -> None:
    task = f.cline_native_task(tmp_path)
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps([{"role": "user", "content": "SECRET-OUTSIDE", "ts": 1}]))
    (task / "api_conversation_history.json").unlink()
    (task / "api_conversation_history.json").symlink_to(outside)
    (task / "task_metadata.json").unlink()
    (task / "task_metadata.json").mkdir()
    (task / "ui_messages.json").unlink()
    os.mkfifo(task / "ui_messages.json")
    harness = harnesses.get("cline")
    store = harness.store(tmp_path)
    assert store is not None
    (found,) = store.discover()
    with pytest.warns(UserWarning) as caught:
        native = store.load(found.reference)
    assert [str(w.message) for w in caught] == [
        f"{task}: skipped 3 entries named like a task file that are not regular files "
        "(a directory, a link or a FIFO)"
    ]
    assert all(
        name not in ("api_conversation_history.json", "ui_messages.json")
        for name, _ in native.files
    )
    assert "SECRET-OUTSIDE" not in repr(harness.to_common(native))
    assert found.title == "Rename total to sum_to"  # from the index entry


def test_a_task_directory_linked_from_outside_the_store_is_not_listed(tmp_path: Path) -> None:
    f.cline_xml_task(tmp_path / "other")
    source = f.storage(tmp_path / "other", f.CLINE_EXT) / "tasks" / f.XML_TASK
    tasks = f.storage(tmp_path, f.CLINE_EXT) / "tasks"
    tasks.mkdir(parents=True)
    (tasks / f.XML_TASK).symlink_to(source, target_is_directory=True)
    store = harnesses.get("cline").store(tmp_path)
    assert store is not None
    assert store.discover() == []
    with pytest.raises(BadInput, match="is not a Cline task"):
        store.load(str(tasks / f.XML_TASK))


def test_wrong_json_types_are_kept_as_text_with_one_warning(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": {"unexpected": True}, "ts": f.T0},
        {"role": "system", "content": "not a turn", "ts": f.T0},
        {"role": "assistant", "content": [{"type": "text", "text": 5}], "ts": f.T0 + 1},
    ]
    f.write_task(tmp_path, f.ROO_EXT, f.ROO_TASK, {"api_conversation_history.json": history})
    listed, warned = _listed_and_loaded("roo", tmp_path)
    assert listed == [f.ROO_TASK]
    assert warned == [
        f"{f.ROO_TASK}: skipped 1 history entry that is not a user or assistant message",
        f"{f.ROO_TASK}: 2 blocks of a kind Common has no place for kept as JSON text",
    ]


def test_a_truncated_kilo_db_is_one_warning_and_the_tasks_still_list(tmp_path: Path) -> None:
    database = f.kilo_db(tmp_path)
    f.kilo_legacy_task(tmp_path)
    database.write_bytes(database.read_bytes()[:2000])
    listed, warned = _listed_and_loaded("kilo", tmp_path)
    assert listed == [f.KILO_TASK]
    (warning,) = warned
    assert "kilo.db is truncated" in warning


def test_list_over_damaged_stores_prints_one_line_per_problem(
    isolated_home: Path, run_cli: RunCli
) -> None:
    f.roo_state_task(isolated_home)
    database = f.user_dir(isolated_home, "VSCodium") / "globalStorage" / "state.vscdb"
    database.write_bytes(b"not a database at all, but long enough" * 10)
    result = run_cli("list", "--from", "roo")
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if "state.vscdb" in line]) == 1
    assert "How big is the repo?" in result.stdout


def test_a_state_vscdb_with_a_trigger_refuses_the_write_with_nothing_written(
    tmp_path: Path,
) -> None:
    f.roo_state_task(tmp_path)
    database = f.user_dir(tmp_path, "VSCodium") / "globalStorage" / "state.vscdb"
    conn = sqlite3.connect(database)
    conn.execute("CREATE TRIGGER t AFTER UPDATE ON ItemTable BEGIN SELECT 1; END")
    conn.commit()
    conn.close()
    before = database.read_bytes()
    roo = harnesses.get("roo")
    store = roo.store(tmp_path)
    assert store is not None
    from txcript.errors import StoreError

    with pytest.raises(StoreError, match="trigger"):
        store.save(roo.from_common(_one_message()), force=True)
    assert database.read_bytes() == before
    tasks = f.storage(tmp_path, f.ROO_EXT, "VSCodium") / "tasks"
    assert [p.name for p in tasks.iterdir()] == [f.ROO_TASK]


def _one_message() -> object:
    from datetime import UTC, datetime

    from txcript import model as m

    t0 = datetime(2026, 4, 1, tzinfo=UTC)
    return m.Transcript(
        meta=m.Meta(id="0195a1b2-0000-7000-8000-0000000000aa", timestamp=t0, title="x"),
        messages=(m.Message(role="user", content=(m.Text(text="x"),), timestamp=t0),),
    )
