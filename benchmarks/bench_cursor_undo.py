"""Benchmark writes into a 2 GiB Cursor desktop store with row backups, and their undo.

In one run, on a private copy of the generated store (``benchmarks/data/large``), each round
runs the real CLI as subprocesses (``HOME`` and ``TXCRIPT_DATA_DIR`` in a temporary directory):

1. ``txcript continue <10,000-bubble session>#1- --with cursor_desktop --no-resume --force``:
   a fresh-id copy into the same store (the range makes it a copy rather than a resume in
   place; the row backup holds only the sidebar values);
2. ``txcript delete <copy> --from cursor_desktop --yes --force`` (the backup holds its rows);
3. ``txcript restore <delete backup> --yes --force``: the undo of the delete;
4. ``txcript restore <save backup> --yes --force``: the undo of the continue, which leaves the
   store as it was before the round.

Floors, timed in the same run: a bare ``python -c`` that reads the same bytes with ``sqlite3``
(the source session's cells for the continue, the copy's rows for the delete, the backup file's
cells for an undo), and the bare interpreter start. For comparison, the whole-database copy
every write used to take (SQLite's online backup API into the backup directory, as
``backups.create`` does) is timed once.

Usage::

    .venv/bin/python benchmarks/bench_cursor_undo.py --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from timing import Run, child_env, run_child

HERE = Path(__file__).resolve().parent
LARGE = HERE / "data" / "large"
OUT = HERE / "out"

READ_SESSION = r"""
import sqlite3, sys
conn = sqlite3.connect("file:" + sys.argv[1] + "?immutable=1", uri=True)
cid = sys.argv[2]
n = 0
for key, value in conn.execute(
    "SELECT CAST(key AS BLOB), CAST(value AS BLOB) FROM cursorDiskKV WHERE key = ? "
    "OR (key >= ? AND key < ?)",
    ("composerData:" + cid, "bubbleId:" + cid + ":", "bubbleId:" + cid + ";"),
):
    n += len(value or b"")
