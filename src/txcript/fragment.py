"""``#RANGE`` fragments: parsing, resolving to message spans, and the tool-pair refusal.

A range is ``N``, ``N-M``, ``N-`` or ``-M``: 1-based inclusive message ordinals, the numbers
``view`` prints in its ``── #N ──`` rules. Internally a range becomes a 0-based half-open
:class:`Span`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import msgspec

from txcript.errors import BadInput
from txcript.model import Message, ToolResult, ToolUse, Transcript


@functools.cache
def _range() -> re.Pattern[str]:
    """Compiled when a range is first parsed (most commands are given none)."""
    return re.compile(r"([0-9]*)-([0-9]*)|([0-9]+)")


class RangeRequest(msgspec.Struct, frozen=True, gc=False):
    """A range as the user typed it; ``None`` is an open bound."""

    start: int | None
    end: int | None
    typed: str

    def __str__(self) -> str:
        return f"#{self.typed}"


class Span(msgspec.Struct, frozen=True, gc=False):
    """Half-open 0-based message indices ``[start, end)``."""

    start: int
    end: int

    def label(self) -> str:
        """``#a-b`` in 1-based ordinals, ``#a`` for a single message."""
        if self.end - self.start == 1:
            return f"#{self.start + 1}"
        return f"#{self.start + 1}-{self.end}"


def parse_range(text: str) -> RangeRequest | None:
    """Parse the text after ``#``; None when it is not a range (``""``, ``-``, ``1x``, …)."""
    if not text.isascii():
        return None
    m = _range().fullmatch(text)
    if m is None:
        return None
    single = m.group(3)
    if single is not None:
        return RangeRequest(int(single), int(single), text)
    start, end = m.group(1), m.group(2)
    if not start and not end:
        return None
    return RangeRequest(int(start) if start else None, int(end) if end else None, text)


def split_fragment(reference: str) -> tuple[str, RangeRequest | None]:
    """Split ``source#range`` at the last ``#``; the whole input is the source otherwise."""
    source, hash_sign, suffix = reference.rpartition("#")
    if not hash_sign or not source:
        return reference, None
    request = parse_range(suffix)
    if request is None:
        return reference, None
    return source, request


def resolve(request: RangeRequest, count: int) -> Span:
    """Turn a request into a span over ``count`` messages, or explain why it cannot be one."""
    start = 1 if request.start is None else request.start
    end = count if request.end is None else request.end
    if start == 0 or end == 0:
        raise BadInput(f"message numbers are 1-based — `{request}` has a 0")
    if start > end:
        raise BadInput(f"range `{request}` is inverted")
    if end > count:
        noun = "message" if count == 1 else "messages"
        raise BadInput(f"range `{request}` is out of bounds — the session has {count} {noun}")
    return Span(start - 1, end)


def tool_pairs(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """(call message, result message) index pairs; only pairs whose call came first count."""
    calls: dict[str, int] = {}
    pairs: list[tuple[int, int]] = []
    for index, message in enumerate(messages):
        for block in message.content:
            if isinstance(block, ToolUse):
                calls[block.id] = index
            elif isinstance(block, ToolResult) and block.tool_use_id in calls:
                pairs.append((calls[block.tool_use_id], index))
    return pairs


def _keeps_pairs(pairs: list[tuple[int, int]], start: int, end: int) -> bool:
    return all((start <= a < end) == (start <= b < end) for a, b in pairs)


def nearest_valid(messages: Sequence[Message], span: Span) -> Span | None:
    """Grow ``span`` outward by the least total distance until no pair is cut.

    At equal distance, extending the end is preferred over extending the start.
    """
    pairs = tool_pairs(messages)
    length = len(messages)
    seen = {(span.start, span.end)}
    for distance in range(1, length + 1):
        for down in range(distance + 1):
            start = max(0, span.start - down)
            end = min(length, span.end + distance - down)
            if (start, end) in seen:
                continue
            seen.add((start, end))
            if _keeps_pairs(pairs, start, end):
                return Span(start, end)
    return None


def check_pairs(messages: Sequence[Message], span: Span) -> None:
    """Refuse a span that separates a tool call from its result, naming the nearest valid one."""
    if _keeps_pairs(tool_pairs(messages), span.start, span.end):
        return
    message = f"range {span.label()} cuts a tool call away from its result"
    suggestion = nearest_valid(messages, span)
    if suggestion is not None:
        message += f" — nearest valid range is {suggestion.label()}"
    raise BadInput(message)


def slice_transcript(transcript: Transcript, span: Span) -> Transcript:
    """The messages in ``span``; the Meta (id, title, cwd, …) is kept whole."""
    return Transcript(meta=transcript.meta, messages=transcript.messages[span.start : span.end])
