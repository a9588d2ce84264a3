"""Amp: a legacy local thread with its usage ledger and the debug copy of its last request.
A read-only source: current Amp keeps threads on its servers (docs/formats/amp.md)."""

from __future__ import annotations

from pathlib import Path

from declare import Conformance, Family, use_fixtures

use_fixtures("amp")
import amp_fixtures  # noqa: E402

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
        ),
        READ_ONLY,
    ),
)
