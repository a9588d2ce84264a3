"""Row backups and undo on every generation: a save or a delete is undone exactly, and only it.

Every comparison is a full dump (every table, every row with its rowid, the storage class and
bytes of every cell, and the schema), so "byte-identical" means byte-identical.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import dbfixtures as fx
import pytest
from test_save_hazards import make_body
from test_save_roundtrip import GENERATIONS, db_path, dump, every_composer, item

from conftest import RunCli
from txcript.errors import StoreError
from txcript.harnesses.cursor_desktop import saving, sidebar
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared import backups


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def built(tmp_path: Path, generation: str) -> CursorDesktopStore:
    root = tmp_path / "User"
    GENERATIONS[generation](db_path(root))
    return CursorDesktopStore(root)


def only_backup() -> backups.Backup:
    (backup,) = backups.list_backups()
    return backup


def undo(backup_id: str, *, force: bool = False) -> backups.Backup | None:
    return saving.undo(backups.find(backup_id), force=force)


def existing_session(store: CursorDesktopStore) -> str:
    for cid in every_composer(store.database):
        try:
            store.load(cid)
        except Exception:
            continue
        return cid
    raise AssertionError("the fixture holds no loadable session")


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_save_then_undo_is_byte_identical(tmp_path: Path, generation: str) -> None:
    store = built(tmp_path, generation)
    before = dump(store.database)
    saved = store.save(make_body("fresh-session", cwd=str(tmp_path / "proj")), force=True)
    assert dump(store.database) != before
    backup = only_backup()
    assert saved.backup == backup.id
    assert (backup.kind, backup.operation, backup.session) == ("row", "save", "fresh-session")
    assert backup.size < 1 << 20
    undone = undo(backup.id)
    assert dump(store.database) == before
    # The undo is itself backed up, and undoing it puts the save back.
    assert undone is not None and undone.operation == "undo"
    undo(undone.id)
    assert "fresh-session" in {d.reference for d in store.discover()}


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_delete_then_undo_is_byte_identical(tmp_path: Path, generation: str) -> None:
    store = built(tmp_path, generation)
    cid = existing_session(store)
    before = dump(store.database)
    store.delete(cid, force=True)
    backup = only_backup()
    assert (backup.kind, backup.operation, backup.session) == ("row", "delete", cid)
    undo(backup.id)
    assert dump(store.database) == before


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_resave_of_an_existing_session_then_undo_is_byte_identical(
    tmp_path: Path, generation: str
) -> None:
    store = built(tmp_path, generation)
    cid = existing_session(store)
    native = store.load(cid)
    before = dump(store.database)
    changed = make_body(cid, cwd="/elsewhere", said="replaced")
    import dataclasses

    changed = dataclasses.replace(changed, reference=cid)
    store.save(changed, force=True)
    assert dump(store.database) != before
    undo(only_backup().id)
    assert dump(store.database) == before
    assert store.load(cid).bubbles == native.bubbles


def add_app_session(path: Path, cid: str, project: str) -> None:
    """What the app does meanwhile: another session, with its own sidebar membership."""
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, recency, value) "
        "VALUES (?, ?, ?, ?, ?)",
        (cid, fx.T0, fx.T0, fx.T0, fx.head_3_16(cid, fx.T0, name=f"Title {cid}")),
    )
    conn.execute(
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        (f"bubbleId:{cid}:u", fx.user_bubble("u", "later")),
    )
    (members,) = conn.execute(
        "SELECT value FROM ItemTable WHERE key = ?", (sidebar.MEMBERSHIP_KEY,)
    ).fetchone()
    parsed = json.loads(members)
    parsed[cid] = project
    conn.execute(
        "UPDATE ItemTable SET value = ? WHERE key = ?",
        (json.dumps(parsed, separators=(",", ":")), sidebar.MEMBERSHIP_KEY),
    )
    conn.commit()
    conn.close()


def test_undo_keeps_what_the_app_did_since(tmp_path: Path) -> None:
    """The app added a session filed under the project the save created, and edited the
    membership map: the undo removes only the saved session and its membership entry; the
    project stays because the app's session now belongs to it."""
    store = built(tmp_path, "3.16 app DDL, WAL")
    store.save(make_body("fresh", cwd="/brand/new/project"), force=True)
    backup = only_backup()
    projects = json.loads(item(dump(store.database), sidebar.PROJECTS_KEY) or "[]")
    added = next(
        p["id"] for p in projects if p["workspace"]["uri"]["fsPath"] == "/brand/new/project"
    )
    other = "0ther000-0000-4000-8000-000000000001"
    add_app_session(store.database, other, added)
    undo(backup.id)
    after = dump(store.database)
    members = json.loads(item(after, sidebar.MEMBERSHIP_KEY) or "{}")
    assert "fresh" not in members and members[other] == added
    assert added in {p["id"] for p in json.loads(item(after, sidebar.PROJECTS_KEY) or "[]")}
    assert {d.reference for d in store.discover()} >= {other}
    assert "fresh" not in {d.reference for d in store.discover()}


def test_undo_of_a_save_removes_the_project_it_added_when_nobody_uses_it(tmp_path: Path) -> None:
    store = built(tmp_path, "3.16 app DDL, WAL")
    before = dump(store.database)
    store.save(make_body("fresh", cwd="/brand/new/project"), force=True)
    backup = only_backup()
    other = "0ther000-0000-4000-8000-000000000001"
    add_app_session(store.database, other, "some-other-project")
    undo(backup.id)
    after = dump(store.database)
    assert item(after, sidebar.PROJECTS_KEY) == item(before, sidebar.PROJECTS_KEY)
    members = json.loads(item(after, sidebar.MEMBERSHIP_KEY) or "{}")
    assert "fresh" not in members and members[other] == "some-other-project"