print(n)
"""

#: The bare write floors: the given session's bubble rows (read once, untimed) inserted under
#: another id in one BEGIN IMMEDIATE transaction with executemany, committed; then deleted by
#: key range, committed. Prints both in-process times; the store is left as it was.
BARE_WRITES = r"""
import json, sqlite3, sys, time
database, cid, other = sys.argv[1], sys.argv[2], sys.argv[3]
conn = sqlite3.connect(database, isolation_level=None)
low, high = "bubbleId:" + other + ":", "bubbleId:" + other + ";"
rows = [
    (key.replace(cid, other, 1), value)
    for key, value in conn.execute(
        "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?",
        ("bubbleId:" + cid + ":", "bubbleId:" + cid + ";"),
    )
]
started = time.perf_counter()
conn.execute("BEGIN IMMEDIATE")
conn.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
conn.execute("COMMIT")
inserted = time.perf_counter()
conn.execute("BEGIN IMMEDIATE")
conn.execute("DELETE FROM cursorDiskKV WHERE key >= ? AND key < ?", (low, high))
conn.execute("COMMIT")
deleted = time.perf_counter()
print(json.dumps({"insert": inserted - started, "delete": deleted - inserted, "rows": len(rows)}))
"""

READ_BACKUP = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
n = sum(len(v) if isinstance(v, bytes) else 8 for (v,) in conn.execute("SELECT value FROM cells"))
print(n)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def timed(args: list[str], env: dict[str, str]) -> Run:
    return run_child(args, env, timeout=600)


def backup_path(data: Path, backup_id: str) -> Path:
    return data / "backups" / f"{backup_id}.rows"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=LARGE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=OUT / "cursor_undo.json")
    args = parser.parse_args()
    manifest_file = args.data / "manifest.json"
    if not manifest_file.is_file():
        print(
            f"no generated store at {args.data}; run: .venv/bin/python "
            "benchmarks/generate_cursor_store.py",
            file=sys.stderr,
        )
        sys.exit(2)
    huge = json.loads(manifest_file.read_text())["huge_session"]["composer_id"]
    OUT.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="undo-", dir=OUT))
    try:
        run(args, huge, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, huge: str, work: Path) -> None:
    user = work / "User"
    (user / "globalStorage").mkdir(parents=True)
    source_db = args.data / "User" / "globalStorage" / "state.vscdb"
    log(f"copying {source_db.stat().st_size >> 20} MiB store …")
    shutil.copyfile(source_db, user / "globalStorage" / "state.vscdb")
    if (args.data / "User" / "workspaceStorage").is_dir():
        shutil.copytree(args.data / "User" / "workspaceStorage", user / "workspaceStorage")
    database = user / "globalStorage" / "state.vscdb"
    with database.open("rb") as handle:
        os.fsync(handle.fileno())
    data = work / "data"
    home = work / "home"
    home.mkdir()
    env = child_env(HOME=str(home), TXCRIPT_DATA_DIR=str(data), CURSOR_DESKTOP_USER_DIR=str(user))
    txcript = [sys.executable, "-m", "txcript"]
    python = [sys.executable, "-c"]
    rows: dict[str, list[float]] = {}
    sizes: dict[str, list[int]] = {}

    def note(name: str, value: float) -> None:
        rows.setdefault(name, []).append(value)

    # Warm the page cache and the interpreter once.
    timed([*python, READ_SESSION, str(database), huge], env)
    for round_number in range(args.rounds):
        log(f"round {round_number + 1}/{args.rounds}")
        note("interpreter start (python -c pass)", timed([*python, "pass"], env).wall)
        note(
            "floor: read the source session's cells",
            timed([*python, READ_SESSION, str(database), huge], env).wall,
        )
        done = timed(
            [*txcript, "continue", f"{huge}#1-", "--with", "cursor_desktop", "--no-resume",
             "--force", "--json"],
            env,
        )  # fmt: skip
        note("continue (fresh copy, 10,000 bubbles)", done.wall)
        copy = json.loads(done.stdout)["id"]
        bare = timed([*python, BARE_WRITES, str(database), copy, "bench-floor"], env)
        inside = json.loads(bare.stdout)
        note("floor: bare insert of the copy's rows + bare delete (whole process)", bare.wall)
        note("floor: bare insert of the copy's rows, committed (in process)", inside["insert"])
        note("floor: bare delete of those rows, committed (in process)", inside["delete"])
        listing = json.loads(timed([*txcript, "restore", "--json"], env).stdout)
        save_backup = next(b for b in listing if b["operation"] == "save" and b["session"] == copy)
        sizes.setdefault("save backup", []).append(
            backup_path(data, save_backup["id"]).stat().st_size
        )
        note(
            "floor: read the copy's cells",
            timed([*python, READ_SESSION, str(database), copy], env).wall,
        )
        done = timed(
            [*txcript, "delete", copy, "--from", "cursor_desktop", "--yes", "--force"], env
        )
        note("delete of the copy", done.wall)
        delete_id = done.text.strip().rsplit(" ", 1)[1]
        delete_file = backup_path(data, delete_id)
        sizes.setdefault("delete backup", []).append(delete_file.stat().st_size)
        note(
            "floor: read the delete backup's cells",
            timed([*python, READ_BACKUP, str(delete_file)], env).wall,
        )
        done = timed([*txcript, "restore", delete_id, "--yes", "--force"], env)
        note("restore (undo of the delete)", done.wall)
        done = timed([*txcript, "restore", save_backup["id"], "--yes", "--force"], env)
        note("restore (undo of the continue)", done.wall)
        for path in (data / "backups").iterdir():
            path.unlink()
    in_process(args, database, huge, data, rows)
    log("timing the old whole-database copy …")
    copy_script = (
        "import sqlite3, sys; s = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True); "
        "d = sqlite3.connect(sys.argv[2]); s.backup(d); d.close(); s.close()"
    )
    target = work / "whole.sqlite"
    note(
        "old: whole-database copy (online backup API)",
        timed([*python, copy_script, str(database), str(target)], env).wall,
    )
    whole = target.stat().st_size
    target.unlink()
    report(args, rows, sizes, whole, database)


IN_PROCESS = r"""
import gc, json, os, sqlite3, sys, time
from pathlib import Path
import msgspec
from txcript.harnesses.cursor_desktop import codec, rowbackup, saving
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.harnesses.cursor_desktop.write import from_common
from txcript.shared import backup_rows, backups

