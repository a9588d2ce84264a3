"""Timestamp parsing and the forms the formats write."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from txcript.errors import BadInput
from txcript.shared.timeutil import format_millis, format_rfc3339, parse_rfc3339, parse_when


def test_a_bare_date_for_until_is_86399_seconds_after_since() -> None:
    since = parse_when("2026-08-18", end_of_day=False)
    until = parse_when("2026-08-18", end_of_day=True)
    assert (until - since).total_seconds() == 86_399
    assert since.tzinfo is UTC


def test_rfc3339_bounds_are_taken_as_given_and_anything_else_is_bad_input() -> None:
    assert parse_when("2026-08-18T10:00:00+02:00", end_of_day=True) == datetime(
        2026, 8, 18, 8, tzinfo=UTC
    )
    with pytest.raises(BadInput, match="neither RFC3339"):
        parse_when("yesterday", end_of_day=False)


@pytest.mark.parametrize(
    ("text", "common", "millis"),
    [
        ("2026-01-02T03:04:05Z", "2026-01-02T03:04:05Z", "2026-01-02T03:04:05.000Z"),
        ("2026-01-02T03:04:05.5+01:00", "2026-01-02T02:04:05.500Z", "2026-01-02T02:04:05.500Z"),
        (
            "2026-01-02T03:04:05.123456789Z",
            "2026-01-02T03:04:05.123456Z",
            "2026-01-02T03:04:05.123Z",
        ),
    ],
)
def test_timestamps_round_trip_through_both_output_forms(
    text: str, common: str, millis: str
) -> None:
    parsed = parse_rfc3339(text)
    assert parsed is not None
    assert (format_rfc3339(parsed), format_millis(parsed)) == (common, millis)


@pytest.mark.parametrize("text", ["2026-01-02T03:04:05", "2026-01-02", "2026-13-01T00:00:00Z", 5])
def test_timestamps_without_an_offset_or_out_of_range_are_refused(text: object) -> None:
    assert parse_rfc3339(text) is None
