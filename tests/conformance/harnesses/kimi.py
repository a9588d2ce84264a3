"""Kimi Code: a read-only source (a copy goes through `kimi migrate`), both state.json shapes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

_TESTS = Path(__file__).parents[2]
for _place in (_TESTS / "conformance", _TESTS / "kimi"):  # the suite's declare, our fixtures
    if str(_place) not in sys.path:
        sys.path.append(str(_place))

import kimi_fixtures  # noqa: E402
from declare import Conformance, Family  # noqa: E402

READ_ONLY = (
    "read-only source: Kimi Code is in no registry this project reaches, so a write into its "
    "store cannot be verified; a copy goes through `kimi migrate` from Kimi CLI "
    "(docs/formats/kimi.md)"
)


def _index(root: Path, ident: str) -> None:
    entry = {
        "sessionId": ident,
        "sessionDir": f"sessions/{kimi_fixtures.KEY}/{ident}",
        "workDir": kimi_fixtures.WORK_DIR,
    }
    (root / "session_index.jsonl").write_text(json.dumps(entry) + "\n")


def _v2(root: Path) -> None:
    kimi_fixtures.write_session(
        root, kimi_fixtures.V2_ID, kimi_fixtures.v2_state(), kimi_fixtures.v2_wire()
    )
    _index(root, kimi_fixtures.V2_ID)


def _earlier(root: Path) -> None:
    kimi_fixtures.write_session(
        root, kimi_fixtures.V1_ID, kimi_fixtures.v1_state(), kimi_fixtures.v1_wire()
    )
    _index(root, kimi_fixtures.V1_ID)


CONFORMANCE = Conformance(
    harness="kimi",
    families=(
        Family("state-v2-with-undo", _v2, sessions=1),
        Family("state-earlier-shape", _earlier, sessions=1),
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
