"""Helpers for CLI tests: Claude Code sessions on disk, and running txcript on a real pty."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

from txcript.harnesses.claude_code.store import encode_project


def claude_session(
    config: Path,
    session_id: str,
    *,
    title: str | None = None,
    cwd: str = "/home/dev/repo",
    text: str = "hello",
    reply: str = "hi",
    clock: str = "2026-08-21T09:30:00.000Z",
) -> Path:
    """A small Claude Code session file where Claude Code keeps it under ``config``."""

    def envelope(kind: str, uuid: str, parent: str | None, **extra: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session_id,
            "version": "2.1.37",
            "type": kind,
        }
        record.update(extra)
        record["uuid"] = uuid
        record["timestamp"] = clock
        return record

    records: list[dict[str, Any]] = [
        envelope("user", "u1", None, message={"role": "user", "content": text}),
        envelope(
            "assistant",
            "a1",
            "u1",
            message={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": [{"type": "text", "text": reply}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        ),
    ]
    if title is not None:
        records.append({"type": "custom-title", "customTitle": title, "sessionId": session_id})
    directory = config / "projects" / encode_project(cwd)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


def run_on_pty(
    args: list[str],
    env: dict[str, str],
    *,
    columns: int = 80,
    rows: int = 24,
    timeout: float = 60.0,
    stdin_tty: bool = True,
) -> tuple[int, bytes]:
    """Run ``python -m txcript ARGS`` with stdout (and stderr) on a pty of the given size.

    Returns the exit code and every byte the terminal received.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    full_env = dict(os.environ)
    full_env.pop("COLUMNS", None)
    full_env.pop("LINES", None)
    full_env.update(env)
    process = subprocess.Popen(
        [sys.executable, "-m", "txcript", *args],
        stdin=slave if stdin_tty else subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=full_env,
        close_fds=True,
    )
    os.close(slave)
    received = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError as exc:  # EIO: every writer of the pty has closed it
                    if exc.errno != errno.EIO:
                        raise
                    break
                if not chunk:
                    break
                received.extend(chunk)
            elif process.poll() is not None:
                break
        else:
            process.kill()
            raise AssertionError(f"txcript {args} did not finish within {timeout}s")
    finally:
        os.close(master)
    return process.wait(timeout=10), bytes(received)


def empty_cursor_database(user_dir: Path) -> Path:
    """The ``state.vscdb`` of a Cursor desktop that started once and holds no chat yet (a live
    write needs the app's database: txcript never creates it there)."""
    import sqlite3

    database = user_dir / "globalStorage" / "state.vscdb"
    database.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(database)
    try:  # (3.16+: the header table, and the flag saying that headers moved into it)
        conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        conn.execute(
            "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
            "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
            "recency INTEGER, checkpointAt INTEGER, subagentTypeName TEXT, value TEXT)"
        )
        conn.execute(
            "INSERT INTO ItemTable VALUES ('composer.composerHeaders.migratedToTable', 'true')"
        )
        conn.commit()
    finally:
        conn.close()
    return database


def prepare_store(writer: str, root: Path) -> None:
    """Make ``root`` hold what ``writer``'s app leaves there before txcript's first write: the
    harness's conformance declaration says (``fresh_root``: an app-made database, a project);
    a live Cursor desktop or OpenCode store also needs the app's database (txcript creates one
    only under ``--out``)."""
    from conformance.contracts import declaration

    conformance = declaration(writer)
    if conformance is not None and conformance.fresh_root is not None:
        conformance.fresh_root(root)
    elif writer == "cursor_desktop":
        empty_cursor_database(root)
    elif writer == "opencode":
        from txcript.shared.formats.opencode.write import create_database

        create_database(root / "opencode.db")
