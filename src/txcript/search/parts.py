"""A session's lines as the index keeps them: a *part* (what was said, or tool output).

A packed part is a flags byte, a little-endian ``u32`` header length, the header (MessagePack:
the line runs ``(origin, message, block, count)``) and then the lines themselves, joined by
``\\n`` (a line never holds one: lines come from ``str.splitlines``), as UTF-8 (lone surrogates
that a lossless decode left are kept with ``surrogatepass``).

The header is decoded only for a part that holds what a query looks for (most candidate parts
are read only to be dropped). The flags say how far folding (:func:`.pattern.fold`: lower
case, diacritics removed) can be done cheaply: ``lower_folds`` when folding the text is only
lower-casing it, and ``bytes_fold`` when it is even only lower-casing the ASCII letters of the
UTF-8 bytes (no non-ASCII letter changes: true of most text). A query then asks its first
question — does the folded text hold a needle at all, and where — of ``bytes.lower()`` of the
stored bytes, all in C, without decoding the text; only a part that holds the needle is
decoded and split into lines.
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Sequence
from functools import cached_property
from itertools import accumulate
from typing import AnyStr

import msgspec

from txcript.search.lines import ORIGINS, Line
from txcript.search.pattern import Atom, fold, fold_lines

ORIGIN_CODE = {name: code for code, name in enumerate(ORIGINS)}
Run = tuple[int, int | None, int, int]

_encode = msgspec.msgpack.Encoder().encode
_decode_runs = msgspec.msgpack.Decoder(list[Run]).decode
#: The flags byte and the header length.
_PREFIX = struct.Struct("<BI")
_LOWER_FOLDS, _BYTES_FOLD = 1, 2
#: The header of a part with no lines.
_NO_RUNS = _encode([])


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class StoredLine(msgspec.Struct, frozen=True, gc=False):
    doc: int
    origin: str
    message: int | None
    block: int
    text: str


class Packed(msgspec.Struct, frozen=True, gc=False):
    """A part ready to store: its bytes, and what the trigram index holds for it."""

    data: bytes
    trigram_text: str


def trigram_text(folded_joined: str) -> str:
    """What the trigram index holds for a part: its distinct folded lines, each between two
    line breaks, so that a needle can be pinned to a line's start or end (:func:`pinned`)."""
    return "\n" + "\n".join(dict.fromkeys(folded_joined.split("\n"))) + "\n"


def pinned(atom: Atom) -> str:
    """What the trigram index is asked for to find ``atom``: its folded text, after a line
    break for a prefix, before one for a suffix, between two for a whole line. (The trigram
    tokenizer keeps the break, so ``config$`` is narrowed to parts with a line ending in it,
    not to every part that says ``config``.)"""
    needle = fold(atom.text)
    if atom.kind in ("prefix", "line"):
        needle = "\n" + needle
    if atom.kind in ("suffix", "line"):
        needle += "\n"
    return needle


def pack(lines: Sequence[Line]) -> Packed:
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
    raw = _utf8(joined)
    folded = fold_lines(joined)
    lower_folds = folded == joined.lower()
    bytes_fold = lower_folds and _utf8(folded) == raw.lower()
    header = _encode(runs)
    flags = (_LOWER_FOLDS if lower_folds else 0) | (_BYTES_FOLD if bytes_fold else 0)
    return Packed(_PREFIX.pack(flags, len(header)) + header + raw, trigram_text(folded))


class Part:
    """One decoded part of a session. Every view (bytes, text, lines, offsets) is built on
    first use."""

    def __init__(self, doc: int, packed: bytes) -> None:
        self.doc = doc
        flags, length = _PREFIX.unpack_from(packed)
        start = _PREFIX.size
        self._header = packed[start : start + length]
        self._lower_folds, self.bytes_fold = bool(flags & _LOWER_FOLDS), bool(flags & _BYTES_FOLD)
        self.raw = packed[start + length :]
        #: (Told without decoding the header.)
        self.has_lines = self._header != _NO_RUNS

    @cached_property
    def runs(self) -> list[Run]:
        return _decode_runs(self._header)

    # -- whole-text views --------------------------------------------------------------------
    @cached_property
    def lowered_raw(self) -> bytes:
        """The stored bytes with ASCII letters lower-cased: the folded text's UTF-8 when
        :attr:`bytes_fold`."""
        return self.raw.lower()

    @cached_property
    def joined(self) -> str:
        return self.raw.decode("utf-8", "surrogatepass")

    @cached_property
    def folded_joined(self) -> str:
        """The joined text folded line by line as :func:`.pattern.fold` folds a line (same
        length and offsets as :attr:`joined`)."""
        return self.lowered_joined if self._lower_folds else fold_lines(self.joined)

    @cached_property
    def lowered_joined(self) -> str:
        return self.joined.lower()

    def holds_lowered(self, needle: str) -> bool:
        """Whether the lower-cased text holds ``needle`` (lower case already)."""
        if self.bytes_fold:
            return _utf8(needle) in self.lowered_raw
        return needle in self.lowered_joined

    # -- line views --------------------------------------------------------------------------
    @cached_property
    def texts(self) -> list[str]:
        return self.joined.split("\n") if self.has_lines else []

    @cached_property
    def folded(self) -> list[str]:
        return self.folded_joined.split("\n") if self.has_lines else []

    @cached_property
    def lowered(self) -> list[str]:
        return self.lowered_joined.split("\n") if self.has_lines else []

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
        if not self.has_lines:
            return []
        if self.bytes_fold:
            return _lines_holding(self.lowered_raw, [_utf8(n) for n in needles], b"\n")
        text = self.folded_joined
        if not all(needle in text for needle in needles):
            return []
        return _lines_holding(text, list(needles), "\n")

    def lines_where(self, needle: str, kind: str) -> list[int] | None:
        """Lines whose lower-cased text holds ``needle`` (lower case) as an ``exact``
        substring, a ``prefix``, a ``suffix`` or the whole ``line``, found on the bytes; None
        when the part is not searched as bytes (see :attr:`bytes_fold`)."""
        if not self.bytes_fold:
            return None
        if not self.has_lines:
            return []
        text, wanted = self.lowered_raw, _utf8(needle)
        found: list[int] = []
        line, counted = 0, 0
        at = text.find(wanted)
        while at >= 0:
            line += text.count(b"\n", counted, at)
            start = text.rfind(b"\n", 0, at) + 1
            end = text.find(b"\n", at)
            if end < 0:
                end = len(text)
            counted = end
            if (
                kind == "exact"
                or (kind == "prefix" and text.startswith(wanted, start, end))
                or (kind == "suffix" and text.endswith(wanted, start, end))
                or (kind == "line" and end - start == len(wanted))
            ):
                found.append(line)
            at = text.find(wanted, end)
        return found


def _lines_holding(text: AnyStr, needles: list[AnyStr], newline: AnyStr) -> list[int]:
    """Numbers of the ``newline``-separated lines of ``text`` holding every needle."""
    if not all(needle in text for needle in needles):
        return []
    ordered = sorted(needles, key=len, reverse=True)
    first, rest = ordered[0], ordered[1:]
    found: list[int] = []
    line, counted = 0, 0
    at = text.find(first)
    while at >= 0:
        line += text.count(newline, counted, at)
        start = text.rfind(newline, 0, at) + 1
        end = text.find(newline, at)
        if end < 0:
            end = len(text)
        counted = end
        if all(text.find(needle, start, end) >= 0 for needle in rest):
            found.append(line)
        at = text.find(first, end)
    return found
