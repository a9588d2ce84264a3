"""Shared pieces of the hostile-input tests: stores built on disk, snapshots, stand-in binaries."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import CliResult

UUID_A = "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11"
UUID_B = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b"
T0 = "2026-08-21T09:30:00.000Z"


def simple_doc(session_id: str = UUID_A, cwd: str = "/tmp", **extra: Any) -> dict[str, Any]:
    return {
        "id": session_id,
        "timestamp": T0,
        "cwd": cwd,
        "title": "hostile",
        "messages": [
            {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
            {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
        ],
        **extra,
    }


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def claude_lines(session_id: str, cwd: str = "/tmp", text: str = "hello") -> str:
    records = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "sessionId": session_id,
            "cwd": cwd,
            "timestamp": "2026-08-21T09:30:01.000Z",
            "message": {"role": "user", "content": text},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "sessionId": session_id,
            "cwd": cwd,
            "timestamp": "2026-08-21T09:30:02.000Z",
            "message": {
                "role": "assistant",
                "model": "m",
                "content": [{"type": "text", "text": "hi"}],
            },
        },
    ]
    return "".join(json.dumps(r) + "\n" for r in records)


def codex_lines(session_id: str, cwd: str = "/tmp", text: str = "hello") -> str:
    records = [
        {
            "timestamp": "2026-08-21T09:30:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": session_id,
                "timestamp": "2026-08-21T09:30:00.000Z",
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.50.0",
            },
        },
        {
            "timestamp": "2026-08-21T09:30:01.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        },
        {
            "timestamp": "2026-08-21T09:30:02.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "hi"}],
            },
        },
    ]
    return "".join(json.dumps(r) + "\n" for r in records)


def codex_rollout_path(root: Path, session_id: str) -> Path:
    return root / "sessions/2026/08/21" / f"rollout-2026-08-21T09-30-00-{session_id}.jsonl"


def snapshot(*roots: Path, exclude: tuple[Path, ...] = ()) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``roots`` (links not followed): kind, mode, size, mtime, content hash."""
    out: dict[str, tuple[Any, ...]] = {}
    skip = tuple(str(p) for p in exclude)
    for root in roots:
        if not os.path.lexists(root):
            continue
        for directory, dirs, files in os.walk(root, followlinks=False):
            dirs[:] = [d for d in dirs if not os.path.join(directory, d).startswith(skip)]
            for name in [*dirs, *files]:
                path = os.path.join(directory, name)
                status = os.lstat(path)
                entry: tuple[Any, ...] = (stat.S_IFMT(status.st_mode), status.st_mode & 0o7777)
                if stat.S_ISREG(status.st_mode):
                    try:
                        with open(path, "rb") as handle:
                            digest = hashlib.sha256(handle.read()).hexdigest()
                    except OSError:
                        digest = "unreadable"
                    entry += (status.st_size, status.st_mtime_ns, digest)
                elif stat.S_ISLNK(status.st_mode):
                    entry += (os.readlink(path),)
                out[path] = entry
    return out


def one_line_error(result: CliResult, code: int, needle: str = "") -> str:
    """The single ``txcript: error:`` line of a failed run (no traceback, no internal error)."""
    assert result.code == code, (result.code, result.stderr)
    errors = [line for line in result.stderr.splitlines() if not line.startswith("txcript: warn")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("txcript: error: "), result.stderr
    assert "internal error" not in errors[0] and "Traceback" not in result.stderr
    assert needle in errors[0], errors[0]
    return errors[0]


def stand_in(bin_dir: Path, name: str, log: Path) -> Path:
    """A program called ``name`` on PATH that records its argv and cwd in ``log``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    program = bin_dir / name
    program.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"open({str(log)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
    )
    program.chmod(0o755)
    return program


def recorded(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def run_limited(
    args: list[str], env: dict[str, str], *, timeout: float, memory: int | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``python -m txcript`` with a wall-clock bound and, optionally, an address-space limit."""

    def limit() -> None:
        if memory is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    full = dict(os.environ)
    full.update(env)
    return subprocess.run(
        [sys.executable, "-m", "txcript", *args],
        input=b"",
        capture_output=True,
        env=full,
        timeout=timeout,
        preexec_fn=limit if memory is not None else None,
    )
