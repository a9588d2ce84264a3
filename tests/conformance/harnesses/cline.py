"""Cline: its XML tool era, its native tool era (indexed in the editor's state.vscdb) and its CLI
sessions."""

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
    harness="cline",
    families=(
        Family("xml-tool-era, state/taskHistory.json", c.cline_xml, sessions=1),
        Family("native-tool-era, state.vscdb index", c.cline_native, sessions=1),
        Family("cli session (~/.cline/data/sessions)", c.cline_cli, sessions=1),
    ),
    representable=c.transcripts("cline"),
)
