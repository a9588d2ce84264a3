"""Codex ``list`` on a rollout whose first line is huge: time must grow linearly with its length.

Issue 10 item 9: a 60 MB first line took 20 s (the head scan joined or searched the line over and
over). For first lines of 600 KB, 6 MB and 60 MB (a ``session_meta`` record whose
``base_instructions`` text is that long, then a few ordinary lines), in one run:

a) **list**: ``txcript list --from codex --json`` as a subprocess, median wall time over
   ``--repeat`` runs, against a ``python -c`` floor that reads the same file's bytes (the least any
   lister must do: the meta record is the whole first line), and ``list`` on an empty Codex store
   (the interpreter and txcript starting up, the same for every size);
b) **head**: in-process ``CodexStore.discover()`` against reading the bytes and decoding the first
   line with msgspec (the floor for finding the session's id, cwd and start).

Linear means the per-MB cost stays flat from 600 KB to 60 MB; the ratio to the floor shows what
the head scan adds.

Usage::

    .venv/bin/python benchmarks/bench_codex_head.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import msgspec
from timing import child_env, median_of, run_repeated, timed

SESSION_ID = "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11"
SIZES = {"600 KB": 600_000, "6 MB": 6_000_000, "60 MB": 60_000_000}


def _rollout(root: Path, first_line_bytes: int) -> Path:
    day = root / "sessions" / "2026" / "08" / "21"
    day.mkdir(parents=True)
    path = day / f"rollout-2026-08-21T09-30-00-{SESSION_ID}.jsonl"
    meta = {
        "timestamp": "2026-08-21T09:30:00.000Z",
        "type": "session_meta",
        "payload": {
            "id": SESSION_ID,
            "timestamp": "2026-08-21T09:30:00.000Z",
            "cwd": "/tmp",
            "originator": "codex_cli_rs",
            "cli_version": "0.50.0",
            "base_instructions": {"text": ""},
        },
    }
    skeleton = len(json.dumps(meta))
    meta["payload"]["base_instructions"]["text"] = "instructions " * (  # type: ignore[index]
        max(0, first_line_bytes - skeleton) // 13
    )
    lines = [json.dumps(meta)]
    for i in range(20):
        role, kind = ("user", "input_text") if i % 2 == 0 else ("assistant", "output_text")
        lines.append(
            json.dumps(
                {
                    "timestamp": f"2026-08-21T09:30:{i + 1:02d}.000Z",
                    "type": "response_item",
                    "payload": {
                        "type": "message",
                        "role": role,
                        "content": [{"type": kind, "text": f"message {i}"}],
                    },
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()

    from txcript.harnesses.codex.store import CodexStore

    decode_first = msgspec.json.Decoder().decode
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "codex" / "sessions").mkdir(parents=True)
        env = child_env(CODEX_HOME=f"{scratch}/codex", HOME=scratch)
        empty = median_of(
            run_repeated(
                [sys.executable, "-m", "txcript", "list", "--from", "codex"], env, options.repeat
            )
        ).wall
    rows = []
    for label, size in SIZES.items():
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "codex"
            path = _rollout(root, size)
            real = path.stat().st_size
            first = len(path.read_bytes().split(b"\n", 1)[0])
            env = child_env(CODEX_HOME=str(root), HOME=scratch)
            env["TXCRIPT_CACHE_DIR"] = f"{scratch}/cache"
            listing = median_of(
                run_repeated(
                    [sys.executable, "-m", "txcript", "list", "--from", "codex", "--json"],
                    env,
                    options.repeat,
                )
            ).wall
            floor_code = f"open({str(path)!r}, 'rb').read()"
            floor = median_of(
                run_repeated([sys.executable, "-c", floor_code], env, options.repeat)
            ).wall
            store = CodexStore(root)
            found = store.discover()
            assert [d.meta_id for d in found] == [SESSION_ID], found
            head = timed(store.discover, options.repeat)

            def bare(path: Path = path) -> object:
                return decode_first(path.read_bytes().split(b"\n", 1)[0])

            head_floor = timed(bare, options.repeat)
            rows.append((label, first, real, listing, floor, head, head_floor))

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, repeat {options.repeat}")
    print(f"list on an empty Codex store (start-up): {empty:.3f} s")
    print(
        f"{'first line':>10} {'file B':>11} | {'list s':>7} {'floor s':>7} {'ratio':>5} | "
        f"{'head s':>7} {'floor s':>7} {'ratio':>5} | {'head ms/MB':>10}"
    )
    for label, _first, real, listing, floor, head, head_floor in rows:
        per_mb = head * 1000 / (real / 1e6)
        print(
            f"{label:>10} {real:>11,} | {listing:7.3f} {floor:7.3f} {listing / floor:5.1f} | "
            f"{head:7.3f} {head_floor:7.3f} {head / head_floor:5.1f} | {per_mb:10.2f}"
        )


if __name__ == "__main__":
    main()
