"""The codec parses bubbles one at a time as it folds them; the rows its cheap first pass reads
differently from a full parse still give the documented result."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import dbfixtures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import CID, assistant, cell, session, user

from strategies import transcripts
from txcript import harnesses
from txcript import model as m
from txcript.harnesses.cursor_desktop import codec
from txcript.shared.jsonutil import dumps_compact


def _texts(transcript: m.Transcript) -> list[str]:
    return [b.text for msg in transcript.messages for b in msg.content if isinstance(b, m.Text)]


def test_a_row_with_a_number_out_of_range_is_no_bubble() -> None:
    """msgspec skips ``1e400`` in a member it does not build; the full parse refuses the row, so
    it is dropped, as every row that is not strict JSON is."""
    bad = '{"_v":3,"type":2,"bubbleId":"b2","text":"never shown","x":1e400}'
    transcript = codec.to_common(
        session([user("b1", "first"), ("b2", bad), assistant("b3", "third")])
    )
    assert _texts(transcript) == ["first", "third"]


def test_the_out_of_range_row_does_not_keep_its_first_position() -> None:
    """Row order: an invalid row holds no place, so a later valid row with its id is placed
    where that row stands."""
    bad = '{"_v":3,"type":2,"bubbleId":"b1","text":"never shown","x":1e400}'
    rows = [("b1", bad), user("b2", "second"), assistant("b1", "first valid b1")]
    assert _texts(codec.to_common(session(rows))) == ["second", "first valid b1"]


def test_escaped_and_repeated_keys_read_as_a_full_parse_reads_them() -> None:
    escaped = '{"_v":3,"type":1,"bubble\\u0049d":"b2","text":"escaped id"}'
    repeated = '{"_v":3,"type":2,"bubbleId":"zz","bubbleId":"b3","text":"last key wins"}'
    rows = [("b1", cell(user("b1", "one"))), ("x", escaped), ("y", repeated)]
    composer = {"fullConversationHeadersOnly": [{"bubbleId": i} for i in ("b3", "b2", "b1")]}
    transcript = codec.to_common(session(rows, composer=composer))
    assert _texts(transcript) == ["last key wins", "escaped id", "one"]


def test_integers_beyond_64_bits_and_non_objects() -> None:
    big = '{"_v":3,"type":1,"bubbleId":"b1","text":"big","n":' + "9" * 40 + "}"
    rows = [("b1", big), ("b2", "[1,2]"), ("b3", "not json"), assistant("b4", "end")]
    assert _texts(codec.to_common(session(rows))) == ["big", "end"]


def test_the_collector_is_paused_while_reading_and_restored() -> None:
    assert gc.isenabled()
    codec.to_common(session([user("b1", "x")]))
    assert gc.isenabled()


@pytest.mark.parametrize("app", ["app_3_16", "app_3_7", "app_1_7", "app_0_50", "app_0_45"])
def test_meta_of_is_the_meta_of_to_common(app: str, tmp_path: Path) -> None:
    """What `continue` reports as the copy's title comes from the head and composerData only."""
    database = getattr(dbfixtures, app)(tmp_path / "User" / "globalStorage" / "state.vscdb")
    harness = harnesses.get("cursor_desktop")
    store = harness.open_store(database.parent.parent)
    found = store.discover()
    assert found
    for listed in found:
        native = store.load(listed.reference)
        assert harness.meta_of(native) == harness.to_common(native).meta


@settings(max_examples=150, deadline=None)
@given(transcripts)
def test_written_cells_are_the_json_modules_compact_sorted_text(transcript: m.Transcript) -> None:
    """The writer encodes bubbles and composerData with msgspec; each cell is byte for byte what
    ``dumps_compact`` (the json module) writes for the same document."""
    native = harnesses.get("cursor_desktop").from_common(transcript)
    cells = [row.value for row in native.bubbles]
    if native.composer_data is not None:
        cells.append(native.composer_data)
    for text in cells:
        assert dumps_compact(json.loads(text)) == text


# ------------------------------------------- the lazy read is the eager read, whatever the rows

_IDS = st.sampled_from(["b1", "b2", "b3", "b4"])


@st.composite
def _rows(draw: st.DrawFn) -> tuple[str, str]:
    """A bubble row: a key suffix and a cell whose ``bubbleId`` may differ from it, be missing
    or not a string; or a cell that is no JSON object, or refused by the full parse only."""
    key = draw(_IDS)
    kind = draw(st.sampled_from(["same", "other", "missing", "number", "array", "overflow"]))
    text = draw(st.sampled_from(["alpha", "beta", "gamma"]))
    document: dict[str, object] = {"_v": 3, "type": draw(st.sampled_from([1, 2])), "text": text}
    if kind == "same":
        document["bubbleId"] = key
    elif kind == "other":
        document["bubbleId"] = draw(_IDS)
    elif kind == "number":
        document["bubbleId"] = 7
    if kind == "array":
        return key, "[1]"
    if kind == "overflow":
        return key, cell(document)[:-1] + ',"x":1e400}'
    return key, cell(document)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_rows(), max_size=6),
    st.none() | st.lists(_IDS | st.just("bubbleId:" + CID + ":b1"), max_size=5),
    st.booleans(),
)
def test_the_lazy_read_folds_what_the_eager_read_folds(
    rows: list[tuple[str, str]], listed: list[str] | None, repeat_keys: bool
) -> None:
    """Identities taken from the keys, from a first pass, or (when rows repeat) from a full
    parse of every row: the messages are those of parsing every row first."""
    if not repeat_keys:
        rows = list({key: (key, text) for key, text in rows}.values())
    composer = None
    if listed is not None:
        composer = {"fullConversationHeadersOnly": [{"bubbleId": i} for i in listed]}
    native = session(rows, composer=composer)
    meta = codec.meta_of(native)
    eager = codec._Folder(meta).fold(codec._ordered(codec._parsed_rows(native), listed or []))
    assert codec.to_common(native).messages == eager
