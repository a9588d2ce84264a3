"""Benchmark the search index on a generated Cursor store plus a generated Claude Code store.

Measured in one run, each against its floor:

a) **first build**: ``Index.update`` over every session from empty, in-process. Floor: reading
   the same sessions' stored bytes (every ``cursorDiskKV`` bubble and composerData cell of the
   indexed sessions, and every Claude session file) with sqlite3 / plain reads. Throughput is
   reported in MB/s of those bytes.
b) **warm query after one change**: ``txcript query PATTERN --json`` as a subprocess, after
   appending one line to one Claude session (so exactly one session is re-read). Floor:
   ``python -c 'import txcript.cli'`` (the interpreter and import cost every command pays).
   Target < 150 ms.
c) **in-process query over the warm index**: :func:`txcript.search.search` alone. Target
   < 50 ms. Also timed in-process: what (b) does past interpreter start-up and imports
   (:func:`txcript.search.find` after one change: discovery, the index update, the query), and
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
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

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
        default=["'rollback schema", "parser config$", "zqxj"],
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
    from txcript.search import find, open_index, search
    from txcript.sessions import discover

    floor_s, floor_bytes = _floor_bytes(args.cursor, claude)
    sessions = discover()
    index = open_index()
    began = time.perf_counter()
    stats = index.update(sessions)
    build_s = time.perf_counter() - began
    index.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = index.size_bytes()
    text_bytes = index.text_bytes()
    in_process = []
    for _ in range(args.repeat):
        began = time.perf_counter()
        found = search(index, sessions, args.pattern)
        in_process.append(time.perf_counter() - began)
    others = {}
    for pattern in args.also:
        times = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            other = search(index, sessions, pattern)
            times.append(time.perf_counter() - began)
        others[pattern] = (round(statistics.median(times) * 1000, 1), len(other))
    short = {}
    for pattern in args.short:
        times = []
        for _ in range(args.repeat):
            began = time.perf_counter()
            other = search(index, sessions, pattern, limit=22, scan_limit=SCAN_LIMIT)
            times.append(time.perf_counter() - began)
        short[pattern] = (round(statistics.median(times) * 1000, 1), len(other))
    index.close()

    target = next((claude / "projects").rglob("*.jsonl"))
    cmd = [sys.executable, "-m", "txcript", "query", args.pattern, "--json"]
    full_env = dict(os.environ, **env)
    # An installed txcript runs from compiled bytecode: without it each child would compile
    # every module it imports again, which no user pays.
    full_env.pop("PYTHONDONTWRITEBYTECODE", None)
    warm = []
    for n in range(args.repeat):
        with target.open("a") as handle:
            handle.write(target.read_text().splitlines()[-1].replace("step", f"change{n}") + "\n")
        began = time.perf_counter()
        done = subprocess.run(cmd, env=full_env, capture_output=True, check=True)
        warm.append(time.perf_counter() - began)
    find_after_change = []
    for n in range(args.repeat):
        with target.open("a") as handle:
            handle.write(target.read_text().splitlines()[-1].replace("step", f"again{n}") + "\n")
        began = time.perf_counter()
        find(args.pattern)
        find_after_change.append(time.perf_counter() - began)
    imports = []
    for _ in range(args.repeat):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import txcript.cli"], env=full_env, check=True)
        imports.append(time.perf_counter() - began)
    report = {
        "sessions": len(sessions),
        "first_build_s": round(build_s, 2),
        "first_build_read": stats.read,
        "floor_read_s": round(floor_s, 2),
        "floor_bytes_mb": round(floor_bytes / 1e6, 1),
        "build_mb_per_s": round(floor_bytes / 1e6 / build_s, 1),
        "floor_mb_per_s": round(floor_bytes / 1e6 / floor_s, 1),
        "indexed_text_mb": round(text_bytes / 1e6, 1),
        "index_mb": round(size / 1e6, 1),
        "index_over_text": round(size / max(1, text_bytes), 2),
        "in_process_query_ms": round(statistics.median(in_process) * 1000, 1),
        "warm_query_after_one_change_ms": round(statistics.median(warm) * 1000, 1),
        "import_floor_ms": round(statistics.median(imports) * 1000, 1),
        "in_process_find_after_one_change_ms": round(
            statistics.median(find_after_change) * 1000, 1
        ),
        "matches": len(found),
        "other_patterns_ms_matches": others,
        "picker_short_patterns_ms_matches": short,
        "hits_json_bytes": len(done.stdout),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
