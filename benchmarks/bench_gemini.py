"""Benchmark the Gemini CLI harness against bare-read floors on a generated store.

The store (generated in a temporary directory, deterministic) has ``--chats`` main chats in
three projects (slug and sha256 directories), a quarter of them legacy ``.json`` documents, the
rest ``.jsonl`` logs with re-appended records and ``$set`` patches, sizes log-normally skewed
(median ~40 messages), plus one chat of ``--big`` messages.

a) **list**: ``txcript list --from gemini --json`` as a subprocess, median wall time over
   ``--repeat`` runs, versus a ``python -c`` floor that walks the same tree and reads every chat
   file's bytes, and a second floor that also JSON-parses every line (msgspec) — the least any
   lister must do, since a chat's title and message list can change on its last line.
b) **load**: in-process ``store.load`` + ``to_common`` of the big chat versus reading its bytes
   and msgspec-decoding every line.

Usage::

    .venv/bin/python benchmarks/bench_gemini.py --chats 2000 --big 10000 --repeat 5
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgspec
from timing import child_env, median_of, run_repeated, timed

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DUMPS = msgspec.json.Encoder().encode


def _message(rng: random.Random, i: int, kind: str) -> dict[str, Any]:
    ts = f"2026-03-01T10:{(i // 60) % 60:02d}:{i % 60:02d}.000Z"
    if kind == "user":
        return {"id": f"u{i}", "timestamp": ts, "type": "user", "content": [{"text": "ask " * 30}]}
    call = {
        "id": f"c{i}",
        "name": "run_shell_command",
        "args": {"command": f"grep -rn pattern{i} src"},
        "result": [
            {
                "functionResponse": {
                    "id": f"c{i}",
                    "name": "run_shell_command",
                    "response": {"output": "src/a.py:1: match\n" * rng.randint(1, 40)},
                }
            }
        ],
        "status": "success",
        "timestamp": ts,
        "displayName": "Shell",
        "description": "",
        "renderOutputAsMarkdown": False,
    }
    return {
        "id": f"g{i}",
        "timestamp": ts,
        "type": "gemini",
        "content": "answer " * rng.randint(5, 80),
        "thoughts": [{"subject": "Plan", "description": "think " * 20, "timestamp": ts}],
        "toolCalls": [call] if rng.random() < 0.6 else [],
        "model": "gemini-3-pro",
        "tokens": {
            "input": 1000,
            "output": 50,
            "cached": 0,
            "thoughts": 5,
            "tool": 0,
            "total": 1055,
        },
    }


def _chat(rng: random.Random, session_id: str, root: str, count: int, legacy: bool) -> bytes:
    header = {
        "sessionId": session_id,
        "projectHash": hashlib.sha256(root.encode()).hexdigest(),
        "startTime": "2026-03-01T10:00:00.000Z",
        "lastUpdated": "2026-03-01T11:00:00.000Z",
        "kind": "main",
    }
    messages = [_message(rng, i, "user" if i % 2 == 0 else "gemini") for i in range(count)]
    if legacy:
        return json.dumps({**header, "messages": messages}, indent=2).encode()
    lines = [DUMPS(header)]
    for index, message in enumerate(messages):
        if message["type"] == "gemini" and index % 5 == 1:
            lines.append(DUMPS({**message, "content": ""}))  # re-appended below, complete
        lines.append(DUMPS(message))
        if index % 10 == 0:
            lines.append(DUMPS({"$set": {"lastUpdated": message["timestamp"]}}))
    lines.append(DUMPS({"$set": {"summary": f"chat {session_id[:8]}"}}))
    return b"\n".join(lines) + b"\n"


def generate(home: Path, chats: int, big: int, seed: int) -> tuple[Path, Path]:
    rng = random.Random(seed)
    gemini = home / ".gemini"
    roots = [f"/home/dev/project{k}" for k in range(3)]
    (gemini / "tmp").mkdir(parents=True)
    (gemini / "projects.json").write_text(
        json.dumps({"projects": {r: f"project{k}" for k, r in enumerate(roots[:2])}})
    )
    dirs = []
    for k, root in enumerate(roots):
        name = f"project{k}" if k < 2 else hashlib.sha256(root.encode()).hexdigest()
        directory = gemini / "tmp" / name
        (directory / "chats").mkdir(parents=True)
        (directory / ".project_root").write_text(root)
        dirs.append((directory, root))
    for n in range(chats):
        directory, root = dirs[n % 3]
        session_id = f"{n:08x}-0000-4000-8000-{n:012x}"
        count = max(2, min(4000, int(rng.lognormvariate(3.7, 1.0))))
        legacy = n % 4 == 0
        suffix = ".json" if legacy else ".jsonl"
        path = directory / "chats" / f"session-2026-03-01T10-00-{session_id[:8]}{suffix}"
        path.write_bytes(_chat(rng, session_id, root, count, legacy))
    big_path = dirs[0][0] / "chats" / "session-2026-03-01T10-00-bbbbbbbb.jsonl"
    big_path.write_bytes(_chat(rng, "bbbbbbbb-0000-4000-8000-000000000000", roots[0], big, False))
    return gemini, big_path


_FLOOR_READ = """
import os, sys
n = 0
for d, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(('.json', '.jsonl')):
            with open(os.path.join(d, name), 'rb') as f:
                n += len(f.read())
