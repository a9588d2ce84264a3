"""Benchmark ``txcript export`` of the 10,000-bubble session of the generated 2 GiB Cursor store.

Every figure is a whole process, timed with its peak RSS and its CPU time (user + system, from
``os.wait4`` of the child), in the same run and interleaved round by round, so the ratios hold
on a busy machine (CPU time is the steadier of the two when other processes compete for the
cores):

* *subject*: ``python -m txcript export <id> --from cursor_desktop --format F`` for F in
  ``common`` (the issue's target), ``simple`` and ``native``, stdout written to a file;
* *in process*: the same export through ``txcript.cli.main`` in a process that has already
  imported every module the export uses, timed from the call to its end (wall and CPU), so the
  export's own work is visible apart from the interpreter's start-up and imports;
* *floor: fetch + parse*: a ``python -c`` that opens the database with ``sqlite3`` the way
  txcript reads it (``immutable=1``), fetches the same rows (the header row, the composerData
  cell, every bubble row of the session's key range and its aux rows, rowid order sorted in
  Python) and parses each JSON cell with ``msgspec``, holding nothing but one parsed bubble at a
  time — the least any export of these rows must do. It imports nothing of txcript (the aux-row
  statement, txcript's own, is passed as an argument), and it also times itself after its
  imports: the floor of the *in process* figures;
* *floor: interpreter*: ``python -c pass``;
* ``view <id>`` of the same session, against the same floor.

``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment: an installed txcript
runs from compiled bytecode, and recompiling every module on each run is no cost of an export.

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
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from timing import Run, child_env, median_of, run_child

from txcript.harnesses.cursor_desktop.database import AUX_ROWS_SQL

HERE = Path(__file__).resolve().parent
LARGE = HERE / "data" / "large"
OUT = HERE / "out"

FLOOR = r"""
import json, sqlite3, sys, time, msgspec
wall, cpu = time.perf_counter(), time.process_time()
path, cid, AUX_ROWS_SQL = sys.argv[1], sys.argv[2], sys.argv[3]
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
timed = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
print("BENCH " + json.dumps(timed), file=sys.stderr)
"""

IN_PROCESS = r"""
import json, sys, time
import txcript.cli, txcript.operations, txcript.sessions, txcript.model
import txcript.harnesses.cursor_desktop.store, txcript.harnesses.cursor_desktop.codec
import txcript.harnesses.cursor_desktop.text, txcript.harnesses.simple
from txcript.cli import main
wall, cpu = time.perf_counter(), time.process_time()
try:
    main(sys.argv[1:])
except SystemExit as exc:
    if exc.code:
        raise
timed = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
print("BENCH " + json.dumps(timed), file=sys.stderr)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Measured:
    """One child process (wall and CPU seconds, peak RSS, stdout bytes) and the times it
    reported of itself (a ``BENCH {…}`` line on stderr), if any."""

    run: Run
    inner: Any


def measured(args: list[str], env: dict[str, str]) -> Measured:
    run = run_child(args, env, stdout="count")
    inner = None
    for line in run.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("BENCH "):
            inner = json.loads(line[6:])
    return Measured(run, inner)


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
    env = child_env(HOME=str(home), CURSOR_DESKTOP_USER_DIR=str(user))
    env.pop("TXCRIPT_DATA_DIR", None)
    python = [sys.executable]
    floor_command = [*python, "-c", FLOOR]
    commands: dict[str, list[str]] = {
        "floor: interpreter (python -c pass)": [*python, "-c", "pass"],
        "floor: fetch + parse the session's rows": [
            *floor_command,
            str(database),
            cid,
            AUX_ROWS_SQL,
        ],
    }
    commands["view (whole text, into a file)"] = [
        *python, "-m", "txcript", "view", cid, "--from", "cursor_desktop"
    ]  # fmt: skip
    for export_format in args.formats.split(","):
        export = ["export", cid, "--from", "cursor_desktop", "--format", export_format]
        commands[f"export --format {export_format}"] = [*python, "-m", "txcript", *export]
        commands[f"export --format {export_format} (in process)"] = [
            *python, "-c", IN_PROCESS, *export
        ]  # fmt: skip
    for command in commands.values():  # warm the page cache and the interpreter
        measured(command, env)
    runs: dict[str, list[Measured]] = {name: [] for name in commands}
    for round_number in range(args.rounds):
        log(f"round {round_number + 1}/{args.rounds}")
        for name, command in commands.items():
            runs[name].append(measured(command, env))
    floor_name = "floor: fetch + parse the session's rows"
    median = statistics.median
    floor_medians = median_of(r.run for r in runs[floor_name])
    floor = {
        "wall": floor_medians.wall,
        "cpu": floor_medians.cpu,
        "rss": floor_medians.maxrss_mib,
        "inner_wall": median(r.inner["wall"] for r in runs[floor_name]),
        "inner_cpu": median(r.inner["cpu"] for r in runs[floor_name]),
    }
    report: dict[str, Any] = {
        "session": cid,
        "database": str(database),
        "rounds": args.rounds,
        "load_average": os.getloadavg(),
    }
    rows = []
    for name in commands:
        done = runs[name]
        medians = median_of(r.run for r in done)
        row: dict[str, Any] = {
            "name": name,
            "median_s": round(medians.wall, 4),
            "min_s": round(min(r.run.wall for r in done), 4),
            "cpu_s": round(medians.cpu, 4),
            "peak_rss_mib": round(medians.maxrss_mib, 1),
            "output_bytes": done[-1].run.stdout_bytes,
        }
        row["ratio_to_floor"] = round(row["median_s"] / floor["wall"], 2)
        row["cpu_ratio_to_floor"] = round(row["cpu_s"] / floor["cpu"], 2)
        row["rss_ratio_to_floor"] = round(row["peak_rss_mib"] / floor["rss"], 2)
        if all(r.inner is not None for r in done):
            row["inner_s"] = round(median(r.inner["wall"] for r in done), 4)
            row["inner_cpu_s"] = round(median(r.inner["cpu"] for r in done), 4)
            row["inner_ratio_to_floor"] = round(row["inner_s"] / floor["inner_wall"], 2)
            row["inner_cpu_ratio_to_floor"] = round(row["inner_cpu_s"] / floor["inner_cpu"], 2)
        rows.append(row)
    report["rows"] = rows
    print(
        f"session {cid}, {args.rounds} rounds, medians; load average "
        + " ".join(f"{x:.2f}" for x in report["load_average"])
    )
    print(
        f"{'':46} {'wall s':>7} {'× fl':>5} {'cpu s':>7} {'× fl':>5} {'MiB':>6} {'× fl':>5}"
        f" {'inner s':>8} {'× fl':>5} {'in cpu':>7} {'× fl':>5}"
    )
    for row in rows:
        inner = ""
        if "inner_s" in row:
            inner = (
                f" {row['inner_s']:8.3f} {row['inner_ratio_to_floor']:5.2f}"
                f" {row['inner_cpu_s']:7.3f} {row['inner_cpu_ratio_to_floor']:5.2f}"
            )
        print(
            f"{row['name']:46} {row['median_s']:7.3f} {row['ratio_to_floor']:5.2f} "
            f"{row['cpu_s']:7.3f} {row['cpu_ratio_to_floor']:5.2f} "
            f"{row['peak_rss_mib']:6.1f} {row['rss_ratio_to_floor']:5.2f}{inner}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
