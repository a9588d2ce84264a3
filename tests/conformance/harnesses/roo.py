"""Roo Code: a task indexed in the editor's state.vscdb, and a 2026 task with its own
history_item.json."""

from __future__ import annotations

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parents[2]
for _place in (_TESTS / "cline", _TESTS / "conformance"):
    if str(_place) not in sys.path:
        sys.path.insert(0, str(_place))

import cline_conformance as c  # noqa: E402
from declare import Conformance, Family  # noqa: E402

CONFORMANCE = Conformance(
    harness="roo",
    families=(
        Family("state.vscdb index", c.roo_state, sessions=1),
        Family("history_item.json", c.roo_item, sessions=1),
    ),
    representable=c.transcripts("roo"),
)
