"""Benchmark the search index on a generated Cursor store plus a generated Claude Code store.

Measured in one run, each against its floor:

a) **first build**: :func:`txcript.search.refresh` from empty, in-process. Floor: reading
   the same sessions' stored bytes (every ``cursorDiskKV`` bubble and composerData cell of the
   indexed sessions, and every Claude session file) with sqlite3 / plain reads. Throughput is
   reported in MB/s of those bytes.
b) **warm query after one change**: ``txcript query PATTERN --json`` as a subprocess, after
   appending one line to one Claude session (so exactly one session is re-read). Floor:
   ``python -c 'import txcript.cli'`` (the interpreter and import cost every command pays),
   run right after each query, so both see the machine in the same state (wall and CPU).
   Target < 150 ms. The human form (``query PATTERN``, plain text into the pipe) is timed in
   the same rounds, and so are the floors under the import floor and above it: ``python -c
   pass``; the import and the libraries any query needs (msgspec, sqlite3, zstandard); and
   those with ``txcript.model`` and one ``stat`` per Claude file, which a query of these
   stores cannot avoid.
c) **in-process query over the warm index**: :func:`txcript.search.search` alone, over the
   sessions the index holds (:meth:`txcript.search.Index.ranked`, as ``find`` searches). Target
   < 50 ms. Also timed in-process: what (b) does past interpreter start-up and imports
   (:func:`txcript.search.find` after one change: the refresh, the ranking, the query), and
   the picker's short patterns (``--short``, searched with the picker's scan limit).
d) **size**: the index file against the bytes of text it indexes. Target <= 30 %.

Usage::

    .venv/bin/python benchmarks/generate_cursor_store.py            # -> benchmarks/data/large
    .venv/bin/python benchmarks/bench_search.py --cursor benchmarks/data/large/User \\
        --claude-sessions 2000
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from timing import Run, child_env, median_of, run_child, time_once, time_samples

HERE = Path(__file__).resolve().parent
WORDS = [
    "auth",
    "token",
    "refresh",
    "parser",
    "config",
    "migration",
    "cache",
    "index",
    "billing",
    "invoice",
    "retry",
    "socket",
    "timeout",
    "deploy",
    "rollback",
    "schema",
    "query",
    "render",
    "export",
    "import",
    "session",
    "cursor",
    "claude",
    "codex",
]


def _claude_corpus(root: Path, count: int) -> None:
    from txcript import harnesses
    from txcript import model as m

    harness = harnesses.get("claude_code")
    store = harness.store(root)
    assert store is not None
    start = datetime(2026, 6, 1, tzinfo=UTC)
    for n in range(count):
        t = start + timedelta(hours=n)
        messages = []
        for k in range(20):
            words = " ".join(WORDS[(n * 7 + k * 3 + j) % len(WORDS)] for j in range(12))
            role = "user" if k % 2 == 0 else "assistant"
            text = f"{words} step {k} of session {n}"
            messages.append(m.Message(role=role, content=(m.Text(text),), timestamp=t))  # type: ignore[arg-type]
        meta = m.Meta(id=f"{n:08d}-0000-4000-8000-000000000000", timestamp=t, cwd=f"/src/p{n % 40}")
        store.save(harness.from_common(m.Transcript(meta=meta, messages=tuple(messages))))


def _floor_bytes(cursor_user: Path | None, claude_root: Path) -> tuple[float, int]:
    began = time.perf_counter()
    total = 0
    if cursor_user is not None:
        db = cursor_user / "globalStorage" / "state.vscdb"
        conn = sqlite3.connect(db.absolute().as_uri() + "?immutable=1", uri=True)
        for (value,) in conn.execute(
            "SELECT value FROM cursorDiskKV WHERE key >= 'bubbleId:' AND key < 'bubbleId;' "
            "OR (key >= 'composerData:' AND key < 'composerData;')"
        ):
            total += len(value or b"")
        conn.close()
    for path in (claude_root / "projects").rglob("*.jsonl"):
        total += len(path.read_bytes())
    return time.perf_counter() - began, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cursor", type=Path, help="A generated Cursor User dir.")
    parser.add_argument("--claude-sessions", type=int, default=2000)
    parser.add_argument("--pattern", default="auth token")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--also",
        nargs="*",
        default=[
            "'rollback schema",
            "parser config$",
            "zqxj",
            "'ECONNRESET retry",
            "qqq 'rollback",
            "tstprs",
        ],
        help="More patterns timed in-process (reported as [ms, matches]).",
    )
    parser.add_argument(
        "--short",
        nargs="*",
        default=["a", "au", "zq"],
        help="Short patterns timed as the picker runs them (reported as [ms, matches]).",
    )
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="txcript-bench-search-"))
    claude = work / "claude"
    env = {
        "HOME": str(work / "home"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "TXCRIPT_CACHE_DIR": str(work / "cache"),
        "CURSOR_DESKTOP_USER_DIR": str(args.cursor or (work / "no-cursor")),
        "CODEX_HOME": str(work / "codex"),
    }
    os.environ.update(env)
    print(f"generating {args.claude_sessions} Claude Code sessions…", file=sys.stderr)
    _claude_corpus(claude, args.claude_sessions)

    from txcript.cli.picker import SCAN_LIMIT
    from txcript.search import find, open_index, refresh, search

    floor_s, floor_bytes = _floor_bytes(args.cursor, claude)
    index = open_index()
    began = time.perf_counter()
    current = refresh(index)  # the first build, as the first `txcript query` runs it
    build_s = time.perf_counter() - began
    indexed = len(index.docs())
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = index.size_bytes()
    text_bytes = index.text_bytes()
    ranked = index.ranked(current)  # what `find` searches once the index is in step

    def timed_search(pattern: str, **options: int) -> tuple[float, int]:
        times = time_samples(lambda: search(index, ranked, pattern, **options), args.repeat)
        return statistics.median(times), len(search(index, ranked, pattern, **options))

    query_s, matches = timed_search(args.pattern)
    others = {}
    for pattern in args.also:
        took, count = timed_search(pattern)
        others[pattern] = (round(took * 1000, 1), count)
    short = {}
    for pattern in args.short:
        took, count = timed_search(pattern, limit=22, scan_limit=SCAN_LIMIT)
        short[pattern] = (round(took * 1000, 1), count)
    index.close()

    target = next((claude / "projects").rglob("*.jsonl"))

    def change(tag: str) -> None:
        with target.open("a") as handle:
            handle.write(target.read_text().splitlines()[-1].replace("step", tag) + "\n")

    cmd = [sys.executable, "-m", "txcript", "query", args.pattern, "--json"]
    human_cmd = [sys.executable, "-m", "txcript", "query", args.pattern]  # into a pipe: plain
    full_env = child_env(**env)
    warm: list[Run] = []
    human: list[Run] = []
    imports: list[Run] = []
    libraries = "import txcript.cli, msgspec, sqlite3, zstandard"
    walk = (
        f"{libraries}, txcript.model, os\n"
        f"for d in os.scandir({str(claude / 'projects')!r}):\n"
        "    for f in os.scandir(d.path): f.stat()\n"
    )
    floors: dict[str, list[Run]] = {
        "python -c pass": [],
        "import txcript.cli": imports,
        "... and msgspec, sqlite3, zstandard": [],
        "... and txcript.model, a stat of every Claude file": [],
    }
    floor_code = dict(zip(floors, ["pass", "import txcript.cli", libraries, walk], strict=True))
    for n in range(args.repeat):  # interleaved, so all see the machine in the same state
        change(f"change{n}")
        warm.append(run_child(cmd, full_env))
        change(f"human{n}")
        human.append(run_child(human_cmd, full_env))
        for name, runs in floors.items():
            runs.append(run_child([sys.executable, "-c", floor_code[name]], full_env))
    hits_bytes = len(warm[-1].stdout)
    find_after_change = []
    for n in range(args.repeat):
        change(f"again{n}")
        find_after_change.append(time_once(lambda: find(args.pattern))[0])
    warm_m, human_m, imports_m = median_of(warm), median_of(human), median_of(imports)
    report = {
        "sessions": indexed,
        "first_build_s": round(build_s, 2),
        "floor_read_s": round(floor_s, 2),
        "floor_bytes_mb": round(floor_bytes / 1e6, 1),
        "build_mb_per_s": round(floor_bytes / 1e6 / build_s, 1),
        "floor_mb_per_s": round(floor_bytes / 1e6 / floor_s, 1),
        "indexed_text_mb": round(text_bytes / 1e6, 1),
        "index_mb": round(size / 1e6, 1),
        "index_over_text": round(size / max(1, text_bytes), 2),
        "in_process_query_ms": round(query_s * 1000, 1),
        "warm_query_after_one_change_ms": round(warm_m.wall * 1000, 1),
        "warm_query_after_one_change_cpu_ms": round(warm_m.cpu * 1000, 1),
        "warm_human_query_after_one_change_ms": round(human_m.wall * 1000, 1),
        "warm_human_query_after_one_change_cpu_ms": round(human_m.cpu * 1000, 1),
        "import_floor_ms": round(imports_m.wall * 1000, 1),
        "import_floor_cpu_ms": round(imports_m.cpu * 1000, 1),
        "floors_wall_ms": {
            name: round(median_of(runs).wall * 1000, 1) for name, runs in floors.items()
        },
        "in_process_find_after_one_change_ms": round(
            statistics.median(find_after_change) * 1000, 1
        ),
        "matches": matches,
        "other_patterns_ms_matches": others,
        "picker_short_patterns_ms_matches": short,
        "hits_json_bytes": hits_bytes,
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
