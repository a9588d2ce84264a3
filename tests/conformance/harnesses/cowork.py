"""Cowork: one account with two tasks, one in the account's tree and one under its agent/."""

from __future__ import annotations

from pathlib import Path

from declare import Conformance, Family, HopLimit, use_fixtures

use_fixtures("cowork")
from cowork_fixtures import ACCOUNT, ORG, account_with_two_tasks  # noqa: E402

from desktop_strategies import cowork_transcripts  # noqa: E402


def two_tasks(root: Path) -> None:
    account_with_two_tasks(root, noise=False)


def an_account(root: Path) -> None:
    """Claude desktop makes the account's tree when Cowork is first used; a write goes into an
    account and is refused where there is none."""
    (root / ORG / ACCOUNT).mkdir(parents=True, exist_ok=True)


def _unsigned_thinking_is_text(items: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [
        ("text", "assistant", item[1]) if item[0] == "thinking" and not item[2] else item
        for item in items
    ]


CONFORMANCE = Conformance(
    harness="cowork",
    families=(Family("account-with-two-tasks", two_tasks, sessions=2),),
    representable=cowork_transcripts(),
    fresh_root=an_account,
    hop_limit=HopLimit(
        "a task's transcript is Claude Code's, whose API refuses a thinking block without its "
        "signature on resume, so reasoning that arrives unsigned is written as text",
        _unsigned_thinking_is_text,
    ),
)
