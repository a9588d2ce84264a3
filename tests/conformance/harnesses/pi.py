"""pi: one family per format generation and tree shape the spec names (v1, v2, v3 with a
parallel batch, a branched tree, both compactions, a duplicated header), each a real agent dir."""

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
    harness="pi",
    families=pi_families.agent_dir_families(),
    representable=pi_strategies.transcripts(),
)
