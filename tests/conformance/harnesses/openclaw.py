"""OpenClaw: a state dir with an agent's transcripts and its ``sessions.json`` index (an indexed
session, an older unindexed one, rotated and checkpoint copies that are not sessions), and an
agent dir without an index."""

from __future__ import annotations

import sys
from pathlib import Path

_PI_TESTS = Path(__file__).resolve().parents[2] / "pi"
if str(_PI_TESTS) not in sys.path:
    sys.path.append(str(_PI_TESTS))

import pi_families  # noqa: E402
import pi_strategies  # noqa: E402
from declare import Conformance  # noqa: E402

CONFORMANCE = Conformance(
    harness="openclaw",
    families=pi_families.openclaw_families(),
    representable=pi_strategies.transcripts(),
)
