"""Grok: a newer build's session (turn usage, named turns) and an older build's (neither, and a
summary without a start time), each a directory of three files under a percent-encoded cwd."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from declare import Conformance, Family, HopLimit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "grok"))
import grok_fixtures


def newer(root: Path) -> None:
    grok_fixtures.write_newer(root)


def older(root: Path) -> None:
    grok_fixtures.write_older(root)


def _unsigned(items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Grok's reasoning items carry no signature: thinking comes back unsigned."""
    return [("thinking", x[1], False) if x[0] == "thinking" else x for x in items]


CONFORMANCE = Conformance(
    harness="grok",
    families=(Family("newer-build", newer, sessions=1), Family("older-build", older, sessions=1)),
    representable=grok_fixtures.conversations(),
    hop_limit=HopLimit(
        "a Grok reasoning item keeps its text and encrypted part but no signature", _unsigned
    ),
)
