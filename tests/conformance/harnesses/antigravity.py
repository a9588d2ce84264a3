"""Antigravity's conformance declaration: a CLI data directory, and the older app's with its
encrypted conversations beside a readable one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[2] / "antigravity"))
sys.path.insert(0, str(Path(__file__).parents[2]))

from agy_fixtures import clean_kitchen_sink, encrypted_files, write_conversation

from conformance.declare import Conformance, Family, HopLimit
from desktop_strategies import antigravity_transcripts
from txcript.shared.jsonutil import dumps_compact


def _cli(root: Path) -> None:
    write_conversation(root, clean_kitchen_sink())


def _older_app(root: Path) -> None:
    _cli(root)
    encrypted_files(root)


def _text_output(exchange: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Structured tool output becomes its compact JSON text (the step's output slot is text)."""
    return [
        tuple(dumps_compact(v) if isinstance(v, dict | list) else v for v in item)
        for item in exchange
    ]


CONFORMANCE = Conformance(
    harness="antigravity",
    families=(
        Family("cli data directory", _cli, sessions=1),
        Family("older app data directory with encrypted .pb files", _older_app, sessions=1),
    ),
    representable=antigravity_transcripts(),
    hop_limit=HopLimit(
        "a step keeps a tool's output as text, so structured output comes back as its compact "
        "JSON text",
        _text_output,
    ),
    env=lambda root: {"ANTIGRAVITY_CLI_DIR": str(root)},
)
