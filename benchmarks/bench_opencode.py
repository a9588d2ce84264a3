"""Benchmark the OpenCode harness against bare-sqlite3 floors on a generated database.

The store is generated in a temporary directory on each run (current schema, WAL, checkpointed):
``--sessions`` small sessions plus one large session of ``--messages`` exchanges (a user prompt,
then an assistant message with a step of reasoning, text and one tool call with its result).

Three figures, each next to its floor (the unavoidable work done with ``sqlite3`` and msgspec only):

a) **list**: ``store.discover()`` versus selecting the same ``session`` columns and decoding the
   ``model`` JSON cell of every row;
b) **load**: ``store.load`` + ``to_common`` of the large session versus selecting its message and
   part ``data`` cells and decoding each one;
c) **save**: ``store.save(from_common(...))`` of the large session under a fresh id (what
   ``continue`` writes) into a copy of the database, schema check and row backup included, versus
   inserting the same rows in one transaction (copying the database is timed alone and taken off
   both).

Median of ``--repeat`` runs, in process. Usage::

    .venv/bin/python benchmarks/bench_opencode.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from timing import timed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "opencode"))

import opencode_fixtures as f  # noqa: E402

from txcript import harnesses  # noqa: E402

T0 = f.T0


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def generate(path: Path, sessions: int, messages: int) -> str:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(f.CURRENT_DDL)
    conn.execute("INSERT INTO migration VALUES ('20260301000000_events', ?)", (T0,))
    conn.execute("BEGIN")
    for n in range(sessions):
        session = f.untitled_session()
        row = dict(session["row"], id=f"ses_{n:012x}SmallSession00", title=f"Session {n}")
        f.insert_session(conn, {"row": row, "messages": []})
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (f"msg_{n:012x}Small0000000", row["id"], T0, T0, _dumps({"role": "user"})),
        )
    big = "ses_ffffffffffffLargeSession00"
    f.insert_session(conn, {"row": f.current_session_row(big, "Large"), "messages": []})
    for i in range(messages):
        t = T0 + i * 1000
        user_id, reply_id = f"msg_{2 * i:012x}UserMessage00", f"msg_{2 * i + 1:012x}ReplyMessage0"
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (user_id, big, t, t, _dumps({"role": "user", "time": {"created": t}})),
        )
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (f"prt_{4 * i:012x}P", user_id, big, t, t, _dumps({"type": "text", "text": f"do {i}"})),
        )
        reply = {
            "role": "assistant",
            "time": {"created": t + 1, "completed": t + 2},
            "modelID": "claude-sonnet-4-5",
            "providerID": "anthropic",
        }
        conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)", (reply_id, big, t, t, _dumps(reply))
        )
        parts = [
            {"type": "step-start"},
            {"type": "reasoning", "text": "thinking " * 20, "time": {"start": t + 1, "end": t + 1}},
            {"type": "text", "text": "answer " * 30, "time": {"start": t + 1, "end": t + 1}},
            {
                "type": "tool",
                "callID": f"call_{i}",
                "tool": "bash",
                "state": {
                    "status": "completed",
                    "input": {"command": f"ls {i}"},
                    "output": "file\n" * 40,
                    "time": {"start": t + 1, "end": t + 2},
                },
            },
            {"type": "step-finish", "reason": "tool-calls", "tokens": {"input": 10, "output": 5}},
        ]
        for j, part in enumerate(parts):
            conn.execute(
                "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                (f"prt_{4 * i + 1:012x}{j}", reply_id, big, t, t, _dumps(part)),
            )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return big


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "opencode"
        root.mkdir()
        os.environ["TXCRIPT_DATA_DIR"] = str(Path(tmp) / "data")
        db = root / "opencode.db"
        big = generate(db, args.sessions, args.messages)
        harness = harnesses.get("opencode")
        store = harness.store(root)
        assert store is not None
        decoder = msgspec.json.Decoder()

        def floor_list() -> None:
            conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
            for row in conn.execute("SELECT * FROM session"):
                if row[21]:
                    decoder.decode(row[21])
            conn.close()

        def floor_load() -> None:
            conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
            for table in ("message", "part"):
                for (data,) in conn.execute(
                    f"SELECT data FROM {table} WHERE session_id = ? ORDER BY id", (big,)
                ):
                    decoder.decode(data)
            conn.close()

        reference = f"{db}#{big}"
        listed = store.discover()
        assert len(listed) == args.sessions + 1
        transcript = harness.to_common(store.load(reference))
        native = harness.from_common(transcript)
        rows = [
            (p.id, msg.record.id, native.id, p.time_created, p.time_updated, p.text)
            for msg in native.messages
            for p in msg.parts
        ]
        message_rows = [
            (
                msg.record.id,
                native.id,
                msg.record.time_created,
                msg.record.time_updated,
                msg.record.text,
            )
            for msg in native.messages
        ]
        copy = Path(tmp) / "copy"

        def fresh_copy() -> Path:
            shutil.rmtree(copy, ignore_errors=True)
            copy.mkdir()
            shutil.copyfile(db, copy / "opencode.db")
            return copy

        def floor_save() -> None:
            conn = sqlite3.connect(fresh_copy() / "opencode.db", isolation_level=None)
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO message VALUES (?, ?, ?, ?, ?)", message_rows)
            conn.executemany("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
            conn.close()

        # what `continue` writes: a copy under a fresh id (nothing to replace, so the row backup
        # holds no rows; overwriting a session of the same id also copies its old rows)
        fresh = msgspec.structs.replace(
            transcript, meta=msgspec.structs.replace(transcript.meta, id=harness.new_session_id())
        )

        def save() -> None:
            target = harness.store(fresh_copy())
            assert target is not None
            target.save(harness.from_common(fresh))

        def copy_only() -> None:
            fresh_copy()

        figures = {
            "list": (timed(store.discover, args.repeat), timed(floor_list, args.repeat)),
            "load + to_common": (
                timed(lambda: harness.to_common(store.load(reference)), args.repeat),
                timed(floor_load, args.repeat),
            ),
        }
        copying = timed(copy_only, args.repeat)
        figures["from_common + save"] = (
            timed(save, args.repeat) - copying,
            timed(floor_save, args.repeat) - copying,
        )
    size = sum(len(r[5]) for r in rows)
    print(
        f"OpenCode: {args.sessions + 1} sessions; large session {len(transcript.messages)} Common "
        f"messages, {len(rows)} parts, {size >> 20} MiB of part data"
    )
    print(f"{'figure':<22}{'txcript':>10}{'floor':>10}{'ratio':>8}")
    for name, (ours, floor) in figures.items():
        print(f"{name:<22}{ours * 1000:>8.1f}ms{floor * 1000:>8.1f}ms{ours / floor:>7.1f}x")


if __name__ == "__main__":
    main()
