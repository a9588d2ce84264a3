"""Reading the live app's database: no files created or touched, committed data seen while another
process writes, clean one-line errors for locks and broken files."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dbfixtures as fx
import pytest

from txcript.errors import BadInput, StoreError, StoreUnreadable
from txcript.harnesses.cursor_desktop import database
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore


def db_path(root: Path) -> Path:
    return root / "globalStorage" / "state.vscdb"


def snapshot(directory: Path) -> dict[str, tuple[int, int, str]]:
    return {
        entry.name: (
            entry.stat().st_size,
            entry.stat().st_mtime_ns,
            hashlib.sha256(entry.read_bytes()).hexdigest(),
        )
        for entry in sorted(directory.iterdir())
    }


def read_everything(store: CursorDesktopStore) -> None:
    found = store.discover()
    assert found
    for item in found:
        store.load(item.reference)
    store.fingerprints([item.reference for item in found])
    with pytest.raises(BadInput):
        store.load("not-there")


# ------------------------------------------------------------------------------------ no sidecars


def test_plain_read_only_open_creates_sidecars(tmp_path: Path) -> None:
    """The hazard this store avoids: ``mode=ro`` on a resting WAL database writes beside it."""
    path = fx.app_3_16(db_path(tmp_path), journal="wal")
    assert sorted(os.listdir(path.parent)) == ["state.vscdb"]
    conn = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    conn.execute("SELECT count(*) FROM cursorDiskKV").fetchone()
    conn.close()
    assert sorted(os.listdir(path.parent)) == ["state.vscdb", "state.vscdb-shm", "state.vscdb-wal"]


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_reading_leaves_the_directory_byte_identical(tmp_path: Path, journal: fx.Journal) -> None:
    path = fx.app_3_16(db_path(tmp_path), journal=journal)
    with path.open("rb") as handle:
        assert handle.read(20)[18] == (2 if journal == "wal" else 1)
    before = snapshot(path.parent)
    time.sleep(0.01)  # so an mtime change could not hide inside the clock's resolution
    read_everything(CursorDesktopStore(tmp_path))
    assert snapshot(path.parent) == before


def test_a_write_during_an_immutable_read_is_read_again(tmp_path: Path) -> None:
    """If the app opens the database while an ``immutable`` read runs, the read is redone."""
    path = fx.app_3_16(db_path(tmp_path), journal="wal")
    probe = sqlite3.connect(path)
    rows = probe.execute("SELECT count(*) FROM cursorDiskKV").fetchone()[0]
    probe.close()  # the last connection: SQLite checkpoints and removes -wal/-shm
    assert sorted(os.listdir(path.parent)) == ["state.vscdb"]
    calls: list[str] = []
    app: list[sqlite3.Connection] = []

    def work(conn: sqlite3.Connection, schema: database.Schema) -> int:
        calls.append("read")
        if len(calls) == 1:  # the "app" starts, commits, and stays open (-wal/-shm appear)
            app.append(sqlite3.connect(path, isolation_level=None))
            app[0].execute("INSERT INTO cursorDiskKV VALUES ('late:row', 'x')")
        return int(conn.execute("SELECT count(*) FROM cursorDiskKV").fetchone()[0])

    info = database.inspect(path)
    assert info is not None and info.wal
    try:
        count = database.read(path, info, work, busy_timeout=1.0)
    finally:
        for conn in app:
            conn.close()
    assert calls == ["read", "read"]
    assert count == rows + 1


# ------------------------------------------------------------------------------------ a live writer

WRITER = r"""
import json, sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=float(sys.argv[2]))
print("ready", flush=True)
for line in sys.stdin:
    command, _, argument = line.rstrip("\n").partition(" ")
    try:
        if command == "sql":
            conn.execute(argument)
        elif command == "put":
            conn.execute("INSERT OR REPLACE INTO cursorDiskKV VALUES (?, ?)", json.loads(argument))
        elif command == "loop":  # commit continuously for <argument> seconds
            commits = errors = 0
            deadline = time.monotonic() + float(argument)
            while time.monotonic() < deadline:
                row = (f"loop:{commits % 50}", "x" * 200)
                try:
                    conn.execute("INSERT OR REPLACE INTO cursorDiskKV VALUES (?, ?)", row)
                    commits += 1
                except sqlite3.OperationalError:
                    errors += 1
            print(f"done {commits} {errors}", flush=True)
            continue
        elif command == "quit":
            break
        print("ok", flush=True)
    except Exception as exc:
        print("error " + str(exc).replace("\n", " "), flush=True)
