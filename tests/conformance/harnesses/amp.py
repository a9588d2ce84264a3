"""Amp's conformance declaration: a read-only source (current Amp keeps threads on its servers,
so nothing is written into it; see docs/formats/amp.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conformance.declare import Conformance, Family

sys.path.insert(0, str(Path(__file__).parents[2] / "amp"))

import amp_fixtures

READ_ONLY = (
    "read-only source: current Amp keeps threads on its servers and never reads a local file, "
    "so txcript writes no Amp copy (docs/formats/amp.md)"
)


def _legacy(root: Path) -> None:
    amp_fixtures.write_store(root)


CONFORMANCE = Conformance(
    harness="amp",
    families=(Family("legacy local thread (ledger and debug copy)", _legacy, sessions=1),),
    skips={
        contract: READ_ONLY
        for contract in (
            "store-round-trip",
            "codec-fixpoint",
            "codec-deterministic",
            "write-preflight",
            "write-refused-halfway",
            "hostile-ids",
            "hop",
        )
    },
)
