"""Timestamp parsing and the forms the formats write."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from txcript.errors import BadInput
from txcript.shared.timeutil import format_millis, format_rfc3339, parse_rfc3339, parse_when


def test_a_bare_date_for_until_is_its_last_microsecond() -> None:
    """``--until DATE`` ended at 23:59:59 sharp, so a session started at 23:59:59.5 that day
    fell outside it (the bounds hold to the microsecond)."""
    since = parse_when("2026-08-18", end_of_day=False)
    until = parse_when("2026-08-18", end_of_day=True)
    assert until - since == timedelta(days=1, microseconds=-1)
    assert since.tzinfo is UTC


def test_rfc3339_bounds_are_taken_as_given_and_anything_else_is_bad_input() -> None:
    assert parse_when("2026-08-18T10:00:00+02:00", end_of_day=True) == datetime(
        2026, 8, 18, 8, tzinfo=UTC
    )
    with pytest.raises(BadInput, match="is not a time: use RFC 3339"):
        parse_when("last tuesday", end_of_day=False)


def test_relative_bounds_and_zoneless_times_are_taken_as_a_user_means_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--since 7d`` and ``--since yesterday`` were bad input, and so was a time without a
    zone (``2026-08-18 10:00``); a zone-less time is local, as a bare date already was."""
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        before = datetime.now(UTC)
        week = parse_when("7d", end_of_day=False)
        assert before - timedelta(days=7, seconds=5) < week <= datetime.now(UTC) - timedelta(days=7)
        assert parse_when("12h", end_of_day=True) <= datetime.now(UTC) - timedelta(hours=12)
        assert parse_when("2026-08-18 10:00", end_of_day=False) == datetime(
            2026, 8, 18, 1, tzinfo=UTC
        )
        assert parse_when("2026-08-18T10:00:30", end_of_day=True) == datetime(
            2026, 8, 18, 1, 0, 30, tzinfo=UTC
        )
        local_today = datetime.now().astimezone().date()
        start = parse_when("yesterday", end_of_day=False).astimezone()
        end = parse_when("yesterday", end_of_day=True).astimezone()
        assert start.date() == end.date() == local_today - timedelta(days=1)
        assert (start.hour, start.minute, end.hour, end.minute) == (0, 0, 23, 59)
        assert parse_when("today", end_of_day=False).astimezone().date() == local_today
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


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


# ---------------------------------------------------- fast paths agree with the general ones

_DIGIT_PAIRS = st.integers(0, 99).map(lambda n: f"{n:02d}")


def _general_parse(text: str) -> datetime | None:
    """The general RFC 3339 path, bypassing the fast path of the common shape."""
    from txcript.shared import timeutil

    saved = timeutil._MILLIS_Z
    timeutil._MILLIS_Z = re.compile(r"(?!)")
    try:
        return parse_rfc3339(text)
    finally:
        timeutil._MILLIS_Z = saved


@settings(max_examples=500, deadline=None)
@given(
    st.integers(0, 9999).map(lambda n: f"{n:04d}"),
    _DIGIT_PAIRS,
    _DIGIT_PAIRS,
    _DIGIT_PAIRS,
    _DIGIT_PAIRS,
    _DIGIT_PAIRS,
    st.integers(0, 999).map(lambda n: f"{n:03d}"),
)
def test_the_millisecond_z_fast_path_reads_as_the_general_parser(
    year: str, month: str, day: str, hour: str, minute: str, second: str, millis: str
) -> None:
    """Invalid dates (month 13, second 60, day 00, year 0000) are refused by both."""
    text = f"{year}-{month}-{day}T{hour}:{minute}:{second}.{millis}Z"
    fast = parse_rfc3339(text)
    assert fast == _general_parse(text)
    assert fast is None or fast.tzinfo is UTC


def _formatted_by_parts(value: datetime) -> str:
    from txcript.shared.timeutil import _fraction, _seconds

    value = value.astimezone(UTC)
    return _seconds(value) + _fraction(value) + "Z"


@settings(max_examples=500, deadline=None)
@given(
    st.datetimes(
        min_value=datetime(1, 1, 2),
        max_value=datetime(9999, 12, 30),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=7))]
        ),
    )
    | st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)).map(
        lambda moment: moment.replace(microsecond=moment.microsecond // 1000 * 1000, tzinfo=UTC)
    )
)
def test_format_rfc3339_writes_what_the_field_by_field_form_writes(value: datetime) -> None:
    assert format_rfc3339(value) == _formatted_by_parts(value)
