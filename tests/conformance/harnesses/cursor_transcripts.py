"""Cursor's agent transcripts: a JSONL transcript in its own directory and an older plain-text
one, under ``~/.cursor/projects/<slug>/agent-transcripts/``. A read-only source."""

from __future__ import annotations

from pathlib import Path

from declare import READ_ONLY, Conformance, Family, StoreFacts, replaced, use_fixtures

use_fixtures("cursor_cli")
from cursor_cli_fixtures import write_transcripts  # noqa: E402

#: A workspace that does not exist here: the transcripts' cwd stays unresolved, as it does for
#: a project of another machine.
WORKSPACE = "/home/dev/acme"


def both_forms(root: Path) -> None:
    write_transcripts(root, WORKSPACE)


CONFORMANCE = Conformance(
    harness="cursor_transcripts",
    families=(Family("jsonl-and-txt", both_forms, sessions=2),),
    text_facts=StoreFacts(
        "a transcript's id is its file name, its cwd the project its directory's slug resolves "
        "to, and a plain-text transcript's time is the file's mtime",
        lambda native: replaced(native, id="", resolved_cwd=None, modified_ms=None),
    ),
    skips={
        "store-round-trip": READ_ONLY,
        "codec-fixpoint": READ_ONLY,
        "codec-deterministic": READ_ONLY,
        "write-preflight": READ_ONLY,
        "write-refused-halfway": READ_ONLY,
    },
)
