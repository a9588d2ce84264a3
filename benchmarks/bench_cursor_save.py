"""Benchmark saving a 10,000-message session into Cursor desktop's ``state.vscdb``.

The session is the generated store's 10,000-bubble session read through Common and written back
with a fresh id (what ``txcript continue`` does), or, with ``--synthetic`` (or without a
generated store), a synthetic Common transcript of 10,000 messages. Scenarios:

a) **empty root**: the first write creates the database (no backup: there is nothing to lose);
b) **large copy**: a copy of the generated store's database (``benchmarks/data/large``, 2 GiB;
   without it a 200 MB one is generated into ``benchmarks/data/save-200mb``), a new session per
   round, after the backup every write takes;
c) **unchanged re-save** of (b)'s last body: the transaction finds everything already stored and
   writes nothing, but the backup is still taken;
d) **native round trip in place**: ``load`` + ``save`` of the store's own 10,000-bubble session.

Each save is split into *backup* (``backups.create``: SQLite's online backup API copying the
whole database while the write lock is held), *transaction* (``BEGIN IMMEDIATE`` … ``COMMIT``
minus the backup) and *other* (validation, workspace lookup, opening). Medians of ``--repeat``
rounds; backups go to a temporary ``TXCRIPT_DATA_DIR`` and are removed after every round.

Usage::

    .venv/bin/python benchmarks/bench_cursor_save.py --repeat 3
    .venv/bin/python benchmarks/bench_cursor_save.py --synthetic --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
from bench_cursor_desktop import machine
from timing import time_once

from txcript.harnesses.cursor_desktop import codec, saving
from txcript.harnesses.cursor_desktop.native import CursorSession
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.harnesses.cursor_desktop.write import from_common
from txcript.model import (
    Bash,
    Message,
    Meta,
    Read,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
)
from txcript.shared import backups

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LARGE = HERE / "data" / "large"
FALLBACK = HERE / "data" / "save-200mb"
DEFAULT_OUT = HERE / "out" / "cursor_save.json"
MESSAGES = 10_000


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- timing -----------------------------------------------------------------------------------


@dataclass
class Split:
    backup: float = 0.0
    transaction: float = 0.0
    total: float = 0.0

    @property
    def other(self) -> float:
        return self.total - self.transaction - self.backup


@contextmanager
def instrumented() -> Iterator[Split]:
    """Time ``backups.create`` and ``saving.transaction`` inside the saves of the block."""
    split = Split()
    create, transaction = backups.create, saving.transaction

    def timed_create(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return create(*args, **kwargs)
        finally:
            split.backup += time.perf_counter() - started

    def timed_transaction(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return transaction(*args, **kwargs)
        finally:
            split.transaction += time.perf_counter() - started

    backups.create = timed_create
    saving.transaction = timed_transaction
    try:
        yield split
    finally:
        backups.create, saving.transaction = create, transaction
        split.transaction -= split.backup


def timed_save(store: CursorDesktopStore, body: CursorSession) -> Split:
    with instrumented() as split:
        split.total, _ = time_once(lambda: store.save(body, force=True))
    for backup in backups.list_backups():
        backups.discard(backup)
    return split


@dataclass
class Scenario:
    label: str
    database_bytes: list[int] = field(default_factory=list)
    splits: list[Split] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def median(pick: Callable[[Split], float]) -> float:
            return round(statistics.median(pick(s) for s in self.splits) * 1000, 1)

        return {
            "label": self.label,
            "rounds": len(self.splits),
            "database_bytes": max(self.database_bytes) if self.database_bytes else None,
            "backup_ms": median(lambda s: s.backup),
            "transaction_ms": median(lambda s: s.transaction),
            "other_ms": median(lambda s: s.other),
            "total_ms": median(lambda s: s.total),
            "total_ms_each": [round(s.total * 1000, 1) for s in self.splits],
        }


# -- the session ------------------------------------------------------------------------------

T0 = datetime(2026, 8, 17, 6, 30, tzinfo=UTC)


def synthetic(count: int = MESSAGES) -> Transcript:
    """``count`` messages: user prompts, assistant thinking + text + tool calls, and results."""
    messages: list[Message] = []
    at = T0
    i = 0
    while len(messages) < count:
        at += timedelta(seconds=7)
        kind = i % 4
        if kind == 0:
            content: tuple[Any, ...] = (Text(f"Step {i}: please look at module {i % 97}. " * 6),)
            messages.append(Message(role="user", content=content, timestamp=at))
        elif kind == 1:
            call = ToolUse(
                id=f"call_{i}",
                tool=Bash(command=f"pytest tests/test_{i % 97}.py -q", workdir="/repo"),
            )
            content = (Thinking(text="Run that module's tests first. " * 8, signature="sig"), call)
            messages.append(
                Message(
                    role="assistant",
                    content=content,
                    timestamp=at,
                    model="claude-fable-5",
                    usage=Usage(input_tokens=1200 + i, output_tokens=80),
                )
            )
        elif kind == 2:
            output = "".join(f"tests/test_{i % 97}.py::test_{n} PASSED\n" for n in range(20))
            content = (ToolResult(tool_use_id=f"call_{i - 1}", content=output),)
            messages.append(Message(role="user", content=content, timestamp=at))
        else:
            call = ToolUse(id=f"read_{i}", tool=Read(file_path=f"/repo/src/m{i % 97}.py"))
            content = (Text("All pass. Reading the module next. " * 4), call)
            messages.append(
                Message(role="assistant", content=content, timestamp=at, model="claude-fable-5")
            )
            at += timedelta(seconds=1)
            body = "".join(f"def f{n}(x):\n    return x + {n}\n" for n in range(25))
            messages.append(
                Message(
                    role="user",
                    content=(ToolResult(tool_use_id=f"read_{i}", content=body),),
                    timestamp=at,
                )
            )
        i += 1
    meta = Meta(id="", timestamp=T0, cwd="/repo", title="A long session", model="claude-fable-5")
    return Transcript(meta=meta, messages=tuple(messages[:count]))


def with_id(transcript: Transcript, cid: str) -> CursorSession:
    return from_common(
        msgspec.structs.replace(transcript, meta=msgspec.structs.replace(transcript.meta, id=cid))
    )


def cells_bytes(body: CursorSession) -> int:
    return sum(len(r.value.encode()) for r in body.bubbles) + len(
        (body.composer_data or "").encode()
    )


# -- the store --------------------------------------------------------------------------------


def large_store(allow_generate: bool) -> tuple[Path, dict[str, Any]] | None:
    for data in (LARGE, FALLBACK):
        manifest = data / "manifest.json"
        if manifest.is_file():
            return data / "User", json.loads(manifest.read_text(encoding="utf-8"))
    if not allow_generate:
        return None
    log(f"no generated store; generating a 200 MB one into {FALLBACK}")
    subprocess.run(
        [
            sys.executable,
            str(HERE / "generate_cursor_store.py"),
            "--out",
            str(FALLBACK),
            "--sessions",
            "300",
            "--bubbles",
            "30000",
            "--size-gb",
            "0.2",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    manifest = json.loads((FALLBACK / "manifest.json").read_text(encoding="utf-8"))
    return FALLBACK / "User", manifest


def copy_root(source: Path, target: Path) -> None:
    """The database and the workspace map (what a save reads), not the rest of the User dir."""
    (target / "globalStorage").mkdir(parents=True)
    started = time.perf_counter()
    copied = target / "globalStorage/state.vscdb"
    shutil.copyfile(source / "globalStorage/state.vscdb", copied)
    descriptor = os.open(copied, os.O_RDONLY)
    try:
        os.fsync(descriptor)  # so the first round does not compete with the copy's write-back
    finally:
        os.close(descriptor)
    log(f"  copied the database in {time.perf_counter() - started:.1f} s")
    if (source / "workspaceStorage").is_dir():
        shutil.copytree(source / "workspaceStorage", target / "workspaceStorage")


# -- main -------------------------------------------------------------------------------------


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    os.environ["TXCRIPT_DATA_DIR"] = str(work / "txcript-data")
    os.environ["TXCRIPT_BACKUP_KEEP"] = "1"
    found = large_store(allow_generate=not args.no_generate)
    source = "synthetic"
    transcript = synthetic()
    if found is not None and not args.synthetic:
        user_dir, manifest = found
        huge = manifest["huge_session"]["composer_id"]
        transcript = codec.to_common(CursorDesktopStore(user_dir).load(huge))
        source = f"the generated store's {manifest['huge_session']['bubbles']}-bubble session"
    sample = with_id(transcript, "sample")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "session": {
            "source": source,
            "common_messages": len(transcript.messages),
            "bubbles": len(sample.bubbles),
            "cell_bytes": cells_bytes(sample),
        },
        "scenarios": [],
    }
    log(f"session: {report['session']}")

    empty = Scenario("a) empty root (creates the database; no backup)")
    for n in range(args.repeat):
        root = work / f"empty-{n}"
        body = with_id(transcript, f"bench-empty-{n}")
        empty.splits.append(timed_save(CursorDesktopStore(root), body))
        empty.database_bytes.append((root / "globalStorage/state.vscdb").stat().st_size)
        shutil.rmtree(root)
    report["scenarios"].append(empty.summary())
    log(f"  {empty.summary()}")

    if found is None:
        log("no large store (pass without --no-generate to generate one); skipping b) to d)")
        return report
    user_dir, manifest = found
    copy = work / "copy"
    copy_root(user_dir, copy)
    store = CursorDesktopStore(copy)
    database = store.database
    report["large_store"] = {
        "path": str(user_dir),
        "file_bytes": database.stat().st_size,
        "sessions": manifest.get("sessions"),
    }
    large = Scenario("b) new session into a copy of the large store")
    body = sample
    for n in range(args.repeat):
        body = with_id(transcript, f"bench-large-{n}")
        large.database_bytes.append(database.stat().st_size)
        large.splits.append(timed_save(store, body))
    report["scenarios"].append(large.summary())
    log(f"  {large.summary()}")

    unchanged = Scenario("c) the same body again (nothing to write)")
    before = store.fingerprints([f"bench-large-{args.repeat - 1}"])
    for _ in range(args.repeat):
        unchanged.database_bytes.append(database.stat().st_size)
        unchanged.splits.append(timed_save(store, body))
    after = store.fingerprints(list(before))
    report["unchanged_fingerprint_kept"] = before == after
    report["scenarios"].append(unchanged.summary())
    log(f"  {unchanged.summary()}")

    huge = manifest["huge_session"]["composer_id"]
    round_trip = Scenario("d) native load + save of the 10,000-bubble session in place")
    for _ in range(args.repeat):
        round_trip.database_bytes.append(database.stat().st_size)
        loaded, native = time_once(lambda: store.load(huge))
        split = timed_save(store, native)
        split.total += loaded
        round_trip.splits.append(split)
    report["scenarios"].append(round_trip.summary())
    log(f"  {round_trip.summary()}")
    return report


def print_table(report: dict[str, Any]) -> None:
    session = report["session"]
    print(
        f"session: {session['source']}: {session['common_messages']:,} Common messages, "
        f"{session['bubbles']:,} bubbles, {session['cell_bytes'] / 1e6:.1f} MB of cells"
    )
    if "large_store" in report:
        print(f"large store: {report['large_store']['file_bytes'] / 2**30:.2f} GiB")
    header = ("scenario", "backup", "transaction", "other", "total (median)", "database")
    rows = [header]
    for s in report["scenarios"]:
        size = s["database_bytes"]
        rows.append(
            (
                s["label"],
                f"{s['backup_ms']:.0f} ms",
                f"{s['transaction_ms']:.0f} ms",
                f"{s['other_ms']:.0f} ms",
                f"{s['total_ms']:.0f} ms",
                "-" if size is None else f"{size / 2**20:,.0f} MiB",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    if "unchanged_fingerprint_kept" in report:
        kept = "kept" if report["unchanged_fingerprint_kept"] else "CHANGED"
        print(f"fingerprint after the unchanged re-saves: {kept}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default: %(default)s)")
    parser.add_argument(
        "--synthetic", action="store_true", help="save the synthetic session, not the store's"
    )
    parser.add_argument(
        "--no-generate", action="store_true", help="do not generate a store when none exists"
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="JSON results (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.out.parent, prefix="save-") as tmp:
        report = run(args, Path(tmp))
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print_table(report)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
