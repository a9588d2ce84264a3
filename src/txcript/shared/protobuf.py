"""The protobuf wire format, decoded and encoded without a schema.

Harnesses that keep protobuf with no published schema (the Cursor CLI's turn graph,
Antigravity's conversation steps) read it at the wire level: a message is a sequence of ``(field
number, wire type, value)``. Varints and length-delimited values are what they use; 32- and
64-bit values are read as unsigned integers. Groups (wire types 3/4) and anything truncated raise
:class:`WireError`, which each reader turns into a warning and a fallback. Which field means what
is each harness's own knowledge; nothing here knows a schema.
"""

from __future__ import annotations

from collections.abc import Iterable

VARINT, I64, LEN, I32 = 0, 1, 2, 5
_MAX_VARINT_BYTES = 10


class WireError(ValueError):
    """The bytes are not a well-formed protobuf message."""


Field = tuple[int, int, int | bytes]


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    if pos < len(data) and data[pos] < 0x80:  # the common one-byte case
        return data[pos], pos + 1
    result = shift = 0
    for index in range(_MAX_VARINT_BYTES):
        if pos + index >= len(data):
            raise WireError("truncated varint")
        byte = data[pos + index]
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos + index + 1
        shift += 7
    raise WireError("varint longer than 10 bytes")


def decode(data: bytes) -> list[Field]:
    """Every field of one message, in wire order; :class:`WireError` when malformed."""
    fields: list[Field] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        value: int | bytes
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire == LEN:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise WireError("length-delimited field runs past the end")
            value, pos = data[pos : pos + size], pos + size
        elif wire in (I64, I32):
            width = 8 if wire == I64 else 4
            if pos + width > len(data):
                raise WireError("fixed-width field runs past the end")
            value, pos = int.from_bytes(data[pos : pos + width], "little"), pos + width
        else:
            raise WireError(f"unsupported wire type {wire}")
        fields.append((number, wire, value))
    return fields


def _encode_varint(value: int) -> bytes:
    if value < 0:
        value &= (1 << 64) - 1  # negative int64s are ten-byte two's complement on the wire
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def varint_field(number: int, value: int) -> bytes:
    return _encode_varint(number << 3 | VARINT) + _encode_varint(value)


def bytes_field(number: int, value: bytes) -> bytes:
    return _encode_varint(number << 3 | LEN) + _encode_varint(len(value)) + value


def text_field(number: int, value: str) -> bytes:
    return bytes_field(number, value.encode("utf-8", "surrogatepass"))


def join(parts: Iterable[bytes]) -> bytes:
    return b"".join(parts)


def first_text(fields: list[Field], number: int) -> str | None:
    """The first length-delimited field ``number`` decoded as UTF-8, or None."""
    for got, wire, value in fields:
        if got == number and wire == LEN and isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                return None
    return None