"""


class Writer:
    """Another process with the database open, driven line by line."""

    def __init__(self, path: Path, timeout: float = 0.0) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(timeout)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.readline() == "ready"

    def readline(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def __call__(self, command: str) -> str:
        self.send(command)
        return self.readline()

    def put(self, key: str, value: str) -> str:
        return self(f"put {json.dumps([key, value])}")

    def add_session(self, cid: str, created: int) -> None:
        assert (
            self.put(
                f"composerData:{cid}", fx.js({"composerId": cid, "name": cid, "createdAt": created})
            )
            == "ok"
        )
        assert self.put(f"bubbleId:{cid}:u", fx.user_bubble("u", "hello")) == "ok"

    def close(self) -> None:
        if self.process.poll() is None:
            self.send("quit")
            self.process.wait(timeout=10)


@pytest.fixture
def writers() -> Iterator[list[Writer]]:
    started: list[Writer] = []
    yield started
    for writer in started:
        writer.close()


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_reads_see_committed_data_beside_a_writer(
    tmp_path: Path, journal: fx.Journal, writers: list[Writer]
) -> None:
    fx.app_0_45(db_path(tmp_path), journal=journal)
    store = CursorDesktopStore(tmp_path, busy_timeout=2.0)
    writer = Writer(db_path(tmp_path))
    writers.append(writer)

    # Committed by the other process (in WAL mode it sits in the -wal file, not yet checkpointed).
    writer.add_session("committed", fx.T045 + 10)
    assert "committed" in {d.reference for d in store.discover()}
    if journal == "wal":
        assert os.path.getsize(str(db_path(tmp_path)) + "-wal") > 0

    # An open write transaction: the reader neither waits for it nor sees it.
    assert writer("sql BEGIN IMMEDIATE") == "ok"
    writer.add_session("pending", fx.T045 + 20)
    started = time.monotonic()
    listed = {d.reference for d in store.discover()}
    assert time.monotonic() - started < 1.0
    assert "pending" not in listed and "committed" in listed
    assert writer("sql COMMIT") == "ok"
    assert "pending" in {d.reference for d in store.discover()}
    assert store.load("pending").bubbles[0].key == "bubbleId:pending:u"


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_reads_do_not_block_a_busy_writer(
    tmp_path: Path, journal: fx.Journal, writers: list[Writer]
) -> None:
    fx.app_3_16(db_path(tmp_path), journal=journal)
    store = CursorDesktopStore(tmp_path)
    # The app's own connection waits briefly on locks, as SQLite clients do.
    writer = Writer(db_path(tmp_path), timeout=0.0 if journal == "wal" else 2.0)
    writers.append(writer)
    outcome: list[str] = []
    waiter = threading.Thread(target=lambda: outcome.append(writer.readline()))
    waiter.start()
    writer.send("loop 0.8")
    reads = 0
    deadline = time.monotonic() + 20
    while waiter.is_alive() and time.monotonic() < deadline:
        assert len(store.discover()) == 4
        store.load(fx.CID_A)
        reads += 1
    waiter.join(timeout=20)
    done, commits, errors = outcome[0].split()
    assert done == "done" and int(commits) > 10
    assert errors == "0"  # every one of the writer's commits went through
    # ...while we kept reading. A rollback-journal reader may starve beside such a busy writer
    # (it waits for the lock); a WAL reader never waits.
    assert reads >= (3 if journal == "wal" else 1)


def test_an_exclusive_lock_gives_a_clean_store_error(tmp_path: Path, writers: list[Writer]) -> None:
    fx.app_3_16(db_path(tmp_path), journal="delete")
    store = CursorDesktopStore(tmp_path, busy_timeout=0.3)
    writer = Writer(db_path(tmp_path))
    writers.append(writer)
    assert writer("sql BEGIN EXCLUSIVE") == "ok"
    for attempt in (store.discover, lambda: store.load(fx.CID_A)):
        started = time.monotonic()
        with pytest.raises(StoreError) as caught:
            attempt()
        assert 0.2 < time.monotonic() - started < 3.0
        message = str(caught.value)
        assert "\n" not in message and "locked" in message and str(db_path(tmp_path)) in message
        assert caught.value.exit_code == 1
    assert store.fingerprints([fx.CID_A]) == {fx.CID_A: ""}
    assert writer("sql ROLLBACK") == "ok"
    assert len(store.discover()) == 4


# ------------------------------------------------------------------------------------ broken files


def _truncated(path: Path) -> None:
    fx.app_3_16(path, journal="delete")
    data = path.read_bytes()
    assert len(data) > 4 * 4096
    path.write_bytes(data[: len(data) // 2])


def _header_only(path: Path) -> None:
    fx.app_3_16(path, journal="delete")
    path.write_bytes(path.read_bytes()[:60])


def _random(path: Path) -> None:
    path.parent.mkdir(parents=True)
    path.write_bytes(bytes(range(256)) * 40)


def _corrupt_pages(path: Path) -> None:
    fx.app_3_16(path, journal="delete")
    data = bytearray(path.read_bytes())
    data[4096:] = bytes((i * 7 + 3) % 256 for i in range(len(data) - 4096))
    path.write_bytes(bytes(data))


def _directory(path: Path) -> None:
    path.mkdir(parents=True)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (_truncated, "is truncated"),
        (_header_only, "is truncated"),
        (_random, "is not an SQLite database"),
        (_corrupt_pages, "is unreadable"),
        (_directory, "is a directory"),
    ],
)
def test_broken_files_give_one_line_errors(tmp_path: Path, make: object, expected: str) -> None:
    path = db_path(tmp_path)
    make(path)  # type: ignore[operator]
    store = CursorDesktopStore(tmp_path)
    for attempt in (store.discover, lambda: store.load(fx.CID_A)):
        with pytest.raises(StoreUnreadable) as caught:
            attempt()
        message = str(caught.value)
        assert expected in message and str(path) in message and "\n" not in message
        assert caught.value.exit_code == 2
    assert store.fingerprints([fx.CID_A]) == {fx.CID_A: ""}


def test_empty_file_and_missing_table(tmp_path: Path) -> None:
    path = db_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    store = CursorDesktopStore(tmp_path)
    assert store.discover() == []
    with pytest.raises(StoreUnreadable, match="has no cursorDiskKV table"):
        store.load(fx.CID_A)

    path.unlink()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.close()
    before = snapshot(path.parent)
    assert store.discover() == []  # a fresh app database that never held a composer
    with pytest.raises(StoreUnreadable) as caught:
        store.load(fx.CID_A)
    assert str(caught.value) == (
        f"cursor_desktop database {path} has no cursorDiskKV table (not a Cursor state database?)"
    )
    assert store.fingerprints([fx.CID_A]) == {fx.CID_A: ""}
    assert snapshot(path.parent) == before
