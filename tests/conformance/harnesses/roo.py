"""Roo Code: a task indexed in the editor's state.vscdb, and a 2026 task with its own
history_item.json."""

from __future__ import annotations

from declare import Conformance, Family, use_fixtures

use_fixtures("cline")
import cline_conformance as c  # noqa: E402

CONFORMANCE = Conformance(
    harness="roo",
    families=(
        Family("state.vscdb index", c.roo_state, sessions=1),
        Family("history_item.json", c.roo_item, sessions=1),
    ),
    representable=c.transcripts("roo"),
)
