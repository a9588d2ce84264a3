"""The shared read rules: only regular files, with a size cap; SQLite reads touch nothing."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from txcript.shared import sqlite as shared_sqlite
from txcript.shared.files import FileRefused, read_head, read_regular


def _listing(directory: Path) -> dict[str, tuple[int, int, bytes]]:
    out = {}
    for entry in sorted(directory.iterdir()):
        st = entry.stat()
        out[entry.name] = (st.st_size, st.st_mtime_ns, entry.read_bytes())
    return out


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def attempt() -> None:
        try:
            read_regular(fifo, limit=1 << 20)
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert isinstance(outcome[0], FileRefused)
    assert "is a FIFO, not a regular file" in str(outcome[0])


def test_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "rollout.jsonl"
    link.symlink_to("/dev/zero")
    with pytest.raises(FileRefused, match="is a device"):
        read_regular(link, limit=1 << 20)
    with pytest.raises(FileRefused, match="is a device"):
        read_head(link, limit=10)


def test_a_file_over_the_cap_is_refused_and_one_under_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 2048)
    with pytest.raises(FileRefused, match="over the"):
        read_regular(path, limit=1024)
    assert read_regular(path, limit=2048) == b"x" * 2048
    assert read_head(path, limit=10) == b"x" * 10


def _wal_db_with_commit_only_in_wal(directory: Path) -> Path:
    """A WAL database whose last commit lives only in ``-wal`` and that has no ``-shm``."""
    work = directory.parent / (directory.name + "-work")
    work.mkdir()
    db = work / "store.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES ('checkpointed')")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT INTO t VALUES ('only in the wal')")
    directory.mkdir()
    # Copy while the connection is open: closing would checkpoint the WAL away.
    shutil.copyfile(db, directory / "store.db")
    shutil.copyfile(str(db) + "-wal", directory / "store.db-wal")
    conn.close()
    return directory / "store.db"


def test_a_wal_without_shm_is_read_whole_and_nothing_beside_it_changes(tmp_path: Path) -> None:
    db = _wal_db_with_commit_only_in_wal(tmp_path / "chat")
    before = _listing(db.parent)
    info = shared_sqlite.inspect(db, "test db")
    assert info is not None and info.wal
    rows = shared_sqlite.read(
        db,
        info,
        lambda conn: [r[0] for r in conn.execute("SELECT x FROM t ORDER BY rowid")],
        label="test db",
        busy_timeout=1.0,
    )
    assert rows == ["checkpointed", "only in the wal"]
    assert _listing(db.parent) == before  # no -shm, same names, bytes and mtimes


def test_immutable_open_would_have_missed_the_wal_commit(tmp_path: Path) -> None:
    """Why the snapshot exists: the cheap immutable open silently shows an older state."""
    db = _wal_db_with_commit_only_in_wal(tmp_path / "chat")
    conn = shared_sqlite.connect(db, immutable=True, busy_timeout=1.0)
    try:
        assert [r[0] for r in conn.execute("SELECT x FROM t")] == ["checkpointed"]
    finally:
        conn.close()


def test_a_fifo_database_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "state.vscdb"
    os.mkfifo(fifo)
    with pytest.raises(Exception, match="FIFO"):
        shared_sqlite.inspect(fifo, "test db")
