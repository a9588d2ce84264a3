"""Benchmark the fast paths (direct lookup, metadata cache) against their floors, in one run.

Every figure is a whole ``txcript`` process (``python -m txcript``, ``HOME`` an empty temporary
directory) timed against a ``python -c`` floor doing the unavoidable read of the same bytes, both
measured in this run (median of ``--repeat``; the machine is shared, so the ratios are what
counts):

* **Cursor desktop, the 3,000-session / 2 GiB store** (read-only): ``list --json`` cold (an
  empty cache dir each run) and warm, and the human ``list`` (plain, and ``--color always``),
  against the bare header query (``composerHeaders`` rows of sessions owning a bubble).
  Target: warm ``list --json`` ≤ 2.0×.
* **Cursor desktop, 10,000 sessions vs 100 sessions**: ``export ID --format common`` of a small
  session by id (cold cache) on each store. Target: the 10k figure within 10 % of the 100 one.
  ``list --json`` cold/warm on the 10k store is reported too.
* **Claude Code, 2,000 sessions / ~1.7 GB** (generated once under ``benchmarks/data/claude2k``):
  ``list --json`` cold and warm against walking and ``stat``-ing every session file (target warm
  ≤ 100 ms), and ``export ID --format common`` against reading and parsing that one file.

Usage::

    .venv/bin/python benchmarks/generate_cursor_store.py --out benchmarks/data/s10k \\
        --sessions 10000 --bubbles 60000 --size-gb 0.1 --template …/composer-data-template.json
    .venv/bin/python benchmarks/generate_cursor_store.py --out benchmarks/data/s100 \\
        --sessions 100 --bubbles 600 --size-gb 0.001 --template …
    .venv/bin/python benchmarks/bench_fastpaths.py --repeat 5

Results go to stdout as a table and to ``benchmarks/out/fastpaths.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

from bench_cursor_desktop import HEADER_QUERY  # the one header floor query, kept with its facts
from timing import child_env, median_of, run_child

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OUT = HERE / "out" / "fastpaths.json"
CURSOR_3K_DEFAULT = Path("/tmp/bench-cursor/User")
CURSOR_3K_FALLBACK = DATA / "large" / "User"

HEADER_FLOOR = """
import sqlite3, sys
from urllib.parse import quote
db = sqlite3.connect("file:" + quote(sys.argv[1]) + "?immutable=1", uri=True)
print(sum(1 for _ in db.execute(sys.argv[2])))
"""
STAT_FLOOR = """
import os, sys
n = 0
for project in os.scandir(sys.argv[1]):
    for entry in os.scandir(project.path):
        if entry.name.endswith(".jsonl"):
            entry.stat()
            n += 1
print(n)
"""
READ_FLOOR = """
import json, sys
with open(sys.argv[1], "rb") as handle:
    print(sum(1 for line in handle if json.loads(line)))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def median(
    argv: list[str], env: dict[str, str], repeat: int, fresh_cache: bool = False
) -> tuple[float, float]:
    """Median wall and median CPU seconds over ``repeat`` runs (a fresh cache dir each run)."""
    runs = []
    for _ in range(repeat):
        if fresh_cache:
            shutil.rmtree(env["TXCRIPT_CACHE_DIR"], ignore_errors=True)
        runs.append(run_child(argv, env, stdout="discard"))
    medians = median_of(runs)
    return medians.wall, medians.cpu


def txcript(*args: str) -> list[str]:
    return [sys.executable, "-m", "txcript", *args]


