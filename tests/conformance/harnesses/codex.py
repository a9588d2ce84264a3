"""Codex: a current rollout beside its session index and state database, a bare rollout of an
early Rust build, a legacy JSON document of the TypeScript CLI, a 2026 sub-agent rollout, and a
chat-shaped legacy document."""

from __future__ import annotations

import json
from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    commands_as_prompts,
    composed,
    replaced,
    unsigned_thinking,
    use_fixtures,
)

use_fixtures("codex")
import codex_fixtures as cx  # noqa: E402


def _put(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def current(root: Path) -> None:
    _put(
        root,
        f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{cx.SESSION_ID}.jsonl",
        cx.current_text(),
    )
    _put(
        root,
        "session_index.jsonl",
        cx.line(
            {
                "id": cx.SESSION_ID,
                "thread_name": "Fix the flaky test",
                "updated_at": "2026-08-20T10:05:00Z",
            }
        )
        + "\n",
    )
    cx.make_db(root)


def bare(root: Path) -> None:
    _put(
        root,
        f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{cx.BARE_ID}.jsonl",
        cx.bare_text(),
    )


def legacy(root: Path) -> None:
    _put(root, f"sessions/rollout-2025-04-16-{cx.LEGACY_ID}.json", cx.legacy_text())


def sub_agent_2026(root: Path) -> None:
    """A 2026 desktop sub-agent thread: unified exec, an MCP call, unknown records."""
    _put(
        root,
        f"sessions/2026/03/02/rollout-2026-03-02T08-15-00-{cx.SID_2026}.jsonl",
        cx.rollout_2026_text(),
    )


def chat_shaped_legacy(root: Path) -> None:
    """A legacy document whose items are chat messages (role/content/tool_calls)."""
    _put(root, f"sessions/rollout-2025-05-01-{cx.SID_2026}.json", json.dumps(cx.chat_document()))


CONFORMANCE = Conformance(
    harness="codex",
    families=(
        Family("current", current, sessions=1),
        Family("bare", bare, sessions=1),
        Family("legacy-json", legacy, sessions=1),
        Family("2026-sub-agent", sub_agent_2026, sessions=1),
        Family("chat-shaped-legacy", chat_shaped_legacy, sessions=1),
    ),
    representable=cx.codex_transcripts(),
    text_facts=StoreFacts(
        "a thread's name is the last line for its id in session_index.jsonl, and a rollout "
        "without an id in its header takes the one in its file name",
        lambda native: replaced(native, title=None, fallback_id=None),
    ),
    hop_limit=HopLimit(
        "Codex keeps reasoning as its own encrypted content and summary text, with no place "
        "for another vendor's thinking signature; a slash command is the prompt that ran it",
        composed(unsigned_thinking, commands_as_prompts),
    ),
)
