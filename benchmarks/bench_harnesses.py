"""One benchmark over every harness that keeps a store: list and export against their floors.

For each harness of the registry with a store, a store is generated once (cached under
``benchmarks/data/harnesses/``): ``--sessions`` realistic sessions plus one of ``--messages``
messages, each written by the harness's own writer (``from_common`` + ``store.save``), so every
file, row and index is what the harness itself lays out. A read-only source without a writer is
built by its entry in :data:`BUILDERS`, else reported as not measured.

Every figure is a whole process, timed interleaved with its floor in the same rounds, and judged
on the **CPU** median (wall time on a shared 2-core machine is noise):

* **warm ``list --json``** (the cache dir kept from the run before) and **cold** (an empty cache
  dir each run), against the *listing floor*: the same interpreter doing ``import click`` and
  the bare work that yields the listing fields — a walk ``stat``-ing every file under the root
  for a file store, the one query of :data:`LIST_QUERIES` for a database store. Targets: warm
  ≤ 1.5×, cold ≤ 3×.
* **``export ID --format common``** of the large session, against the *export floor*:
  ``import click`` plus reading and JSON-parsing that session's bytes (every file at its
  location, line by line; or its rows, for a database store: :data:`EXPORT_QUERIES`).
  Target ≤ 1.5×.
* **peak RSS** of that export (``VmHWM``, polled in a run of its own). Target ≤ 3× the session's
  bytes + 40 MB.
* **Cursor desktop** also against the bare header query alone, without click. Target ≤ 2.0×.

Usage::

    .venv/bin/python benchmarks/bench_harnesses.py --repeat 5 [--harness codex]...

It prints one table and writes ``benchmarks/out/harnesses.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec
from timing import Run, child_env, run_child

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))

from txcript import harnesses  # noqa: E402
from txcript import model as m  # noqa: E402

DATA = HERE / "data" / "harnesses"
OUT = HERE / "out" / "harnesses.json"
#: Bumped whenever the generated sessions change, so a cached store is built again.
GENERATION = "1"

#: The one query that yields a database store's listing fields, by harness: ``(database path
#: relative to the root, SQL)``.
LIST_QUERIES: dict[str, tuple[str, str]] = {
    "cursor_desktop": (
        "globalStorage/state.vscdb",
        "SELECT h.composerId, h.workspaceId, h.createdAt, h.lastUpdatedAt, h.isArchived, "
        "h.isSubagent, h.recency, h.checkpointAt, h.value FROM composerHeaders AS h "
        "WHERE EXISTS (SELECT 1 FROM cursorDiskKV AS k "
        "WHERE k.key >= 'bubbleId:' || h.composerId || ':' "
        "AND k.key < 'bubbleId:' || h.composerId || ';' AND k.value IS NOT NULL) "
        "ORDER BY h.recency DESC",
    ),
    "opencode": (
        "opencode.db",
        "SELECT id, title, directory, version, time_created, time_updated, parent_id "
        "FROM session WHERE time_archived IS NULL ORDER BY time_updated DESC",
    ),
    "goose": (
        "sessions/sessions.db",
        "SELECT id, name, working_dir, created_at, updated_at, model_config_json, session_type, "
        "archived_at FROM sessions",
    ),
}
LIST_QUERIES["kilo"] = (".local/share/kilo/kilo.db", LIST_QUERIES["opencode"][1])
#: The rows of one session of a database store, by harness: ``(database, SQL with one ?)``.
EXPORT_QUERIES: dict[str, tuple[str, str]] = {
    "cursor_desktop": (
        "globalStorage/state.vscdb",
        "SELECT CAST(value AS TEXT) FROM cursorDiskKV WHERE key >= 'bubbleId:' || ? || ':' "
        "AND key < 'bubbleId:' || ? || ';'",
    ),
    "opencode": (
        "opencode.db",
        "SELECT data FROM message WHERE session_id = ? UNION ALL "
        "SELECT data FROM part WHERE session_id = ?",
    ),
    "goose": ("sessions/sessions.db", "SELECT content_json FROM messages WHERE session_id = ?"),
    # (one database per project: the session's own, named by its listing reference)
    "crush": ("", "SELECT parts FROM messages WHERE session_id = ?"),
}
# Kilo's copies go into kilo.db, OpenCode's tables under the home its root names.
EXPORT_QUERIES["kilo"] = (".local/share/kilo/kilo.db", EXPORT_QUERIES["opencode"][1])
#: Read-only sources, built by hand: ``builder(root, sessions, messages) -> large session id``.
BUILDERS: dict[str, Callable[[Path, int, int], str]] = {}


def _empty_opencode(root: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "opencode"))
    import opencode_fixtures

    opencode_fixtures.build_db(root / "opencode.db", opencode_fixtures.CURRENT_DDL, [])


def _empty_goose(root: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "goose"))
    import goose_fixtures

    # GOOSE_PATH_ROOT names the directory whose ``data/`` is the store root.
    goose_fixtures.build_empty(root / "data")


def _empty_crush(root: Path) -> None:
    """Every project :func:`conversation` files sessions under, each with the database Crush
    creates there on its first run (kept under ``root``), listed in ``projects.json``."""
    sys.path.insert(0, str(REPO / "tests" / "crush"))
    import crush_fixtures

    for n in range(20):
        crush_fixtures.build_empty(root, Path(f"/work/project{n}"), root / "projects" / str(n))


def _cowork_account(root: Path) -> None:
    # Claude desktop makes the <org>/<account>/ tree when Cowork is first used; the writer
    # writes into an account tree and refuses a root without one.
    (root / "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / "1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e").mkdir(
        parents=True
    )


def _empty_kilo(root: Path) -> None:
    sys.path.insert(0, str(REPO / "tests" / "cline"))
    import cline_fixtures

    cline_fixtures.empty_kilo_db(root)


#: What a store root must hold before the harness's writer can write into it (the app's own
#: files, which the app creates on its first run).
PREPARE: dict[str, Callable[[Path], None]] = {
    "opencode": _empty_opencode,
    "goose": _empty_goose,
    "crush": _empty_crush,
    "cowork": _cowork_account,
    "kilo": _empty_kilo,
}

WALK_FLOOR = r"""
import os, sys
import click
n = 0
for top, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        os.stat(os.path.join(top, name))
        n += 1
