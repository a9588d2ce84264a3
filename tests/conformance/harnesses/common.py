"""Common JSON, the hub model as a document (``export --format common``): its codec is the
identity, so every Common transcript is representable. Its documents are the Common of other
fixtures: Simple's worked example and Claude Code's realistic session. A document format: no
store."""

from __future__ import annotations

from pathlib import Path

from declare import NO_STORE, Conformance, Family, use_fixtures

from strategies import transcripts
from test_simple import example_transcript
from txcript import harnesses

use_fixtures("claude_code")
import claude_fixtures as cf  # noqa: E402


def documents(root: Path) -> None:
    common = harnesses.get("common")
    claude = cf.common(cf.realistic_records(), session_id=cf.SID)
    (root / "simple-example.json").write_text(common.to_text(example_transcript()))
    (root / "claude-realistic.json").write_text(common.to_text(claude))


CONFORMANCE = Conformance(
    harness="common",
    families=(Family("documents", documents, sessions=2),),
    representable=transcripts,
    skips={
        "store-round-trip": NO_STORE,
        "discovery-matches-load": NO_STORE,
        "reads-leave-store-untouched": NO_STORE,
        "write-preflight": NO_STORE,
        "write-refused-halfway": NO_STORE,
        "hostile-ids": NO_STORE,
    },
)