def floor(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def environment(home: Path, **stores: str) -> dict[str, str]:
    env = child_env(
        {k: v for k, v in os.environ.items() if not k.startswith(("TXCRIPT_", "CURSOR_"))},
        HOME=str(home),
        TXCRIPT_CACHE_DIR=str(home / "cache"),
        NO_COLOR="1",
    )
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.update(stores)
    return env


def small_session(database: Path) -> tuple[str, int]:
    """The id and bubble count of the session with the fewest bubbles (ties: the smallest id)."""
    conn = sqlite3.connect(f"file:{quote(str(database))}?immutable=1", uri=True)
    row = conn.execute(
        "SELECT substr(key, 10, 36) AS cid, count(*) AS n FROM cursorDiskKV "
        "WHERE key >= 'bubbleId:' AND key < 'bubbleId;' AND value IS NOT NULL "
        "AND substr(key, 10, 36) IN (SELECT composerId FROM composerHeaders) "
        "GROUP BY cid ORDER BY n, cid LIMIT 1"
    ).fetchone()
    conn.close()
    return str(row[0]), int(row[1])


# -- Cursor desktop ------------------------------------------------------------------------

Figure = dict[str, float]


def figure(measured: tuple[float, float]) -> Figure:
    return {"wall": round(measured[0], 4), "cpu": round(measured[1], 4)}


def ratio(over: Figure, under: Figure) -> Figure:
    return {k: round(over[k] / under[k], 2) for k in ("wall", "cpu")}


def touch_app_state(database: Path) -> None:
    """One ``ItemTable`` write, as the app makes while it runs."""
    conn = sqlite3.connect(database, isolation_level=None)
    conn.execute(
        "INSERT OR REPLACE INTO ItemTable(key, value) VALUES ('bench.touch', ?)",
        (str(time.time_ns()),),
    )
    conn.close()


def bench_cursor_list_after_writes(user: Path, repeat: int) -> dict[str, Figure]:
    """Warm listings of a writable copy of the store, each right after an app-state write."""
    database = user / "globalStorage" / "state.vscdb"
    figures: dict[str, Figure] = {}
    with tempfile.TemporaryDirectory() as scratch:
        env = environment(Path(scratch), CURSOR_DESKTOP_USER_DIR=str(user))
        for name, argv in (
            ("list_json_warm_after_write", txcript("list", "--from", "cursor_desktop", "--json")),
            ("list_human_warm_after_write", txcript("list", "--from", "cursor_desktop")),
        ):
            run_child(argv, env, stdout="discard")  # fill the cache
            runs = []
            for _ in range(repeat):
                touch_app_state(database)
                runs.append(run_child(argv, env, stdout="discard"))
            medians = median_of(runs)
            figures[name] = figure((medians.wall, medians.cpu))
    return figures


def bench_cursor_list(
    user: Path, repeat: int, label: str, written: Path | None = None
) -> dict[str, Figure]:
    database = user / "globalStorage" / "state.vscdb"
    figures: dict[str, Figure] = {}
    with tempfile.TemporaryDirectory() as scratch:
        env = environment(Path(scratch), CURSOR_DESKTOP_USER_DIR=str(user))
        header = floor(HEADER_FLOOR, str(database), HEADER_QUERY)
        figures["floor_header_query"] = figure(median(header, env, repeat))
        figures["txcript_startup"] = figure(median(txcript("--version"), env, repeat))
        listing = txcript("list", "--from", "cursor_desktop", "--json")
        human = txcript("list", "--from", "cursor_desktop")
        coloured = txcript("list", "--from", "cursor_desktop", "--color", "always")
        figures["list_json_cold"] = figure(median(listing, env, repeat, fresh_cache=True))
        figures["list_human_cold"] = figure(median(human, env, repeat, fresh_cache=True))
        run_child(listing, env, stdout="discard")  # fill the cache
        run_child(human, env, stdout="discard")
        figures["list_json_warm"] = figure(median(listing, env, repeat))
        figures["list_human_warm"] = figure(median(human, env, repeat))
        figures["list_colour_warm"] = figure(median(coloured, env, repeat))
    names = ["list_json_cold", "list_json_warm", "list_human_cold", "list_human_warm"]
    names.append("list_colour_warm")
    if written is not None:
        # The app running: it writes app state between two listings, so the whole listing
        # kept under the database's change token is stale and each session's cached fields
        # are checked instead.
        figures.update(bench_cursor_list_after_writes(written, repeat))
        names += ["list_json_warm_after_write", "list_human_warm_after_write"]
    for name in names:
        figures[f"{name}/floor"] = ratio(figures[name], figures["floor_header_query"])
    log(f"{label}: {figures}")
    return figures


def bench_cursor_export(big: Path, small: Path, repeat: int) -> dict[str, object]:
    figures: dict[str, object] = {}
    measured: dict[str, Figure] = {}
    for name, user in (("10k", big), ("100", small)):
        cid, bubbles = small_session(user / "globalStorage" / "state.vscdb")
        with tempfile.TemporaryDirectory() as scratch:
            env = environment(Path(scratch), CURSOR_DESKTOP_USER_DIR=str(user))
            argv = txcript("export", cid, "--format", "common")
            measured[name] = figure(median(argv, env, repeat, fresh_cache=True))
            figures[f"export_{name}"] = measured[name]
            figures[f"export_{name}_session_bubbles"] = bubbles
    figures["export_10k/export_100"] = ratio(measured["10k"], measured["100"])
    log(f"cursor export: {figures}")
    return figures


# -- Claude Code ---------------------------------------------------------------------------


def generate_claude(root: Path, sessions: int, total_bytes: int, seed: int = 18) -> None:
    """``sessions`` Claude Code session files of about ``total_bytes`` together: prompts,
    replies and large tool results, a title near the end of half of them, mtimes settled."""
    rng = random.Random(seed)
    projects = root / "projects"
    words = ["parser", "guard", "empty", "input", "test", "fails", "add", "the", "a"]
    mean = total_bytes / sessions
    old = time.time_ns() - 86_400 * 10**9
    for n in range(sessions):
        sid = f"{rng.getrandbits(32):08x}-{n:04x}-4000-8000-{rng.getrandbits(48):012x}"
        cwd = f"/home/dev/src/project-{n % 40}"
        directory = projects / cwd.replace("/", "-")
        directory.mkdir(parents=True, exist_ok=True)
        target = int(rng.expovariate(1 / mean))
        lines: list[str] = []
        size, parent, turn = 0, None, 0
        if n % 2:
            lines.append(json.dumps({"type": "ai-title", "aiTitle": f"early title {n}"}))
        while size < target or turn < 2:
            stamp = (
                f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T10:{turn // 60 % 60:02d}:{turn % 60:02d}Z"
            )
            base = {
                "parentUuid": parent,
                "isSidechain": False,
                "cwd": cwd,
                "sessionId": sid,
                "version": "2.1.37",
                "gitBranch": "main",
                "timestamp": stamp,
            }
            uid = f"u{turn}"
            prompt = " ".join(rng.choice(words) for _ in range(30))
            user = {
                **base,
                "type": "user",
                "uuid": uid,
                "message": {"role": "user", "content": prompt},
            }
            result = "x" * rng.randint(2_000, 60_000)
            reply = {
                **base,
                "type": "assistant",
                "uuid": f"a{turn}",
                "parentUuid": uid,
                "message": {
                    "id": f"msg_{turn}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-4-8",
                    "content": [
                        {"type": "text", "text": prompt * 3},
                        {
                            "type": "tool_use",
                            "id": f"t{turn}",
                            "name": "Bash",
                            "input": {"command": "ls"},
                        },
                    ],
                },
            }
            tool = {
                **base,
                "type": "user",
                "uuid": f"r{turn}",
                "parentUuid": f"a{turn}",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": f"t{turn}", "content": result}
                    ],
                },
            }
            for record in (user, reply, tool):
                text = json.dumps(record, separators=(",", ":"))
                lines.append(text)
                size += len(text) + 1
            parent, turn = f"r{turn}", turn + 1
        if n % 2 == 0:
            lines.append(json.dumps({"type": "custom-title", "customTitle": f"late title {n}"}))
        path = directory / f"{sid}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, ns=(old, old))


