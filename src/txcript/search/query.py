"""Running a pattern over the index: candidate lines, exact scores, ranked sessions and hits.

Ranking: a session scores its best line; sessions sort by score (descending), then start time
(newest first), then discovery order. Each session keeps its ``hits_per_session`` best lines,
shown in transcript order.

Candidates come in tiers, each scoring strictly above the next, so a tier that already fills the
limit makes the lower ones unnecessary:

1. lines holding the whole pattern literally (they carry the literal bonus);
2. lines holding every positive atom contiguously (each atom scores its maximum);
3. every other line (a scan, needed only when the first tiers found fewer sessions than asked).

Every line of tier 1 scores the same (the bonus plus every atom's maximum), and so does every
line of tier 2, so within those tiers sessions rank by recency alone: they are visited newest
first and the visit stops once the limit is filled. A case-sensitive pattern's tier 2 is not
uniform (the index folds case), so its candidates are scored in full. The winning sessions are
then re-scored over all their lines, so hits and scores are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from txcript.harnesses.base import Discovered
from txcript.search.index import Index, StoredLine, session_key
from txcript.search.lines import DEFAULT_ORIGINS
from txcript.search.pattern import ATOM_MAX, LITERAL_BONUS, Pattern, fold

#: Trigram narrowing needs at least this many characters per needle.
_MIN_NEEDLE = 3


@dataclass(frozen=True, slots=True)
class Hit:
    #: 0-based message index; None for a ``meta`` line (title, cwd, branch).
    message: int | None
    block: int
    origin: str
    line: str
    score: int
    highlights: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class SessionMatch:
    session: Discovered
    score: int
    hits: tuple[Hit, ...]


def _best(pattern: Pattern, lines: Sequence[StoredLine]) -> dict[int, int]:
    best: dict[int, int] = {}
    for line in lines:
        found = pattern.match(line.text)
        if found is not None and found.score > best.get(line.doc, -1):
            best[line.doc] = found.score
    return best


def _score(pattern: Pattern, text: str) -> int:
    found = pattern.match(text)
    return -1 if found is None else found.score


def _hits(pattern: Pattern, lines: Sequence[StoredLine], keep: int) -> tuple[int, tuple[Hit, ...]]:
    scored: list[tuple[int, int, Hit]] = []
    for position, line in enumerate(lines):
        found = pattern.match(line.text)
        if found is not None:
            hit = Hit(
                line.message, line.block, line.origin, line.text, found.score, found.highlights
            )
            scored.append((found.score, position, hit))
    if not scored:
        return -1, ()
    top = sorted(scored, key=lambda item: (-item[0], item[1]))[:keep]
    ordered = tuple(hit for _, _, hit in sorted(top, key=lambda item: item[1]))
    return top[0][0], ordered


def search(
    index: Index,
    sessions: Sequence[Discovered],
    pattern_text: str,
    *,
    origins: frozenset[str] = DEFAULT_ORIGINS,
    limit: int = 20,
    hits_per_session: int = 3,
) -> list[SessionMatch]:
    """The best ``limit`` sessions of ``sessions`` (newest first) for ``pattern_text``."""
    pattern = Pattern(pattern_text)
    if pattern.empty:
        return [SessionMatch(s, 0, ()) for s in sessions[:limit]]
    known = index.docs()
    rank: dict[int, int] = {}
    by_doc: dict[int, Discovered] = {}
    for position, session in enumerate(sessions):
        held = known.get(session_key(session))
        if held is not None and held[0] not in rank:
            rank[held[0]] = position
            by_doc[held[0]] = session
    docs = set(rank)
    best: dict[int, int] = {}
    uniform = min(len(pattern.positive) * ATOM_MAX, LITERAL_BONUS - 1)
    tiers: list[tuple[list[str], int | None]] = []
    literal = fold(pattern.literal)
    if len(literal) >= _MIN_NEEDLE:
        tiers.append(([literal], LITERAL_BONUS + uniform))
    needles = pattern.literal_needles()
    if needles and all(len(n) >= _MIN_NEEDLE for n in needles):
        tiers.append((needles, None if pattern.case_sensitive else uniform))
    for needles_of_tier, tier_score in tiers:
        if len(best) >= limit:
            break
        candidates = index.substring_lines(needles_of_tier, docs - best.keys(), origins)
        if tier_score is None:
            best.update(_best(pattern, [ln for group in candidates.values() for ln in group]))
            continue
        for doc in sorted(candidates, key=rank.__getitem__):
            if any(_score(pattern, ln.text) >= tier_score for ln in candidates[doc]):
                best[doc] = tier_score
                if len(best) >= limit:
                    break
    if len(best) < limit:
        for doc in sorted(docs - best.keys(), key=rank.__getitem__):
            best.update(_best(pattern, index.lines_of(doc, origins)))
    chosen = sorted(best, key=lambda d: (-best[d], rank[d]))[:limit]
    scored = []
    for doc in chosen:
        score, hits = _hits(pattern, index.lines_of(doc, origins), hits_per_session)
        scored.append((score, rank[doc], SessionMatch(by_doc[doc], score, hits)))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [match for _, _, match in scored]
