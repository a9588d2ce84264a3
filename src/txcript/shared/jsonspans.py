"""Where each member of a JSON object, or each element of a JSON array, lies in its text.

An app's JSON state (VS Code's globalState value of an extension, Cline's ``taskHistory.json``)
holds much that txcript does not own. Editing one member by splicing its span keeps every other
byte as the app wrote it, where parsing and re-serialising the whole value would re-format
numbers, escapes and spacing the app chose.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_WHITESPACE = " \t\n\r"
_decoder = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class Span:
    """One member (``key`` set) or element (``key`` None): its value and where the value lies."""

    key: str | None
    value: Any
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Container:
    """A JSON object or array as text: its entries, and where its closing bracket is."""

    text: str
    entries: tuple[Span, ...]
    #: The index of the closing ``}`` or ``]``.
    close: int


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def parse(text: str, kind: type[dict[str, Any]] | type[list[Any]]) -> Container | None:
    """The top-level ``kind`` (dict or list) of ``text`` with the span of each entry; None when
    ``text`` is not one JSON value of that kind (nothing but whitespace may follow it)."""
    opening, closing = ("{", "}") if kind is dict else ("[", "]")
    index = _skip(text, 0)
    if index >= len(text) or text[index] != opening:
        return None
    index = _skip(text, index + 1)
    entries: list[Span] = []
    try:
        if index < len(text) and text[index] == closing:
            close = index
        else:
            while True:
                key = None
                if kind is dict:
                    if index >= len(text) or text[index] != '"':
                        return None
                    key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
                    index = _skip(text, index)
                    if index >= len(text) or text[index] != ":":
                        return None
                    index = _skip(text, index + 1)
                value, end = _decoder.raw_decode(text, index)
                entries.append(Span(key, value, index, end))
                index = _skip(text, end)
                if index < len(text) and text[index] == ",":
                    index = _skip(text, index + 1)
                    continue
                if index < len(text) and text[index] == closing:
                    close = index
                    break
                return None
    except (ValueError, RecursionError):
        return None
    if _skip(text, close + 1) != len(text):
        return None
    return Container(text, tuple(entries), close)


def replace(container: Container, entry: Span, value_text: str) -> str:
    """The text with ``entry``'s value replaced by ``value_text``."""
    text = container.text
    return text[: entry.start] + value_text + text[entry.end :]


def append(container: Container, value_text: str, key: str | None = None) -> str:
    """The text with one more entry (``"key":value`` for an object) after the last one."""
    text = container.text
    member = value_text if key is None else json.dumps(key, ensure_ascii=False) + ":" + value_text
    if container.entries:
        last = container.entries[-1].end
        return text[:last] + "," + member + text[last:]
    return text[: container.close] + member + text[container.close :]


def remove(container: Container, doomed: set[int]) -> str:
    """The text without the entries at ``doomed`` (indexes), commas mended."""
    text = container.text
    kept = [e for i, e in enumerate(container.entries) if i not in doomed]
    if len(kept) == len(container.entries):
        return text
    if not container.entries:
        return text
    first = container.entries[0]
    # The opening bracket (and, for an object, the first key) come before the first value.
    head_end = _member_start(text, first)
    pieces = [text[_member_start(text, e) : e.end] for e in kept]
    return text[:head_end] + ",".join(pieces) + text[container.entries[-1].end :]


def _member_start(text: str, entry: Span) -> int:
    """Where the member begins: its key's opening quote for an object, its value for an array."""
    if entry.key is None:
        return entry.start
    index = entry.start - 1
    while index >= 0 and text[index] in _WHITESPACE:
        index -= 1
    index -= 1  # the colon
    while index >= 0 and text[index] in _WHITESPACE:
        index -= 1
    # ``index`` is at the key's closing quote: walk back to its unescaped opening quote.
    index -= 1
    while index >= 0:
        if text[index] == '"':
            slashes = 0
            back = index - 1
            while back >= 0 and text[back] == "\\":
                slashes += 1
                back -= 1
            if slashes % 2 == 0:
                return index
        index -= 1
    return entry.start
