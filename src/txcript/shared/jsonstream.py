"""The elements of a JSON array read from a stream, one at a time, never the whole array at once.

A Claude account export keeps every conversation in one ``conversations.json`` array, which can
be larger than the memory a listing should take. :func:`array_elements` reads the stream in
chunks and yields each top-level element's exact bytes with its byte offset in the stream; only
the element being read and one chunk are held.

Each element's end is found by msgspec's C parser rather than by a Python loop over the bytes:
the buffer from the element's first byte is parsed as one JSON value (:class:`msgspec.Raw`, which
builds nothing), and msgspec reports where the data after that value begins — the comma or the
closing bracket. A value cut off by the end of the buffer is parsed again once more data has been
read (at least as much again, so a huge element costs a bounded number of passes). A document
that is one JSON object instead of an array yields that object alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

import msgspec

from txcript.errors import StoreUnreadable

#: How much is read at a time.
CHUNK = 8 << 20
_WHITESPACE = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"
_value = msgspec.json.Decoder(msgspec.Raw)
#: msgspec's report of data after the first value: the trailing byte's position, counted from 1.
_TRAILING = re.compile(r"trailing characters \(byte ([0-9]+)\)")
#: The position msgspec names in an error (``… (byte N)``).
_AT_BYTE = re.compile(r"\(byte ([0-9]+)\)")


def _cut_short(message: str, size: int) -> bool:
    """Could this error be the buffer's end cutting the value short (so more data may mend
    it)? Truncation itself, or a character found wrong at the very end (a lone ``-`` is not a
    number yet)."""
    if "truncated" in message:
        return True
    found = _AT_BYTE.search(message)
    return found is not None and int(found.group(1)) >= size - 1


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _Reader:
    def __init__(self, stream: Readable, label: str, limit: int) -> None:
        self.stream = stream
        self.label = label
        self.limit = limit
        self.buf = b""
        #: The stream offset of ``buf[0]``.
        self.base = 0
        self.eof = False

    def more(self, keep_from: int, at_least: int = 0) -> bool:
        """Drop what comes before stream offset ``keep_from`` and read at least ``at_least``
        more bytes (or to the end: a stream may hand out less per read); False at the end."""
        if self.eof:
            return False
        wanted = max(at_least, CHUNK)
        parts: list[bytes] = []
        got = 0
        while got < wanted:
            try:
                data = self.stream.read(wanted - got)
            except Exception as exc:  # a damaged stream raises its own library's errors (zlib, zip)
                detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise StoreUnreadable(f"cannot read {self.label}: {detail}") from None
            if not data:
                self.eof = True
                break
            parts.append(data)
            got += len(data)
        self.buf = self.buf[keep_from - self.base :] + b"".join(parts)
        self.base = keep_from
        return got > 0

    def skip_space(self, position: int) -> int | None:
        """The offset of the first byte at or after ``position`` that is not whitespace; None at
        the end of the stream."""
        while True:
            index = position - self.base
            while index < len(self.buf) and self.buf[index] in _WHITESPACE:
                index += 1
            if index < len(self.buf):
                return self.base + index
            position = self.base + index
            if not self.more(position):
                return None

    def byte(self, position: int) -> int:
        return self.buf[position - self.base]

    def value(self, position: int, *, whole: bool = False) -> tuple[bytes, int]:
        """The JSON value starting at ``position`` and the offset just past it; with ``whole``
        it may run to the end of the stream (a document that is one object)."""
        while True:
            view = memoryview(self.buf)[position - self.base :]
            complete = False
            try:
                _value.decode(view)
                complete = True
            except msgspec.DecodeError as exc:
                found = _TRAILING.search(str(exc))
                if found is not None:
                    end = self._end(view, int(found.group(1)))
                    if end > self.limit:
                        raise self._too_large(position) from None
                    return bytes(view[:end]).rstrip(_WHITESPACE), position + end
                if not (_cut_short(str(exc), len(view)) and not self.eof):
                    raise StoreUnreadable(
                        f"{self.label} is not valid JSON (in the value at byte {position}: {exc})"
                    ) from None
            if complete and self.eof:
                if whole and len(view) <= self.limit:
                    return bytes(view).rstrip(_WHITESPACE), position + len(view)
                if whole:
                    raise self._too_large(position)
                raise StoreUnreadable(f"{self.label} is truncated (its array is not closed)")
            if len(view) > self.limit:
                raise self._too_large(position)
            if not self.more(position, at_least=len(view)) and not complete:
                raise StoreUnreadable(
                    f"{self.label} is truncated (at byte {self.base + len(view)})"
                )

    def _too_large(self, position: int) -> StoreUnreadable:
        return StoreUnreadable(
            f"{self.label}: the value at byte {position} is over the {self.limit >> 20} MiB limit"
        )

    @staticmethod
    def _end(view: memoryview, reported: int) -> int:
        """Where the value ends, from msgspec's 1-based position of the first trailing byte (or a
        0-based one, should a release count so: the trailing byte is never whitespace)."""
        for end in (reported - 1, reported):
            if 0 < end < len(view) and view[end] not in _WHITESPACE:
                return end
        return reported - 1


def array_elements(
    stream: Readable, label: str, *, limit: int = 512 << 20
) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)`` of each element of the JSON array ``stream`` holds, in order (of the
    one object, when it holds an object instead). ``offset`` is the element's first byte in the
    stream. :class:`~txcript.errors.StoreUnreadable` names what is wrong and where."""
    reader = _Reader(stream, label, limit)
    reader.more(0)
    if reader.buf.startswith(_BOM):
        reader.buf = reader.buf[len(_BOM) :]
        reader.base = len(_BOM)
    start = reader.skip_space(reader.base)
    if start is None:
        raise StoreUnreadable(f"{label} is empty (expected a JSON array)")
    first = reader.byte(start)
    if first == ord("{"):
        element, after = reader.value(start, whole=True)
        if reader.skip_space(after) is not None:
            raise StoreUnreadable(f"{label} is not valid JSON (data after the object at {after})")
        yield start, element
        return
    if first != ord("["):
        raise StoreUnreadable(f"{label} is not a JSON array")
    position = reader.skip_space(start + 1)
    expect_element, seen = True, False
    while True:
        if position is None:
            raise StoreUnreadable(f"{label} is truncated (its array is not closed)")
        current = reader.byte(position)
        if not expect_element:
            if current == ord("]"):
                return
            if current != ord(","):
                raise StoreUnreadable(f"{label} is not valid JSON (expected , or ] at {position})")
            position = reader.skip_space(position + 1)
            expect_element = True
            continue
        if current == ord("]"):
            if seen:
                raise StoreUnreadable(f"{label} is not valid JSON (a comma before ] at {position})")
            return
        element, after = reader.value(position)
        yield position, element
        position = reader.skip_space(after)
        expect_element, seen = False, True
