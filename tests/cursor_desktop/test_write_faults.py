"""Writes that fail, with REAL processes: a lock held by another process, the writer killed in the
middle of a save, a read-only file or directory, a full disk. Every failure is one clean line,
leaves the database byte-identical (or, after a kill, either fully old or fully new) and leaves
no backup behind.

Techniques:

* **locks**: a second Python process opens the database and holds ``BEGIN IMMEDIATE`` or
  ``BEGIN EXCLUSIVE`` until told to stop;
* **kills**: a tiny wrapper script runs the real save in a subprocess and ``SIGKILL``s itself at a
  chosen point: after the backup, after N SQLite VM steps inside the transaction (a progress
  handler on the write connection), or just before ``COMMIT``; and the test also kills a plain
  save from outside at several delays after its journal (or WAL) file appears;
* **read-only**: ``chmod``; when the tests run as root (whom permissions do not stop) the
  subprocess first drops ``CAP_DAC_OVERRIDE``/``CAP_DAC_READ_SEARCH``/``CAP_FOWNER`` from its
  bounding set (``prctl(PR_CAPBSET_DROP)``), so root is held to the file modes too;
* **full disk**: ``RLIMIT_FSIZE`` in the subprocess with ``SIGXFSZ`` ignored, so writes past the
  limit fail with ``EFBIG`` (portable, no root); and, where the tests run as root on Linux and
  may mount, a 1 MiB tmpfs for a real ``ENOSPC``.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dbfixtures as fx
import pytest
from test_delete_restore import one_line_error
from test_save_hazards import make_body
from test_save_roundtrip import Dump, backup_count, db_path, dump

from conftest import CliResult, RunCli
from txcript.errors import BadInput, StoreError
from txcript.harnesses.cursor_desktop import saving, text
from txcript.harnesses.cursor_desktop.native import CursorSession
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.harnesses.cursor_desktop.write import from_common
from txcript.model import Message, Meta, Text, Transcript
from txcript.shared import backups

LINUX = sys.platform.startswith("linux")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def simple_document(path: Path, *, messages: int = 2, size: int = 10) -> Path:
    path.write_text(
        json.dumps(
            {
                "id": "doc",
                "title": "Fault",
                "cwd": "/fault",
                "messages": [
                    {"role": "user" if i % 2 == 0 else "assistant", "content": f"{i} " + "x" * size}
                    for i in range(messages)
                ],
            }
        )
    )
    return path


def sidecars(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


# ------------------------------------------------------------------------------ locks

HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute(sys.argv[2])
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


class Holder:
    """Another process holding a write lock on the database until :meth:`release`."""

    def __init__(self, path: Path, begin: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path), begin],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.write("\n")
            self.process.stdin.flush()
            self.process.wait(timeout=10)


@pytest.fixture
def holders() -> Iterator[list[Holder]]:
    started: list[Holder] = []
    yield started
    for holder in started:
        holder.release()


@pytest.mark.parametrize("journal", ["wal", "delete"])
@pytest.mark.parametrize("begin", ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"])
def test_a_lock_held_by_another_process_makes_save_and_delete_wait_then_fail_cleanly(
    tmp_path: Path, journal: fx.Journal, begin: str, holders: list[Holder]
) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root), journal=journal)
    before = dump(db_path(root))
    files = sidecars(db_path(root))
    store = CursorDesktopStore(root, busy_timeout=0.3)
    holder = Holder(db_path(root), begin)
    holders.append(holder)
    attempts = [lambda: store.save(make_body("locked-out", cwd="/x"), force=True)]
    if begin == "BEGIN EXCLUSIVE":
        attempts.append(lambda: store.delete(fx.CID_A, force=True))
    for attempt in attempts:
        started = time.monotonic()
        with pytest.raises(StoreError) as caught:
            attempt()
        assert 0.25 < time.monotonic() - started < 5.0  # it waited for the busy timeout
        message = str(caught.value)
        assert "\n" not in message and "is locked by another process" in message
        assert "nothing was written" in message and caught.value.exit_code == 1
    holder.release()
    assert dump(db_path(root)) == before
    assert backup_count() == 0
    if journal == "delete":
        assert sidecars(db_path(root)) == files
    store.save(make_body("locked-out", cwd="/x"), force=True)  # and once released, it works
    assert store.load("locked-out").bubbles


def _continue_in_background(doc: Path, root: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "txcript", "continue", str(doc), "--with", "cursor_desktop",
         "--out", str(root), "--json", "--force"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def test_the_cli_waits_for_a_lock_then_writes_or_gives_up_with_one_line(
    tmp_path: Path, holders: list[Holder]
) -> None:
    """Two CLI runs side by side: one lock is released after 0.5 s (the write then goes
    through), the other is held past the busy timeout. The CLI has no busy-timeout knob, so the
    second waits the default 5 s."""
    doc = simple_document(tmp_path / "doc.json")
    released, held = tmp_path / "Released", tmp_path / "Held"
    for root in (released, held):
        fx.app_3_16(db_path(root), journal="delete")
    before = dump(db_path(held))
    holders.extend(Holder(db_path(root), "BEGIN EXCLUSIVE") for root in (released, held))
    started = time.monotonic()
    waiting, giving_up = (_continue_in_background(doc, root) for root in (released, held))
    time.sleep(0.5)
    assert waiting.poll() is None  # still waiting for the lock
    holders[0].release()
    out, err = waiting.communicate(timeout=30)
    assert waiting.returncode == 0, err
    assert json.loads(out)["id"] == "doc"
    out, err = giving_up.communicate(timeout=30)
    assert time.monotonic() - started > 4.5
    one_line_error(
        CliResult(giving_up.returncode, out, err),
        1,
        "is locked by another process (waited for the busy timeout)",
    )
    holders[1].release()
    assert dump(db_path(held)) == before
    assert [b.database for b in backups.list_backups()] == [str(db_path(released).resolve())]


# ------------------------------------------------------------------------------ kills

WRAPPER = r"""
import os, signal, sys
from pathlib import Path
from txcript.shared import backup_rows, backups
from txcript.harnesses.cursor_desktop import rowbackup, saving, text
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore

