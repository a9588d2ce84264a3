"""A session's lines as the index keeps them: a *part* (what was said, or tool output).

A part is one MessagePack document: the line runs ``(origin, message, block, count)``, the
lines joined by ``\\n`` (a line never holds one: lines come from ``str.splitlines``), and whether
folding the text is only lower-casing it (no diacritics to remove), which lets a query fold it
with ``str.lower`` alone instead of mapping every character.

Decoded, a part answers a query's questions on the joined text first (does the folded text hold
a needle at all, and where) and only then looks at single lines, so a part that cannot match
costs a decompression, a lower-casing and a substring search, all in C.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

import msgspec

from txcript.search.lines import ORIGINS, Line
from txcript.search.pattern import fold_lines

ORIGIN_CODE = {name: code for code, name in enumerate(ORIGINS)}
Run = tuple[int, int | None, int, int]

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(tuple[list[Run], str, bool]).decode


@dataclass(frozen=True, slots=True)
class StoredLine:
    doc: int
    origin: str
    message: int | None
    block: int
    text: str


def pack(lines: Sequence[Line]) -> bytes:
    runs: list[list[int | None]] = []
    last: tuple[int, int | None, int] | None = None
    for line in lines:
        key = (ORIGIN_CODE[line.origin], line.message, line.block)
        if key == last:
            runs[-1][3] += 1  # type: ignore[operator]
        else:
            runs.append([*key, 1])
            last = key
    joined = "\n".join(line.text for line in lines)
    lowered = joined.lower()
    # Whether folding is only lower-casing here: then a query folds the part with str.lower
    # alone (fast) instead of mapping each character (slow for any non-ASCII text).
    return _encode((runs, joined, fold_lines(joined) == lowered))


class Part:
    """One decoded part of a session. Every view (lines, folded text, offsets) is built on
    first use."""

    def __init__(self, doc: int, packed: bytes) -> None:
        self.doc = doc
        self.runs, self.joined, self._lower_folds = _decode(packed)

    # -- whole-text views --------------------------------------------------------------------
    @cached_property
    def folded_joined(self) -> str:
        """The joined text folded line by line as :func:`.pattern.fold` folds a line (same
        length and offsets as :attr:`joined`)."""
        return self.lowered_joined if self._lower_folds else fold_lines(self.joined)

    @cached_property
    def lowered_joined(self) -> str:
        return self.joined.lower()

    # -- line views --------------------------------------------------------------------------
    @cached_property
    def texts(self) -> list[str]:
        return self.joined.split("\n") if self.runs else []

    @cached_property
    def folded(self) -> list[str]:
        return self.folded_joined.split("\n") if self.runs else []

    @cached_property
    def lowered(self) -> list[str]:
        return self.lowered_joined.split("\n") if self.runs else []

    @cached_property
    def _starts(self) -> list[int]:
        return list(accumulate((len(text) + 1 for text in self.texts[:-1]), initial=0))

    @cached_property
    def _run_ends(self) -> list[int]:
        return list(accumulate(run[3] for run in self.runs))

    def _run(self, line: int) -> Run:
        return self.runs[bisect_right(self._run_ends, line)]

    def origin(self, line: int) -> int:
        return self._run(line)[0]

    def order(self, line: int) -> tuple[int, int, int]:
        """Where a line sits in the transcript (meta lines first), comparable across parts."""
        _, message, block, _ = self._run(line)
        return (-1 if message is None else message, block, line)

    def stored(self, line: int) -> StoredLine:
        code, message, block, _ = self._run(line)
        return StoredLine(self.doc, ORIGINS[code], message, block, self.texts[line])

    def lines_holding(self, needles: Sequence[str]) -> list[int]:
        """Lines whose folded text holds every needle (folded, non-empty), in order."""
        text = self.folded_joined
        if not all(needle in text for needle in needles):
            return []
        first, *rest = sorted(needles, key=len, reverse=True)
        starts = self._starts
        found: list[int] = []
        at = text.find(first)
        while at >= 0:
            line = bisect_right(starts, at) - 1
            start = starts[line]
            end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
            if all(text.find(needle, start, end) >= 0 for needle in rest):
                found.append(line)
            at = text.find(first, end)
        return found
