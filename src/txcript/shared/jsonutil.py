"""The JSON conventions every harness shares.

Synthesised documents are written compact with keys sorted, non-ASCII as raw UTF-8: the byte form
other implementations of these formats produce, so our output compares equal to theirs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

_decoder = msgspec.json.Decoder()


def dumps_compact(value: Any) -> str:
    """Compact, key-sorted JSON with raw UTF-8 (the form every synthesised cell takes).

    Exactly ``json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)``,
    written by msgspec where its bytes are the same (see :func:`_compact_bytes`).
    """
    if _msgspec_writes_it(value):
        try:
            return _COMPACT_ENCODERS[True].encode(value).decode("utf-8")
        except (msgspec.EncodeError, UnicodeError, RecursionError):
            pass  # a lone surrogate (which the json module keeps in its str), nesting too deep
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def dumps_pretty(value: Any, *, sort_keys: bool = False) -> str:
    """Two-space indented JSON with raw UTF-8 and no trailing newline.

    Exactly ``json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)``, made fast:
    with ``indent`` the json module runs its pure-Python encoder, so the tokens are written by
    its C encoder (compact) and only the whitespace is laid out by ``msgspec.json.format``, whose
    layout is the same (tokens kept byte for byte, ``[]``/``{}`` for empty containers). What
    ``msgspec`` cannot format (``NaN``/``Infinity`` tokens, lone surrogates) takes the plain
    path.
    """
    try:
        return _pretty_bytes_fast(value, sort_keys).decode()
    except (UnicodeError, msgspec.DecodeError):
        return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)


def iter_pretty(document: Mapping[str, Any], *, sort_keys: bool = False) -> Iterator[bytes]:
    """``dumps_pretty(document, sort_keys=sort_keys)`` as UTF-8, streamed: a top-level array is
    written element by element (a long ``messages`` array never exists as one string).

    Every part is laid out as :func:`dumps_pretty` lays it out and shifted to its depth; JSON
    text holds no raw newline inside a string, so shifting every line is exact. A lone surrogate
    fails to encode here as it fails when the whole text is encoded.
    """
    if not document:
        yield b"{}"
        return
    items = sorted(document.items(), key=lambda item: item[0]) if sort_keys else document.items()
    separator = b"{"
    for key, value in items:
        name = json.dumps(key, ensure_ascii=False).encode()
        if isinstance(value, list | tuple) and value:
            yield separator + b"\n  " + name + b": ["
            yield from _elements(value, sort_keys)
            yield b"\n  ]"
        else:
            text = _pretty_bytes(value, sort_keys).replace(b"\n", b"\n  ")
            yield separator + b"\n  " + name + b": " + text
        separator = b","
    yield b"\n}"


#: How many bytes of compact elements :func:`_elements` lays out at once.
_BATCH_BYTES = 1 << 18


def _elements(values: Sequence[Any], sort_keys: bool) -> Iterator[bytes]:
    """The elements of a top-level array as :func:`dumps_pretty` lays them out inside it (each
    line shifted by four spaces, elements joined by ``,``), a batch at a time: the compact
    elements of a batch are laid out as one array and its brackets cut off. A batch
    ``msgspec`` cannot lay out (``NaN`` tokens) is laid out element by element; an element
    that cannot be encoded at all (a lone surrogate) fails here as it would there."""
    batch: list[bytes] = []
    pending: list[Any] = []
    size = 0
    separator = b""
    for value in values:
        try:
            encoded = _compact_bytes(value, sort_keys)
        except UnicodeError:
            if batch:
                yield separator + _laid_out(batch, pending, sort_keys)
                separator = b","
            yield separator + b"\n    " + _pretty_bytes(value, sort_keys).replace(b"\n", b"\n    ")
            raise AssertionError("unreachable: the json module failed to encode it too") from None
        batch.append(encoded)
        pending.append(value)
        size += len(encoded)
        if size >= _BATCH_BYTES:
            yield separator + _laid_out(batch, pending, sort_keys)
            separator = b","
            batch, pending, size = [], [], 0
    if batch:
        yield separator + _laid_out(batch, pending, sort_keys)


def _laid_out(batch: list[bytes], values: list[Any], sort_keys: bool) -> bytes:
    try:
        laid_out = msgspec.json.format(b"[" + b",".join(batch) + b"]", indent=2)
        return b"\n  " + laid_out[2:-2].replace(b"\n", b"\n  ")
    except msgspec.DecodeError:
        return b",".join(
            b"\n    " + _pretty_bytes(value, sort_keys).replace(b"\n", b"\n    ")
            for value in values
        )


def _pretty_bytes(value: Any, sort_keys: bool) -> bytes:
    """``dumps_pretty(value, sort_keys=sort_keys).encode()``, without the round trip via str."""
    try:
        return _pretty_bytes_fast(value, sort_keys)
    except (UnicodeError, msgspec.DecodeError):
        return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False).encode()


def _pretty_bytes_fast(value: Any, sort_keys: bool) -> bytes:
    """The json module's compact tokens laid out by msgspec. No name keeps an intermediate copy
    alive, so at most two copies of the text exist at any time."""
    return msgspec.json.format(_compact_bytes(value, sort_keys), indent=2)


#: msgspec encoders writing what ``json.dumps(…, ensure_ascii=False, separators=(",", ":"))``
#: writes for :func:`_msgspec_writes_it` values; keyed by ``sort_keys``. Sorting by UTF-8
#: bytes is sorting by code points, as ``sorted`` does.
_COMPACT_ENCODERS = {True: msgspec.json.Encoder(order="sorted"), False: msgspec.json.Encoder()}
_STR_KEYS = {str}


def _compact_bytes(value: Any, sort_keys: bool) -> bytes:
    """``json.dumps(value, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":"))`` as
    UTF-8: written by msgspec (several times faster) when the value holds nothing whose text
    the two encoders write differently, else by the json module itself."""
    if _msgspec_writes_it(value):
        try:
            return _COMPACT_ENCODERS[sort_keys].encode(value)
        except (msgspec.EncodeError, UnicodeError, RecursionError):
            pass  # a lone surrogate, nesting too deep: fail (or not) as the json module does
    return json.dumps(
        value, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":")
    ).encode()


def _msgspec_writes_it(value: Any) -> bool:
    """Does msgspec write ``value`` exactly as the json module does? True for strings (the
    same escapes), integers, booleans, None, and lists, tuples and str-keyed dicts of them.
    Not for floats (``1e+16`` against ``1e16``, NaN against null), other key types (the json
    module sorts them before making them strings) or any other type, subclasses included."""
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            if item and set(map(type, item)) != _STR_KEYS:
                return False
            extend(item.values())
        elif kind is list or kind is tuple:
            extend(item)
        else:
            return False
    return True


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is out of range")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> Any:
    """Parse one JSON document; raise ``ValueError`` on anything that is not strict JSON.

    ``NaN`` and ``Infinity`` are refused (Python's json module accepts them). msgspec does the work
    for speed; the stdlib parser is the fallback for the rare document msgspec declines but JSON
    allows (integers beyond 64 bits).
    """
    if not text.strip():
        raise ValueError("the input is empty")
    try:
        return _decoder.decode(text)
    except msgspec.DecodeError as exc:
        if "out of range" not in str(exc).lower():
            raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except (ValueError, RecursionError) as exc:
        raise ValueError(str(exc) or "nested too deeply") from None


def try_loads(text: str | bytes | None) -> Any:
    """Parse JSON, or return ``_INVALID`` when it is not valid JSON."""
    if text is None:
        return INVALID
    try:
        return loads_strict(text)
    except ValueError:
        return INVALID


class _Invalid:
    """Marker for "not valid JSON" (distinct from a JSON ``null``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID"

    def __bool__(self) -> bool:
        return False


INVALID: Any = _Invalid()


def is_uint(value: Any) -> bool:
    """A JSON non-negative integer that fits u64 (bools are not integers here)."""
    return type(value) is int and 0 <= value < 2**64


class _Missing:
    """Marker for "no such member" (distinct from a JSON ``null``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


def lookup(document: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` (object keys and array indexes), or :data:`MISSING`."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(document, list) or step >= len(document):
                return MISSING
        elif not isinstance(document, dict) or step not in document:
            return MISSING
        document = document[step]
    return document


def pick(document: Any, paths: Mapping[str, Sequence[str | int]]) -> dict[str, Any]:
    """``{name: value}`` for each named path present in ``document`` (``{}`` for a non-object)."""
    if not isinstance(document, dict):
        return {}
    found = {name: lookup(document, path) for name, path in paths.items()}
    return {name: value for name, value in found.items() if value is not MISSING}
