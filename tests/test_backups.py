"""Backups taken before writes, listed and restored by ``txcript restore``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from txcript.errors import BadInput
from txcript.shared import backups


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def make_db(path: Path, value: str, *, wal: bool = False) -> Path:
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("INSERT OR REPLACE INTO kv VALUES ('k', ?)", (value,))
    conn.commit()
    conn.close()
    return path


def read(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT value FROM kv WHERE key = 'k'").fetchone()[0])
    finally:
        conn.close()


def test_a_backup_is_a_consistent_copy_listed_newest_first(tmp_path: Path) -> None:
    db = make_db(tmp_path / "state.vscdb", "v1", wal=True)
    first = backups.create(db, harness="cursor_desktop", operation="save", session="abc")
    make_db(db, "v2")
    second = backups.create(db, harness="cursor_desktop", operation="delete", session="abc")
    assert read(first.path) == "v1" and read(second.path) == "v2"
    assert [b.id for b in backups.list_backups()] == [second.id, first.id]
    assert backups.list_backups(db)[0].database == str(db.resolve())
    assert first.id.endswith("-cursor_desktop-save-abc")


def test_restore_brings_the_old_state_back_and_backs_up_what_it_replaces(tmp_path: Path) -> None:
    db = make_db(tmp_path / "state.vscdb", "before")
    backup = backups.create(db, harness="cursor_desktop", operation="save")
    make_db(db, "after")
    undo = backups.restore(backups.find(backup.id[:12]))
    assert read(db) == "before"
    assert undo is not None and read(undo.path) == "after"


def test_restoring_files_where_nothing_is_left_replaces_nothing(tmp_path: Path) -> None:
    """A files backup restored where the files no longer exist backs nothing up (it used to
    report the restored backup itself as "the replaced state")."""
    session = tmp_path / "s.jsonl"
    session.write_text("x\n")
    backup = backups.create_files([session], harness="claude_code", operation="delete")
    session.unlink()
    assert backups.restore(backup) is None
    assert session.read_text() == "x\n"


def test_old_backups_are_pruned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_BACKUP_KEEP", "2")
    db = make_db(tmp_path / "state.vscdb", "x")
    made = [backups.create(db, harness="cursor_desktop", operation="save") for _ in range(4)]
    assert [b.id for b in backups.list_backups()] == [made[3].id, made[2].id]
    assert not made[0].path.exists()


def test_an_unknown_backup_id_is_bad_input() -> None:
    with pytest.raises(BadInput, match="no backup matches `nope`"):
        backups.find("nope")
