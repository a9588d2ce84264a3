"""The OpenCode native body: a session row, its message rows and their part rows, as stored.

OpenCode (``opencode``) keeps one session as a ``session`` row plus ``message`` and ``part`` rows
whose ``data`` column is JSON text (the message or part without its ``id``/``sessionID``/
``messageID``, which are columns). The file stores that came before the database hold the same
objects as JSON files, ids included. This body is the common denominator: every value a
same-harness round trip needs, with each ``data`` cell kept as the exact text it was stored as
(:attr:`Record.text`) beside its parsed value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import msgspec

from txcript.shared.jsonutil import INVALID, try_loads

HARNESS = "opencode"


@dataclass(frozen=True, slots=True)
class Dialect:
    """Which app's database this is: OpenCode's, or a fork's that keeps the same tables (Kilo's
    ``kilo.db``). It names the harness a row backup belongs to and the app error messages name."""

    harness: str
    name: str
    #: The program that creates the database on its first run.
    program: str

    @property
    def a_name(self) -> str:
        """The name with its article ("an OpenCode", "a Kilo")."""
        return f"{'an' if self.name[:1] in 'AEIOU' else 'a'} {self.name}"

    @property
    def busy_hint(self) -> str:
        return f"try again when {self.name} is idle"


OPENCODE = Dialect(HARNESS, "OpenCode", "opencode")

#: ``session`` columns whose value is JSON text (Drizzle ``text({mode: "json"})``).
JSON_COLUMNS = frozenset(("summary_diffs", "revert", "permission", "model", "metadata"))

#: Column names never read from any table: credentials live in their own tables, which are never
#: touched, and no session column may smuggle one in under a new name.
_SECRET_MARKERS = ("secret", "password", "access_token", "refresh_token", "credential", "api_key")


def is_secret_column(name: str) -> bool:
    lowered = name.lower()
    return any(marker in lowered for marker in _SECRET_MARKERS)


_encoder = msgspec.json.Encoder()


def dumps(value: Any) -> str:
    """JSON the way OpenCode writes it (``JSON.stringify``): compact, key order kept, raw UTF-8."""
    try:
        return _encoder.encode(value).decode("utf-8")
    except (TypeError, ValueError, OverflowError, UnicodeError):
        # lone surrogates or integers beyond 64 bits: the stdlib writes them (a save then
        # refuses text that is not UTF-8 with a one-line error)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(slots=True)
class Record:
    """One ``message`` or ``part`` row: its id, timestamps and ``data`` (text and parsed value).

    Not frozen only because a frozen dataclass's ``__init__`` costs twice as much, and a large
    session has tens of thousands of rows; nothing mutates a record.
    """

    id: str
    text: str
    time_created: int | None = None
    time_updated: int | None = None
    #: ``text`` parsed; :data:`~txcript.shared.jsonutil.INVALID` when it is not JSON.
    data: Any = field(default=INVALID, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.data is INVALID:
            self.data = try_loads(self.text)

    @classmethod
    def of(
        cls, record_id: str, data: Any, time_created: int | None, time_updated: int | None
    ) -> Record:
        return cls(record_id, dumps(data), time_created, time_updated, data)

    @property
    def obj(self) -> dict[str, Any] | None:
        """The data when it is a JSON object, else None."""
        return self.data if isinstance(self.data, dict) else None


@dataclass(frozen=True, slots=True)
class NativeMessage:
    record: Record
    parts: tuple[Record, ...] = ()


@dataclass(frozen=True, slots=True)
class OpenCodeSession:
    """One session. ``session`` maps ``session`` table column names to their stored values."""

    session: dict[str, Any]
    messages: tuple[NativeMessage, ...] = ()
    #: Part rows whose message row is missing (kept for the round trip; the codec warns).
    orphan_parts: tuple[tuple[str, Record], ...] = ()

    @property
    def id(self) -> str:
        value = self.session.get("id")
        return value if isinstance(value, str) else ""


def json_cell(value: Any) -> Any:
    """A JSON-text column's value parsed, or None when absent or not JSON."""
    if isinstance(value, str):
        parsed = try_loads(value)
        return None if parsed is INVALID else parsed
    return None


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value
