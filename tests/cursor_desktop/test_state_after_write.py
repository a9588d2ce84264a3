"""The state a write leaves, as its backup records it without reading the values back.

A save hashes what it bound and an undo what it put back (``rowbackup.state_after``), rather
than reading the megabytes it just wrote. That hash is what a later undo checks the session
against, so it must be exactly the hash of a full read of the store afterwards, on every
generation, for a fresh save, a re-save that keeps a prefix and replaces the rest, an undo that
puts deleted rows back, and tables whose columns SQLite would convert or the write does not set
(those rows are read instead).
"""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from test_save_hazards import add_session, make_body
from test_save_roundtrip import GENERATIONS, db_path, every_composer

from txcript.harnesses.cursor_desktop import rowbackup, saving
from txcript.harnesses.cursor_desktop.native import KVRow
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared import backup_rows, backups


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def read_hash(path: Path, cid: str) -> str:
    conn = sqlite3.connect(path)
    try:
        return rowbackup.session_hash(rowbackup.capture(conn, cid), cid)
    finally:
        conn.close()


def recorded(backup_id: str | None) -> str | None:
    assert backup_id is not None
    return backups.find(backup_id).after_hash


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_after_hash_of_each_write_is_that_of_a_full_read(tmp_path: Path, generation: str) -> None:
    root = tmp_path / "User"
    GENERATIONS[generation](db_path(root))
    store = CursorDesktopStore(root)
    path = store.database

    fresh = store.save(make_body("fresh-one", cwd=str(tmp_path / "p")), force=True)
    assert recorded(fresh.backup) == read_hash(path, "fresh-one")

    # A re-save: the first bubble is kept, the rest replaced, composerData rewritten.
    body = make_body("fresh-one", cwd=str(tmp_path / "p"), said="hello")
    longer = dataclasses.replace(
        body,
        reference="fresh-one",
        bubbles=(*body.bubbles[:1], KVRow(body.bubbles[1].key, '{"changed":true}')),
    )
    resaved = store.save(longer, force=True)
    assert recorded(resaved.backup) == read_hash(path, "fresh-one")

    for cid in every_composer(path):
        deleted = saving.delete(path, cid, force=True)
        assert deleted is not None
        undone = saving.undo(backups.find(deleted.id))
        assert undone is not None
        assert undone.after_hash == read_hash(path, cid)
        break


@pytest.mark.parametrize(
    "ddl",
    [
        # A column the write does not set: its rows are read back, not assumed.
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB, note TEXT "
        "DEFAULT 'x')",
        # An affinity that converts what was bound ('123' is stored as an INTEGER).
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value INTEGER)",
    ],
)
def test_rows_sqlite_may_store_otherwise_are_read_back(tmp_path: Path, ddl: str) -> None:
    path = tmp_path / "state.vscdb"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.execute(ddl)
    conn.execute("INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:s:0', 'kept')")
    conn.commit()
    conn.execute("BEGIN IMMEDIATE")
    unchanged = rowbackup.capture(conn, "s")
    written = {"bubbleId:s:1": "123", "composerData:s": "{}"}
    conn.executemany(
        "INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)", list(written.items())
    )
    known = rowbackup.state_after(conn, "s", unchanged=unchanged, written=written)
    assert known.rows == rowbackup.capture(conn, "s").rows
    conn.rollback()
    conn.close()


def test_a_delete_undone_into_reused_rowids_hashes_as_read(tmp_path: Path) -> None:
    """Rows put back where their rowid is taken get new rowids; the hash follows them."""
    root = tmp_path / "User"
    GENERATIONS["3.16 app DDL, rollback journal"](db_path(root))
    store = CursorDesktopStore(root)
    add_session(store.database, "victim")
    deleted = saving.delete(store.database, "victim", force=True)
    assert deleted is not None
    conn = sqlite3.connect(store.database)
    (top,) = conn.execute("SELECT max(rowid) FROM cursorDiskKV").fetchone()
    stored, _ = backup_rows.read_rows(deleted)
    for rowid, _cells in stored["cursorDiskKV"]:  # the app reuses every freed rowid meanwhile
        conn.execute(
            "INSERT INTO cursorDiskKV (rowid, key, value) VALUES (?, ?, 'app')",
            (rowid, f"other:{rowid}"),
        )
    conn.commit()
    conn.close()
    undone = saving.undo(backups.find(deleted.id))
    assert undone is not None
    assert undone.after_hash == read_hash(store.database, "victim")
    conn = sqlite3.connect(store.database)
    (lowest,) = conn.execute(
        "SELECT min(rowid) FROM cursorDiskKV WHERE key >= 'bubbleId:victim:' "
        "AND key < 'bubbleId:victim;'"
    ).fetchone()
    assert lowest > top
    conn.close()


def test_a_resave_compares_the_stored_bubbles_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dry run and the write of one save see the same rows: the prefix already stored is
    found once (one read per compared bubble), not once per run."""
    root = tmp_path / "User"
    GENERATIONS["3.16 app DDL, rollback journal"](db_path(root))
    store = CursorDesktopStore(root)
    body = make_body("resaved", cwd=str(tmp_path / "p"))
    store.save(body, force=True)
    changed = dataclasses.replace(
        body, reference="resaved", bubbles=(body.bubbles[0], KVRow(body.bubbles[1].key, "{}"))
    )
    compared: list[str] = []
    opened = saving._open_for_write

    def traced(path: Path, busy_timeout: float) -> sqlite3.Connection:
        conn = opened(path, busy_timeout)
        conn.set_trace_callback(
            lambda sql: compared.append(sql) if "FROM cursorDiskKV WHERE rowid = " in sql else None
        )
        return conn

    monkeypatch.setattr(saving, "_open_for_write", traced)
    saved = store.save(changed, force=True)
    assert saved.backup is not None
    assert len(compared) == 2  # the kept first bubble and the stale second one
    assert [r.value for r in store.load("resaved").bubbles] == [body.bubbles[0].value, "{}"]