root, body, mode, arg = sys.argv[1:5]
native = text.from_text(Path(body).read_text(encoding="utf-8"))

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

calls = [0]
if mode in ("steps", "count"):
    opened = saving._open_for_write

    def counting(path, busy_timeout):
        conn = opened(path, busy_timeout)

        def tick():
            calls[0] += 1
            if mode == "steps" and calls[0] >= int(arg):
                die()
            return 0

        conn.set_progress_handler(tick, 100)
        return conn

    saving._open_for_write = counting
elif mode == "before-backup":
    dying_before(backup_rows.PendingRows, "begin")
elif mode == "during-backup":
    # After the first table's rows are in the partial file, before the rest.
    dying_after(backup_rows.PendingRows, "add_rows")
elif mode == "after-backup":
    dying_after(rowbackup, "write_rows")
elif mode == "before-commit":
    dying_after(backup_rows.PendingRows, "seal")
elif mode == "after-commit":
    dying_before(backup_rows.PendingRows, "publish")
elif mode == "after-publish":
    dying_after(backup_rows.PendingRows, "publish")
print("start", flush=True)
CursorDesktopStore(Path(root)).save(native, force=True)
print("saved", calls[0], flush=True)
"""

T = datetime(2026, 8, 21, tzinfo=UTC)


def big_session(version: int, count: int = 1000, size: int = 3000) -> CursorSession:
    """A session large enough that its transaction spills pages before it commits."""
    messages = tuple(
        Message(
            role="user" if i % 2 == 0 else "assistant",
            content=(Text(f"version {version}, message {i} " + "x" * size),),
            timestamp=T + timedelta(seconds=i),
        )
        for i in range(count)
    )
    meta = Meta(id="big-session", timestamp=T, cwd="/big", title=f"Big v{version}")
    return from_common(Transcript(meta=meta, messages=messages))


@dataclasses.dataclass
class KillBench:
    """A database holding version 1 of a big session, the text of version 2, and both dumps."""

    tmp: Path
    root: Path
    body: Path
    old: Dump
    new: Dump

    def fresh(self, name: str) -> Path:
        """A copy of the version-1 database under a new root."""
        root = self.tmp / name
        db_path(root).parent.mkdir(parents=True)
        shutil.copyfile(db_path(self.root), db_path(root))
        return root

    def run(
        self, root: Path, mode: str, arg: str = "0", *, data: Path | None = None
    ) -> subprocess.Popen[str]:
        env = dict(os.environ)
        if data is not None:
            env["TXCRIPT_DATA_DIR"] = str(data)
        return subprocess.Popen(
            [sys.executable, "-c", WRAPPER, str(root), str(self.body), mode, arg],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )

    def check(self, root: Path) -> str:
        """Recover the database as the app would (a read-write open), then classify it."""
        conn = sqlite3.connect(db_path(root))
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            conn.close()
        state = dump(db_path(root))
        if state == self.old:
            return "old"
        assert state == self.new, "neither the old nor the new state"
        return "new"


@pytest.fixture(scope="module")
def kill_benches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KillBench]:
    benches = {}
    for journal in ("wal", "delete"):
        tmp = tmp_path_factory.mktemp(f"kill-{journal}")
        os.environ["TXCRIPT_DATA_DIR"] = str(tmp / "txcript-data")
        try:
            root = tmp / "base"
            fx.app_3_16(db_path(root), journal=journal)  # type: ignore[arg-type]
            CursorDesktopStore(root).save(big_session(1), force=True)
            body = tmp / "v2.json"
            body.write_text(text.to_text(big_session(2)), encoding="utf-8")
            old = dump(db_path(root))
            clean = tmp / "clean"
            db_path(clean).parent.mkdir(parents=True)
            shutil.copyfile(db_path(root), db_path(clean))
            CursorDesktopStore(clean).save(text.from_text(body.read_text()), force=True)
            benches[journal] = KillBench(tmp, root, body, old, dump(db_path(clean)))
        finally:
            del os.environ["TXCRIPT_DATA_DIR"]
    return benches


def settle_and_classify(bench: KillBench, root: Path, data: Path) -> tuple[str, int]:
    """After a kill: let a later run sweep (``txcript restore``), then check the invariant:
    the old state with no backup, or the new state with one complete backup that undoes it;
    never a partial file. Returns the state and how many backups there are."""
    listed = subprocess.run(
        [sys.executable, "-m", "txcript", "restore", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "TXCRIPT_DATA_DIR": str(data)},
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    state = bench.check(root)
    names = (
        sorted(p.name for p in (data / "backups").iterdir()) if (data / "backups").exists() else []
    )
    assert not [n for n in names if "partial" in n or n.endswith(("-journal", "-wal", "-shm"))]
    shown = json.loads(listed.stdout)
    if state == "old":
        assert shown == [] and names == [], names
        return state, 0
    (backup,) = shown
    assert (backup["kind"], backup["operation"], backup["session"]) == (
        "row",
        "save",
        "big-session",
    )
    assert sorted(names) == sorted([f"{backup['id']}.json", f"{backup['id']}.rows"])
    os.environ["TXCRIPT_DATA_DIR"] = str(data)
    try:
        saving.undo(backups.find(backup["id"]))
    finally:
        del os.environ["TXCRIPT_DATA_DIR"]
    assert bench.check(root) == "old"  # the backup undoes the save exactly
    return state, 1


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_save_killed_at_any_point_leaves_old_and_no_backup_or_new_and_its_backup(
    kill_benches: dict[str, KillBench], journal: str, tmp_path: Path
) -> None:
    """Real processes SIGKILLed at chosen points: before, during and after the backup write,
    before and after COMMIT, after publishing, and after N SQLite steps inside the
    transaction (30% and 95% of a whole save's)."""
    bench = kill_benches[journal]
    counted = bench.run(bench.fresh("count"), "count", data=tmp_path / "count-data")
    out, err = counted.communicate(timeout=60)
    assert counted.returncode == 0, err
    steps = int(out.split()[-1])
    assert steps > 100
    points = [
        ("before-backup", "0", "old"),
        ("during-backup", "0", "old"),
        ("after-backup", "0", "old"),
        ("before-commit", "0", "old"),
        ("after-commit", "0", "new"),
        ("after-publish", "0", "new"),
    ]
    points += [("steps", str(max(1, steps * p // 100)), "old") for p in (30, 95)]
    for mode, arg, expected in points:
        root = bench.fresh(f"{mode}-{arg}")
        data = tmp_path / f"data-{mode}-{arg}"
        process = bench.run(root, mode, arg, data=data)
        process.communicate(timeout=60)
        assert process.returncode == -signal.SIGKILL, (mode, arg)
        state, _ = settle_and_classify(bench, root, data)
        assert state == expected, (mode, arg)


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_save_killed_from_outside_during_its_commit_is_old_or_new(
    kill_benches: dict[str, KillBench], journal: str
) -> None:
    """SIGKILL from another process, at several delays after the journal (or WAL) appears."""
    bench = kill_benches[journal]
    sidecar = "-wal" if journal == "wal" else "-journal"
    seen = set()
    for delay in (0.0, 0.04, 0.1):
        root = bench.fresh(f"outside-{delay}")
        watched = Path(str(db_path(root)) + sidecar)
        process = bench.run(root, "plain")
        deadline = time.monotonic() + 30
        while not watched.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
        state = bench.check(root)
        seen.add(state)
        if state == "old":  # recovered, the database takes the save again
            CursorDesktopStore(root).save(text.from_text(bench.body.read_text()), force=True)
            assert bench.check(root) == "new"
    assert seen <= {"old", "new"}


#: A writer as the app is one: SQLite's small page cache, so its transaction spills pages into the
#: database file before COMMIT; killed there, it leaves a hot journal.
SPILLING_WRITER = r"""
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size = 10")
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE cursorDiskKV SET value = value || ' '")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_hot_journal_left_by_a_killed_write_is_a_clear_read_error_until_recovered(
    kill_benches: dict[str, KillBench],
) -> None:
    """A killed rollback-journal writer that spilled pages (Cursor itself) leaves a hot journal.
    A reader must not modify files beside the database, so it cannot roll the journal back; it
    used to fail with SQLite's bare "attempt to write a readonly database". It now says what
    happened and how to recover, and the first read-write open (the app, or any txcript write)
    recovers. txcript's own write keeps its pages in its cache until COMMIT, so killed before
    COMMIT it leaves the database as it was and readable, with no recovery needed."""
    bench = kill_benches["delete"]
    root = bench.fresh("read-after-kill")
    process = bench.run(root, "before-commit")
    process.communicate(timeout=60)
    assert process.returncode != 0
    assert [d.reference for d in CursorDesktopStore(root).discover()]
    killed = subprocess.run(
        [sys.executable, "-c", SPILLING_WRITER, str(db_path(root))], timeout=60, check=False
    )
    assert killed.returncode == -signal.SIGKILL
    assert Path(str(db_path(root)) + "-journal").exists()
    with pytest.raises(StoreError, match="hot journal left by an interrupted write"):
        CursorDesktopStore(root).discover()
    recovering = sqlite3.connect(db_path(root))
    recovering.execute("SELECT count(*) FROM cursorDiskKV").fetchall()
    recovering.close()
    assert [d.reference for d in CursorDesktopStore(root).discover()]
    assert bench.check(root) == "old"


# ------------------------------------------------------------------------------ read-only

_libc = ctypes.CDLL(None, use_errno=True) if LINUX else None


def _drop_file_capabilities() -> None:
    """In the child: root loses the capabilities that let it ignore file modes."""
    if _libc is not None and os.geteuid() == 0:
        for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
            if _libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def run_limited(args: list[str], *, env: dict[str, str], setup: Callable[[], None]) -> CliResult:
    done = subprocess.run(
        [sys.executable, "-m", "txcript", *args],
        capture_output=True,
        env={**os.environ, **env},
        preexec_fn=setup,
        timeout=120,
    )
    return CliResult(done.returncode, done.stdout.decode(), done.stderr.decode())


needs_modes = pytest.mark.skipif(
    os.geteuid() == 0 and not LINUX, reason="root ignores file modes and cannot drop that here"
)


@needs_modes
@pytest.mark.parametrize("journal", ["wal", "delete"])
@pytest.mark.parametrize("what", ["file", "directory"])
def test_a_read_only_database_or_directory_is_refused_before_anything_is_opened(
    tmp_path: Path, journal: fx.Journal, what: str
) -> None:
    """Regression: SQLite opens a read-only file read-only and only fails at the first write; in
    WAL mode it had already created ``-wal``/``-shm`` beside it, and a backup had been taken and
    discarded. Both are now refused up front, with a message naming what is read-only."""
    root = tmp_path / "User"
    path = fx.app_3_16(db_path(root), journal=journal)
    before = dump(path)
    files = sidecars(path)
    target = path if what == "file" else path.parent
    mode = target.stat().st_mode
    target.chmod(0o444 if what == "file" else 0o555)
    doc = simple_document(tmp_path / "doc.json")
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    try:
        saved = run_limited(
            ["continue", str(doc), "--with", "cursor_desktop", "--no-resume", "--force"],
            env=env,
            setup=_drop_file_capabilities,
        )
        deleted = run_limited(
            ["delete", fx.CID_A, "--from", "cursor_desktop", "--yes", "--force"],
            env=env,
            setup=_drop_file_capabilities,
        )
    finally:
        target.chmod(mode)
    needle = "is read-only; nothing was written" if what == "file" else "is read-only (SQLite"
    one_line_error(saved, 1, needle)
    one_line_error(deleted, 1, needle)
    assert sidecars(path) == files
    assert dump(path) == before
    assert backup_count() == 0


@needs_modes
def test_a_new_root_under_a_read_only_directory_is_a_clean_error(tmp_path: Path) -> None:
    """Regression: creating ``globalStorage/`` raised a bare ``PermissionError``, which the CLI
    reported as an internal error."""
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    doc = simple_document(tmp_path / "doc.json")
    try:
        result = run_limited(
            ["continue", str(doc), "--with", "cursor_desktop", "--out", str(parent / "User")],
            env={},
            setup=_drop_file_capabilities,
        )
    finally:
        parent.chmod(0o755)
    one_line_error(result, 1, "cannot create")
    assert "internal error" not in result.stderr
    assert list(parent.iterdir()) == []


# ------------------------------------------------------------------------------ full disk


def _file_size_limit(limit: int) -> Callable[[], None]:
    def setup() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return setup


@pytest.mark.parametrize("journal", ["wal", "delete"])
@pytest.mark.parametrize("room", ["no backup dir", "none for the session"])
def test_running_out_of_file_space_fails_cleanly_and_leaves_no_trace(
    tmp_path: Path, journal: fx.Journal, room: str, data_dir: Path
) -> None:
    """A backup directory that cannot take a file (read-only, root's overrides dropped)
    makes the row backup fail before the first change; ``RLIMIT_FSIZE`` just above the
    database's size lets the backup through but not the session (2 MB). Regression for the
    second case in rollback-journal mode: the failed commit left a *hot* journal (SQLite
    defers the restore to the next connection), so every read-only reader, ``txcript list``
    included, failed with "attempt to write a readonly database" until something opened the
    database read-write. The write path now rolls such a journal back itself."""
    root = tmp_path / "User"
    path = fx.app_3_16(db_path(root), journal=journal)
    before = dump(path)
    files = sidecars(path)
    size = path.stat().st_size
    doc = simple_document(tmp_path / "doc.json", messages=400, size=5000)
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    args = ["continue", str(doc), "--with", "cursor_desktop", "--no-resume", "--force"]
    if room == "no backup dir":
        if os.geteuid() == 0 and not LINUX:
            pytest.skip("root ignores file modes and cannot drop that here")
        (data_dir / "backups").mkdir(parents=True)
        (data_dir / "backups").chmod(0o555)
        try:
            result = run_limited(args, env=env, setup=_drop_file_capabilities)
        finally:
            (data_dir / "backups").chmod(0o755)
        one_line_error(result, 1, "backing up")
    else:
        result = run_limited(args, env=env, setup=_file_size_limit(size + 64 * 1024))
        one_line_error(result, 1, "nothing was written")
    assert sidecars(path) == files
    assert dump(path) == before
    assert backup_count() == 0
    assert not (data_dir / "backups").exists() or list((data_dir / "backups").iterdir()) == []
    listed = run_limited(
        ["list", "--from", "cursor_desktop", "--json"], env=env, setup=lambda: None
    )
    assert listed.code == 0 and len(json.loads(listed.stdout)) == 4, listed.stderr


@contextlib.contextmanager
def tiny_tmpfs(where: Path) -> Iterator[Path]:
    where.mkdir()
    if not LINUX or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root on Linux")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_really_full_disk_is_reported_as_such(
    tmp_path: Path, journal: fx.Journal, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real ``ENOSPC`` (a 1 MiB tmpfs holding the database): SQLite says ``SQLITE_FULL``."""
    with tiny_tmpfs(tmp_path / "disk") as disk:
        root = disk / "User"
        path = fx.app_3_16(db_path(root), journal=journal)
        before = dump(path)
        doc = simple_document(tmp_path / "doc.json", messages=400, size=5000)
        env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
        result = run_cli(
            "continue", str(doc), "--with", "cursor_desktop", "--no-resume", "--force", env=env
        )
        one_line_error(result, 1, f"the disk holding {path} is full; nothing was written")
        assert dump(path) == before and sidecars(path) == ["state.vscdb"]
        assert backup_count() == 0
        # A backup that does not fit is refused before anything is written, too.
        with contextlib.suppress(OSError), (disk / "filler").open("wb") as handle:
            handle.write(b"\0" * (2 << 20))
        monkeypatch.setenv("TXCRIPT_DATA_DIR", str(disk / "data"))
        elsewhere = tmp_path / "Elsewhere"
        fx.app_3_16(db_path(elsewhere), journal=journal)
        store = CursorDesktopStore(elsewhere)
        unchanged = dump(store.database)
        with pytest.raises(StoreError, match=r"backing up .*(disk is full|No space)"):
            store.save(make_body("small", cwd="/small"), force=True)
        assert dump(store.database) == unchanged


# ------------------------------------------------------------------------------ other failures


def test_a_failure_mid_save_rolls_everything_back(tmp_path: Path) -> None:
    """A constraint failure on one row, after others were written, leaves the previous version
    and no backup. (A CHECK constraint in the table: a trigger would be refused up front.)"""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    conn = sqlite3.connect(store.database)
    conn.executescript(
        "ALTER TABLE cursorDiskKV RENAME TO old_kv;"
        "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, "
        "value BLOB CHECK (value NOT LIKE '%Changed%'));"
        "INSERT INTO cursorDiskKV (rowid, key, value) SELECT rowid, key, value FROM old_kv;"
        "DROP TABLE old_kv;"
    )
    conn.commit()
    conn.close()
    before = dump(store.database)
    changed = dataclasses.replace(
        native,
        bubbles=native.bubbles[::-1],
        composer_data=(native.composer_data or "").replace("Run the tests", "Changed"),
        is_archived=True,
    )
    with pytest.raises(StoreError, match=r"CHECK constraint failed.*nothing was written"):
        store.save(changed, force=True)
    assert dump(store.database) == before
    assert backup_count() == 0


def test_a_backup_that_cannot_be_made_durable_leaves_no_orphan_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    """Regression: a failure writing the backup's manifest escaped as a bare ``OSError`` and
    left the copy behind, unlisted and never pruned. The manifest is now sealed into the row
    backup and fsynced before the write commits; when that fails (disk full, say), the write
    does not happen and the partial file goes."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    before = dump(store.database)

    def failing(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backups.os, "fsync", failing)
    with pytest.raises(StoreError, match="No space left on device; nothing was written"):
        store.save(make_body("x", cwd="/x"), force=True)
    assert dump(store.database) == before
    assert not (data_dir / "backups").exists()  # not even the backup dir the write created


@pytest.mark.parametrize("what", ["a directory", "not SQLite", "truncated"])
def test_a_path_that_is_no_database_is_refused_untouched(tmp_path: Path, what: str) -> None:
    path = db_path(tmp_path / "User")
    if what == "a directory":
        path.mkdir(parents=True)
    elif what == "not SQLite":
        path.parent.mkdir(parents=True)
        path.write_bytes(b"not a database" * 1000)
    else:
        fx.app_3_16(path, journal="delete")
        path.write_bytes(path.read_bytes()[:50])
    before = sorted(os.walk(path.parent))
    content = None if path.is_dir() else path.read_bytes()
    store = CursorDesktopStore(tmp_path / "User")
    for attempt in (
        lambda: store.save(make_body("x", cwd="/x"), force=True),
        lambda: store.delete(fx.CID_A, force=True),
    ):
        with pytest.raises(BadInput) as caught:  # StoreUnreadable, or "no database at …"
            attempt()
        assert caught.value.exit_code == 2 and str(path) in str(caught.value)
    assert sorted(os.walk(path.parent)) == before
    assert content is None or path.read_bytes() == content
    assert backup_count() == 0
