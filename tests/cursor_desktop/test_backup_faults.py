"""Backups under fire, with REAL processes: deletes and undos SIGKILLed at chosen points, saves
and snapshots stopped by SIGTERM or SIGINT from outside.

The invariant, for every write: afterwards (once a later run has swept) the store holds either
the old state with no new backup, or the new state with one complete new backup that undoes the
write exactly; and there is never a partial file. A write stopped by SIGINT/SIGTERM leaves no
partial file even before any later run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import dbfixtures as fx
import pytest
from test_save_roundtrip import Dump, db_path, dump
from test_write_faults import big_session

from txcript.harnesses.cursor_desktop import saving, text
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared import backups

CID = "big-session"

WRAPPER = r"""
import os, signal, sys
from pathlib import Path
from txcript.shared import backup_rows, backups
from txcript.harnesses.cursor_desktop import rowbackup, saving, text
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore

root, op, mode = sys.argv[1:4]

def die():
    os.kill(os.getpid(), signal.SIGKILL)

def dying_after(owner, name):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        die()
        return result
    setattr(owner, name, wrapper)

def dying_before(owner, name):
    def wrapper(*args, **kwargs):
        die()
    setattr(owner, name, wrapper)

points = {
    "before-backup": (dying_before, backup_rows.PendingRows, "begin"),
    "during-backup": (dying_after, backup_rows.PendingRows, "add_rows"),
    "after-backup": (dying_after, rowbackup, "write_rows"),
    "during-work": (dying_after, rowbackup, "undo") if op.startswith("undo") else None,
    "before-commit": (dying_after, backup_rows.PendingRows, "seal"),
    "after-commit": (dying_before, backup_rows.PendingRows, "publish"),
    "after-publish": (dying_after, backup_rows.PendingRows, "publish"),
}
if mode in points and points[mode] is not None:
    how, owner, name = points[mode]
    how(owner, name)
print("start", flush=True)
if op == "delete":
    CursorDesktopStore(Path(root)).delete("big-session", force=True)
elif op.startswith("undo:"):
    saving.undo(backups.find(op[5:]))
else:
    native = text.from_text(Path(op).read_text(encoding="utf-8"))
    CursorDesktopStore(Path(root)).save(native, force=True)
