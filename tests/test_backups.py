"""Backups taken before writes, listed and restored by ``txcript restore``."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import RunCli
from txcript.diagnostics import TranscriptWarning
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


# ------------------------------------------------------------------ manifests are input


def test_a_manifest_with_a_path_shaped_id_is_ignored_and_prune_never_leaves_the_dir(
    tmp_path: Path, data_dir: Path, run_cli: RunCli
) -> None:
    """Issue 10 item 6: a manifest whose id was ``../../x`` made the next prune delete files
    outside the backup dir. Ids must match the backup-id grammar, the manifest must be named
    after its id, and every derived path must stay inside the directory."""
    directory = data_dir / "backups"
    directory.mkdir(parents=True)
    victim = tmp_path / "victim.sqlite"
    victim.write_text("precious")
    hostile = {
        "id": "../../victim",
        "harness": "cursor_desktop",
        "database": str(victim),
        "operation": "save",
        "session": None,
        "created_at": "2020-01-01T00:00:00Z",
        "size": 1,
        "kind": "snapshot",
    }
    (directory / "20200101T000000000000Z-cursor_desktop-save.json").write_text(json.dumps(hostile))
    (directory / "..%2F..%2Fvictim.json").write_text(json.dumps(hostile))
    with pytest.warns(TranscriptWarning, match="ignoring backup manifest"):
        assert backups.list_backups() == []
    with pytest.warns(TranscriptWarning, match="ignoring backup manifest"):  # (said each time)
        backups.prune()
    assert victim.read_text() == "precious"
    listed = run_cli("restore")
    assert listed.code == 0 and listed.stdout == "no backups yet\n"
    assert "ignoring backup manifest" in listed.stderr


def test_restore_writes_only_where_the_configuration_points_unless_forced(
    tmp_path: Path, data_dir: Path, run_cli: RunCli
) -> None:
    """Issue 10 item 6: ``restore`` overwrote whatever database a manifest named. A backup of a
    database that is not the configured store's is refused, with the target shown."""
    elsewhere = make_db(tmp_path / "elsewhere.vscdb", "before")
    backup = backups.create(elsewhere, harness="cursor_desktop", operation="snapshot")
    make_db(elsewhere, "after")
    env = {"CURSOR_DESKTOP_USER_DIR": str(tmp_path / "User")}
    refused = run_cli("restore", backup.id, "--yes", env=env)
    assert refused.code == 2
    assert f"writes to {elsewhere.resolve()}" in refused.stderr and "--force" in refused.stderr
    assert read(elsewhere) == "after"
    forced = run_cli("restore", backup.id, "--yes", "--force", env=env)
    assert forced.code == 0, forced.stderr
    assert read(elsewhere) == "before"


@pytest.mark.parametrize(
    ("name", "value"),
    [("TXCRIPT_BACKUP_KEEP", "0"), ("TXCRIPT_BACKUP_KEEP", "ten"),
     ("TXCRIPT_BACKUP_MAX_SIZE", "lots"), ("TXCRIPT_BACKUP_MAX_SIZE", "-1G")],
)  # fmt: skip
def test_a_bad_backup_knob_is_an_error_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    db = make_db(tmp_path / "state.vscdb", "x")
    monkeypatch.setenv(name, value)
    with pytest.raises(BadInput, match=name):
        backups.create(db, harness="cursor_desktop", operation="snapshot")
    assert not (backups.backup_dir()).exists() or list(backups.backup_dir().iterdir()) == []


def test_prune_keeps_the_total_under_the_size_cap_and_removes_sidecars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = make_db(tmp_path / "state.vscdb", "x" * 1000)
    first = backups.create(db, harness="cursor_desktop", operation="snapshot")
    Path(str(first.path) + "-wal").write_bytes(b"w")
    Path(str(first.path) + "-shm").write_bytes(b"s")
    monkeypatch.setenv("TXCRIPT_BACKUP_MAX_SIZE", str(first.size + 1))
    second = backups.create(db, harness="cursor_desktop", operation="snapshot")
    assert [b.id for b in backups.list_backups()] == [second.id]
    assert sorted(p.name for p in backups.backup_dir().iterdir()) == [
        f"{second.id}.json",
        f"{second.id}.sqlite",
    ]
