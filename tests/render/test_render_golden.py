"""Golden files: the Markdown and HTML exports of the kitchen-sink session and of one session from
each harness's fixtures, byte for byte.

After an intended change to a rendering (or to a codec these sessions pass through), rewrite the
files with ``TXCRIPT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/render -q`` and read the
diff before committing it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from kitchen_sink import kitchen_sink
from render_fixtures import fixture_module

from txcript import harnesses
from txcript.model import Transcript
from txcript.operations import render_document

TESTS = Path(__file__).parents[1]
GOLDEN = Path(__file__).parent / "golden"
#: The harness fixtures hold a deliberately broken line each (their readers warn and skip it).
pytestmark = pytest.mark.filterwarnings("ignore::txcript.diagnostics.TranscriptWarning")


def _from_text(harness: str, text: str) -> Transcript:
    chosen = harnesses.get(harness)
    return chosen.to_common(chosen.from_text(text))


def claude_code_session() -> Transcript:
    claude = fixture_module("claude_fixtures", "claude_code/claude_fixtures.py")
    return _from_text("claude_code", claude.jsonl(claude.realistic_records()))


def codex_session() -> Transcript:
    codex = fixture_module("codex_fixtures", "codex/codex_fixtures.py")
    return _from_text("codex", codex.current_text())


def gemini_session() -> Transcript:
    gemini = fixture_module("gemini_fixtures", "gemini/gemini_fixtures.py")
    return _from_text("gemini", gemini.log_text())


def cursor_cli_session() -> Transcript:
    """The Cursor CLI keeps sessions only in a store (a chat directory), so it is read there."""
    fixtures = fixture_module("cursor_cli_fixtures", "cursor_cli/cursor_cli_fixtures.py")
    with tempfile.TemporaryDirectory() as scratch:
        cursor = harnesses.get("cursor")
        store = cursor.open_store(Path(scratch) / "dot-cursor")
        assert store is not None
        directory = fixtures.kitchen_sink_chat(store.chats)
        return cursor.to_common(store.load(str(directory)))


def cursor_desktop_session() -> Transcript:
    text = (TESTS / "cursor_desktop" / "data" / "example-session.json").read_text("utf-8")
    return _from_text("cursor_desktop", text)


SESSIONS: dict[str, tuple[str, Callable[[], Transcript]]] = {
    "kitchen-sink": ("common", kitchen_sink),
    "claude-code": ("claude_code", claude_code_session),
    "codex": ("codex", codex_session),
    "cursor-desktop": ("cursor_desktop", cursor_desktop_session),
    "cursor-cli": ("cursor", cursor_cli_session),
    "gemini": ("gemini", gemini_session),
}


def check_golden(name: str, rendered: str) -> None:
    path = GOLDEN / name
    if os.environ.get("TXCRIPT_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(rendered, encoding="utf-8", newline="")
    assert path.exists(), f"{path} is missing: run with TXCRIPT_UPDATE_GOLDEN=1 to write it"
    expected = path.read_text(encoding="utf-8")
    assert rendered == expected, (
        f"{name} differs from its golden file; if the change is intended, rewrite it with "
        "TXCRIPT_UPDATE_GOLDEN=1 and review the diff"
    )


@pytest.mark.parametrize("export_format", ["markdown", "html"])
@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_exports_match_their_golden_files(session: str, export_format: str) -> None:
    harness, build = SESSIONS[session]
    rendered = render_document(build(), export_format, harness=harness)
    suffix = "md" if export_format == "markdown" else "html"
    check_golden(f"{session}.{suffix}", rendered)


def test_the_harness_sessions_are_not_trivial() -> None:
    """Each fixture session has tool calls and results, so its golden file shows them."""
    for session in ("claude-code", "codex", "cursor-desktop", "cursor-cli", "gemini"):
        transcript = SESSIONS[session][1]()
        kinds = {type(b).__name__ for msg in transcript.messages for b in msg.content}
        assert {"Text", "ToolUse", "ToolResult"} <= kinds, (session, kinds)
