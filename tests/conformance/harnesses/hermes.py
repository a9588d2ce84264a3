"""Hermes: a home with a newest-schema state.db, both log formats under sessions/ and a
version-6 database under a profile; a version-6 database alone."""

from __future__ import annotations

from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    commands_as_prompts,
    composed,
    replaced,
    text_before_calls,
    unsigned_thinking,
    use_fixtures,
)

use_fixtures("hermes")
import hermes_fixtures  # noqa: E402


def home(root: Path) -> None:
    hermes_fixtures.write_home(root)


def version_6(root: Path) -> None:
    hermes_fixtures.write_v6(root / "state.db")


CONFORMANCE = Conformance(
    harness="hermes",
    families=(
        Family("home-with-logs-and-profile", home, sessions=5),
        Family("schema-v6", version_6, sessions=1),
    ),
    representable=hermes_fixtures.conversations(),
    hop_limit=HopLimit(
        "a Hermes assistant row keeps reasoning text without a signature, and a slash command "
        "the user ran has no record of its own: it is written as the prompt that ran it, its "
        "output as the user's text; a reply or reasoning after a call is shown before the calls "
        "of its message",
        composed(unsigned_thinking, commands_as_prompts, text_before_calls),
    ),
    text_facts=StoreFacts(
        "a JSONL transcript log's session id is its file's name, which its text does not hold",
        lambda native: replaced(native, name=""),
    ),
)
