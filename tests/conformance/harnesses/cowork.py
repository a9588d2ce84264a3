"""Cowork's conformance declaration: one account with two tasks (one under agent/)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[2] / "cowork"))
sys.path.insert(0, str(Path(__file__).parents[2]))

from cowork_fixtures import account_with_two_tasks

from conformance.declare import Conformance, Family, HopLimit
from desktop_strategies import cowork_transcripts
from txcript.shared.claude_jsonl.writer import RESULT_BLOCK_TYPES
from txcript.shared.jsonutil import dumps_compact


def _two_tasks(root: Path) -> None:
    account_with_two_tasks(root, noise=False)


def _claude_output(value: Any) -> Any:
    """A result's output as Claude Code's writer keeps it (Cowork's transcript is Claude Code's):
    text, or an array of API blocks; any other JSON as its compact text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(item, dict) and item.get("type") in RESULT_BLOCK_TYPES for item in value
    ):
        return value
    return dumps_compact(value)


def _as_claude_code(exchange: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [
        tuple(_claude_output(v) if isinstance(v, dict | list) else v for v in item)
        for item in exchange
    ]


CONFORMANCE = Conformance(
    harness="cowork",
    families=(Family("account with two tasks", _two_tasks, sessions=2),),
    representable=cowork_transcripts(),
    hop_limit=HopLimit(
        "a task's transcript is Claude Code's, which keeps a tool's output as text or an array "
        "of API blocks",
        _as_claude_code,
    ),
    env=lambda root: {"COWORK_SESSIONS_DIR": str(root)},
)
