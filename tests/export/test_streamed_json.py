"""The streamed encoders write exactly the bytes of the whole-document ones."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from strategies import transcripts
from txcript import harnesses, model
from txcript.model import Transcript, iter_json, to_builtins, to_json
from txcript.shared import jsonutil
from txcript.shared.jsonutil import _compact_bytes, dumps_compact, dumps_pretty, iter_pretty

#: Any JSON-ish value the json module writes, including what msgspec cannot format (NaN and
#: infinities, written as bare tokens) and integers beyond 64 bits.
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
documents = st.dictionaries(st.text(max_size=6), values | st.lists(values, max_size=5))


def _reference(value: Any, sort_keys: bool) -> str:
    return json.dumps(value, indent=2, sort_keys=sort_keys, ensure_ascii=False)


@settings(max_examples=300, deadline=None)
@given(values, st.booleans())
def test_dumps_pretty_is_the_json_modules_indented_text(value: Any, sort_keys: bool) -> None:
    assert dumps_pretty(value, sort_keys=sort_keys) == _reference(value, sort_keys)


@settings(max_examples=300, deadline=None)
@given(documents, st.booleans(), st.sampled_from([1, 40, 1 << 18]))
def test_iter_pretty_is_dumps_pretty_in_pieces(
    document: dict[str, Any], sort_keys: bool, batch_bytes: int
) -> None:
    """Array elements laid out one per batch, a few per batch, or all in one."""
    expected = _reference(document, sort_keys).encode()
    saved = jsonutil._BATCH_BYTES
    jsonutil._BATCH_BYTES = batch_bytes
    try:
        assert b"".join(iter_pretty(document, sort_keys=sort_keys)) == expected
    finally:
        jsonutil._BATCH_BYTES = saved


def test_a_lone_surrogate_fails_as_it_did() -> None:
    document = {"messages": ["\ud800"]}
    assert dumps_pretty(document) == _reference(document, False)
    try:
        b"".join(iter_pretty(document))
    except UnicodeEncodeError:
        pass
    else:
        raise AssertionError("a lone surrogate was encoded")


@settings(max_examples=200, deadline=None)
@given(transcripts)
def test_iter_json_is_to_json_in_pieces(transcript: Transcript) -> None:
    expected = (to_json(transcript, indent=2) + "\n").encode()
    assert b"".join(iter_json(transcript)) == expected
    empty = Transcript(meta=transcript.meta)
    assert b"".join(iter_json(empty)) == (to_json(empty, indent=2) + "\n").encode()


@settings(max_examples=200, deadline=None)
@given(transcripts)
def test_the_streamed_simple_document_is_its_text(transcript: Transcript) -> None:
    simple = harnesses.get("simple")
    document = simple.from_common(transcript)
    expected = simple.to_text(document).encode()
    assert b"".join([*iter_pretty(document, sort_keys=True), b"\n"]) == expected


def _reference_common(transcript: Transcript) -> bytes:
    """The Common document as it was encoded before the wire structs: every value converted to
    builtins first (``to_builtins``), then encoded and indented as one text."""
    return msgspec.json.format(msgspec.json.encode(to_builtins(transcript)), indent=2) + b"\n"


@settings(max_examples=200, deadline=None)
@given(transcripts, st.sampled_from([1, 64, 1 << 18]))
def test_common_json_is_the_builtins_encoding_at_every_batch_size(
    transcript: Transcript, batch_bytes: int
) -> None:
    """A batch of one message, of a few, and of the whole document give the same bytes."""
    expected = _reference_common(transcript)
    assert (to_json(transcript, indent=2) + "\n").encode() == expected
    saved = model._BATCH_BYTES
    model._BATCH_BYTES = batch_bytes
    try:
        assert b"".join(iter_json(transcript)) == expected
    finally:
        model._BATCH_BYTES = saved


@settings(max_examples=400, deadline=None)
@given(values | documents, st.booleans())
def test_the_compact_tokens_are_the_json_modules(value: Any, sort_keys: bool) -> None:
    """msgspec writes them when it writes them alike (strings, integers of any size, nested
    str-keyed objects), the json module otherwise (floats, NaN)."""
    expected = json.dumps(value, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":"))
    assert _compact_bytes(value, sort_keys) == expected.encode()


@pytest.mark.parametrize(
    "value",
    [
        {10: "a", 9: "b", "x": 1},
        {1.5: 1},
        {True: 1},
        [1e16, 1e-05, 1.5e300],
        {"z": 2, "é": 1, "\uffff": 4, "😀": 3, "A": 5},
        [2**64, -(2**63) - 1],
        MappingProxyType({"a": 1}),
    ],
)
def test_values_msgspec_writes_otherwise_take_the_json_module(value: Any) -> None:
    for sort_keys in (False, True):
        try:
            expected = json.dumps(
                value, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":")
            ).encode()
        except TypeError:
            with pytest.raises(TypeError):
                _compact_bytes(value, sort_keys)
            continue
        assert _compact_bytes(value, sort_keys) == expected


@settings(max_examples=300, deadline=None)
@given(values | documents | st.lists(st.text(st.characters(categories=["Cs", "Ll"])), max_size=3))
def test_dumps_compact_is_the_json_modules_sorted_compact_text(value: Any) -> None:
    """Lone surrogates included: the json module keeps them in its str, and so does this."""
    expected = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    assert dumps_compact(value) == expected
