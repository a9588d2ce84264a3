"""Amp: a legacy local thread with its usage ledger and the debug copy of its last request.
A read-only source: current Amp keeps threads on its servers (docs/formats/amp.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from declare import Conformance, Family

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "amp"))
import amp_fixtures

READ_ONLY = (
    "read-only source: current Amp keeps threads on its servers and never reads a local file, "
    "so txcript writes no Amp copy (docs/formats/amp.md)"
)


def legacy_thread(root: Path) -> None:
    amp_fixtures.write_store(root)


CONFORMANCE = Conformance(
    harness="amp",
    families=(Family("legacy-thread", legacy_thread, sessions=1),),
    skips=dict.fromkeys(
        (
            "store-round-trip",
            "codec-fixpoint",
            "codec-deterministic",
            "write-preflight",
            "write-refused-halfway",
            "hostile-ids",
        ),
        READ_ONLY,
    ),
)
