"""Kilo Code: its 2026 kilo.db (an OpenCode database), and a task of its older extension indexed
in the editor's state.vscdb."""

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
    harness="kilo",
    families=(
        Family("kilo.db", c.kilo_database, sessions=1),
        Family("older extension, state.vscdb index", c.kilo_legacy, sessions=1),
    ),
    representable=c.kilo_transcripts(),
)
