"""Item 11 of the hostile-store review: a large document under a memory limit fails cleanly.

Decoding a 50 MB document under ``ulimit -v`` crashed the process (a segfault inside the JSON
library in the report; an ``internal error: MemoryError`` here). Documents are capped before they
are decoded (``MAX_DOCUMENT_BYTES``, exit 2), and running out of memory below that cap is one
``txcript: error: … out of memory …`` line with exit 1: never a signal, never a traceback, and
nothing written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from hostile_support import UUID_A, run_limited, snapshot

from txcript.shared.files import MAX_DOCUMENT_BYTES

MIB = 1 << 20
#: Address-space limits that leave room for the interpreter but not for decoding 50 MB.
LIMITS = (200 * MIB, 320 * MIB)


def _big_document(path: Path, size: int) -> Path:
    """A Simple document of about ``size`` bytes: many ordinary messages."""
    body = "word " * 1000
    count = size // (len(body) + 40)
    doc = {
        "id": UUID_A,
        "timestamp": "2026-08-21T09:30:00Z",
        "cwd": "/tmp",
        "messages": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": body} for i in range(count)
        ],
    }
    path.write_text(json.dumps(doc))
    return path


def _errors(stderr: bytes) -> list[str]:
    lines = stderr.decode("utf-8", "replace").splitlines()
    return [line for line in lines if not line.startswith("txcript: warning")]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_a_50_mb_document_under_a_memory_limit_is_one_line_and_writes_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    doc = _big_document(tmp_path / "big.json", 50 * MIB)
    assert os.path.getsize(doc) > 45 * MIB
    out = tmp_path / "out"
    env = {"TXCRIPT_DATA_DIR": str(tmp_path / "data"), "TXCRIPT_CACHE_DIR": str(tmp_path / "c")}
    commands = [
        ["export", str(doc), "--format", "common", "--out", str(tmp_path / "copy.json")],
        ["convert", "--from", "simple", "--to", "codex", str(doc), "--out", str(tmp_path / "x")],
        ["continue", str(doc), "--with", "claude_code", "--out", str(out)],
    ]
    ran_out = 0
    for limit in LIMITS:
        for args in commands:
            before = snapshot(tmp_path, isolated_home)
            done = run_limited(args, env, timeout=120, memory=limit)
            assert done.returncode >= 0, f"killed by signal {-done.returncode}: {args}"
            if done.returncode == 0:
                continue  # enough memory after all: a normal run
            errors = _errors(done.stderr)
            assert len(errors) == 1, done.stderr
            assert errors[0].startswith("txcript: error: "), done.stderr
            assert "internal error" not in errors[0] and b"Traceback" not in done.stderr
            assert "out of memory" in errors[0], errors[0]
            assert done.returncode == 1
            assert snapshot(tmp_path, isolated_home) == before
            ran_out += 1
    assert ran_out, "no limit made txcript run out of memory: the test proves nothing"


def test_a_document_over_the_cap_is_refused_before_decoding(
    tmp_path: Path, isolated_home: Path
) -> None:
    """The cap is checked on the file's size: a sparse file over it is refused at once."""
    doc = tmp_path / "huge.json"
    with open(doc, "wb") as handle:
        handle.truncate(MAX_DOCUMENT_BYTES + 1)
    done = run_limited(["export", str(doc)], {}, timeout=60, memory=400 * MIB)
    assert done.returncode == 2, done.stderr
    (error,) = _errors(done.stderr)
    assert error.startswith("txcript: error: ") and "512 MiB limit" in error, error
