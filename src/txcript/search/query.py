"""Running a pattern over the index: candidate sessions, exact scores, ranked sessions and hits.

Ranking: a session scores its best line; sessions sort by score (descending), then start time
(newest first), then discovery order. Each session keeps its ``hits_per_session`` best lines,
shown in transcript order.

Candidates come in tiers, each scoring strictly above the next, so a tier that already fills the
limit makes the lower ones unnecessary:

1. lines holding the whole pattern literally (they carry the literal bonus);
2. lines holding every positive atom contiguously (each atom scores its maximum);
3. every other line (a scan, needed only when the first tiers found fewer sessions than asked;
   a line must still hold each exact, prefix or suffix atom literally, so with such an atom
   only the sessions the trigram index names for it are scanned, and tier 2, whose lines are
   then cheap to find, scores its candidates in full so the scan does not decode them again).

Every line of tier 1 scores the same (the bonus plus every atom's maximum), and so does every
line of tier 2, and that score is the best any line can reach at that tier. So within those
tiers sessions rank by recency alone: they are visited newest first, the visit stops once the
limit is filled, and a session's hits are its first lines reaching the tier's score, found
without scoring the rest. A case-sensitive pattern's tier 2 is not uniform (the index folds
case), so its candidates are scored in full, as are the winners of the scan.

Only lines that can match are scored: the trigram index names the parts of sessions worth
decoding, a substring test on the folded lines picks the lines of tiers 1 and 2, and the scan
keeps the lines holding the first positive atom (as a subsequence, by rapidfuzz, for a fuzzy
atom) before the full pattern runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import AnyStr

import msgspec

from txcript.harnesses.base import Discovered
from txcript.search.index import Index, Ranked, parts_for, session_key
from txcript.search.lines import DEFAULT_ORIGINS
from txcript.search.parts import ORIGIN_CODE, Part, pinned
from txcript.search.pattern import (
    ATOM_MAX,
    LITERAL_BONUS,
    LineMatch,
    Pattern,
    fold,
    gapped_score,
    holds,
)

#: Trigram narrowing needs at least this many characters per needle.
_MIN_NEEDLE = 3
#: Candidates are visited in runs of this many, each run's parts fetched at once.
_RUN = 32


class Hit(msgspec.Struct, frozen=True, gc=False):
    #: 0-based message index; None for a ``meta`` line (title, cwd, branch).
    message: int | None
    block: int
    origin: str
    line: str
    score: int
    highlights: tuple[tuple[int, int], ...]


class SessionMatch(msgspec.Struct, frozen=True, gc=False):
    session: Discovered
    score: int
    hits: tuple[Hit, ...]


#: A scored line: its score, its place in the transcript, and the hit it makes.
Scored = tuple[int, tuple[int, int, int], Hit]


def _hit(part: Part, line: int, found: LineMatch) -> Scored:
    stored = part.stored(line)
    hit = Hit(
        stored.message, stored.block, stored.origin, stored.text, found.score, found.highlights
    )
    return found.score, part.order(line), hit


class _Lines:
    """How a search picks and scores the lines of the parts it decodes. Parts are not kept:
    one that does not match is dropped at once, and one that does is decoded at most twice."""

    def __init__(self, index: Index, pattern: Pattern, origins: frozenset[str]) -> None:
        self.index = index
        self.pattern = pattern
        self.codes = frozenset(ORIGIN_CODE[o] for o in origins)
        self.parts = parts_for(origins)
        self._lone_fuzzy = pattern.lone_fuzzy()

    def _wanted(self, part: Part, lines: Iterable[int]) -> list[int]:
        codes = self.codes
        return [n for n in lines if part.origin(n) in codes]

    def holding(self, part: Part, needles: Sequence[str]) -> list[int]:
        """Lines of the search's origins whose folded text contains every needle."""
        return self._wanted(part, part.lines_holding(needles))

    def possible(self, part: Part) -> list[int]:
        """Lines of the search's origins that can match: each positive atom must occur in the
        part as a whole (a fuzzy one as a subsequence), and a line must hold the most
        selective atom (an exact one when there is one, else the first fuzzy one)."""
        pattern = self.pattern
        exact = pattern.case_sensitive
        for atom in sorted(pattern.positive, key=lambda a: a.kind == "fuzzy"):  # cheap first
            if atom.kind == "fuzzy":
                needle = pattern.fuzzy_form(atom.text)
                if exact:
                    held = _subsequence(needle, part.joined)
                elif part.bytes_fold:  # (a superset for non-ASCII needles: a pre-test only)
                    held = _subsequence(needle.encode("utf-8", "surrogatepass"), part.lowered_raw)
                else:
                    held = _subsequence(needle, part.folded_joined)
                if not held:
                    return []
            elif not (
                pattern.case_form(atom.text) in part.joined
                if exact
                else part.holds_lowered(pattern.case_form(atom.text))
            ):
                return []
        if not pattern.positive:
            return self._wanted(part, range(len(part.texts)))
        anchor = next((a for a in pattern.positive if a.kind != "fuzzy"), pattern.positive[0])
        if anchor.kind == "fuzzy":
            from rapidfuzz import process
            from rapidfuzz.distance import LCSseq

            needle = pattern.fuzzy_form(anchor.text)
            found = process.extract(
                needle,
                part.texts if exact else part.folded,
                scorer=LCSseq.similarity,
                score_cutoff=len(needle),
                limit=None,
            )
            return self._wanted(part, sorted(n for _, _, n in found))
        needle = pattern.case_form(anchor.text)
        if not exact:
            where = part.lines_where(needle, anchor.kind)
            if where is not None:
                return self._wanted(part, where)
        texts = part.texts if exact else part.lowered
        return self._wanted(
            part, (n for n, text in enumerate(texts) if holds(anchor, text, needle))
        )

    def scored(self, doc: int, parts: Sequence[int], needles: Sequence[str] | None) -> list[Scored]:
        """Every matching line of the doc's ``parts`` (those holding ``needles``, when given)."""
        out: list[Scored] = []
        for part_id in parts:
            part = self.index.part(doc, part_id)
            if part is None:
                continue
            lines = self.possible(part) if needles is None else self.holding(part, needles)
            for line in lines:
                found = self.pattern.match(part.texts[line])
                if found is not None:
                    out.append(_hit(part, line, found))
        return out

    def best(self, doc: int, parts: Sequence[int]) -> int:
        """The best score of a matching line of the doc's ``parts`` (-1: none), without
        building hits or their highlights."""
        top = -1
        score = self.pattern.score
        for part_id in parts:
            part = self.index.part(doc, part_id)
            if part is None:
                continue
            lines = self.possible(part)
            if not lines:
                continue
            gapped = self._gapped_best(part, lines)
            if gapped is not None:
                top = max(top, gapped)
                continue
            texts = part.texts
            for line in lines:
                found = score(texts[line])
                if found is not None and found > top:
                    top = found
        return top

    def _gapped_best(self, part: Part, lines: list[int]) -> int | None:
        """For a pattern of one fuzzy atom, in a part where no line holds it contiguously
        nor the pattern literally, every line of ``lines`` (each holds the atom as a
        subsequence) scores its partial ratio: the best of them, all scored by rapidfuzz at
        once. None when that shortcut does not hold."""
        needle = self._lone_fuzzy
        if needle is None:
            return None
        pattern = self.pattern
        exact = pattern.case_sensitive
        literal = pattern.case_form(pattern.literal)
        if exact:
            if needle in part.joined or literal in part.joined:
                return None
        elif needle in part.folded_joined or part.holds_lowered(literal):
            return None
        from rapidfuzz import fuzz, process

        texts = part.texts if exact else part.folded
        found = process.extractOne(needle, [texts[n] for n in lines], scorer=fuzz.partial_ratio)
        return None if found is None else gapped_score(found[1])

    def reaching(
        self, doc: int, parts: Sequence[int], needles: Sequence[str], score: int, keep: int
    ) -> list[Scored]:
        """The doc's first ``keep`` lines (at least one) in transcript order scoring ``score``,
        the best score a line holding ``needles`` can have."""
        out: list[Scored] = []
        wanted = max(1, keep)
        for part_id in parts:
            part = self.index.part(doc, part_id)
            if part is None:
                continue
            count = 0
            for line in self.holding(part, needles):
                found = self.pattern.match(part.texts[line])
                if found is not None and found.score >= score:
                    out.append(_hit(part, line, found))
                    count += 1
                    if count >= wanted:
                        break
        out.sort(key=lambda item: item[1])
        return out[:wanted]


