"""Campfire: pi's format under Campfire's own agent dir; the same families as pi's."""

from __future__ import annotations

from declare import Conformance, use_fixtures

use_fixtures("pi")
import pi_families  # noqa: E402
import pi_strategies  # noqa: E402

CONFORMANCE = Conformance(
    harness="campfire",
    families=pi_families.agent_dir_families(),
    representable=pi_strategies.transcripts(),
    hop_limit=pi_families.HOP_LIMIT,
)
