"""The Cursor desktop text form (facts §7)."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import CID, EXAMPLE_TEXT, sample_session, session, tool

from txcript.errors import Malformed
from txcript.harnesses.cursor_desktop import codec, text
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.model import ToolUse

NS = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")
MINIMAL = '{"header": "{}", "bubbles": []}'


def with_(fields: str) -> str:
    """The minimal document plus ``fields`` (JSON object members)."""
    return MINIMAL[:-1] + ", " + fields + "}"


def test_the_sample_round_trips_through_the_text_form() -> None:
    native = sample_session()
    back = text.from_text(text.to_text(native))
    assert back == native
    assert [row.key.rsplit(":", 1)[1] for row in back.bubbles] == [
        "b-text",
        "b-user",
        "b-corrupt",
        "b-think",
        "b-read",
        "b-search",
        "b-mystery",
    ]
    assert codec.to_common(back).meta.id == CID


def test_the_example_file_round_trips_byte_for_byte() -> None:
    native = text.from_text(EXAMPLE_TEXT)
    assert (native.workspace_id, native.created_at, native.recency) == (
        "5d41402abc4b2a76b9719d911017c592",
        1786948236174,
        1786948301950,
    )
    assert (len(native.bubbles), len(native.aux)) == (6, 2)
    assert text.to_text(native) == EXAMPLE_TEXT.rstrip("\n")


def test_defaults_are_omitted_and_the_field_order_is_fixed() -> None:
    bare = CursorSession(header="{}", bubbles=())
    assert list(json.loads(text.to_text(bare))) == [
        "header",
        "created_at",
        "last_updated_at",
        "recency",
        "bubbles",
    ]
    full = CursorSession(
        header="h",
        bubbles=(KVRow("bubbleId:c:b", "v"),),
        workspace_id="w",
        created_at=1,
        last_updated_at=2,
        is_archived=True,
        is_subagent=True,
        recency=3,
        checkpoint_at=4,
        composer_data="{}",
        aux=(KVRow("checkpointId:c:1", "{}"),),
        extra_columns=(("subagentTypeName", None),),
        header_origin="item_table",
    )
    rendered = text.to_text(full)
    assert list(json.loads(rendered)) == [
        "header",
        "workspace_id",
        "created_at",
        "last_updated_at",
        "is_archived",
        "is_subagent",
        "recency",
        "checkpoint_at",
        "composer_data",
        "bubbles",
        "aux",
        "extra_columns",
        "header_origin",
    ]
    assert rendered.startswith('{\n  "header": "h",\n  "workspace_id": "w",\n')
    row = '\n    {\n      "key": "bubbleId:c:b",\n      "value": "v"\n    }\n'
    assert f'\n  "bubbles": [{row}  ],' in rendered
    assert text.from_text(rendered) == full


def test_extra_columns_keep_blobs_and_non_finite_reals() -> None:
    native = CursorSession(
        header="{}",
        bubbles=(),
        extra_columns=(("a", b"\x00\xff"), ("b", float("inf")), ("c", 1.5), ("d", "x"), ("e", 7)),
    )
    rendered = text.to_text(native)
    assert json.loads(rendered)["extra_columns"] == {
        "a": {"hex": "00ff"},
        "b": {"real": "inf"},
        "c": 1.5,
        "d": "x",
        "e": 7,
    }
    assert text.from_text(rendered) == native


def test_null_optional_fields_read_as_absent_and_unknown_fields_are_ignored() -> None:
    document = {
        "header": "{}",
        "bubbles": [],
        "workspace_id": None,
        "checkpoint_at": None,
        "composer_data": None,
        "future": {"anything": [1]},
        "extra_columns": None,
    }
    assert text.from_text(json.dumps(document)) == CursorSession(header="{}", bubbles=())


@pytest.mark.parametrize(
    ("document", "complaint"),
    [
        ("{not json", "not valid JSON"),
        (with_('"created_at": NaN'), "not valid JSON"),
        ("[" * 100_000, "not valid JSON"),
        ("[]", "must be a JSON object, not an array"),
        ('{"bubbles": []}', "missing required field `header`"),
        ('{"header": "{}"}', "missing required field `bubbles`"),
        ('{"header": 5, "bubbles": []}', "`header` must be a string, not an integer"),
        ('{"header": null, "bubbles": []}', "`header` must be a string, not null"),
        ('{"header": "{}", "bubbles": {}}', "`bubbles` must be an array, not an object"),
        ('{"header": "{}", "bubbles": [5]}', "`bubbles[0]` must be an object"),
        ('{"header": "{}", "bubbles": [{"value": "v"}]}', "`bubbles[0]` has no `key`"),
        ('{"header": "{}", "bubbles": [{"key": "k"}]}', "`bubbles[0]` has no `value`"),
        (
            '{"header": "{}", "bubbles": [{"key": "k", "value": 1}]}',
            "`bubbles[0].value` must be a string",
        ),
        (with_('"aux": [{"key": null, "value": ""}]'), "`aux[0].key` must be a string"),
        (with_('"aux": null'), "`aux` must be an array, not null"),
        (with_('"created_at": 1.5'), "`created_at` must be an integer, not a number"),
        (with_('"created_at": 1.0'), "`created_at` must be an integer"),
        (with_('"recency": "1"'), "`recency` must be an integer, not a string"),
        (with_('"last_updated_at": null'), "`last_updated_at` must be an integer, not null"),
        (with_('"created_at": true'), "`created_at` must be an integer, not a boolean"),
        (with_('"created_at": 9223372036854775808'), "outside the 64-bit integer range"),
        (with_('"is_archived": 1'), "`is_archived` must be true or false"),
        (with_('"is_subagent": "false"'), "`is_subagent` must be true or false"),
        (with_('"workspace_id": 5'), "`workspace_id` must be a string"),
        (with_('"checkpoint_at": 0.5'), "`checkpoint_at` must be an integer"),
        (with_('"composer_data": {}'), "`composer_data` must be a string, not an object"),
        (with_('"extra_columns": []'), "`extra_columns` must be an object"),
        (with_('"extra_columns": {"a": [1]}'), "`extra_columns.a` must be null"),
        (
            with_('"extra_columns": {"a": {"hex": "zz"}}'),
            "`extra_columns.a.hex` is not hexadecimal",
        ),
        (with_('"header_origin": "disk"'), "`header_origin` must be one of"),
        ('{"header": "\\ud800", "bubbles": []}', "not valid JSON"),
        ('{"header": "\ud800", "bubbles": []}', "not valid JSON"),
    ],
)
def test_hostile_input_raises_a_one_line_malformed_error(document: str, complaint: str) -> None:
    with pytest.raises(Malformed) as caught:
        text.from_text(document)
    message = str(caught.value)
    assert message.startswith("malformed cursor_desktop transcript: ")
    assert complaint in message
    assert "\n" not in message and len(message) < 300
    assert caught.value.harness == "cursor_desktop"


def test_a_header_that_is_not_json_still_reads() -> None:
    native = session([tool("t", "ask_question", "", {}, "started", "")], head="no json here")
    back = text.from_text(text.to_text(native))
    transcript = codec.to_common(back)
    assert (transcript.meta.id, transcript.meta.title, transcript.meta.cwd) == ("", None, None)
    (use,) = transcript.messages[0].content
    assert isinstance(use, ToolUse) and use.id == str(uuid.uuid5(NS, ":0:call"))


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (json.loads(EXAMPLE_TEXT), True),
        (json.loads(MINIMAL), True),
        ({"header": "{}", "bubbles": [{"key": "k", "value": "v"}], "other": 1}, True),
        ({"header": "{}", "bubbles": [{"key": "k"}]}, False),
        ({"header": {}, "bubbles": []}, False),
        ({"header": "{}"}, False),
        ({"meta": {}, "messages": []}, False),
        ([], False),
        ("text", False),
        (None, False),
    ],
)
def test_sniff_recognises_the_text_form(document: Any, expected: bool) -> None:
    assert text.sniff(document) is expected


cells = st.text(max_size=20)
rows = st.lists(st.builds(KVRow, cells, cells), max_size=4).map(tuple)
i64 = st.integers(-(2**63), 2**63 - 1)
scalars = st.none() | i64 | st.floats() | cells | st.binary(max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    st.builds(
        CursorSession,
        header=cells,
        bubbles=rows,
        workspace_id=st.none() | cells,
        created_at=i64,
        last_updated_at=i64,
        is_archived=st.booleans(),
        is_subagent=st.booleans(),
        recency=i64,
        checkpoint_at=st.none() | i64,
        composer_data=st.none() | cells,
        aux=rows,
        extra_columns=st.dictionaries(cells, scalars, max_size=3).map(lambda d: tuple(d.items())),
        header_origin=st.sampled_from(["table", "item_table", "synthesized"]),
    )
)
def test_every_body_round_trips_through_the_text_form(native: CursorSession) -> None:
    rendered = text.to_text(native)
    back = text.from_text(rendered)
    assert [_comparable(v) for _, v in back.extra_columns] == [
        _comparable(v) for _, v in native.extra_columns
    ]
    assert replace(back, extra_columns=()) == replace(native, extra_columns=())
    assert [n for n, _ in back.extra_columns] == [n for n, _ in native.extra_columns]
    assert text.sniff(json.loads(rendered))


def _comparable(value: Any) -> Any:
    """NaN compares unequal to itself; compare it by name."""
    return "nan" if isinstance(value, float) and value != value else value
