"""GitHub Copilot CLI: a read-only source, in all three of its layouts."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

_TESTS = Path(__file__).parents[2]
for _place in (_TESTS / "conformance", _TESTS / "copilot"):  # the suite's declare, our fixtures
    if str(_place) not in sys.path:
        sys.path.append(str(_place))

import copilot_fixtures  # noqa: E402
from declare import Conformance, Family  # noqa: E402

READ_ONLY = (
    "read-only source: Copilot CLI validates a resumed session strictly, so txcript has no "
    "writer for it (docs/formats/copilot.md)"
)


def _event_log(root: Path) -> None:
    copilot_fixtures.build_store(root)
    shutil.rmtree(root / "history-session-state")
    (root / "session-store.db").unlink()


def _flat_log(root: Path) -> None:
    copilot_fixtures.build_store(root)
    shutil.rmtree(root / "session-state")
    (root / "session-store.db").unlink()


def _store_database(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    copilot_fixtures.build_database(root / "session-store.db")


CONFORMANCE = Conformance(
    harness="copilot",
    families=(
        Family("event-log", _event_log, sessions=1),
        Family("flat-legacy-log", _flat_log, sessions=1),
        # both sessions' rows, the event-log one's included: without its log it is read from them
        Family("store-database", _store_database, sessions=2),
    ),
    skips={
        "store-round-trip": READ_ONLY,
        "codec-fixpoint": READ_ONLY,
        "codec-deterministic": READ_ONLY,
        "write-preflight": READ_ONLY,
        "write-refused-halfway": READ_ONLY,
        "hostile-ids": READ_ONLY,
        "hop": READ_ONLY,
    },
)
