"""Timestamps: strict RFC 3339 parsing and the few output forms the formats use."""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta, timezone

from txcript.errors import BadInput

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: The shape nearly every stored time has (JavaScript's ``toISOString``): parsed by the C
#: ``fromisoformat``, which reads these 24 ASCII characters exactly as the general path does.
_MILLIS_Z = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z\Z")


@functools.cache
def _rfc3339() -> re.Pattern[str]:
    """Every other offset-carrying form; compiled on first use, as most runs meet none."""
    return re.compile(
        r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:\d{2})\Z"
    )


def parse_rfc3339(text: object) -> datetime | None:
    """Parse an RFC 3339 timestamp that carries an offset; return it in UTC, or None.

    A timestamp without an offset is refused: it names no instant. Digits beyond microseconds are
    truncated (Python datetimes hold microseconds).
    """
    if not isinstance(text, str):
        return None
    if _MILLIS_Z.match(text) is not None:
        try:
            return datetime.fromisoformat(text)
        except ValueError:  # not a date (month 13, second 60 …)
            return None
    m = _rfc3339().match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, frac, zone = m.groups()
    micro = int((frac or "0")[:6].ljust(6, "0"))
    if zone in ("Z", "z"):
        tz = UTC
    else:
        sign = 1 if zone[0] == "+" else -1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            return None
        tz = timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        value = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz
        )
        return value.astimezone(UTC)
    except (ValueError, OverflowError):  # not a date, or outside years 1-9999 once in UTC
        return None


def _seconds(value: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS`` with a four-digit year (strftime does not pad years < 1000)."""
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
        f"T{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    )


def _fraction(value: datetime) -> str:
    micro = value.microsecond
    if micro == 0:
        return ""
    if micro % 1000 == 0:
        return f".{micro // 1000:03d}"
    return f".{micro:06d}"


def format_rfc3339(value: datetime) -> str:
    """UTC with ``Z``; fractional seconds only when non-zero, as 3 or 6 digits."""
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    micro = value.microsecond
    # isoformat pads the year to four digits too, and its offset is "+00:00" here.
    spec = "seconds" if micro == 0 else "milliseconds" if micro % 1000 == 0 else "microseconds"
    return value.isoformat(timespec=spec)[:-6] + "Z"


def format_offset(value: datetime) -> str:
    """UTC with ``+00:00`` (the ``view`` header form); fraction only when non-zero."""
    value = value.astimezone(UTC)
    return _seconds(value) + _fraction(value) + "+00:00"


def format_millis(value: datetime) -> str:
    """UTC with exactly three fractional digits and ``Z``; sub-millisecond digits truncated."""
    value = value.astimezone(UTC)
    return _seconds(value) + f".{value.microsecond // 1000:03d}Z"


def from_epoch_ms(ms: int) -> datetime:
    if type(ms) is int:  # positional whole seconds and milliseconds: twice as fast
        return EPOCH + timedelta(0, ms // 1000, 0, ms % 1000)
    return EPOCH + timedelta(milliseconds=ms)


def to_epoch_ms(value: datetime) -> int:
    delta = value.astimezone(UTC) - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def now() -> datetime:
    return datetime.now(UTC)


#: ``7d``, ``12h``, ``30m``, ``45s``, ``2w``: that long before now.
_AGO = re.compile(r"(\d{1,6})\s*([smhdw])\Z")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
#: A date and time with no zone (``2026-08-18T10:00``, ``2026-08-18 10:00:30``): local time.
_LOCAL = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?\Z")


def parse_when(value: str, *, end_of_day: bool) -> datetime:
    """A ``--since``/``--until`` bound: RFC 3339; a date and time with no zone, in local time;
    a bare ``YYYY-MM-DD``, ``today`` or ``yesterday`` in local time (its midnight, or with
    ``end_of_day`` its last microsecond); or a span before now (``7d``, ``12h``, ``2w``)."""
    parsed = parse_rfc3339(value)
    if parsed is not None:
        return parsed
    text = value.strip().lower()
    ago = _AGO.match(text)
    if ago is not None:
        return now() - timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
    if _LOCAL.match(text):
        try:
            return _local(datetime.fromisoformat(text.replace(" ", "T").replace("t", "T")))
        except ValueError:  # not a date (month 13 …)
            pass
    if text in ("today", "yesterday"):
        local_now = datetime.now().astimezone()
        day = datetime(local_now.year, local_now.month, local_now.day)
        if text == "yesterday":
            day -= timedelta(days=1)
    else:
        try:
            day = datetime.strptime(value, "%Y-%m-%d")
        except ValueError:
            raise BadInput(
                f"`{value}` is not a time: use RFC 3339 (2026-08-18T10:00:00Z), a local date and "
                "time (2026-08-18 10:00), a date (2026-08-18), today, yesterday, or a span "
                "before now (7d, 12h, 2w)"
            ) from None
    if end_of_day:  # its last microsecond: a session started at 23:59:59.5 is that day's
        day += timedelta(days=1, microseconds=-1)
    return _local(day)


def _local(day: datetime) -> datetime:
    """A naive local time as the instant it names (UTC)."""
    try:
        return day.astimezone().astimezone(UTC)
    except (OverflowError, ValueError):
        # The first or last day datetime holds, in a time zone that puts its local midnight
        # (or last second) outside the range: as far as a bound can go.
        return (datetime.min if day.year == 1 else datetime.max).replace(tzinfo=UTC)


def parse_window(since: str | None, until: str | None) -> tuple[datetime | None, datetime | None]:
    """``--since``/``--until`` as bounds (see :func:`parse_when`); bad input when the window
    is empty because it starts after it ends."""
    start = None if since is None else parse_when(since, end_of_day=False)
    end = None if until is None else parse_when(until, end_of_day=True)
    if start is not None and end is not None and start > end:
        raise BadInput(f"--since {since} is after --until {until}")
    return start, end
