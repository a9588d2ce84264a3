"""The streaming JSON array scanner: exact element bytes, whatever the chunks, in small memory."""

from __future__ import annotations

import io
import json
import tracemalloc
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from txcript.errors import StoreUnreadable
from txcript.shared import jsonstream
from txcript.shared.jsonstream import array_elements

values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.text(alphabet=st.sampled_from('ab"\\[]{},: \n\u00e9'), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


class Trickle(io.RawIOBase):
    """A stream that hands out at most ``step`` bytes per read (as a pipe or a decompressor may)."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.position = data, step, 0

    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        size = self.step if size < 0 else min(size, self.step)
        out = self.data[self.position : self.position + size]
        self.position += len(out)
        return out


def scanned(data: bytes, step: int | None = None) -> list[tuple[int, bytes]]:
    stream = io.BytesIO(data) if step is None else Trickle(data, step)
    return list(array_elements(stream, "doc"))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(values, max_size=6),
    st.sampled_from([None, 0, 2]),
    st.sampled_from([None, 1, 3, 17]),
    st.sampled_from([1, 5, 64]),
)
def test_every_element_comes_back_as_its_exact_bytes_at_its_offset(
    items: list[Any], indent: int | None, step: int | None, chunk: int
) -> None:
    data = json.dumps(items, indent=indent, ensure_ascii=False).encode()
    original = jsonstream.CHUNK
    jsonstream.CHUNK = chunk
    try:
        found = scanned(data, step)
    finally:
        jsonstream.CHUNK = original
    assert [json.loads(element) for _, element in found] == items
    for offset, element in found:
        assert data[offset : offset + len(element)] == element


def test_a_document_that_is_one_object_is_its_one_element() -> None:
    assert scanned(b' {"a": [1, "]"]}\n') == [(1, b'{"a": [1, "]"]}')]


def test_a_byte_order_mark_is_skipped_and_offsets_count_it() -> None:
    assert scanned(b'\xef\xbb\xbf[{"a":1}]') == [(4, b'{"a":1}')]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"   ", "empty"),
        (b"nope", "not a JSON array"),
        (b'[{"a":1}', "truncated"),
        (b'[{"a":1', "truncated"),
        (b'[{"a":1},]', "a comma before ]"),
        (b'[{"a":1} {"b":2}]', "expected , or ]"),
        (b'[{"a": tru}]', "not valid JSON"),
        (b'{"a":1} tail', "data after the object"),
    ],
)
def test_a_damaged_document_is_one_error_naming_it(data: bytes, message: str) -> None:
    with pytest.raises(StoreUnreadable, match=message) as raised:
        scanned(data)
    assert str(raised.value).startswith("doc ")


def test_an_element_over_the_limit_is_refused() -> None:
    data = b'[{"a":"' + b"x" * 5000 + b'"}]'
    original = jsonstream.CHUNK
    jsonstream.CHUNK = 256
    try:
        with pytest.raises(StoreUnreadable, match="over the 0 MiB limit"):
            list(array_elements(io.BytesIO(data), "doc", limit=1000))
    finally:
        jsonstream.CHUNK = original


def test_msgspec_still_says_where_the_data_after_a_value_starts() -> None:
    """The scanner finds each element's end in msgspec's error for trailing data: pin its form,
    so an upgrade that words it otherwise fails here, not in a user's listing."""
    with pytest.raises(msgspec.DecodeError) as raised:
        msgspec.json.decode(b'{"a":[1,{"b":2}]} ,{"c":3}', type=msgspec.Raw)
    assert "trailing characters (byte 19)" in str(raised.value)


def test_a_large_array_is_scanned_in_memory_the_size_of_one_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Twenty megabytes of elements, read 256 KiB at a time: the scan never holds much more
    than one chunk and one element, never the document."""
    element = json.dumps({"uuid": "x" * 36, "text": 'hello [world] {x} \\" ' * 400}).encode()
    data = b"[" + b",\n".join([element] * (20_000_000 // len(element))) + b"]"
    monkeypatch.setattr(jsonstream, "CHUNK", 256 << 10)
    stream = io.BytesIO(data)
    count = 0
    tracemalloc.start()
    try:
        for _, found in array_elements(stream, "doc"):
            count += found == element
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 20_000_000 // len(element)
    assert peak < 2 << 20, f"the scan held {peak} bytes"
