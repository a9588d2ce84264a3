"""Kilo Code: its 2026 kilo.db (an OpenCode database), and a task of its older extension indexed
in the editor's state.vscdb."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cline"))

import cline_conformance as c

from conformance.declare import Conformance, Family

CONFORMANCE = Conformance(
    harness="kilo",
    families=(
        Family("kilo.db", c.kilo_database, sessions=1),
        Family("older extension, state.vscdb index", c.kilo_legacy, sessions=1),
    ),
    representable=c.kilo_transcripts(),
)
