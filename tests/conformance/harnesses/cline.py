"""Cline: its XML tool era, its native tool era (indexed in the editor's state.vscdb) and its CLI
sessions."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "cline"))

import cline_conformance as c

from conformance.declare import Conformance, Family

CONFORMANCE = Conformance(
    harness="cline",
    families=(
        Family("xml-tool-era, state/taskHistory.json", c.cline_xml, sessions=1),
        Family("native-tool-era, state.vscdb index", c.cline_native, sessions=1),
        Family("cli session (~/.cline/data/sessions)", c.cline_cli, sessions=1),
    ),
    representable=c.transcripts("cline"),
)
