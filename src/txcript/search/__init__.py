"""Finding sessions by what was said in them: line extraction, the index, patterns, queries.

The one entry point front ends need is :func:`find`: it brings the persistent index in step
with the stores (:mod:`.refresh`: an unwritten store is not even opened, a store of files is
asked what changed, and only changed sessions are read), ranks the sessions the index holds, and
runs the pattern.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from txcript.errors import BadInput
from txcript.harnesses.base import Discovered
from txcript.search.index import (
    Index,
    Progress,
    Ranked,
    UpdateStats,
    open_index,
    with_fallback,
)
from txcript.search.lines import DEFAULT_ORIGINS, ORIGINS, Line, extract
from txcript.search.pattern import Pattern
from txcript.search.query import Hit, SessionMatch, search
from txcript.search.refresh import refresh

__all__ = [
    "DEFAULT_ORIGINS",
    "MAX_ATOMS",
    "ORIGINS",
    "Hit",
    "Index",
    "Line",
    "Pattern",
    "Ranked",
    "SessionMatch",
    "UpdateStats",
    "extract",
    "find",
    "indexed_sessions",
    "open_index",
    "refresh",
    "search",
    "with_fallback",
]


def indexed_sessions(
    index: Index,
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    progress: Progress | None = None,
) -> list[Discovered]:
    """Bring ``index`` up to date with the stores and return the sessions matching the
    filters (newest first). The update covers every session of the harnesses asked for, so
    sessions that are gone are pruned even when the filters would hide them."""
    ranked = _ranked(index, harness_names, cwd, since, until, progress)
    return ranked.sessions(ranked.docs)


def _ranked(
    index: Index,
    harness_names: Sequence[str],
    cwd: str | None,
    since: datetime | None,
    until: datetime | None,
    progress: Progress | None,
) -> Ranked:
    current = refresh(index, harness_names, progress=progress)
    return index.ranked(current, cwd=cwd, since=since, until=until)


#: At most this many atoms in a pattern given to :func:`find`. Each negated or short atom is
#: tested against every line of every session (the trigram index cannot narrow them): 20 000
#: of them, which an MCP client can send in one call, took half a minute over 12 000 lines.
MAX_ATOMS = 64


def find(
    pattern: str,
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    origins: frozenset[str] = DEFAULT_ORIGINS,
    limit: int = 20,
    hits_per_session: int = 3,
    progress: Progress | None = None,
    index: Index | None = None,
) -> list[SessionMatch]:
    """Sessions matching ``pattern`` (every session, newest first, when it is empty); bad
    input when it has more than :data:`MAX_ATOMS` atoms or names a harness that has no store,
    found before the index is opened (or created)."""
    from txcript.sessions import chosen_harnesses

    atoms = len(Pattern(pattern).atoms)
    if atoms > MAX_ATOMS:
        raise BadInput(f"the pattern has {atoms} words; at most {MAX_ATOMS} can be searched")
    if harness_names:
        chosen_harnesses(harness_names)

    def run(index: Index) -> list[SessionMatch]:
        chosen = _ranked(index, harness_names, cwd, since, until, progress)
        return search(
            index, chosen, pattern, origins=origins, limit=limit, hits_per_session=hits_per_session
        )

    if index is not None:  # the caller's index: its failures are the caller's
        return run(index)
    opened = open_index()
    try:
        matches, used = with_fallback(opened, run)
    finally:
        opened.close()
    used.close()
    return matches
