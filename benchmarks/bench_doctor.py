"""Benchmark ``txcript doctor`` against the bare read of the same bytes, on a generated store.

The store is a Claude Code config directory written by txcript's own writer (``from_common`` +
``save``) into a temporary HOME: ``--sessions`` sessions of ``--messages`` messages each (user
prompts, thinking, tool calls and their results, replies). Deterministic: the same flags give the
same files.

Three figures, each measured in-process in the same run as the floor (median of ``--repeat``
rounds after a warm-up, ``gc.collect()`` before each):

a) **survey**: ``doctor.diagnose()`` (every store scanned, no session loaded in full);
b) **deep**: ``doctor.diagnose(deep=True)``: every session loaded, converted to Common and back,
   rendered and re-read;
c) **load**: ``store.load`` + ``to_common`` of every session (what the deep check must do before
   it checks anything), for scale.

The floor: read every session file and ``json.loads`` each of its lines.

Usage::

    .venv/bin/python benchmarks/bench_doctor.py --sessions 200 --messages 400 --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from timing import timed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from txcript import doctor, harnesses  # noqa: E402
from txcript import model as m  # noqa: E402

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def conversation(session: int, messages: int) -> m.Transcript:
    out: list[m.Message] = []
    for i in range(messages // 4):
        at = T0 + timedelta(seconds=session * 10_000 + i * 4)
        call = f"toolu_{session:04d}{i:06d}"
        out += [
            m.Message(
                role="user", content=(m.Text(text=f"step {i}: fix the parser " * 3),), timestamp=at
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="Reading the code first. " * 8, signature="sig" * 20),
                    m.ToolUse(id=call, tool=m.Bash(command=f"grep -n parse src/{i}.rs")),
                ),
                timestamp=at + timedelta(seconds=1),
                model="claude-opus-4-8",
                stop_reason="tool_use",
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id=call, content="src/x.rs:10: fn parse()\n" * 20),),
                timestamp=at + timedelta(seconds=2),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="Fixed it. " * 10),),
                timestamp=at + timedelta(seconds=3),
                model="claude-opus-4-8",
                stop_reason="end_turn",
            ),
        ]
    meta = m.Meta(
        id=f"00000000-0000-4000-8000-{session:012d}",
        timestamp=T0 + timedelta(seconds=session * 10_000),
        cwd=f"/home/dev/project-{session % 25}",
        title=f"Session {session}",
    )
    return m.Transcript(meta=meta, messages=tuple(out))


def generate(root: Path, sessions: int, messages: int) -> list[Path]:
    harness = harnesses.get("claude_code")
    store = harness.store(root)
    assert store is not None
    return [
        Path(store.save(harness.from_common(conversation(n, messages))).reference)
        for n in range(sessions)
    ]


def floor(files: list[Path]) -> int:
    lines = 0
    for path in files:
        for line in path.read_bytes().splitlines():
            if line.strip():
                json.loads(line)
                lines += 1
    return lines


def load_all() -> int:
    harness = harnesses.get("claude_code")
    store = harness.store()
    assert store is not None
    return sum(len(harness.to_common(store.load(d.reference)).messages) for d in store.discover())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "out" / "doctor.json")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bench-doctor-"))
    os.environ["HOME"] = str(workdir / "home")
    os.environ["TXCRIPT_CACHE_DIR"] = str(workdir / "cache")
    os.environ["TXCRIPT_DATA_DIR"] = str(workdir / "data")
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CURSOR_DESKTOP_USER_DIR", "CURSOR_CHATS_DIR"):
        os.environ.pop(name, None)
    for name in ("OPENCODE_DB", "GEMINI_CLI_HOME", "XDG_DATA_HOME"):
        os.environ.pop(name, None)
    try:
        files = generate(workdir / "home" / ".claude", args.sessions, args.messages)
        report = doctor.diagnose(deep=True)
        assert report.deep is not None and report.deep.passed
        [tally] = [t for t in report.deep.tallies if t.harness == "claude_code"]
        assert tally.round_trip_passed == tally.fixpoint_passed == args.sessions
        bare = timed(lambda: floor(files), args.repeat)
        rows = []
        for name, subject in (
            ("survey", lambda: doctor.diagnose()),
            ("deep", lambda: doctor.diagnose(deep=True)),
            ("load", load_all),
        ):
            subject()
            ours = timed(subject, args.repeat)
            rows.append({"figure": name, "txcript_s": ours, "floor_s": bare, "ratio": ours / bare})
        size = sum(p.stat().st_size for p in files)
        print(f"{args.sessions} sessions of {args.messages} messages, {size >> 20} MiB")
        print(f"{'figure':8} {'txcript':>10} {'floor':>10} {'ratio':>7}")
        for row in rows:
            ours, floor_s, ratio = row["txcript_s"], row["floor_s"], row["ratio"]
            print(f"{row['figure']:8} {ours:10.3f} {floor_s:10.3f} {ratio:7.2f}")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps(
                {"sessions": args.sessions, "messages": args.messages, "bytes": size, "rows": rows},
                indent=2,
            )
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
