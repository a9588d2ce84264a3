"""The conformance fixture families of the pi-format harnesses: one per format generation and
tree shape the spec names, each laid out as a real agent dir
(``<root>/sessions/--<cwd>--/<time>_<id>.jsonl``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pi_fixtures as f
from declare import Family, HopLimit, StoreFacts, commands_as_prompts, replaced

SHAPES: dict[str, tuple[str, Callable[[], str]]] = {
    "v1": (f.SID_V1, f.v1),
    "v2": (f.SID_V2, f.v2),
    "v3 parallel batch": (f.SID_V3, f.v3),
    "branched tree": (f.SID_TREE, f.branched),
    "compaction": (f.SID_COMPACT, f.compacted),
    "compaction with retained tail": (f.SID_TAIL, f.compacted_with_tail),
    "duplicated header": (f.SID_DUP, f.duplicated_header),
}


def _builder(sid: str, body: Callable[[], str]) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        f.write_pi(root, sid, body())

    return build


def agent_dir_families() -> tuple[Family, ...]:
    return tuple(
        Family(name, _builder(sid, body), sessions=1) for name, (sid, body) in SHAPES.items()
    )


def _openclaw_indexed(root: Path) -> None:
    f.write_openclaw(root)


def _openclaw_plain(root: Path) -> None:
    """A second agent whose dir has no index at all, holding a v3 session."""
    sessions = root / "agents" / "work" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / f"{f.SID_V3}.jsonl").write_text(f.v3())


def openclaw_families() -> tuple[Family, ...]:
    return (
        Family("agent dir with its index", _openclaw_indexed, sessions=2),
        Family("agent dir without an index", _openclaw_plain, sessions=1),
    )


#: What a hop into pi, Campfire or OpenClaw cannot keep.
HOP_LIMIT = HopLimit(
    "pi has no record for a user's slash command: it is written as the prompt text that ran it, "
    "and its output as the user's text after it",
    commands_as_prompts,
)
#: What OpenClaw's text form (the transcript alone) does not hold.
OPENCLAW_TEXT_FACTS = StoreFacts(
    "an OpenClaw session's title and model override come from its entry in the agent's "
    "sessions.json, which is beside the transcript, not in it",
    lambda native: replaced(native, index_key=None, index_entry=None),
)
