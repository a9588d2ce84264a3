"""pi: one family per format generation and tree shape the spec names (v1, v2, v3 with a
parallel batch, a branched tree, both compactions, a duplicated header), each a real agent dir."""

from __future__ import annotations

from declare import Conformance, use_fixtures

use_fixtures("pi")
import pi_families  # noqa: E402
import pi_strategies  # noqa: E402

CONFORMANCE = Conformance(
    harness="pi",
    families=pi_families.agent_dir_families(),
    representable=pi_strategies.transcripts(),
    hop_limit=pi_families.HOP_LIMIT,
)
