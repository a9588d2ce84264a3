"""OpenClaw: a state dir with an agent's transcripts and its ``sessions.json`` index (an indexed
session, an older unindexed one, rotated and checkpoint copies that are not sessions), and an
agent dir without an index."""

from __future__ import annotations

from declare import Conformance, use_fixtures

use_fixtures("pi")
import pi_families  # noqa: E402
import pi_strategies  # noqa: E402

CONFORMANCE = Conformance(
    harness="openclaw",
    families=pi_families.openclaw_families(),
    representable=pi_strategies.transcripts(),
    text_facts=pi_families.OPENCLAW_TEXT_FACTS,
    hop_limit=pi_families.HOP_LIMIT,
)
