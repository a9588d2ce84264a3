"""Cline: its XML tool era (indexed in state/taskHistory.json), its native tool era (indexed in
the editor's state.vscdb) and its CLI sessions."""

from __future__ import annotations

from declare import Conformance, Family, use_fixtures

use_fixtures("cline")
import cline_conformance as c  # noqa: E402

CONFORMANCE = Conformance(
    harness="cline",
    families=(
        Family("xml-tool-era, state/taskHistory.json", c.cline_xml, sessions=1),
        Family("native-tool-era, state.vscdb index", c.cline_native, sessions=1),
        Family("cli session (~/.cline/data/sessions)", c.cline_cli, sessions=1),
    ),
    representable=c.transcripts("cline"),
)
