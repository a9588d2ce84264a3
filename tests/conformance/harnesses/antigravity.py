"""Antigravity: a CLI data directory (a conversation database with its brain folder), and the
older app's data directory, where encrypted conversations sit beside a readable one."""

from __future__ import annotations

from pathlib import Path

from declare import Conformance, Family, HopLimit, commands_as_prompts, use_fixtures

use_fixtures("antigravity")
from agy_fixtures import clean_kitchen_sink, encrypted_files, write_conversation  # noqa: E402

from desktop_strategies import antigravity_transcripts  # noqa: E402


def cli(root: Path) -> None:
    write_conversation(root, clean_kitchen_sink())


def older_app(root: Path) -> None:
    cli(root)
    encrypted_files(root)


CONFORMANCE = Conformance(
    harness="antigravity",
    families=(
        Family("cli", cli, sessions=1),
        Family(
            "older-app-with-encrypted-pb",
            older_app,
            sessions=1,
            skips={
                "hostile-input": "this data directory warns on every listing (the encrypted "
                ".pb files it holds are counted), beside the one warning a damaged database "
                "gives; the same damage is tested on the cli family"
            },
        ),
    ),
    representable=antigravity_transcripts(),
    hop_limit=HopLimit(
        "a slash command the user ran has no step of its own: it is written as the prompt text "
        "that ran it, and its output as the user's text after it",
        commands_as_prompts,
    ),
)
