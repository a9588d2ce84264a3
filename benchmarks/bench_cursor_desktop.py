"""Benchmark the Cursor desktop harness against bare-sqlite3 floors on a generated store.

Two measurements, each against a baseline doing the unavoidable work with ``sqlite3`` only:

a) **list**: ``txcript list --from cursor_desktop --json`` as a real subprocess (``HOME`` an empty
   temporary directory, ``CURSOR_DESKTOP_USER_DIR`` the generated ``User`` dir): median wall time
   and peak RSS (``VmHWM``) over ``--repeat`` runs, versus two ``python -c`` baselines, each one
   ``sqlite3`` query:

   (a) the bare header rows, as the issue phrases the target: ``composerHeaders`` columns and
       ``value`` of every composer owning a non-NULL bubble (the key-range existence test);
   (b) the same rows reduced to the fields ``list`` prints: title and cwd candidates from the
       head, and title, cwd and model candidates from the session's ``composerData`` cell (one
       multi-path ``json_extract`` per document). The model exists only in composerData.

   Targets: ratio to (a) <= 1.5x, peak RSS < 100 MB. The ratio to (b) is reported next to it.
   The output must list every generated session.
b) **load**: in-process ``store.load(cid)`` + ``to_common`` of the 10,000-bubble session, versus
   fetching that session's bubble cells and its ``composerData`` row with ``sqlite3`` and
   ``json.loads``-ing each one. Target: ratio <= 2x.

Results go to stdout as a table and to ``benchmarks/out/cursor_desktop.json``.

Usage::

    .venv/bin/python benchmarks/generate_cursor_store.py          # once, ~2 GiB
    .venv/bin/python benchmarks/bench_cursor_desktop.py --repeat 7
    .venv/bin/python benchmarks/bench_cursor_desktop.py --profile  # adds cProfile top lists
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from timing import Run, run_child, time_once, timed

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_DATA = HERE / "data" / "large"
DEFAULT_OUT = HERE / "out" / "cursor_desktop.json"
LIST_RATIO_TARGET = 1.5
LIST_RSS_TARGET_MB = 100.0
LOAD_RATIO_TARGET = 2.0

#: The header rows discovery needs, newest first, restricted to composers owning a non-NULL
#: bubble row (a key-range probe on cursorDiskKV's unique key index; facts §5).
HEADER_QUERY = """
SELECT h.composerId, h.workspaceId, h.createdAt, h.lastUpdatedAt, h.isArchived, h.isSubagent,
       h.recency, h.checkpointAt, h.value
FROM composerHeaders AS h
WHERE EXISTS (
    SELECT 1 FROM cursorDiskKV AS k
    WHERE k.key >= 'bubbleId:' || h.composerId || ':'
      AND k.key < 'bubbleId:' || h.composerId || ';'
      AND k.value IS NOT NULL)
ORDER BY h.recency DESC
"""
_HEADER_COLUMNS = "h.recency, h.checkpointAt, h.value\nFROM composerHeaders AS h"
#: Baseline (b): the same rows, with the fields ``list`` prints in place of the head. Title and
#: cwd candidates come from the head and from composerData, the model only from composerData
#: (facts §8), so every listed session's composerData cell is parsed once.
FIELDS_QUERY = HEADER_QUERY.replace(
    _HEADER_COLUMNS,
    "h.recency, h.checkpointAt,\n"
    "       json_extract(h.value, '$.name', '$.subtitle', '$.workspaceIdentifier.uri.fsPath',\n"
    "                    '$.agentLocation.environment.uri.fsPath',\n"
    "                    '$.trackedGitRepos[0].repoPath'),\n"
    "       (SELECT json_extract(d.value, '$.name', '$.subtitle', '$.modelConfig.modelName',\n"
    "                            '$.workspaceIdentifier.uri.fsPath',\n"
    "                            '$.agentLocation.environment.uri.fsPath',\n"
    "                            '$.trackedGitRepos[0].repoPath')\n"
    "        FROM cursorDiskKV AS d WHERE d.key = 'composerData:' || h.composerId)\n"
    "FROM composerHeaders AS h",
)
#: Info: baseline (a) plus every listed session's composerData cell, fetched and not parsed
#: (the I/O any reader of the model pays). Unordered: sorting would make SQLite's sorter carry
#: the 128 MB of cells.
HEADER_AND_CELL_QUERY = HEADER_QUERY.replace(
    _HEADER_COLUMNS,
    "h.recency, h.checkpointAt, h.value,\n"
    "       (SELECT CAST(d.value AS BLOB) FROM cursorDiskKV AS d\n"
    "        WHERE d.key = 'composerData:' || h.composerId)\n"
    "FROM composerHeaders AS h",
).replace("ORDER BY h.recency DESC\n", "")

#: Opens the database the way a careful reader does: ``immutable=1`` while it is at rest (no
#: sidecars, so nothing is created beside it), ``mode=ro`` while a ``-wal`` exists.
OPEN_SNIPPET = """
import os, sqlite3, sys
from urllib.parse import quote
p = sys.argv[1]
mode = "mode=ro" if os.path.exists(p + "-wal") else "immutable=1"
db = sqlite3.connect("file:" + quote(p) + "?" + mode, uri=True, timeout=5.0)
"""
#: Runs one query and prints its row count; rows are counted as they stream, not kept.
BASELINE_LIST = OPEN_SNIPPET + "print(sum(1 for _ in db.execute(sys.argv[2])))\n"
DISCOVER_FALLBACK = """
import json, sys
from txcript.harnesses import get
store = get("cursor_desktop").store()
rows = store.discover()
json.dump([{"harness": d.harness, "id": d.meta_id, "title": d.title, "cwd": d.cwd,
            "model": d.model, "timestamp": d.timestamp.isoformat(),
            "messages": d.message_count} for d in rows], sys.stdout)
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def open_readonly(db_path: Path) -> sqlite3.Connection:
    mode = "mode=ro" if Path(f"{db_path}-wal").exists() else "immutable=1"
    return sqlite3.connect(f"file:{quote(str(db_path))}?{mode}", uri=True, timeout=5.0)


