"""Benchmark ``txcript export`` of the 10,000-bubble session of the generated 2 GiB Cursor store.

Every figure is a whole process, timed with its peak RSS (``os.wait4`` of the child), in the
same run and interleaved round by round, so the ratios hold on a busy machine:

* *subject*: ``python -m txcript export <id> --from cursor_desktop --format F`` for F in
  ``common`` (the issue's target), ``simple`` and ``native``, stdout drained into a pipe;
* *floor: fetch + parse*: a ``python -c`` that opens the database with ``sqlite3`` the way
  txcript reads it (``immutable=1``), fetches the same rows (the header row, the composerData
  cell, every bubble row of the session's key range and its aux rows, rowid order sorted in
  Python) and parses each JSON cell with ``msgspec``, holding nothing but one parsed bubble at a
  time — the least any export of these rows must do;
* *floor: interpreter*: ``python -c pass``.

The store is only read (the database is opened read-only by both). The session id is the
manifest's ``huge_session`` when the data dir has one, else ``--id``.

Usage::

    .venv/bin/python benchmarks/bench_export.py --rounds 5
    .venv/bin/python benchmarks/bench_export.py --user /tmp/bench-cursor/User \\
        --id d883409d-790c-47d3-a9b3-3192faa8947c --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LARGE = HERE / "data" / "large"
OUT = HERE / "out"

FLOOR = r"""
import sqlite3, sys, msgspec
from txcript.harnesses.cursor_desktop.database import AUX_ROWS_SQL
path, cid = sys.argv[1], sys.argv[2]
conn = sqlite3.connect("file:" + path + "?immutable=1", uri=True)
decode = msgspec.json.decode
head = conn.execute("SELECT value FROM composerHeaders WHERE composerId = ?", (cid,)).fetchone()
decode(head[0])
cd = conn.execute(
    "SELECT CAST(value AS TEXT) FROM cursorDiskKV WHERE key = ?", ("composerData:" + cid,)
).fetchone()
decode(cd[0])
rows = conn.execute(
    "SELECT rowid, key, CAST(value AS TEXT) FROM cursorDiskKV "
    "WHERE key >= ? AND key < ? AND value IS NOT NULL",
    ("bubbleId:" + cid + ":", "bubbleId:" + cid + ";"),
).fetchall()
rows.sort(key=lambda r: r[0])
aux = sorted(conn.execute(AUX_ROWS_SQL, (cid,)).fetchall(), key=lambda r: r[0])
n = 0
for _, _, value in rows:
    n += len(decode(value))
print(len(rows), len(aux), n)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measured(args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """``(wall seconds, peak RSS MiB, stdout bytes)`` of one child process."""
    with tempfile.TemporaryFile() as sink:
        started = time.perf_counter()
        child = subprocess.Popen(args, stdout=sink, stderr=subprocess.PIPE, env=env)
        assert child.stderr is not None
        errors = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(args[:6])}… failed ({child.returncode}): {errors!r}")
        size = sink.tell()
    return elapsed, usage.ru_maxrss / 1024, size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=LARGE, help="dir with manifest.json + User")
    parser.add_argument("--user", type=Path, help="the User dir (default: DATA/User)")
    parser.add_argument("--id", help="the session (default: the manifest's huge_session)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--formats", default="common,simple,native")
    parser.add_argument("--out", type=Path, default=OUT / "export.json")
    args = parser.parse_args()
    user = args.user or args.data / "User"
    cid = args.id
    if cid is None:
        manifest = args.data / "manifest.json"
        if not manifest.is_file():
            log(f"no manifest at {manifest}: pass --id, or run benchmarks/generate_cursor_store.py")
            return 2
        cid = json.loads(manifest.read_text())["huge_session"]["composer_id"]
    database = user / "globalStorage" / "state.vscdb"
    home = Path(tempfile.mkdtemp(prefix="bench-export-home-"))
    env = {**os.environ, "HOME": str(home), "CURSOR_DESKTOP_USER_DIR": str(user)}
    env.pop("TXCRIPT_DATA_DIR", None)
    python = [sys.executable]
    commands: dict[str, list[str]] = {
        "floor: interpreter (python -c pass)": [*python, "-c", "pass"],
        "floor: fetch + parse the session's rows": [*python, "-c", FLOOR, str(database), cid],
    }
    for export_format in args.formats.split(","):
        commands[f"export --format {export_format}"] = [
            *python, "-m", "txcript", "export", cid, "--from", "cursor_desktop",
            "--format", export_format,
        ]  # fmt: skip
    for command in commands.values():  # warm the page cache and the interpreter
        measured(command, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, list[float]] = {name: [] for name in commands}
    sizes: dict[str, int] = {}
    for round_number in range(args.rounds):
        log(f"round {round_number + 1}/{args.rounds}")
        for name, command in commands.items():
            seconds, peak, size = measured(command, env)
            times[name].append(seconds)
            rss[name].append(peak)
            sizes[name] = size
    floor = statistics.median(times["floor: fetch + parse the session's rows"])
    floor_rss = statistics.median(rss["floor: fetch + parse the session's rows"])
    report: dict[str, Any] = {"session": cid, "database": str(database), "rounds": args.rounds}
    rows = []
    for name in commands:
        median = statistics.median(times[name])
        peak = statistics.median(rss[name])
        row = {
            "name": name,
            "median_s": round(median, 4),
            "min_s": round(min(times[name]), 4),
            "ratio_to_floor": round(median / floor, 2),
            "peak_rss_mib": round(peak, 1),
            "rss_ratio_to_floor": round(peak / floor_rss, 2),
            "output_bytes": sizes[name],
        }
        rows.append(row)
    report["rows"] = rows
    print(f"session {cid}, {args.rounds} rounds, medians (whole process)")
    print(f"{'':44} {'median s':>9} {'min s':>7} {'× floor':>8} {'peak MiB':>9} {'× floor':>8}")
    for row in rows:
        print(
            f"{row['name']:44} {row['median_s']:9.3f} {row['min_s']:7.3f} "
            f"{row['ratio_to_floor']:8.2f} {row['peak_rss_mib']:9.1f} "
            f"{row['rss_ratio_to_floor']:8.2f}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