print(n)
"""
QUERY_FLOOR = r"""
import sqlite3, sys
from urllib.parse import quote
{click}
db = sqlite3.connect("file:" + quote(sys.argv[1]) + "?immutable=1", uri=True)
print(sum(1 for _ in db.execute(sys.argv[2])))
"""
FILE_EXPORT_FLOOR = r"""
import json, os, sys
import click
paths = []
for place in sys.argv[1:]:
    if os.path.isdir(place):
        paths += [os.path.join(t, f) for t, _, fs in os.walk(place) for f in fs]
    else:
        paths.append(place)
n = 0
for path in paths:
    data = open(path, "rb").read()
    try:
        json.loads(data)
        n += 1
    except ValueError:
        for line in data.splitlines():
            if line.strip():
                try:
                    json.loads(line)
                except ValueError:
                    pass
                n += 1
print(n)
"""
ROW_EXPORT_FLOOR = r"""
import json, sqlite3, sys
from urllib.parse import quote
import click
db = sqlite3.connect("file:" + quote(sys.argv[1]) + "?immutable=1", uri=True)
n = 0
for (cell,) in db.execute(sys.argv[2], [sys.argv[3]] * sys.argv[2].count("?")):
    if cell:
        json.loads(cell)
    n += 1
print(n)
"""

_VOCABULARY = (
    "parser config token auth handler retry cache index schema migration test fixture build "
    "deploy rollback request response stream buffer worker queue lock timeout error path"
)
WORDS = _VOCABULARY.split()


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- the generated sessions ------------------------------------------------------------------


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def conversation(
    rng: random.Random, session_id: str, messages: int, start: datetime
) -> m.Transcript:
    """A realistic session: a user ask, then rounds of reasoning, text and one tool call with its
    result (Bash, Read or Edit), and a closing answer; ``messages`` messages in all."""
    project = f"/work/project{rng.randrange(20)}"
    out: list[m.Message] = []
    clock = start

    def stamp() -> datetime:
        nonlocal clock
        clock += timedelta(seconds=rng.randint(1, 30))
        return clock

    out.append(
        m.Message(role="user", content=(m.Text(text=_sentence(rng, 12)),), timestamp=stamp())
    )
    calls = 0
    while len(out) < messages - 1:
        calls += 1
        call_id = f"toolu_{calls:06d}"
        kind = rng.randrange(3)
        tool: m.Tool
        if kind == 0:
            tool = m.Bash(command=f"pytest -q tests/test_{rng.choice(WORDS)}.py")
        elif kind == 1:
            tool = m.Read(file_path=f"{project}/src/{rng.choice(WORDS)}.py")
        else:
            tool = m.Edit(
                file_path=f"{project}/src/{rng.choice(WORDS)}.py",
                old_string=_sentence(rng, 4),
                new_string=_sentence(rng, 5),
            )
        out.append(
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text=_sentence(rng, 20)),
                    m.Text(text=_sentence(rng, 15)),
                    m.ToolUse(id=call_id, tool=tool),
                ),
                timestamp=stamp(),
                model="claude-sonnet-4-5",
                stop_reason="tool_use",
                usage=m.Usage(
                    input_tokens=rng.randint(100, 9000), output_tokens=rng.randint(10, 900)
                ),
            )
        )
        result = "\n".join(_sentence(rng, 12) for _ in range(rng.randint(2, 30)))
        out.append(
            m.Message(
                role="user",
                content=(
                    m.ToolResult(tool_use_id=call_id, content=result, is_error=rng.random() < 0.1),
                ),
                timestamp=stamp(),
            )
        )
    out.append(
        m.Message(
            role="assistant",
            content=(m.Text(text=_sentence(rng, 25)),),
            timestamp=stamp(),
            model="claude-sonnet-4-5",
            stop_reason="end_turn",
        )
    )
    meta = m.Meta(
        id=session_id,
        timestamp=start,
        cwd=project,
        title=_sentence(rng, 6),
        model="claude-sonnet-4-5",
    )
    return m.Transcript(meta=meta, messages=tuple(out))


@dataclass
class Built:
    harness: str
    root: Path
    large_id: str
    large_bytes: int
    sessions: int


def build_store(harness_id: str, sessions: int, messages: int) -> Built | None:
    """The generated store of ``harness_id`` (built once, then reused), or None when it cannot
    be built (a read-only source with no entry in :data:`BUILDERS`)."""
    harness = harnesses.get(harness_id)
    place = DATA / f"{harness_id}-{sessions}-{messages}-g{GENERATION}"
    root = place / "root"
    done = place / "built.json"
    if not harness.can_write and harness_id not in BUILDERS:
        return None
    # The store is where the harness's root variable, pointed at ``root``, puts it (Gemini's
    # names the home that holds ``.gemini``).
    os.environ.update(_root_variable(harness_id, root))
    store_root = harness.default_root()
    assert store_root is not None
    if done.exists():
        saved = json.loads(done.read_text())
        return Built(
            harness_id, store_root, saved["large_id"], saved["large_bytes"], saved["sessions"]
        )
    shutil.rmtree(place, ignore_errors=True)
    root.mkdir(parents=True)
    log(f"building {harness_id}: {sessions} sessions + one of {messages} messages …")
    if harness_id in BUILDERS:
        large_id = BUILDERS[harness_id](root, sessions, messages)
    else:
        if harness_id in PREPARE:
            PREPARE[harness_id](root)
        large_id = _write_sessions(harness, place, sessions, messages)
    large_bytes = _session_bytes(harness_id, store_root, large_id)
    done.write_text(
        json.dumps({"large_id": large_id, "large_bytes": large_bytes, "sessions": sessions + 1})
    )
    return Built(harness_id, store_root, large_id, large_bytes, sessions + 1)


def _write_sessions(harness: Any, place: Path, sessions: int, messages: int) -> str:
    """Write the sessions through the harness's own store (the one its root variable names), in
    this process; its backups go to a data dir of their own, thrown away."""
    os.environ["TXCRIPT_DATA_DIR"] = str(place / "txcript-data")
    store = harness.store()
    rng = random.Random(f"txcript-bench-{harness.id}")
    start = datetime(2026, 1, 1, tzinfo=UTC)
    large_id = ""
    for n in range(sessions + 1):
        size = messages if n == sessions else rng.randint(8, 60)
        source_id = f"00000000-0000-4000-8000-{n:012d}"
        transcript = conversation(rng, source_id, size, start + timedelta(minutes=7 * n))
        adopted = harness.adopt_id(source_id)
        if adopted != source_id:
            meta = msgspec.structs.replace(transcript.meta, id=adopted)
            transcript = m.Transcript(meta=meta, messages=transcript.messages)
        saved = store.save(harness.from_common(transcript), force=True)
        if n == sessions:
            large_id = saved.id
    shutil.rmtree(place / "txcript-data", ignore_errors=True)
    return large_id


def _export_database(harness_id: str, root: Path, session_id: str) -> Path:
    """The database holding a session: the one :data:`EXPORT_QUERIES` names, or for a store of
    one database per project, the one its listing reference (``<database>#<id>``) names."""
    database, _ = EXPORT_QUERIES[harness_id]
    if database:
        return root / database
    store = harnesses.get(harness_id).store(root)
    (found,) = [d for d in store.discover() if d.meta_id == session_id]
    return Path(found.reference.rsplit("#", 1)[0])


def _session_bytes(harness_id: str, root: Path, session_id: str) -> int:
    """The bytes of one session as stored: its files, or its rows' cells."""
    if harness_id in EXPORT_QUERIES:
        _, sql = EXPORT_QUERIES[harness_id]
        database = _export_database(harness_id, root, session_id)
        conn = sqlite3.connect(f"file:{quote(str(database))}?immutable=1", uri=True)
        params = [session_id] * sql.count("?")
        total = sum(len(cell or "") for (cell,) in conn.execute(sql, params))
        conn.close()
        return total
    return sum(path.stat().st_size for path in _session_files(harness_id, root, session_id))


def _session_files(harness_id: str, root: Path, session_id: str) -> list[Path]:
    harness = harnesses.get(harness_id)
    store = harness.store(root)
    (found,) = [d for d in store.discover() if d.meta_id == session_id or session_id in d.reference]
    location = Path(store.location(found.reference))
    if location.is_dir():
        return sorted(p for p in location.rglob("*") if p.is_file())
    return [location]


# -- timing ----------------------------------------------------------------------------------


def txcript(*args: str) -> list[str]:
    return [sys.executable, "-m", "txcript", *args]


def floor(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", code, *args]


def environment(harness_id: str, root: Path, home: Path, cache: Path) -> dict[str, str]:
    env = child_env(
        {k: v for k, v in os.environ.items() if not k.startswith("TXCRIPT_")},
        HOME=str(home),
        TXCRIPT_CACHE_DIR=str(cache),
        TXCRIPT_DATA_DIR=str(home / "data"),
        NO_COLOR="1",
    )
    for other in harnesses.REGISTRY:
        if other.root is not None and other.root.env:
            env.pop(other.root.env, None)
    env.update(_root_variable(harness_id, root))
    return env


def _root_variable(harness_id: str, root: Path) -> dict[str, str]:
    """The variable that points ``harness_id`` at ``root``: the store root itself, or for a
    variable naming the directory that holds it (``env_suffix``), that directory."""
    declared = harnesses.info(harness_id).root
    assert declared is not None and declared.env, f"{harness_id} declares no root variable"
    suffix = declared.env_suffix
    return {declared.env: str(root.parent if suffix and root.name == suffix else root)}


@dataclass
class Figures:
    runs: dict[str, list[Run]] = field(default_factory=dict)

    def add(self, name: str, run: Run) -> None:
        self.runs.setdefault(name, []).append(run)

    def cpu(self, name: str) -> float:
        return statistics.median(r.cpu for r in self.runs[name])

    def wall(self, name: str) -> float:
        return statistics.median(r.wall for r in self.runs[name])


def measure(built: Built, repeat: int, scratch: Path) -> dict[str, Any]:
    harness_id = built.harness
    home = scratch / f"{harness_id}-home"
    home.mkdir()
    warm_cache, cold_cache = scratch / f"{harness_id}-warm", scratch / f"{harness_id}-cold"
    warm = environment(harness_id, built.root, home, warm_cache)
    cold = environment(harness_id, built.root, home, cold_cache)
    listing = txcript("list", "--from", harness_id, "--json")
    export = txcript("export", built.large_id, "--from", harness_id, "--format", "common")
    if harness_id in LIST_QUERIES:
        database, sql = LIST_QUERIES[harness_id]
        list_floor = floor(
            QUERY_FLOOR.format(click="import click"), str(built.root / database), sql
        )
    else:
        list_floor = floor(WALK_FLOOR, str(built.root))
    if harness_id in EXPORT_QUERIES:
        _, sql = EXPORT_QUERIES[harness_id]
        database = _export_database(harness_id, built.root, built.large_id)
        export_floor = floor(ROW_EXPORT_FLOOR, str(database), sql, built.large_id)
    else:
        files = _session_files(harness_id, built.root, built.large_id)
        export_floor = floor(FILE_EXPORT_FLOOR, *map(str, files))
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "list floor": (list_floor, warm),
        "warm list": (listing, warm),
        "cold list": (listing, cold),
        "export floor": (export_floor, warm),
        "export": (export, warm),
    }
    if harness_id == "cursor_desktop":
        database, sql = LIST_QUERIES[harness_id]
        commands["bare header query"] = (
            floor(QUERY_FLOOR.format(click=""), str(built.root / database), sql),
            warm,
        )
    run_child(listing, warm, stdout="discard")  # fills the warm cache
    figures = Figures()
    for _ in range(repeat):
        for name, (argv, env) in commands.items():
            if name == "cold list":
                shutil.rmtree(cold_cache, ignore_errors=True)
            figures.add(name, run_child(argv, env, stdout="discard"))
    rss = run_child(export, warm, stdout="discard", sample_rss=True).hwm_mib
    limit = 3 * built.large_bytes / 2**20 + 40
    row: dict[str, Any] = {
        "harness": harness_id,
        "sessions": built.sessions,
        "large_session_mib": round(built.large_bytes / 2**20, 2),
        "cpu_ms": {name: round(figures.cpu(name) * 1000, 1) for name in commands},
        "wall_ms": {name: round(figures.wall(name) * 1000, 1) for name in commands},
        "export_rss_mib": round(rss, 1),
        "rss_limit_mib": round(limit, 1),
    }
    ratios = {
        "warm list": figures.cpu("warm list") / figures.cpu("list floor"),
        "cold list": figures.cpu("cold list") / figures.cpu("list floor"),
        "export": figures.cpu("export") / figures.cpu("export floor"),
    }
    targets = {"warm list": 1.5, "cold list": 3.0, "export": 1.5}
    if harness_id == "cursor_desktop":
        ratios["warm list / bare query"] = figures.cpu("warm list") / figures.cpu(
            "bare header query"
        )
        targets["warm list / bare query"] = 2.0
    row["ratios"] = {k: round(v, 2) for k, v in ratios.items()}
    row["met"] = {k: ratios[k] <= targets[k] for k in ratios} | {"rss": rss <= limit}
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| harness | sessions | warm list ms (floor) | × | cold list ms | × | export ms (floor) "
        "| × | export RSS MiB (limit) |"
    )
    lines = [head, "|" + "---|" * 9]
    for row in rows:
        if "skipped" in row:
            lines.append(f"| {row['harness']} | — | {row['skipped']} | | | | | | |")
            continue
        cpu, ratios, met = row["cpu_ms"], row["ratios"], row["met"]

        def mark(name: str, ratios: dict[str, float] = ratios, met: dict[str, bool] = met) -> str:
            return f"{ratios[name]:.2f}" + ("" if met[name] else " ✗")

        warm_cell = f"{cpu['warm list']:.0f} ({cpu['list floor']:.0f})"
        if "warm list / bare query" in ratios:
            bare = cpu["bare header query"]
            warm_cell += f"; {mark('warm list / bare query')}× the bare query ({bare:.0f})"
        rss = f"{row['export_rss_mib']:.0f} ({row['rss_limit_mib']:.0f})" + (
            "" if met["rss"] else " ✗"
        )
        lines.append(
            f"| {row['harness']} | {row['sessions']} | {warm_cell} | {mark('warm list')} "
            f"| {cpu['cold list']:.0f} | {mark('cold list')} "
            f"| {cpu['export']:.0f} ({cpu['export floor']:.0f}) | {mark('export')} | {rss} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--harness", action="append", default=[], help="only these (repeatable)")
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    chosen = args.harness or [i.id for i in harnesses.REGISTRY if i.implemented and i.has_store]
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-harnesses-") as scratch:
        for harness_id in chosen:
            built = build_store(harness_id, args.sessions, args.messages)
            if built is None:
                rows.append({"harness": harness_id, "skipped": "read-only source: no generator"})
                continue
            log(f"timing {harness_id} …")
            rows.append(measure(built, args.repeat, Path(scratch)))
    print(f"commit {commit}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, CPU medians of {args.repeat}")
    print(table(rows))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"commit": commit, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