# -- subprocess measurement ------------------------------------------------------------------


def run_measured(argv: list[str], env: dict[str, str], *, sample_rss: bool = False) -> Run:
    """Run ``argv`` from the repository; wall time from spawn to exit, and (``sample_rss``) the
    child's own peak RSS, ``VmHWM`` (``ru_maxrss`` would report this larger process instead).
    Polling costs CPU on a small machine, so callers time one run and sample RSS in another."""
    return run_child(argv, env, cwd=REPO, sample_rss=sample_rss, check=False)


@dataclass
class Series:
    label: str
    command: list[str]
    walls: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)

    def add(self, timed_run: Run, sampled_run: Run) -> None:
        self.walls.append(timed_run.wall)
        self.rss.append(sampled_run.hwm_mib)

    def summary(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "command": self.command,
            "runs": len(self.walls),
            "median_s": statistics.median(self.walls),
            "min_s": min(self.walls),
            "max_s": max(self.walls),
            "peak_rss_mb_median": statistics.median(self.rss),
            "peak_rss_mb_max": max(self.rss),
            "walls_s": [round(w, 4) for w in self.walls],
        }


def isolated_env(user_dir: Path, home: Path) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    env["CURSOR_DESKTOP_USER_DIR"] = str(user_dir)
    env["LANG"] = os.environ.get("LANG", "C.UTF-8")
    return env


def txcript_argv() -> list[str]:
    script = Path(sys.executable).parent / "txcript"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "txcript"]


def pick_subject(env: dict[str, str]) -> tuple[Series | None, Run | None, str | None]:
    """``txcript list`` if it works, else ``store.discover()`` in a subprocess, else nothing."""
    series = Series(
        "txcript list --from cursor_desktop --json",
        [*txcript_argv(), "list", "--from", "cursor_desktop", "--json"],
    )
    probe = run_measured(series.command, env)
    if probe.returncode == 0 and probe.stdout.lstrip().startswith(b"["):
        return series, probe, None
    note = (
        f"`txcript list` unavailable ({last_line(probe)}); "
        "measured store.discover() in a subprocess instead"
    )
    log(note)
    series = Series(
        "python -c 'store.discover() + json.dump'", [sys.executable, "-c", DISCOVER_FALLBACK]
    )
    probe = run_measured(series.command, env)
    if probe.returncode == 0:
        return series, probe, note
    note = f"{note}; discover() failed too ({last_line(probe)}): only the baseline was measured"
    log(note)
    return None, None, note


def last_line(run: Run) -> str:
    lines = (run.stderr or run.stdout).decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit code {run.returncode}, no output"


