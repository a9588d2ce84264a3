"""The sessions the real-client tier writes into each harness: one file per source, each in the
form a user would hand to ``txcript continue`` (a harness's own session file or text form, a
Common document, a Simple document).

The harness sources come from the fixtures of each harness's own tests (one per store), so the
tier carries the same calls, results, errors and reasoning those tests pin down.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from txcript import harnesses
from txcript import model as m
from txcript.model import to_json

TESTS = Path(__file__).parents[1]
for _sibling in ("codex", "cursor_cli", "gemini", "opencode", "qwen"):
    if str(TESTS / _sibling) not in sys.path:
        sys.path.append(str(TESTS / _sibling))

import codex_fixtures  # noqa: E402
import cursor_cli_fixtures  # noqa: E402
import gemini_fixtures  # noqa: E402
import opencode_fixtures  # noqa: E402
import qwen_fixtures  # noqa: E402

EXAMPLE_CURSOR = TESTS / "cursor_desktop" / "data" / "example-session.json"

#: Source name → what it is (the compatibility table's wording).
DESCRIPTIONS = {
    "parallel": "Common document: a Claude Code parallel batch of 3 calls, one failing",
    "cursor_desktop": "Cursor desktop text form (the example session)",
    "cursor_cli": "Cursor CLI chat (text form of the kitchen-sink store.db)",
    "codex": "Codex rollout (current generation)",
    "gemini": "Gemini CLI session log (JSONL generation)",
    "opencode": "OpenCode export document (from a database session)",
    "qwen": "Qwen Code chat (a rewound branch left in the file)",
    "simple": "Simple document with a non-UUID id",
}


def parallel_calls() -> m.Transcript:
    """A Claude-style parallel batch: three calls in one response, one result failing."""
    t = datetime(2026, 11, 20, 9, tzinfo=UTC)
    step = timedelta(seconds=1)
    calls = (
        m.ToolUse(id="toolu_a1", tool=m.Bash(command="ls")),
        m.ToolUse(id="toolu_a2", tool=m.Read(file_path="/w/README.md")),
        m.ToolUse(id="toolu_a3", tool=m.Raw(tool_name="Grep", input={"pattern": "TODO"})),
    )
    results = (
        m.ToolResult(tool_use_id="toolu_a1", content="README.md\nsrc"),
        m.ToolResult(tool_use_id="toolu_a2", content="# acme"),
        m.ToolResult(tool_use_id="toolu_a3", content="grep: bad pattern", is_error=True),
    )
    messages = (
        m.Message(role="user", content=(m.Text("look around"),), timestamp=t),
        m.Message(
            role="assistant",
            content=(
                m.Thinking("three reads at once", signature="sig"),
                m.Text("Looking."),
                *calls,
            ),
            timestamp=t + step,
        ),
        m.Message(role="user", content=results, timestamp=t + 2 * step),
        m.Message(role="assistant", content=(m.Text("Found it."),), timestamp=t + 3 * step),
    )
    meta = m.Meta(id="parallel-batch-source", timestamp=t, cwd="/w", title="parallel")
    return m.Transcript(meta=meta, messages=messages)


def _parallel(directory: Path) -> Path:
    path = directory / "parallel.common.json"
    path.write_text(to_json(parallel_calls()))
    return path


def _cursor_desktop(directory: Path) -> Path:
    return EXAMPLE_CURSOR


def _cursor_cli(directory: Path) -> Path:
    chat = cursor_cli_fixtures.kitchen_sink_chat(directory / "dot-cursor" / "chats")
    harness = harnesses.get("cursor")
    store = harness.store(directory / "dot-cursor")
    assert store is not None
    path = directory / "cursor-cli.json"
    path.write_text(harness.to_text(store.load(str(chat))))
    return path


def _codex(directory: Path) -> Path:
    path = directory / "rollout-2026-01-01T00-00-00-codex-source.jsonl"
    path.write_text(codex_fixtures.current_text())
    return path


def _gemini(directory: Path) -> Path:
    path = directory / "session-gemini-source.jsonl"
    path.write_text(gemini_fixtures.log_text())
    return path


def _opencode(directory: Path) -> Path:
    root = directory / "opencode"
    database = opencode_fixtures.build_db(
        root / "opencode.db", opencode_fixtures.CURRENT_DDL, [opencode_fixtures.main_session()]
    )
    harness = harnesses.get("opencode")
    store = harness.store(root)
    assert store is not None
    path = directory / "opencode-export.json"
    path.write_text(harness.to_text(store.load(f"{database}#{opencode_fixtures.MAIN_ID}")))
    return path


def _qwen(directory: Path) -> Path:
    path = directory / f"{qwen_fixtures.REWOUND_ID}.jsonl"
    path.write_text(qwen_fixtures.text_of(qwen_fixtures.rewound_records()))
    return path


def _simple(directory: Path) -> Path:
    path = directory / "plain.json"
    document = {
        "id": "not-a-uuid session",
        "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi there"},
            {"role": "user", "content": "thanks"},
            {"role": "assistant", "content": "any time"},
        ],
    }
    path.write_text(json.dumps(document))
    return path


_BUILDERS: dict[str, Callable[[Path], Path]] = {
    "parallel": _parallel,
    "cursor_desktop": _cursor_desktop,
    "cursor_cli": _cursor_cli,
    "codex": _codex,
    "gemini": _gemini,
    "opencode": _opencode,
    "qwen": _qwen,
    "simple": _simple,
}
SOURCES = tuple(_BUILDERS)


def build(directory: Path) -> dict[str, Path]:
    """Every source, written under ``directory`` (each builder gets its own subdirectory)."""
    out = {}
    for name, builder in _BUILDERS.items():
        place = directory / name
        place.mkdir(parents=True, exist_ok=True)
        out[name] = builder(place)
    return out
