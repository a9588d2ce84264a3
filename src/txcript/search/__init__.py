"""Finding sessions by what was said in them: line extraction, the index, patterns, queries.

The one entry point front ends need is :func:`find`: it discovers sessions, brings the
persistent index up to date (reading only changed sessions), and runs the pattern.
"""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Sequence
from datetime import datetime

from txcript.harnesses.base import Discovered
from txcript.search.index import (
    Index,
    Progress,
    Token,
    UpdateStats,
    fallback_index,
    open_index,
    store_token,
)
from txcript.search.lines import DEFAULT_ORIGINS, ORIGINS, Line, extract
from txcript.search.pattern import Pattern
from txcript.search.query import Hit, SessionMatch, search

__all__ = [
    "DEFAULT_ORIGINS",
    "ORIGINS",
    "Hit",
    "Index",
    "Line",
    "Pattern",
    "SessionMatch",
    "UpdateStats",
    "extract",
    "fallback_index",
    "find",
    "indexed_sessions",
    "open_index",
    "search",
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
    """Discover sessions, bring ``index`` up to date with them, and return those matching the
    filters (newest first). The update covers every session of the harnesses asked for, so
    sessions that are gone are pruned even when the filters would hide them."""
    from txcript import harnesses
    from txcript.sessions import is_under

    every, listed = _listed(index, harness_names)
    scope = {harnesses.canonical_id(n) for n in harness_names} if harness_names else None
    index.update(every, scope=scope, progress=progress, listed=listed)
    return [
        s
        for s in every
        if (cwd is None or (s.cwd is not None and is_under(s.cwd, cwd)))
        and (since is None or s.timestamp >= since)
        and (until is None or s.timestamp <= until)
    ]


def _listed(
    index: Index, harness_names: Sequence[str]
) -> tuple[list[Discovered], dict[str, Token]]:
    """Every session of the harnesses asked for, as :func:`txcript.sessions.discover` lists
    them, and the store tokens their listings may be kept under (see :meth:`Index.update`).

    A store whose change token is the one its listing was kept under has not been written
    since, so that listing is used instead of discovering the store again (for Cursor, a
    query of every session's header and composerData)."""
    from txcript.sessions import _chosen, _discover, _existing_store

    explicit = bool(harness_names)
    every: list[Discovered] = []
    listed: dict[str, Token] = {}
    for harness in _chosen(harness_names):
        store = _existing_store(harness)  # (a store with no root is not even imported)
        if store is None:
            continue
        token = store_token(store)
        held = None if token is None else index.listing(harness.id, token)
        if held is not None and token is not None:
            every.extend(held)
            listed[harness.id] = token
            continue
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            found = _discover([harness], explicit=explicit)
        for message in said:
            warnings.warn_explicit(
                message.message, message.category, message.filename, message.lineno
            )
        if token is not None and not said:  # a warning must come again on the next run
            listed[harness.id] = token
        every.extend(found)
    every.sort(key=lambda d: d.timestamp, reverse=True)
    return every, listed


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
    """Sessions matching ``pattern`` (every session, newest first, when it is empty)."""
    own = index is None
    index = open_index() if index is None else index

    def run(index: Index) -> list[SessionMatch]:
        chosen = indexed_sessions(
            index, harness_names, cwd=cwd, since=since, until=until, progress=progress
        )
        return search(
            index, chosen, pattern, origins=origins, limit=limit, hits_per_session=hits_per_session
        )

    try:
        try:
            return run(index)
        except sqlite3.DatabaseError as exc:
            if not (own and index.persistent):
                raise
            index = fallback_index(index, exc)
            return run(index)
    finally:
        if own:
            index.close()