def bench_list(manifest: dict[str, Any], db_path: Path, repeat: int) -> dict[str, Any]:
    user_dir = Path(manifest["user_dir"])
    expected = expected_session_ids(db_path)
    if len(expected) != manifest["listable_sessions"]:
        log(
            f"warning: the database has {len(expected)} listable sessions, "
            f"the manifest says {manifest['listable_sessions']}"
        )
    with tempfile.TemporaryDirectory(prefix="txcript-bench-home-") as home:
        env = isolated_env(user_dir, Path(home))
        subject, probe, note = pick_subject(env)
        check = (
            check_listing(probe, expected)
            if probe is not None
            else {"ok": False, "problems": ["not run"]}
        )
        series = [
            Series(
                "baseline (a): python -c sqlite3, header rows",
                [sys.executable, "-c", BASELINE_LIST, str(db_path), HEADER_QUERY],
            ),
            Series(
                "baseline (b): python -c sqlite3, the fields list prints (json_extract)",
                [sys.executable, "-c", BASELINE_LIST, str(db_path), FIELDS_QUERY],
            ),
            Series(
                "info: (a) unordered + composerData cells fetched, not parsed",
                [sys.executable, "-c", BASELINE_LIST, str(db_path), HEADER_AND_CELL_QUERY],
            ),
            Series("info: python -c pass (interpreter start)", [sys.executable, "-c", "pass"]),
            Series(
                "info: python -c 'import txcript.cli'", [sys.executable, "-c", "import txcript.cli"]
            ),
        ]
        if subject is not None:
            series.insert(0, subject)
        for s in series:  # warm-up: page cache, .pyc files
            run_measured(s.command, env)
        for i in range(repeat):
            log(f"  list round {i + 1}/{repeat}")
            for s in series if i % 2 == 0 else reversed(series):
                timed_run = run_measured(s.command, env)
                sampled_run = run_measured(s.command, env, sample_rss=True)
                for run in (timed_run, sampled_run):
                    if run.returncode != 0:
                        stderr = run.stderr.decode(errors="replace")[-2000:]
                        raise SystemExit(f"{s.label} failed: {stderr}")
                s.add(timed_run, sampled_run)
    summaries = [s.summary() for s in series]
    discover_s = discover_in_process(user_dir, repeat) if subject is not None else None
    result: dict[str, Any] = {
        "subject": None,
        "baseline": summaries[-5],
        "baseline_fields": summaries[-4],
        "info": summaries[-3:],
        "ratio_target": LIST_RATIO_TARGET,
        "peak_rss_target_mb": LIST_RSS_TARGET_MB,
        "check": check,
        "note": note,
        "discover_in_process_median_s": discover_s,
    }
    if subject is not None:
        subject_s = summaries[0]
        ratio = subject_s["median_s"] / result["baseline"]["median_s"]
        ratio_fields = subject_s["median_s"] / result["baseline_fields"]["median_s"]
        result |= {
            "subject": subject_s,
            "ratio": ratio,
            "ratio_ok": ratio <= LIST_RATIO_TARGET,
            "ratio_fields": ratio_fields,
            "ratio_fields_ok": ratio_fields <= LIST_RATIO_TARGET,
            "peak_rss_mb": subject_s["peak_rss_mb_max"],
            "peak_rss_ok": subject_s["peak_rss_mb_max"] < LIST_RSS_TARGET_MB,
        }
    return result


def discover_in_process(user_dir: Path, repeat: int) -> float | None:
    """Median of ``store.discover()`` in this process: the list's cost without start-up."""
    try:
        from txcript.harnesses import get

        store = get("cursor_desktop").store(user_dir)
        store.discover()
    except Exception as exc:
        log(f"in-process discover unavailable: {type(exc).__name__}: {exc}")
        return None
    return timed(store.discover, repeat)


def expected_session_ids(db_path: Path) -> list[str]:
    with open_readonly(db_path) as db:
        return [row[0] for row in db.execute(HEADER_QUERY)]


def check_listing(run: Run, expected: list[str]) -> dict[str, Any]:
    if run.returncode != 0:
        return {"ok": False, "error": run.stderr.decode(errors="replace")[-500:]}
    rows = json.loads(run.stdout)
    ids = [row.get("id") for row in rows]
    problems = []
    if len(rows) != len(expected):
        problems.append(f"{len(rows)} sessions listed, {len(expected)} expected")
    if set(ids) != set(expected):
        problems.append(
            f"{len(set(expected) - set(ids))} missing, {len(set(ids) - set(expected))} unexpected"
        )
    harnesses = {row.get("harness") for row in rows}
    if harnesses - {"cursor_desktop"}:
        problems.append(f"unexpected harnesses {sorted(map(str, harnesses))}")
    stamps = [row.get("timestamp") or "" for row in rows]
    if stamps != sorted(stamps, reverse=True):
        problems.append("not newest first by timestamp")
    return {
        "ok": not problems,
        "listed": len(rows),
        "expected": len(expected),
        "problems": problems,
    }