print(n)
"""
_FLOOR_PARSE = """
import os, sys, msgspec
decode = msgspec.json.Decoder().decode
n = 0
for d, _, names in os.walk(sys.argv[1]):
    for name in names:
        if name.endswith(('.json', '.jsonl')):
            with open(os.path.join(d, name), 'rb') as f:
                data = f.read()
            if name.endswith('.json'):
                n += len(decode(data))
            else:
                n += sum(1 for row in data.split(b'\\n') if row and decode(row))
print(n)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=2000)
    parser.add_argument("--big", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="txcript-gemini-bench-") as temp:
        home = Path(temp)
        gemini, big_path = generate(home, args.chats, args.big, args.seed)
        size = sum(p.stat().st_size for p in gemini.rglob("*") if p.is_file())
        env = child_env(HOME=str(home), GEMINI_CLI_HOME=str(home))
        env.pop("TXCRIPT_DEBUG", None)
        listing = [sys.executable, "-m", "txcript", "list", "--from", "gemini", "--json"]

        listings = run_repeated(listing, env, args.repeat)
        for done in listings:
            assert len(json.loads(done.stdout)) == args.chats + 1

        def floor(script: str) -> float:
            return median_of(
                run_repeated([sys.executable, "-c", script, str(gemini / "tmp")], env, args.repeat)
            ).wall

        list_time = median_of(listings).wall
        read_time = floor(_FLOOR_READ)
        parse_time = floor(_FLOOR_PARSE)

        sys.path.insert(0, str(REPO / "src"))
        from txcript import harnesses
        from txcript.harnesses.gemini.store import GeminiStore

        harness = harnesses.get("gemini")
        store = GeminiStore(gemini)

        def load() -> None:
            harness.to_common(store.load(str(big_path)))

        decode = msgspec.json.Decoder().decode

        def load_floor() -> None:
            data = big_path.read_bytes()
            for row in data.split(b"\n"):
                if row:
                    decode(row)

        load_time = timed(load, args.repeat)
        load_floor_time = timed(load_floor, args.repeat)
    rows = [
        ("store", f"{args.chats + 1} chats, {size / 2**20:.0f} MiB"),
        ("list --json", f"{list_time:.3f} s"),
        ("floor: read every chat", f"{read_time:.3f} s  (ratio {list_time / read_time:.2f}x)"),
        (
            "floor: read + parse every line",
            f"{parse_time:.3f} s  (ratio {list_time / parse_time:.2f}x)",
        ),
        (f"load + to_common ({args.big} msgs)", f"{load_time:.3f} s"),
        (
            "floor: read + parse its lines",
            f"{load_floor_time:.3f} s  (ratio {load_time / load_floor_time:.2f}x)",
        ),
    ]
    for name, value in rows:
        print(f"{name:<36} {value}")


if __name__ == "__main__":
    main()