def test_undo_after_the_session_changed_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    store = built(tmp_path, "3.16 app DDL, WAL")
    store.save(make_body("fresh", cwd="/p"), force=True)
    backup = only_backup()
    conn = sqlite3.connect(store.database)
    conn.execute(
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        ("bubbleId:fresh:zzz", fx.user_bubble("zzz", "more")),
    )
    conn.commit()
    conn.close()
    changed = dump(store.database)
    with pytest.raises(StoreError, match="has changed since backup"):
        undo(backup.id)
    assert dump(store.database) == changed
    assert [b.id for b in backups.list_backups()] == [backup.id]
    undo(backup.id, force=True)  # forced: the session goes, with the app's extra row
    assert "fresh" not in {d.reference for d in store.discover()}


def test_a_trigger_on_a_written_table_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    """Issue 10 item 8: a trigger planted in the database ran inside txcript's write (it
    deleted another session's rows). Such a database is refused now, for save, delete and
    undo, with nothing written and no backup left."""
    store = built(tmp_path, "3.16 app DDL, WAL")
    conn = sqlite3.connect(store.database)
    conn.execute(
        "CREATE TRIGGER wipe AFTER INSERT ON cursorDiskKV BEGIN "
        f"DELETE FROM cursorDiskKV WHERE key LIKE 'bubbleId:{fx.CID_B}:%'; END"
    )
    conn.commit()
    conn.close()
    before = dump(store.database)
    for attempt in (
        lambda: store.save(make_body("x", cwd="/x"), force=True),
        lambda: store.delete(fx.CID_A, force=True),
    ):
        with pytest.raises(StoreError, match="has a trigger `wipe` on cursorDiskKV"):
            attempt()
    assert dump(store.database) == before
    assert backups.list_backups() == []
    assert list((tmp_path / "txcript-data" / "backups").glob("*")) == []


def test_cli_continue_delete_and_undo(run_cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    before = dump(db_path(root))
    doc = tmp_path / "doc.json"
    doc.write_text(
        json.dumps({"cwd": str(tmp_path), "messages": [{"role": "user", "content": "hi"}]})
    )
    continued = run_cli(
        "continue", str(doc), "--with", "cursor_desktop", "--no-resume", "--force", env=env
    )
    assert continued.code == 0, continued.stderr
    hint = continued.stdout.splitlines()[-1]
    assert hint.startswith("  undo with: txcript restore ")
    backup_id = hint.rsplit(" ", 1)[1]
    listed = run_cli("restore", env=env)
    header, row, total = listed.stdout.splitlines()
    assert header.split() == ["ID", "KIND", "HARNESS", "OPERATION", "SESSION", "SIZE"]
    assert row.split()[:4] == [backup_id, "row", "cursor_desktop", "save"]
    assert total.startswith("1 backup, ")
    undone = run_cli("restore", backup_id, "--yes", "--force", env=env)
    assert undone.code == 0, undone.stderr
    assert "undo the save of cursor_desktop session" in undone.stderr
    assert undone.stdout.startswith("undid the save of cursor_desktop session ")
    assert dump(db_path(root)) == before


def _respace_sidebar(path: Path) -> None:
    """What a tool that rewrites the sidebar values does: the same JSON, other spacing."""
    conn = sqlite3.connect(path)
    for key in (sidebar.PROJECTS_KEY, sidebar.MEMBERSHIP_KEY):
        row = conn.execute("SELECT value FROM ItemTable WHERE key = ?", (key,)).fetchone()
        if row is not None:
            spaced = json.dumps(json.loads(row[0]), indent=4, ensure_ascii=True)
            conn.execute("UPDATE ItemTable SET value = ? WHERE key = ?", (spaced, key))
    conn.commit()
    conn.close()


def test_undo_compares_the_sidebar_entries_it_guards_by_their_json(tmp_path: Path) -> None:
    """Regression: the undo hashed the session's own sidebar entries as bytes, so a tool that
    rewrote the same values with other spacing made it refuse ("has changed since backup"),
    and a project entry so respaced was kept as if the app had changed it."""
    store = built(tmp_path, "3.16 app DDL, WAL")
    before = dump(store.database)
    store.save(make_body("fresh", cwd="/brand/new/project"), force=True)
    backup = only_backup()
    _respace_sidebar(store.database)
    undo(backup.id)
    after = dump(store.database)
    for key in (sidebar.PROJECTS_KEY, sidebar.MEMBERSHIP_KEY):
        assert json.loads(item(after, key) or "null") == json.loads(item(before, key) or "null")
    assert "fresh" not in {d.reference for d in store.discover()}


def test_a_backup_taken_before_entries_were_compared_by_json_still_undoes(
    tmp_path: Path, data_dir: Path
) -> None:
    """Backups already on disk recorded the state hash over the entries' exact text."""
    from txcript.harnesses.cursor_desktop import rowbackup

    store = built(tmp_path, "3.16 app DDL, WAL")
    store.save(make_body("fresh", cwd="/p"), force=True)
    backup = only_backup()
    conn = sqlite3.connect(store.database)
    state = rowbackup.capture(conn, "fresh")
    conn.close()
    manifest = data_dir / "backups" / f"{backup.id}.json"
    if not manifest.is_file():
        (manifest,) = data_dir.rglob(f"{backup.id}.json")
    document = json.loads(manifest.read_text())
    document["after_hash"] = rowbackup.session_hashes(state, "fresh")[1]
    manifest.write_text(json.dumps(document))
    undo(backup.id)
    assert "fresh" not in {d.reference for d in store.discover()}