# -- in-process load -------------------------------------------------------------------------


def library_available() -> str | None:
    """None when store.load and to_common can be called, else why not."""
    try:
        from txcript.harnesses import get
        from txcript.harnesses.cursor_desktop import codec, store  # noqa: F401

        harness = get("cursor_desktop")
        probe = harness.store(Path(tempfile.gettempdir()) / "txcript-bench-missing")
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    if probe is None or not hasattr(probe, "load"):
        return "cursor_desktop store has no load()"
    return None


def baseline_load(db_path: Path, cid: str) -> int:
    """The floor: fetch the session's bubble cells and composerData, json.loads each."""
    with open_readonly(db_path) as db:
        rows = db.execute(
            "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?",
            (f"bubbleId:{cid}:", f"bubbleId:{cid};"),
        ).fetchall()
        (data,) = db.execute(
            "SELECT value FROM cursorDiskKV WHERE key = ?", (f"composerData:{cid}",)
        ).fetchone()
    parsed = [json.loads(value) for _, value in rows if value is not None]
    json.loads(data)
    return len(parsed)


def library_load(user_dir: Path, cid: str) -> tuple[float, float, int, int]:
    """(load seconds, to_common seconds, bubble rows, Common messages)."""
    from txcript.harnesses import get

    harness = get("cursor_desktop")
    started = time.perf_counter()
    store = harness.store(user_dir)
    native = store.load(cid)
    loaded = time.perf_counter()
    transcript = harness.to_common(native)
    done = time.perf_counter()
    return loaded - started, done - loaded, len(native.bubbles), len(transcript.messages)


def bench_load(manifest: dict[str, Any], db_path: Path, repeat: int) -> dict[str, Any]:
    user_dir = Path(manifest["user_dir"])
    cid = manifest["huge_session"]["composer_id"]
    unavailable = library_available()
    base_walls: list[float] = []
    loads: list[float] = []
    codecs: list[float] = []
    totals: list[float] = []
    counts: dict[str, int] = {}
    for i in range(repeat + 1):  # round 0 is a warm-up
        if i:
            log(f"  load round {i}/{repeat}")
        order = ("base", "lib") if i % 2 else ("lib", "base")
        for which in order:
            if which == "base":
                wall, parsed = time_once(lambda: baseline_load(db_path, cid))
                counts["baseline_cells"] = parsed
                if i:
                    base_walls.append(wall)
            elif unavailable is None:
                wall, (load_s, codec_s, bubbles, messages) = time_once(
                    lambda: library_load(user_dir, cid)
                )
                counts |= {"native_bubbles": bubbles, "common_messages": messages}
                if i:
                    loads.append(load_s)
                    codecs.append(codec_s)
                    totals.append(wall)
    result: dict[str, Any] = {
        "composer_id": cid,
        "bubbles_expected": manifest["huge_session"]["bubbles"],
        "baseline_median_s": statistics.median(base_walls),
        "baseline_walls_s": [round(w, 4) for w in base_walls],
        "counts": counts,
        "ratio_target": LOAD_RATIO_TARGET,
        "note": None if unavailable is None else f"library not available: {unavailable}",
    }
    if unavailable is None:
        total = statistics.median(totals)
        result |= {
            "load_median_s": statistics.median(loads),
            "to_common_median_s": statistics.median(codecs),
            "total_median_s": total,
            "total_walls_s": [round(w, 4) for w in totals],
            "ratio": total / result["baseline_median_s"],
            "ratio_ok": total / result["baseline_median_s"] <= LOAD_RATIO_TARGET,
            "bubbles_ok": counts.get("native_bubbles") == result["bubbles_expected"],
        }
    return result


# -- profiling -------------------------------------------------------------------------------


def profile(manifest: dict[str, Any], out_dir: Path) -> dict[str, str]:
    """cProfile of the in-process discover and of load + to_common; top entries as text."""
    from txcript.harnesses import get

    harness = get("cursor_desktop")
    user_dir = Path(manifest["user_dir"])
    cid = manifest["huge_session"]["composer_id"]
    jobs: dict[str, Callable[[], Any]] = {
        "discover": lambda: harness.store(user_dir).discover(),
        "load_to_common": lambda: harness.to_common(harness.store(user_dir).load(cid)),
    }
    texts = {}
    for name, job in jobs.items():
        job()  # warm
        profiler = cProfile.Profile()
        profiler.enable()
        job()
        profiler.disable()
        profiler.dump_stats(out_dir / f"cursor_desktop_{name}.prof")
        buffer = io.StringIO()
        stats = pstats.Stats(profiler, stream=buffer)
        stats.sort_stats("tottime").print_stats(18)
        texts[name] = buffer.getvalue()
        print(f"\n--- cProfile {name} (by tottime) ---\n{texts[name]}")
    return texts