def _subsequence(needle: AnyStr, text: AnyStr) -> bool:
    """Whether ``needle`` occurs in ``text`` as a subsequence (one ``find`` per character)."""
    at = 0
    for position in range(len(needle)):
        at = text.find(needle[position : position + 1], at) + 1
        if not at:
            return False
    return True


def _top(scored: list[Scored], keep: int) -> tuple[int, tuple[Hit, ...]]:
    if not scored:
        return -1, ()
    top = sorted(scored, key=lambda item: (-item[0], item[1]))[:keep]
    return scored_best(scored), tuple(hit for _, _, hit in sorted(top, key=lambda item: item[1]))


def scored_best(scored: list[Scored]) -> int:
    return max(score for score, _, _ in scored)


def _ranked_from(index: Index, sessions: Sequence[Discovered]) -> Ranked:
    """``sessions`` (newest first) as the docs of the index that hold them."""
    known = index.docs()
    docs: list[int] = []
    listings: dict[int, Discovered] = {}
    for session in sessions:
        held = known.get(session_key(session))
        if held is not None and held[0] not in listings:
            docs.append(held[0])
            listings[held[0]] = session
    return Ranked(index, docs, listings)


def search(
    index: Index,
    sessions: Sequence[Discovered] | Ranked,
    pattern_text: str,
    *,
    origins: frozenset[str] = DEFAULT_ORIGINS,
    limit: int = 20,
    hits_per_session: int = 3,
    scan_limit: int | None = None,
) -> list[SessionMatch]:
    """The best ``limit`` sessions of ``sessions`` (newest first) for ``pattern_text``.

    ``scan_limit`` bounds the work the trigram index cannot narrow (a needle shorter than three
    characters, and the final scan) to the newest ``scan_limit`` sessions: for the picker,
    which searches as the user types. The answer is exact within those sessions."""
    pattern = Pattern(pattern_text)
    if pattern.empty and not isinstance(sessions, Ranked):
        return [SessionMatch(s, 0, ()) for s in sessions[:limit]]
    ranked = sessions if isinstance(sessions, Ranked) else _ranked_from(index, sessions)
    if pattern.empty:
        return [SessionMatch(s, 0, ()) for s in ranked.sessions(ranked.docs[:limit])]
    rank = {doc: position for position, doc in enumerate(ranked.docs)}
    lines = _Lines(index, pattern, origins)
    best: dict[int, int] = {}
    settled: dict[int, tuple[Hit, ...]] = {}
    uniform = min(len(pattern.positive) * ATOM_MAX, LITERAL_BONUS - 1)
    newest = sorted(rank, key=rank.__getitem__)[:scan_limit]
    #: Per tier: what its lines hold (folded), what the trigram index is asked for, and the
    #: score every line of the tier reaches (None: not uniform, scored in full).
    tiers: list[tuple[list[str], list[str], int | None]] = []
    literal = fold(pattern.literal)
    if literal:
        tiers.append(([literal], [literal], LITERAL_BONUS + uniform))
    needles = pattern.literal_needles()
    asked = [pinned(atom) for atom in pattern.positive]
    narrowed = all(len(n) >= _MIN_NEEDLE for n in asked)
    # Atoms every matching line holds literally: they narrow the scan for gapped matches.
    anchors = [n for n in map(pinned, pattern.anchored()) if len(n) >= _MIN_NEEDLE]
    #: Parts the last tier scored in full (doc → parts), and the best score below the tier's
    #: they hold: the scan does not decode them again.
    scored_parts: dict[int, tuple[int, ...]] = {}
    below: dict[int, int] = {}
    if needles and (narrowed or not pattern.case_sensitive):
        # (A case-sensitive tier 2 scores every candidate in full: unnarrowed, that is the scan.)
        tiers.append((needles, asked, None if pattern.case_sensitive else uniform))
    for needles_of_tier, asked_of_tier, tier_score in tiers:
        if len(best) >= limit:
            break
        if all(len(n) >= _MIN_NEEDLE for n in asked_of_tier):
            found = index.candidates(asked_of_tier, lines.parts)
        else:  # too short for trigrams: a substring test of each part, newest first
            found = dict.fromkeys(newest, lines.parts)
        if tier_score is None:
            for doc, parts in found.items():
                if doc in rank and doc not in best:
                    scored = lines.scored(doc, parts, needles_of_tier)
                    if scored:
                        best[doc] = scored_best(scored)
            continue
        # Newest first, in runs whose stored parts are fetched in one query each.
        visit = [doc for doc in ranked.docs if doc in found and doc not in best]
        for start in range(0, len(visit), _RUN):
            run = visit[start : start + _RUN]
            index.prefetch(run, lines.parts)
            for doc in run:
                if anchors and needles_of_tier is needles:
                    # Finding a part's lines is cheap with an anchor: score them all, so a
                    # scan that follows need not decode the part again.
                    scored = lines.scored(doc, found[doc], None)
                    scored_parts[doc] = found[doc]
                    top = scored_best(scored) if scored else -1
                    if top < tier_score:
                        if scored:
                            below[doc] = top
                        continue
                    best[doc] = top
                    settled[doc] = _top(scored, hits_per_session)[1]
                else:
                    reached = lines.reaching(
                        doc, found[doc], needles_of_tier, tier_score, hits_per_session
                    )
                    if not reached:
                        continue
                    best[doc] = tier_score
                    settled[doc] = tuple(hit for _, _, hit in reached[:hits_per_session])
                if len(best) >= limit:
                    break
            if len(best) >= limit:
                break
        index.forget_fetched()
    if len(best) < limit:
        # The scan that finds gapped fuzzy matches: a line must still hold every anchored
        # atom literally, so only the parts the trigram index names for those are scanned.
        held = index.candidates(anchors, lines.parts) if anchors else None
        scan = [doc for doc in newest if doc not in best and (held is None or doc in held)]
        for start in range(0, len(scan), _RUN):
            run = scan[start : start + _RUN]
            index.prefetch(run, lines.parts)
            for doc in run:
                done = scored_parts.get(doc, ())
                rest = [p for p in (lines.parts if held is None else held[doc]) if p not in done]
                top = max(lines.best(doc, rest) if rest else -1, below.get(doc, -1))
                if top >= 0:
                    best[doc] = top
            index.forget_fetched()
    chosen = sorted(best, key=lambda d: (-best[d], rank[d]))[:limit]
    matches = []
    for doc, session in zip(chosen, ranked.sessions(chosen), strict=True):
        if doc in settled:
            score, hits = best[doc], settled[doc]
        else:
            score, hits = _top(lines.scored(doc, lines.parts, None), hits_per_session)
        matches.append((score, rank[doc], SessionMatch(session, score, hits)))
    matches.sort(key=lambda item: (-item[0], item[1]))
    return [match for _, _, match in matches]