print("done", flush=True)
"""


def run(root: Path, op: str, mode: str, data: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRAPPER, str(root), op, mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TXCRIPT_DATA_DIR": str(data)},
    )


def backup_names(data: Path) -> list[str]:
    directory = data / "backups"
    return sorted(p.name for p in directory.iterdir()) if directory.is_dir() else []


def no_partial(data: Path) -> None:
    left = [n for n in backup_names(data) if "partial" in n or n.endswith(("-wal", "-shm"))]
    assert left == [], left


def sweep_and_list(data: Path) -> list[dict[str, object]]:
    """A later run: ``txcript restore --json`` sweeps, then lists."""
    listed = subprocess.run(
        [sys.executable, "-m", "txcript", "restore", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "TXCRIPT_DATA_DIR": str(data)},
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    no_partial(data)
    shown: list[dict[str, object]] = json.loads(listed.stdout)
    return shown


def recovered(path: Path) -> Dump:
    conn = sqlite3.connect(path)  # a read-write open recovers a hot journal, as the app would
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()
    return dump(path)


class Bench:
    """A database with the big session (``present``) and the same without it (``absent``)."""

    def __init__(self, tmp: Path, journal: fx.Journal) -> None:
        self.tmp = tmp
        self.base = tmp / "base"
        fx.app_3_16(db_path(self.base), journal=journal)
        os.environ["TXCRIPT_DATA_DIR"] = str(tmp / "setup-data")
        try:
            CursorDesktopStore(self.base).save(big_session(1), force=True)
            self.present = dump(db_path(self.base))
            gone = self.fresh("gone", tmp / "gone-data")
            CursorDesktopStore(gone).delete(CID, force=True)
            self.absent = dump(db_path(gone))
        finally:
            del os.environ["TXCRIPT_DATA_DIR"]
        self.body = tmp / "v2.json"
        self.body.write_text(text.to_text(big_session(2)), encoding="utf-8")

    def fresh(self, name: str, data: Path, *, deleted: bool = False) -> Path:
        root = self.tmp / name
        db_path(root).parent.mkdir(parents=True)
        shutil.copyfile(db_path(self.base), db_path(root))
        if deleted:
            os.environ["TXCRIPT_DATA_DIR"] = str(data)
            try:
                CursorDesktopStore(root).delete(CID, force=True)
            finally:
                del os.environ["TXCRIPT_DATA_DIR"]
        return root


@pytest.fixture(scope="module", params=["wal", "delete"])
def bench(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Bench:
    return Bench(tmp_path_factory.mktemp(f"faults-{request.param}"), request.param)


def undo_with(data: Path, backup_id: str) -> None:
    os.environ["TXCRIPT_DATA_DIR"] = str(data)
    try:
        saving.undo(backups.find(backup_id))
    finally:
        del os.environ["TXCRIPT_DATA_DIR"]


KILL_POINTS = [
    ("before-backup", "old"),
    ("during-backup", "old"),
    ("after-backup", "old"),
    ("before-commit", "old"),
    ("after-commit", "new"),
    ("after-publish", "new"),
]


@pytest.mark.parametrize(("mode", "expected"), KILL_POINTS)
def test_a_delete_killed_at_a_chosen_point_is_old_without_backup_or_new_with_one(
    bench: Bench, tmp_path: Path, mode: str, expected: str
) -> None:
    data = tmp_path / "data"
    root = bench.fresh(f"delete-{mode}", data)
    process = run(root, "delete", mode, data)
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    shown = sweep_and_list(data)
    state = recovered(db_path(root))
    if expected == "old":
        assert state == bench.present and shown == [] and backup_names(data) == []
        return
    assert state == bench.absent
    (backup,) = shown
    assert (backup["kind"], backup["operation"], backup["session"]) == ("row", "delete", CID)
    undo_with(data, str(backup["id"]))
    assert dump(db_path(root)) == bench.present


@pytest.mark.parametrize(
    ("mode", "expected"), [*KILL_POINTS[:3], ("during-work", "old"), *KILL_POINTS[3:]]
)
def test_an_undo_killed_at_a_chosen_point_is_old_without_backup_or_new_with_one(
    bench: Bench, tmp_path: Path, mode: str, expected: str
) -> None:
    data = tmp_path / "data"
    root = bench.fresh(f"undo-{mode}", data, deleted=True)
    (deletion,) = sweep_and_list(data)
    process = run(root, f"undo:{deletion['id']}", mode, data)
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGKILL
    shown = sweep_and_list(data)
    state = recovered(db_path(root))
    if expected == "old":
        assert state == bench.absent
        assert [b["id"] for b in shown] == [deletion["id"]]
        return
    assert state == bench.present
    undo, first = shown
    assert first["id"] == deletion["id"]
    assert (undo["operation"], undo["session"]) == ("undo", CID)
    undo_with(data, str(undo["id"]))  # undoing the undo deletes the session again
    assert dump(db_path(root)) == bench.absent


def wait_for(predicate: object, process: subprocess.Popen[str], limit: float = 30.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and process.poll() is None:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.0005)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_save_stopped_by_a_signal_leaves_no_partial_file_even_before_a_sweep(
    bench: Bench, tmp_path: Path, signum: int
) -> None:
    outcomes = set()
    for delay in (0.0, 0.01, 0.05, 0.2):
        data = tmp_path / f"data-{delay}"
        root = bench.fresh(f"signal-{signum}-{delay}", data)
        process = run(root, str(bench.body), "plain", data)

        wait_for(lambda data=data: any("partial" in n for n in backup_names(data)), process)
        time.sleep(delay)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
        no_partial(data)  # before any later run
        state = recovered(db_path(root))
        names = backup_names(data)
        if "done" in out or (process.returncode != 0 and len(names) == 2):
            assert state != bench.present and len(names) == 2  # new state, complete backup
            (backup,) = sweep_and_list(data)
            undo_with(data, str(backup["id"]))
            assert dump(db_path(root)) == bench.present
            outcomes.add("new")
        else:
            assert process.returncode != 0, err
            assert "KeyboardInterrupt" in err or "Interrupted: signal" in err, err
            assert state == bench.present and names == []
            outcomes.add("old")
    assert outcomes <= {"old", "new"}


def test_a_snapshot_stopped_by_a_signal_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "User"
    path = fx.app_3_16(db_path(root), journal="delete")
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        ((f"agentKv:blob:{i:064x}", os.urandom(64 * 1024)) for i in range(800)),
    )
    conn.commit()
    conn.close()
    data = tmp_path / "data"
    env = {**os.environ, "TXCRIPT_DATA_DIR": str(data), "CURSOR_DESKTOP_USER_DIR": str(root)}
    seen = set()
    for signum in (signal.SIGTERM, signal.SIGINT):
        for delay in (0.0, 0.02):
            process = subprocess.Popen(
                [sys.executable, "-m", "txcript", "backup", "cursor_desktop"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )

            wait_for(lambda: any("partial" in n for n in backup_names(data)), process)
            time.sleep(delay)
            process.send_signal(signum)
            _, err = process.communicate(timeout=60)
            no_partial(data)
            names = backup_names(data)
            if process.returncode == 0 or len(names) == 2:
                seen.add("complete")
            else:
                assert process.returncode == 130, err
                assert err.strip().startswith("txcript: error: ") and "Traceback" not in err
                assert names == []
                seen.add("interrupted")
            for name in names:
                (data / "backups" / name).unlink()
    assert "interrupted" in seen