# -- report ----------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    mem_kb = 0
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "mem_total_gib": round(mem_kb / 1024**2, 1),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
    }


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else "ok" if ok else "MISSED"


def print_table(report: dict[str, Any]) -> None:
    lst, load = report["list"], report["load"]
    rows: list[tuple[str, str, str, str]] = [("measurement", "median", "peak RSS", "vs target")]
    for entry in (lst["subject"], lst["baseline"], lst["baseline_fields"], *lst["info"]):
        if entry is not None:
            rows.append(
                (
                    entry["label"],
                    f"{entry['median_s'] * 1000:.1f} ms",
                    f"{entry['peak_rss_mb_max']:.1f} MB",
                    "",
                )
            )
    if lst.get("discover_in_process_median_s") is not None:
        discover_ms = lst["discover_in_process_median_s"] * 1000
        rows.append(("info: store.discover() in-process", f"{discover_ms:.1f} ms", "", ""))
    if lst["subject"] is not None:
        rows.append(
            (
                "list ratio to (a), header rows (the issue's target)",
                f"{lst['ratio']:.2f}x",
                "",
                f"<= {LIST_RATIO_TARGET}x {verdict(lst['ratio_ok'])}",
            )
        )
        rows.append(
            (
                "list ratio to (b), the fields list prints",
                f"{lst['ratio_fields']:.2f}x",
                "",
                f"<= {LIST_RATIO_TARGET}x {verdict(lst['ratio_fields_ok'])}",
            )
        )
        rows.append(
            (
                "list peak RSS",
                f"{lst['peak_rss_mb']:.1f} MB",
                "",
                f"< {LIST_RSS_TARGET_MB:.0f} MB {verdict(lst['peak_rss_ok'])}",
            )
        )
        rows.append(
            (
                "list output check",
                "ok"
                if lst["check"]["ok"]
                else "; ".join(lst["check"].get("problems", [])) or "failed",
                "",
                "",
            )
        )
    rows.append(
        (
            "baseline: sqlite3 fetch + json.loads 10k bubbles",
            f"{load['baseline_median_s'] * 1000:.1f} ms",
            "",
            "",
        )
    )
    if "ratio" in load:
        rows.append(
            ("store.load (10k-bubble session)", f"{load['load_median_s'] * 1000:.1f} ms", "", "")
        )
        rows.append(("to_common", f"{load['to_common_median_s'] * 1000:.1f} ms", "", ""))
        rows.append(("load + to_common", f"{load['total_median_s'] * 1000:.1f} ms", "", ""))
        rows.append(
            (
                "load ratio (total / baseline)",
                f"{load['ratio']:.2f}x",
                "",
                f"<= {LOAD_RATIO_TARGET}x {verdict(load['ratio_ok'])}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for note in (lst["note"], load["note"]):
        if note:
            print(f"note: {note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="generated store (default: %(default)s)"
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed repetitions (default: %(default)s)"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="JSON results (default: %(default)s)"
    )
    parser.add_argument("--profile", action="store_true", help="also print cProfile top entries")
    args = parser.parse_args(argv)
    manifest_path = args.data / "manifest.json"
    if not manifest_path.is_file():
        rel = os.path.relpath(args.data.resolve(), REPO)
        if rel.startswith(".."):
            rel = str(args.data.resolve())
        print(
            f"no generated store at {args.data}\n"
            "generate one first:\n"
            f"  .venv/bin/python benchmarks/generate_cursor_store.py --out {rel}",
            file=sys.stderr,
        )
        return 2
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    db_path = Path(manifest["database"])
    sidecars = [p.name for p in db_path.parent.glob(db_path.name + "-*")]
    if sidecars:
        log(
            f"warning: sidecars beside the database ({', '.join(sidecars)}); "
            "readers take the live-WAL path"
        )
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "data": {
            k: manifest[k]
            for k in ("sessions", "bubbles", "file_bytes", "composers", "huge_session", "seed")
        },
        "sidecars": sidecars,
    }
    log(f"list benchmark ({args.repeat} rounds)")
    report["list"] = bench_list(manifest, db_path, args.repeat)
    log(f"load benchmark ({args.repeat} rounds)")
    report["load"] = bench_load(manifest, db_path, args.repeat)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.profile and report["load"]["note"] is None:
        report["profile"] = profile(manifest, args.out.parent)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    print_table(report)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
