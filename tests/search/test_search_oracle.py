"""The tiered search against the plainest one: every line of every session scored.

``search`` skips most of that work (trigram candidates, literal tiers visited newest first and
stopped at the limit, a scan narrowed to sessions holding the exact atoms). Whatever it skips,
the sessions it gives, their order and their scores must be what scoring every line gives.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from searchfixtures import save_claude, stores_under, transcript

from txcript.search import DEFAULT_ORIGINS, open_index, refresh, search
from txcript.search.index import Index, Ranked
from txcript.search.pattern import Pattern

WORDS = ["auth", "token", "parser", "config", "rollback", "schema", "café", "Auth", "tests"]
WORDS += ["fix", "bug", "the", "a", "tstprs", "cafe", "authtoken", "roll", "back", "prs"]


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Index, Ranked]]:
    """Sixteen sessions of short lines drawn from :data:`WORDS` (seeded: the same every run);
    two start on the same day, so discovery order breaks a tie."""
    root = stores_under(tmp_path, monkeypatch) / "claude"
    chance = random.Random(14)
    for n in range(16):
        texts = [
            (
                chance.choice(["user", "assistant"]),
                " ".join(chance.choices(WORDS, k=chance.randint(1, 6))),
            )
            for _ in range(chance.randint(1, 5))
        ]
        session_id = f"abababab-0000-4000-8000-{n:012d}"
        save_claude(root, transcript(session_id, texts, day=min(n, 14)))
    held = open_index()
    try:
        yield held, held.ranked(refresh(held))
    finally:
        held.close()


def _atom(words: tuple[str, str], start: int, length: int, kind: str, negated: bool) -> str:
    word = words[0]
    text = word[start % len(word) :][: max(1, length)]
    if kind == "gapped":  # a subsequence of two words run together: matches with gaps only
        joined = words[0] + words[1]
        text = joined[start % 2 :: 2][: max(2, length)]
    body = {"exact": "'" + text, "prefix": "^" + text, "suffix": text + "$"}.get(kind, text)
    return ("!" if negated and kind != "gapped" else "") + body


atoms = st.builds(
    _atom,
    st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS)),
    st.integers(0, 5),
    st.integers(1, 8),
    st.sampled_from(["fuzzy", "gapped", "gapped", "exact", "prefix", "suffix"]),
    st.sampled_from([False, False, False, True]),
)
patterns = st.lists(atoms, min_size=1, max_size=3).map(" ".join)


def _plainly(index: Index, ranked: Ranked, text: str, limit: int) -> list[tuple[str, int]]:
    """Every line of every session scored; sessions by best score, then newest first."""
    pattern = Pattern(text)
    scored = []
    for position, doc in enumerate(ranked.docs):
        scores = [
            found.score
            for line in index.lines_of(doc, DEFAULT_ORIGINS)
            if (found := pattern.match(line.text)) is not None
        ]
        if scores:
            scored.append((-max(scores), position, doc))
    chosen = sorted(scored)[:limit]
    listings = ranked.sessions([doc for _, _, doc in chosen])
    return [(s.meta_id, -score) for s, (score, _, _) in zip(listings, chosen, strict=True)]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=patterns, limit=st.integers(1, 5))
def test_search_gives_what_scoring_every_line_gives(
    index: tuple[Index, Ranked], text: str, limit: int
) -> None:
    held, ranked = index
    found = search(held, ranked, text, limit=limit)
    assert [(m.session.meta_id, m.score) for m in found] == _plainly(held, ranked, text, limit)
    pattern = Pattern(text)
    for match in found:
        assert match.hits and all(pattern.match(hit.line) is not None for hit in match.hits)
        assert max(hit.score for hit in match.hits) == match.score
