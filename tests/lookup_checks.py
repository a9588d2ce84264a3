"""Checks shared by every harness's direct-lookup tests: a REF resolves to the same session (or
the same error) by direct lookup as by a full discovery, and ids skip the full discovery."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from txcript import harnesses, sessions
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput
from txcript.fragment import split_fragment
from txcript.harnesses.base import Discovered
from txcript.shared.text import scrub

Answer = tuple[Discovered, object] | str
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def save_sessions(rows: Iterable[tuple[str, str, str, int]]) -> None:
    """Save each ``(harness, id, title, minutes after T0)`` as a two-message session into that
    harness's store (as found from the environment)."""
    for harness_id, session_id, title, minutes in rows:
        harness = harnesses.get(harness_id)
        store = harness.store()
        assert store is not None
        at = T0 + timedelta(minutes=minutes)
        transcript = m.Transcript(
            meta=m.Meta(id=session_id, timestamp=at, cwd="/repo", title=title),
            messages=(
                m.Message(role="user", content=(m.Text(text="hello"),), timestamp=at),
                m.Message(role="assistant", content=(m.Text(text="hi"),), timestamp=at),
            ),
        )
        store.save(harness.from_common(transcript))


def by_discovery(reference: str, scope: str | None = None) -> Answer:
    """What ``reference`` named before direct lookups: §1 of the lookup rules, over a full
    discovery (the oracle the direct path must agree with)."""
    source, request = split_fragment(reference)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")  # (recorded, not given: only the answer is compared)
        found = sessions.discover([scope] if scope else ())
    if request is not None and [s for s in found if reference in (s.meta_id, s.title)]:
        source, request = reference, None
    try:
        return sessions.find_session(source, found, scope), request
    except BadInput as exc:
        unreadable = sessions._unreadable_file(source, said)
        if unreadable is not None:  # a name only an unreadable file holds: that file, and why
            return f"reading {unreadable.path}: {unreadable.reason}"
        if "/" in reference or "\\" in reference:
            return f"no local session matches `{scrub(reference)}`, and no such file exists"
        return str(exc)


def by_resolve(reference: str, scope: str | None = None) -> Answer:
    """What ``reference`` names now (direct lookup first). (Only the answer counts here: the
    warnings a store gives on the way are not compared.)"""
    source, request = split_fragment(reference)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        try:
            return sessions._resolve(reference, source, request, scope)
        except BadInput as exc:
            return str(exc)


@contextmanager
def counting_discoveries(monkeypatch: pytest.MonkeyPatch, store_class: Any) -> Iterator[list[int]]:
    """Count full discoveries of ``store_class`` stores while the block runs."""
    calls: list[int] = []
    original = store_class.discover

    def counted(self: Any) -> list[Discovered]:
        calls.append(1)
        result: list[Discovered] = original(self)
        return result

    monkeypatch.setattr(store_class, "discover", counted)
    yield calls
    monkeypatch.setattr(store_class, "discover", original)


def assert_same_answers(
    monkeypatch: pytest.MonkeyPatch,
    store_class: Any,
    direct: list[str],
    others: list[str],
    scope: str | None = None,
) -> None:
    """``direct`` refs (ids, unique prefixes, id#range) resolve without a full discovery of
    ``store_class``; ``others`` (titles, ambiguous prefixes, unknown names) may discover. Both
    give exactly the discovery answer."""
    for reference in [*direct, *others]:
        expected = by_discovery(reference, scope)
        with counting_discoveries(monkeypatch, store_class) as calls:
            actual = by_resolve(reference, scope)
        assert actual == expected, reference
        if reference in direct:
            assert not calls, f"{reference} ran a full discovery"
            assert not isinstance(actual, str), reference
