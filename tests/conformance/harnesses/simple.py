"""Simple, the interchange document: the spec's worked example and a document written by hand
the way people write them (string content, id-less calls paired first in first out, unknown
keys). A document format: no store."""

from __future__ import annotations

import json
from pathlib import Path

from declare import NO_STORE, Conformance, Family

from strategies import transcripts

#: simple-format.md §8's exported example (tests/test_simple.py checks it byte for byte).
from test_simple import EXPORTED

HANDWRITTEN = {
    "id": "handwritten-1",
    "timestamp": "2026-08-21T09:30:00Z",
    "cwd": "/home/dev/repo",
    "x-editor": {"kept": True},
    "messages": [
        {"role": "User", "content": "list the files, then read the readme"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Two calls."},
                {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "name": "Read", "input": {"file_path": "README.md"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "content": "README.md\nsrc"},
                {"type": "tool_result", "content": "no such file", "is_error": True},
            ],
        },
        {"role": "assistant", "content": "The readme is missing.", "stop_reason": "end_turn"},
    ],
}


def documents(root: Path) -> None:
    (root / "exported.json").write_text(EXPORTED)
    (root / "handwritten.json").write_text(json.dumps(HANDWRITTEN, indent=2))


CONFORMANCE = Conformance(
    harness="simple",
    families=(Family("documents", documents, sessions=2),),
    representable=transcripts,
    skips={
        "store-round-trip": NO_STORE,
        "discovery-matches-load": NO_STORE,
        "reads-leave-store-untouched": NO_STORE,
        "write-preflight": NO_STORE,
        "write-refused-halfway": NO_STORE,
        "hostile-ids": NO_STORE,
    },
)
