"""Kilo Code: its 2026 kilo.db (an OpenCode database), and a task of its older extension indexed
in the editor's state.vscdb."""

from __future__ import annotations

from declare import (
    Conformance,
    Family,
    HopLimit,
    commands_as_prompts,
    composed,
    results_in_call_order,
    use_fixtures,
)

use_fixtures("cline")
import cline_conformance as c  # noqa: E402
import cline_fixtures as f  # noqa: E402

CONFORMANCE = Conformance(
    harness="kilo",
    families=(
        Family("kilo.db", c.kilo_database, sessions=1),
        Family("older extension, state.vscdb index", c.kilo_legacy, sessions=1),
    ),
    representable=c.kilo_transcripts(),
    hop_limit=HopLimit(
        "a kilo.db tool part (OpenCode's) holds its call and its result, so the results of a "
        "batch of calls come back in the order of the calls; a slash command is the prompt that "
        "ran it",
        composed(commands_as_prompts, results_in_call_order),
    ),
    # Kilo writes into the kilo.db its CLI creates on its first run, never a database of its own.
    fresh_root=lambda root: f.empty_kilo_db(root),
)
