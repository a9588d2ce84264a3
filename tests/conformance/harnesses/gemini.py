"""Gemini CLI: a JSONL chat log with its sub-agent chat in a registered slug project, and a
legacy JSON chat kept both there and in the sha256 project directory it was filed under first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    closed_calls,
    composed,
    replaced,
    results_in_call_order,
    text_before_calls,
    unsigned_thinking,
    use_fixtures,
)

from txcript.harnesses.gemini.codec import CANCELLED
from txcript.model import Command

use_fixtures("gemini")
import gemini_fixtures as gm  # noqa: E402


def _project(root: Path) -> Path:
    gm.put(root / "projects.json", json.dumps({"projects": {gm.ROOT_PATH: gm.SLUG}}, indent=2))
    slug_dir = root / "tmp" / gm.SLUG
    gm.put(slug_dir / ".project_root", gm.ROOT_PATH)
    gm.put(slug_dir / "logs.json", "[]")
    return slug_dir / "chats"


def jsonl_log(root: Path) -> None:
    chats = _project(root)
    gm.put(chats / f"session-2026-02-10T09-00-{gm.LOG_ID[:8]}.jsonl", gm.log_text())
    gm.put(
        chats / gm.PARENT_ID / f"{gm.SUBAGENT_ID}.json",
        json.dumps(gm.subagent_document(), indent=2),
    )


def legacy_json(root: Path) -> None:
    name = f"session-2025-09-01T08-00-{gm.LEGACY_ID[:8]}.json"
    gm.put(_project(root) / name, gm.legacy_text())
    gm.put(root / "tmp" / gm.PROJECT_HASH / "chats" / name, gm.legacy_text())


def _slash_prompts_are_commands(items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Gemini keeps a slash command as the prompt that ran it, and reads a prompt that starts
    with ``/`` as a command again."""
    out: list[tuple[Any, ...]] = []
    for index, item in enumerate(items):
        if item[:2] == ("text", "user") and item[2].startswith("/"):
            command, space, args = item[2].partition(" ")
            out.append(("call", ("prompt", index), Command(command, args if space else None)))
        else:
            out.append(item)
    return out


CONFORMANCE = Conformance(
    harness="gemini",
    families=(
        Family("jsonl", jsonl_log, sessions=2),
        Family("legacy-json", legacy_json, sessions=1),
    ),
    representable=gm.gemini_shaped(),
    hop_limit=HopLimit(
        "a Gemini message holds its thoughts and text before its tool calls, and each call "
        "holds its own result (a call left without one reads back cancelled), so the results "
        "of a batch come back in the order of the calls; thoughts carry no signature; a prompt "
        "that starts with / is a slash command",
        composed(
            _slash_prompts_are_commands,
            unsigned_thinking,
            text_before_calls,
            closed_calls(CANCELLED, at_the_end=True),
            results_in_call_order,
        ),
    ),
    text_facts=StoreFacts(
        "a chat's cwd is its project directory's root, a sub-agent chat's parent is the "
        "directory it sits in, and a chat without a session id takes its file name",
        lambda native: replaced(native, cwd=None, parent_id=None, fallback_id=None),
    ),
)
