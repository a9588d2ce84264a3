"""Benchmark the Cursor CLI harness against bare-sqlite3 floors on a generated chats directory.

The chats are written by txcript's own writer (``from_common`` + ``save``), so they have the
agent's layout: a WAL ``store.db`` of content-addressed blobs, ``meta.json`` and
``prompt_history.json``. Deterministic: the same flags give the same chats.

Two figures, each measured in-process in the same run as its floor (median of ``--repeat``
rounds after a warm-up, alternating order, ``gc.collect()`` before each):

a) **list**: ``store.discover()`` over ``--chats`` chats, versus the floor: for every chat, open
   ``store.db`` with ``immutable=1``, ``SELECT key, value FROM meta`` and read ``meta.json``.
b) **load**: ``store.load`` + ``to_common`` of one chat of ``--messages`` messages, versus the
   floor: ``SELECT id, data FROM blobs`` on that ``store.db`` and ``json.loads`` of every JSON
   blob.

Usage::

    .venv/bin/python benchmarks/bench_cursor_cli.py --chats 1000 --messages 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from timing import timed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from txcript import harnesses  # noqa: E402
from txcript import model as m  # noqa: E402
from txcript.harnesses.cursor_cli.store import CursorCliStore  # noqa: E402

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def conversation(session: int, messages: int) -> m.Transcript:
    out: list[m.Message] = []
    for i in range(messages // 4):
        at = T0 + timedelta(seconds=session * 1000 + i)
        call = f"call-{session}-{i}"
        out += [
            m.Message(
                role="user", content=(m.Text(text=f"step {i}: fix the parser " * 3),), timestamp=at
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="Reading the code first. " * 8, signature="sig" * 20),
                    m.ToolUse(
                        id=call, tool=m.Bash(command=f"grep -n parse src/{i}.rs", workdir="/w")
                    ),
                ),
                timestamp=at,
                model="claude-4.5-sonnet",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id=call, content="src/x.rs:10: fn parse()\n" * 20),),
                timestamp=at,
            ),
            m.Message(role="assistant", content=(m.Text(text="Fixed it. " * 10),), timestamp=at),
        ]
    meta = m.Meta(
        id=f"00000000-0000-4000-8000-{session:012d}",
        timestamp=T0 + timedelta(seconds=session),
        cwd=f"/home/dev/project-{session % 25}",
        title=f"Session {session}",
        model="claude-4.5-sonnet",
    )
    return m.Transcript(meta=meta, messages=tuple(out))


def generate(root: Path, chats: int, messages: int) -> Path:
    h = harnesses.get("cursor")
    store = CursorCliStore(root)
    for session in range(chats):
        store.save(h.from_common(conversation(session, 40)))
    return Path(store.save(h.from_common(conversation(chats, messages))).reference)


def floor_list(store: CursorCliStore) -> int:
    count = 0
    for bucket in sorted(store.chats.iterdir()):
        for chat in sorted(bucket.iterdir()):
            uri = (chat / "store.db").as_uri() + "?immutable=1"
            conn = sqlite3.connect(uri, uri=True)
            try:
                conn.execute("SELECT key, value FROM meta").fetchall()
            finally:
                conn.close()
            json.loads((chat / "meta.json").read_bytes())
            count += 1
    return count


def floor_load(chat: Path) -> int:
    uri = (chat / "store.db").as_uri() + "?immutable=1"
    conn = sqlite3.connect(uri, uri=True)
    try:
        count = 0
        for _id, data in conn.execute("SELECT id, data FROM blobs"):
            if data[:1] == b"{":
                json.loads(data)
                count += 1
        return count
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "out" / "cursor_cli.json")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-cursor-cli-"))
    os.environ["TXCRIPT_CACHE_DIR"] = str(workdir / "cache")
    try:
        h = harnesses.get("cursor")
        big = generate(workdir / "root", args.chats, args.messages)
        store = CursorCliStore(workdir / "root")
        assert len(store.discover()) == args.chats + 1
        assert len(h.to_common(store.load(str(big))).messages) == args.messages

        def subject_load() -> None:
            h.to_common(CursorCliStore(workdir / "root").load(str(big)))

        rows = []
        for name, subject, floor in (
            (
                "list",
                lambda: CursorCliStore(workdir / "root").discover(),
                lambda: floor_list(store),
            ),
            ("load", subject_load, lambda: floor_load(big)),
        ):
            subject()
            floor()
            ours = timed(subject, args.repeat)
            bare = timed(floor, args.repeat)
            rows.append({"figure": name, "txcript_s": ours, "floor_s": bare, "ratio": ours / bare})
        size = sum(p.stat().st_size for p in big.iterdir())
        chats = args.chats + 1
        print(f"{chats} chats; the loaded chat has {args.messages} messages, {size >> 10} KiB")
        print(f"{'figure':8} {'txcript':>10} {'floor':>10} {'ratio':>7}")
        for row in rows:
            ours, bare, ratio = row["txcript_s"], row["floor_s"], row["ratio"]
            print(f"{row['figure']:8} {ours:10.3f} {bare:10.3f} {ratio:7.2f}")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps({"chats": args.chats + 1, "messages": args.messages, "rows": rows}, indent=2)
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
