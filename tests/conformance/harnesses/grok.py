"""Grok: a newer build's session (turn usage, named turns) and an older build's (neither, and a
summary without a start time), each a directory of three files under a percent-encoded cwd."""

from __future__ import annotations

from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    commands_as_prompts,
    composed,
    text_before_calls,
    unsigned_thinking,
    use_fixtures,
)

use_fixtures("grok")
import grok_fixtures  # noqa: E402


def newer(root: Path) -> None:
    grok_fixtures.write_newer(root)


def older(root: Path) -> None:
    grok_fixtures.write_older(root)


CONFORMANCE = Conformance(
    harness="grok",
    families=(Family("newer-build", newer, sessions=1), Family("older-build", older, sessions=1)),
    representable=grok_fixtures.conversations(),
    hop_limit=HopLimit(
        "a Grok reasoning item keeps its text and encrypted part but no signature, and a slash "
        "command the user ran has no record of its own: it is written as the prompt that ran it, "
        "its output as the user's text; a reply or reasoning after a call is shown before the "
        "calls of its message",
        composed(unsigned_thinking, commands_as_prompts, text_before_calls),
    ),
)
