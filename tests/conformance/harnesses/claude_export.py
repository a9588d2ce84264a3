"""The Claude account export, as the ZIP it is downloaded as (in the folder it was saved in), as
its unzipped folder, and as a bare ``conversations.json``. A read-only source."""

from __future__ import annotations

from pathlib import Path

from declare import READ_ONLY, Conformance, Family, use_fixtures

use_fixtures("claude_export")
from export_fixtures import ZIP_NAME, document, put_zip  # noqa: E402

#: The conversations without attachments: an attachment is an artifact, which the exchange a hop
#: compares leaves out and every writer keeps as text (tests/claude_export reads them exactly).
CONVERSATIONS = dict(stray=False, attachments=False)


def saved_zip(root: Path) -> None:
    put_zip(root / ZIP_NAME, document(**CONVERSATIONS))


def unzipped(root: Path) -> None:
    (root / "conversations.json").write_bytes(document(indent=None, **CONVERSATIONS))
    (root / "users.json").write_text("[]")


def bare(root: Path) -> None:
    (root / "conversations.json").write_bytes(document(**CONVERSATIONS))


CONFORMANCE = Conformance(
    harness="claude_export",
    families=(
        Family("zip", saved_zip, sessions=3),
        Family("unzipped-folder", unzipped, sessions=3),
        Family("indented-conversations-json", bare, sessions=3),
    ),
    skips={
        "store-round-trip": READ_ONLY,
        "codec-fixpoint": READ_ONLY,
        "codec-deterministic": READ_ONLY,
        "write-preflight": READ_ONLY,
        "write-refused-halfway": READ_ONLY,
    },
)
