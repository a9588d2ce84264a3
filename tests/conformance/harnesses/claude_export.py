"""The Claude account export's conformance declaration: the export as a ZIP, as its unzipped
folder, and as a bare ``conversations.json``. A read-only source: every write contract is
skipped for that reason."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "claude_export"))
sys.path.insert(0, str(Path(__file__).parents[2]))

from export_fixtures import document, put_folder, put_zip

from conformance.declare import Conformance, Family

READ_ONLY = "read-only source: an account export is never written (no from_common, no save)"


def _zip(root: Path) -> None:
    put_zip(root, document(stray=False))


def _folder(root: Path) -> None:
    put_folder(root, document(indent=None, stray=False))


def _bare(root: Path) -> None:
    root.parent.mkdir(parents=True, exist_ok=True)
    root.write_bytes(document(stray=False))


CONFORMANCE = Conformance(
    harness="claude_export",
    families=(
        Family("zip", _zip, sessions=3),
        Family("unzipped folder", _folder, sessions=3),
        Family("bare conversations.json", _bare, sessions=3),
    ),
    skips={
        "store-round-trip": READ_ONLY,
        "codec-fixpoint": READ_ONLY,
        "codec-deterministic": READ_ONLY,
        "write-preflight": READ_ONLY,
        "write-refused-halfway": READ_ONLY,
        "hostile-ids": READ_ONLY + "; ids are only looked up, never made into paths",
        "hop": READ_ONLY + "; nothing converts into it (its hops out are tests/cross)",
    },
    env=lambda root: {"CLAUDE_EXPORT": str(root)},
)