def bench_claude(root: Path, repeat: int) -> dict[str, object]:
    files = sorted((root / "projects").glob("*/*.jsonl"))
    total = sum(p.stat().st_size for p in files)
    small = min(files, key=lambda p: (p.stat().st_size, p.name))
    figures: dict[str, object] = {"sessions": len(files), "bytes": total}
    f: dict[str, Figure] = {}
    with tempfile.TemporaryDirectory() as scratch:
        env = environment(Path(scratch), CLAUDE_CONFIG_DIR=str(root))
        f["floor_stat_walk"] = figure(
            median(floor(STAT_FLOOR, str(root / "projects")), env, repeat)
        )
        f["txcript_startup"] = figure(median(txcript("--version"), env, repeat))
        listing = txcript("list", "--from", "claude_code", "--json")
        f["list_json_cold"] = figure(median(listing, env, max(1, repeat // 2), fresh_cache=True))
        run_child(listing, env, stdout="discard")
        f["list_json_warm"] = figure(median(listing, env, repeat))
        f["list_human_warm"] = figure(median(txcript("list", "--from", "claude_code"), env, repeat))
        figures["export_session_bytes"] = small.stat().st_size
        f["floor_read_one"] = figure(median(floor(READ_FLOOR, str(small)), env, repeat))
        export = txcript("export", small.stem, "--format", "common")
        f["export_by_id"] = figure(median(export, env, repeat, fresh_cache=True))
    f["list_json_warm/floor"] = ratio(f["list_json_warm"], f["floor_stat_walk"])
    f["list_json_cold/floor"] = ratio(f["list_json_cold"], f["floor_stat_walk"])
    f["export_by_id/floor"] = ratio(f["export_by_id"], f["floor_read_one"])
    figures.update(f)
    log(f"claude: {figures}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cursor-3k", type=Path, default=None)
    parser.add_argument("--cursor-10k", type=Path, default=DATA / "s10k" / "User")
    parser.add_argument("--cursor-100", type=Path, default=DATA / "s100" / "User")
    parser.add_argument("--claude", type=Path, default=DATA / "claude2k")
    parser.add_argument("--claude-sessions", type=int, default=2000)
    parser.add_argument("--claude-gb", type=float, default=1.7)
    parser.add_argument(
        "--no-after-write",
        action="store_true",
        help="skip the listings after app writes (they need a writable copy of the 3k store)",
    )
    args = parser.parse_args()
    cursor_3k = args.cursor_3k or (
        CURSOR_3K_DEFAULT if CURSOR_3K_DEFAULT.exists() else CURSOR_3K_FALLBACK
    )
    if not (args.claude / "projects").is_dir():
        log(f"generating {args.claude_sessions} Claude Code sessions under {args.claude} …")
        generate_claude(args.claude, args.claude_sessions, int(args.claude_gb * 1e9))
    results: dict[str, object] = {
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "repeat": args.repeat,
        "load_average": os.getloadavg(),
    }
    import compileall

    import txcript

    compileall.compile_dir(Path(txcript.__file__).parent, quiet=1)
    if args.no_after_write:
        results["cursor_3k"] = bench_cursor_list(cursor_3k, args.repeat, "cursor 3k")
    else:
        with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR", "/tmp")) as copy:
            log(f"copying {cursor_3k} to measure listings after app writes …")
            written = Path(copy) / "User"
            shutil.copytree(cursor_3k, written)
            results["cursor_3k"] = bench_cursor_list(cursor_3k, args.repeat, "cursor 3k", written)
    results["cursor_10k"] = bench_cursor_list(args.cursor_10k, args.repeat, "cursor 10k")
    results["cursor_export"] = bench_cursor_export(args.cursor_10k, args.cursor_100, args.repeat)
    results["claude_2k"] = bench_claude(args.claude, args.repeat)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