root, huge, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
store = CursorDesktopStore(root)
common = codec.to_common(store.load(huge))
spent = {"backup": 0.0}

def timed(owner, name):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent["backup"] += time.perf_counter() - started
    setattr(owner, name, wrapper)

for owner, name in ((rowbackup, "capture"), (rowbackup, "session_hash"), (rowbackup, "changes"),
                    (rowbackup, "write_rows"), (rowbackup, "schema_of"),
                    (backup_rows.PendingRows, "begin"), (backup_rows.PendingRows, "seal"),
                    (backup_rows.PendingRows, "publish")):
    timed(owner, name)
result = {"save": [], "save backup part": [], "undo": [], "undo backup part": [],
          "floor: bare insert of the same rows, committed": [],
          "floor: bare delete of them, committed": []}
database = root / "globalStorage" / "state.vscdb"
for n in range(rounds):
    meta = msgspec.structs.replace(common.meta, id=f"bench-in-process-{n}")
    body = from_common(msgspec.structs.replace(common, meta=meta))
    floor_rows = [(row.key.replace(meta.id, "bench-floor", 1), row.value) for row in body.bubbles]
    conn = sqlite3.connect(database, isolation_level=None)
    gc.collect()
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", floor_rows)
    conn.execute("COMMIT")
    result["floor: bare insert of the same rows, committed"].append(time.perf_counter() - started)
    started = time.perf_counter()
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM cursorDiskKV WHERE key >= ? AND key < ?",
                 ("bubbleId:bench-floor:", "bubbleId:bench-floor;"))
    conn.execute("COMMIT")
    result["floor: bare delete of them, committed"].append(time.perf_counter() - started)
    conn.close()
    gc.collect()
    spent["backup"] = 0.0
    started = time.perf_counter()
    saved = store.save(body, force=True)
    result["save"].append(time.perf_counter() - started)
    result["save backup part"].append(spent["backup"])
    gc.collect()
    spent["backup"] = 0.0
    started = time.perf_counter()
    saving.undo(backups.find(saved.backup))
    result["undo"].append(time.perf_counter() - started)
    result["undo backup part"].append(spent["backup"])
print(json.dumps(result))
"""


def in_process(
    args: argparse.Namespace, database: Path, huge: str, data: Path, rows: dict[str, list[float]]
) -> None:
    """Save and undo in one process, with the row backup's own share timed inside them."""
    log("in-process save and undo, with the backup's share …")
    env = child_env(TXCRIPT_DATA_DIR=str(data))
    root = database.parent.parent
    done = timed([sys.executable, "-c", IN_PROCESS, str(root), huge, str(args.rounds)], env)
    for name, values in json.loads(done.stdout).items():
        rows[f"in-process: {name}"] = values


def report(
    args: argparse.Namespace,
    rows: dict[str, list[float]],
    sizes: dict[str, list[int]],
    whole: int,
    database: Path,
) -> None:
    summary: dict[str, Any] = {"rounds": args.rounds, "database_bytes": database.stat().st_size}
    print(f"| measurement | median of {args.rounds} | each |")
    print("|---|---|---|")
    for name, values in rows.items():
        median = statistics.median(values) * 1000
        each = ", ".join(f"{v * 1000:.0f}" for v in values)
        print(f"| {name} | {median:.0f} ms | {each} ms |")
        summary[name] = {
            "median_ms": round(median, 1),
            "each_ms": [round(v * 1000, 1) for v in values],
        }
    for name, values in sizes.items():
        print(f"| {name} file | {max(values) / 1024:.1f} KiB | |")
        summary[f"{name} bytes"] = max(values)
    print(f"| old whole-database backup file | {whole / (1 << 20):.0f} MiB | |")
    summary["whole backup bytes"] = whole
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
