"""Writing Cline, Roo and Kilo tasks where the History view lists them, and undoing the writes.

A write into the editor's ``state.vscdb`` changes the extension's row and nothing else, refuses
while the editor runs unless forced (leaving the database byte-identical), and ``restore`` undoes
it: the row back byte for byte, the task directory gone.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import cline_fixtures as f
import pytest

from txcript import harnesses, restoring
from txcript import model as m
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.shared import backups


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def _transcript(session_id: str = "0195a1b2-0000-7000-8000-00000000c0de") -> m.Transcript:
    t0 = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    return m.Transcript(
        meta=m.Meta(id=session_id, timestamp=t0, cwd="/srv/app", title="Check the build"),
        messages=(
            m.Message(role="user", content=(m.Text(text="Check the build"),), timestamp=t0),
            m.Message(
                role="assistant",
                content=(m.ToolUse(id="toolu_b1", tool=m.Bash(command="make")),),
                timestamp=t0.replace(second=1),
                model="claude-sonnet-4-5",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="toolu_b1", content="ok", is_error=False),),
                timestamp=t0.replace(second=2),
            ),
        ),
    )


def _rows(database: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(database)
    try:
        return conn.execute(
            "SELECT rowid, key, typeof(value), CAST(value AS BLOB) FROM ItemTable ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def running_codium(tmp_path: Path) -> Iterator[int]:
    """A real process named ``codium`` (a copy of ``sleep``): what VSCodium runs as."""
    sleeper = shutil.which("sleep")
    assert sleeper is not None
    program = tmp_path / "bin" / "codium"
    program.parent.mkdir()
    shutil.copy(sleeper, program)
    process = subprocess.Popen([str(program), "60"])
    try:
        for _ in range(50):  # until /proc shows it under its name
            if Path(f"/proc/{process.pid}/comm").read_text().strip() == "codium":
                break
            time.sleep(0.02)
        yield process.pid
    finally:
        process.kill()
        process.wait()


# ----------------------------------------------------------------------------- Cline index


def test_a_cline_copy_is_a_task_directory_plus_an_entry_appended_to_task_history(
    tmp_path: Path,
) -> None:
    f.cline_xml_task(tmp_path)
    index = f.storage(tmp_path, f.CLINE_EXT) / "state" / "taskHistory.json"
    before = index.read_text()
    cline = harnesses.get("cline")
    store = cline.store(tmp_path)
    assert store is not None
    saved = store.save(cline.from_common(_transcript("1775034000000")))
    task = Path(saved.reference)
    assert task == f.storage(tmp_path, f.CLINE_EXT) / "tasks" / "1775034000000"
    assert sorted(p.name for p in task.iterdir()) == [
        "api_conversation_history.json",
        "task_metadata.json",
        "ui_messages.json",
    ]
    history = json.loads((task / "api_conversation_history.json").read_text())
    assert history[1]["content"] == [
        {
            "type": "tool_use",
            "id": "toolu_b1",
            "name": "execute_command",
            "input": {"command": "make", "requires_approval": False},
        }
    ]
    assert json.loads((task / "ui_messages.json").read_text())[0] == {
        "ts": 1775034000000,
        "type": "say",
        "say": "task",
        "text": "Check the build",
    }
    # The old entry keeps its bytes; the new one is appended after it.
    text = index.read_text()
    assert text.startswith(before[:-1] + ",")
    assert json.loads(text)[1] == {
        "id": "1775034000000",
        "ts": 1775034002000,
        "task": "Check the build",
        "tokensIn": 0,
        "tokensOut": 0,
        "totalCost": 0,
        "cwdOnTaskInitialization": "/srv/app",
    }
    assert sorted(d.meta_id for d in store.discover()) == ["1772359200000", "1775034000000"]


def test_a_task_already_there_is_not_replaced_without_force(tmp_path: Path) -> None:
    f.cline_xml_task(tmp_path)
    cline = harnesses.get("cline")
    store = cline.store(tmp_path)
    assert store is not None
    native = store.load(store.discover()[0].reference)
    with pytest.raises(BadInput, match="refusing to overwrite"):
        store.save(native)


@pytest.mark.parametrize("hostile", ["../x", "a/b", "-x", "", "a" * 200])
def test_hostile_ids_are_refused_before_anything_is_written(tmp_path: Path, hostile: str) -> None:
    for harness_id in ("cline", "roo"):
        harness = harnesses.get(harness_id)
        store = harness.store(tmp_path)
        assert store is not None
        with pytest.raises(BadInput):
            store.save(harness.from_common(_transcript(hostile)))
    assert list(tmp_path.iterdir()) == []


def test_a_file_name_that_leaves_the_task_directory_is_refused(tmp_path: Path) -> None:
    cline = harnesses.get("cline")
    native = cline.from_common(_transcript("1775034000000"))
    hostile = type(native)(native.id, (("../../evil.json", b"{}"),), native.entry)
    store = cline.store(tmp_path)
    assert store is not None
    with pytest.raises((BadInput, StoreError)):
        store.save(hostile)
    assert not any(p.name == "evil.json" for p in tmp_path.rglob("*"))


# --------------------------------------------------------------- state.vscdb: guards, undo


def test_a_roo_copy_goes_into_the_state_vscdb_index_and_restore_undoes_it(tmp_path: Path) -> None:
    f.roo_state_task(tmp_path)
    database = f.user_dir(tmp_path, "VSCodium") / "globalStorage" / "state.vscdb"
    rows_before = _rows(database)
    roo = harnesses.get("roo")
    store = roo.store(tmp_path)
    assert store is not None
    saved = store.save(roo.from_common(_transcript()), force=True)
    assert saved.backup is not None
    task = Path(saved.reference)
    assert task.parent.parent == f.storage(tmp_path, f.ROO_EXT, "VSCodium")
    assert json.loads((task / "history_item.json").read_text())["task"] == "Check the build"
    rows_after = _rows(database)
    # Only the extension's row changed, and in it only the taskHistory array grew.
    assert [r for r in rows_after if r[1] != "RooVeterinaryInc.roo-cline"] == [
        r for r in rows_before if r[1] != "RooVeterinaryInc.roo-cline"
    ]
    (state,) = [json.loads(r[3]) for r in rows_after if r[1] == "RooVeterinaryInc.roo-cline"]
    assert [e["id"] for e in state["taskHistory"]] == [f.ROO_TASK, _transcript().meta.id]
    assert state["customModes"] == [] and state["mode"] == "code"
    assert sorted(d.meta_id for d in store.discover()) == sorted([f.ROO_TASK, saved.id])

    plan = restoring.plan(saved.backup)
    assert plan.trusted is False  # the default root is HOME, not this store
    undone = restoring.restore(plan, force=True)
    assert _rows(database) == rows_before
    assert not task.exists()
    assert [d.meta_id for d in store.discover()] == [f.ROO_TASK]
    # The undo took its own backup: restoring that one redoes the save, files included.
    assert undone is not None
    restoring.restore(restoring.plan(undone.id), force=True)
    assert _rows(database) == rows_after
    assert json.loads((task / "history_item.json").read_text())["task"] == "Check the build"


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="the fake editor is found in /proc")
def test_a_write_into_a_running_editors_state_vscdb_is_refused_and_leaves_it_byte_identical(
    isolated_home: Path, running_codium: int
) -> None:
    f.roo_state_task(isolated_home)
    database = f.user_dir(isolated_home, "VSCodium") / "globalStorage" / "state.vscdb"
    digest, listing = _digest(database), sorted(database.parent.iterdir())
    roo = harnesses.get("roo")
    store = roo.store()
    assert store is not None
    native = roo.from_common(_transcript())
    with pytest.raises(TxcriptError, match=r"VSCodium is running \(pid") as refused:
        store.save(native)
    assert str(running_codium) in str(refused.value)
    assert _digest(database) == digest
    assert sorted(database.parent.iterdir()) == listing
    tasks = f.storage(isolated_home, f.ROO_EXT, "VSCodium") / "tasks"
    assert [p.name for p in tasks.iterdir()] == [f.ROO_TASK]

    rows_before = _rows(database)
    saved = store.save(native, force=True)
    assert saved.backup is not None
    assert _rows(database) != rows_before
    plan = restoring.plan(saved.backup)
    assert plan.trusted  # the configured store's own database
    with pytest.raises(TxcriptError, match="running"):
        restoring.restore(plan)  # the editor still runs: the undo is refused too
    restoring.restore(plan, force=True)
    assert _rows(database) == rows_before
    assert [p.name for p in tasks.iterdir()] == [f.ROO_TASK]


def test_restore_refuses_when_the_editor_rewrote_the_row_since(tmp_path: Path) -> None:
    f.roo_state_task(tmp_path)
    database = f.user_dir(tmp_path, "VSCodium") / "globalStorage" / "state.vscdb"
    roo = harnesses.get("roo")
    store = roo.store(tmp_path)
    assert store is not None
    saved = store.save(roo.from_common(_transcript()), force=True)
    assert saved.backup is not None
    conn = sqlite3.connect(database)
    conn.execute(
        "UPDATE ItemTable SET value = ? WHERE key = 'RooVeterinaryInc.roo-cline'",
        (json.dumps({"taskHistory": []}),),
    )
    conn.commit()
    conn.close()
    changed = _rows(database)
    backup = backups.find(saved.backup)
    with pytest.raises(StoreError, match="has changed since backup"):
        roo.undo_backup(backup)
    assert _rows(database) == changed


def test_a_fresh_store_gets_a_state_vscdb_for_a_task_whose_entry_came_from_one(
    tmp_path: Path,
) -> None:
    f.roo_state_task(tmp_path / "source")
    roo = harnesses.get("roo")
    source = roo.store(tmp_path / "source")
    assert source is not None
    native = source.load(source.discover()[0].reference)
    assert native.entry_origin == "state"
    target = roo.store(tmp_path / "copy")
    assert target is not None
    saved = target.save(native)
    assert target.load(saved.reference) == native
    created = f.user_dir(tmp_path / "copy", "Code") / "globalStorage" / "state.vscdb"
    assert [r[1] for r in _rows(created)] == ["RooVeterinaryInc.roo-cline"]


def test_an_unreadable_state_vscdb_is_one_warning_and_the_tasks_still_list(
    tmp_path: Path,
) -> None:
    f.roo_state_task(tmp_path)
    database = f.user_dir(tmp_path, "VSCodium") / "globalStorage" / "state.vscdb"
    database.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    store = harnesses.get("roo").store(tmp_path)
    assert store is not None
    with pytest.warns(UserWarning) as caught:
        found = store.discover()
    assert [d.meta_id for d in found] == [f.ROO_TASK]
    assert found[0].title == "How big is the repo?"  # from the first prompt, without the index
    assert len(caught) == 1 and "state.vscdb" in str(caught[0].message)


# ------------------------------------------------------------------------------- delete


def test_delete_takes_the_task_and_its_entry_out_and_restore_puts_them_back(
    tmp_path: Path,
) -> None:
    task = f.cline_xml_task(tmp_path)
    index = f.storage(tmp_path, f.CLINE_EXT) / "state" / "taskHistory.json"
    before = index.read_bytes()
    store = harnesses.get("cline").store(tmp_path)
    assert store is not None
    store.delete(str(task), force=True)
    assert not task.exists()
    assert json.loads(index.read_text()) == []
    assert store.discover() == []
    (backup,) = backups.list_backups()
    backups.restore(backup)
    assert index.read_bytes() == before
    assert [d.meta_id for d in store.discover()] == [f.XML_TASK]


# --------------------------------------------------------------------------------- Kilo


def test_a_kilo_copy_is_a_kilo_db_session_and_restore_undoes_it(tmp_path: Path) -> None:
    database = f.kilo_db(tmp_path)
    kilo = harnesses.get("kilo")
    store = kilo.store(tmp_path)
    assert store is not None
    transcript = _transcript(kilo.adopt_id("0195a1b2-0000-7000-8000-00000000c0de"))
    native = kilo.from_common(transcript)
    saved = store.save(native)
    assert saved.id.startswith("ses_") and saved.reference == f"{database}#{saved.id}"
    found = {d.meta_id for d in store.discover()}
    assert found == {f.KILO_SESSION, saved.id}
    back = kilo.to_common(store.load(saved.reference))
    assert [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolUse)] == [
        m.ToolUse(id="toolu_b1", tool=m.Bash(command="make"))
    ]
    (backup,) = [b for b in backups.list_backups() if b.harness == "kilo"]
    assert backup.database == str(database.resolve()) and saved.backup == backup.id
    kilo.undo_backup(backup)
    assert {d.meta_id for d in store.discover()} == {f.KILO_SESSION}
    assert f.KILO_SECRET not in backup.path.read_bytes().decode("utf-8", "replace")


def test_kilo_without_its_database_says_to_run_kilo_once(tmp_path: Path) -> None:
    kilo = harnesses.get("kilo")
    store = kilo.store(tmp_path)
    assert store is not None
    with pytest.raises(StoreError, match=r"no Kilo database at .*run `kilo` once"):
        store.save(kilo.from_common(_transcript(kilo.adopt_id("x"))))
    assert not os.path.exists(f.kilo_db_path(tmp_path))
