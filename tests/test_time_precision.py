"""Timestamps finer than microseconds are truncated, never rounded, on every way in.

Python datetimes (the Common model's type) hold microseconds. msgspec's own decoder rounds extra
digits, which moved ``2026-12-31T23:59:59.9999999Z`` into the next year and could put a message
after a later one. Every reader now truncates, like ``shared.timeutil.parse_rfc3339``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from txcript import harnesses
from txcript import model as m
from txcript.shared.timeutil import parse_rfc3339

LAST_OF_YEAR = datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def common_doc(meta_time: str, *times: str) -> dict[str, object]:
    return {
        "meta": {"id": "s", "timestamp": meta_time},
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": f"at {t}"}], "timestamp": t}
            for t in times
        ],
    }


def test_common_json_truncates_nanoseconds_instead_of_rounding() -> None:
    doc = common_doc("2026-08-21T09:00:05.123456789Z", "2026-12-31T23:59:59.9999999Z")
    transcript = m.from_json(json.dumps(doc))
    assert transcript.meta.timestamp == datetime(2026, 8, 21, 9, 0, 5, 123456, tzinfo=UTC)
    assert transcript.messages[0].timestamp == LAST_OF_YEAR  # rounding gave 2027-01-01
    # Only timestamps change: a text holding the same pattern is kept verbatim.
    assert transcript.messages[0].content == (m.Text(text="at 2026-12-31T23:59:59.9999999Z"),)
    out = json.loads(m.to_json(transcript))
    assert out["meta"]["timestamp"] == "2026-08-21T09:00:05.123456Z"
    assert out["messages"][0]["timestamp"] == "2026-12-31T23:59:59.999999Z"


def test_truncation_keeps_the_order_of_close_events() -> None:
    doc = common_doc("2026-08-21T09:00:00Z", "2026-08-21T09:00:05.9999996Z", "2026-08-21T09:00:06Z")
    first, second = m.from_json(json.dumps(doc)).messages
    assert first.timestamp < second.timestamp


def test_common_builtins_truncate_the_same_way_without_changing_the_input() -> None:
    doc = common_doc("2026-08-21T09:00:05.123456789Z", "2026-12-31T23:59:59.9999999Z")
    snapshot = json.dumps(doc)
    transcript = m.from_builtins(doc)
    assert transcript.messages[0].timestamp == LAST_OF_YEAR
    assert json.dumps(doc) == snapshot


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-31T23:59:59.9999999Z", LAST_OF_YEAR),
        ("2027-01-01T00:59:59.999999999+01:00", LAST_OF_YEAR),
        ("2026-12-31T23:59:59.999999Z", LAST_OF_YEAR),
    ],
)
def test_native_and_simple_timestamps_truncate(text: str, expected: datetime) -> None:
    assert parse_rfc3339(text) == expected


def test_a_codex_rollout_with_nanosecond_times_reads_truncated() -> None:
    codex = harnesses.get("codex")
    meta = {"id": "s-1", "timestamp": "2026-12-31T23:59:59.9999999Z", "cwd": "/w"}
    prompt = {"type": "message", "role": "user", "content": "hi"}
    lines = [
        {"timestamp": "2026-12-31T23:59:59.9999999Z", "type": "session_meta", "payload": meta},
        {"timestamp": "2026-12-31T23:59:59.9999999Z", "type": "response_item", "payload": prompt},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    transcript = codex.to_common(codex.from_text(text))
    assert transcript.meta.timestamp == LAST_OF_YEAR
    assert transcript.messages[0].timestamp == LAST_OF_YEAR
