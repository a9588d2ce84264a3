"""The human ``list`` table: columns cut by display width, ids shortened on a terminal.

Pure layout (no I/O): :func:`list_lines` turns sessions into styled parts, so tests can check
exactly what a terminal of a given width receives.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from txcript.cli.output import DIM, age, cut, harness_style, pad
from txcript.harnesses import REGISTRY
from txcript.harnesses.base import Discovered
from txcript.shared.text import scrub

Part = str | tuple[str, str]

#: Outside a terminal the layout is fixed, so scripts reading it see stable columns; the harness
#: column holds the longest registered id whole.
PIPE_HARNESS_WIDTH = max(14, *(len(info.id) for info in REGISTRY))
PIPE_ID_WIDTH = 38
PIPE_LABEL_WIDTH = 60
#: The shortest id shown on a terminal: enough to tell sessions apart and to type as a REF.
SHORT_ID = 8
WHEN_WIDTH = 10
MIN_LABEL = 12
GAP = "  "


def short_ids(ids: Sequence[str]) -> dict[str, str]:
    """Each id cut to the shortest prefix (at least :data:`SHORT_ID`) no other id shares."""
    ordered = sorted(set(ids))
    shortened: dict[str, str] = {}
    for index, ident in enumerate(ordered):
        shared = 0
        for other in ordered[max(index - 1, 0) : index + 2]:
            if other != ident:
                common = 0
                for a, b in zip(ident, other, strict=False):
                    if a != b:
                        break
                    common += 1
                shared = max(shared, common)
        shortened[ident] = ident[: max(SHORT_ID, shared + 1)]
    return shortened


def list_lines(
    sessions: Sequence[Discovered], now: datetime, width: int | None
) -> list[list[Part]]:
    """The header and one row per session; ``width`` is the terminal's, or None for a pipe."""
    ids = [scrub(s.meta_id) for s in sessions]
    if width is None:
        harness_width = PIPE_HARNESS_WIDTH
        shown = {ident: ident for ident in ids}
        id_width = PIPE_ID_WIDTH
        label_width = PIPE_LABEL_WIDTH
    else:
        harness_width = max(len("HARNESS"), *(len(s.harness) for s in sessions))
        shown = short_ids(ids)
        id_width = max(len(v) for v in shown.values())
        used = harness_width + WHEN_WIDTH + id_width + 3 * len(GAP)
        label_width = max(MIN_LABEL, width - used)
    header: list[Part] = [
        (
            GAP.join(
                (
                    pad("HARNESS", harness_width),
                    pad("WHEN", WHEN_WIDTH),
                    pad("ID", id_width),
                    "TITLE / CWD",
                )
            ),
            DIM,
        )
    ]
    lines = [header]
    for session, ident in zip(sessions, ids, strict=True):
        label = " ".join(scrub(session.title or session.cwd or "").split())
        if session.kind is not None:
            label = f"[{scrub(session.kind)}] {label}"
        if session.parent is not None:
            label = f"↳ sub-agent of {cut(scrub(session.parent), SHORT_ID + 4)}: {label}"
        if session.account is not None:
            label = f"{label} · account {scrub(session.account)[:SHORT_ID]}"
        if session.also_in:
            label = f"{label}  (also in {', '.join(session.also_in)})".lstrip()
        lines.append(
            [
                (pad(session.harness, harness_width), harness_style(session.harness)),
                GAP,
                (pad(age(session.timestamp, now), WHEN_WIDTH), DIM),
                GAP,
                (pad(cut(shown[ident], id_width), id_width), DIM),
                GAP,
                cut(label, label_width),
            ]
        )
    return lines
