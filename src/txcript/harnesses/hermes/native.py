"""The Hermes native body: one session as Hermes stores it.

A **database** session is its ``sessions`` row (every column the schema has, by name) and its
``messages`` rows in ``id`` order, each without its ``id`` and ``session_id`` (which a copy gets
anew) but with every other column as stored: ``content`` is plain text or ``"\\0json:"`` and a
JSON document (structured parts such as images), ``tool_calls`` JSON text in OpenAI's
function-call shape, ``active = 0`` a row rewound away, and so on.

A **log** session is a file under ``sessions/``: a ``<id>.jsonl`` transcript (a ``session_meta``
line, then one message per line) or a ``session_<id>.json`` snapshot (``{session_id, model,
platform, session_start, …, messages}``). Its text is kept byte for byte; ``session`` and
``messages`` are what it parses to.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

HARNESS = "hermes"
#: The prefix Hermes gives a ``content`` cell holding JSON (structured message parts).
JSON_PREFIX = "\x00json:"

DB = "db"
JSONL = "jsonl"
JSON = "json"

#: Column names never read from any table: no credential may reach txcript through a column
#: added under a new name.
_SECRET_MARKERS = ("secret", "password", "access_token", "refresh_token", "credential", "api_key")


def is_secret_column(name: str) -> bool:
    lowered = name.lower()
    return any(marker in lowered for marker in _SECRET_MARKERS)


@dataclass(frozen=True, slots=True)
class HermesSession:
    session: dict[str, Any]
    messages: tuple[dict[str, Any], ...] = ()
    kind: str = DB
    #: A log file's exact text (None for a database session).
    log: str | None = None
    #: A log file's session id, from its name (its text does not always hold it).
    name: str = field(default="", compare=False)

    @property
    def id(self) -> str:
        for key in ("id", "session_id"):
            value = self.session.get(key)
            if isinstance(value, str) and value:
                return value
        return self.name


def decode_content(value: Any) -> Any:
    """A ``content`` cell as the value it stands for (structured parts parsed)."""
    if isinstance(value, str) and value.startswith(JSON_PREFIX):
        try:
            return json.loads(value[len(JSON_PREFIX) :])
        except (ValueError, RecursionError):
            return value
    return value


def encode_content(value: Any) -> Any:
    """What Hermes stores for a message's content: text as it is, parts as prefixed JSON."""
    if value is None or isinstance(value, str | int | float):
        return value
    return JSON_PREFIX + json.dumps(value)


def json_cell(value: Any) -> Any:
    """A JSON-text cell parsed, or None when empty or not JSON."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None
