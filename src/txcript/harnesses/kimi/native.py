"""The Kimi Code native body: a session directory's ``state.json`` and main-agent wire log.

A session is ``sessions/<work dir key>/session_<uuid>/`` with ``state.json`` (the session's
metadata) and ``agents/main/wire.jsonl`` (every durable event of the main agent: a ``metadata``
line, then ``{type, …payload, time (ms)}``). ``state.json`` comes in two shapes: SessionMeta v2
(``version: 2``, an ``agents`` map, times in epoch milliseconds) and the earlier one (no
``version``/``agents``; times in milliseconds or ISO text). The reader takes both; which fields it
reads is in :mod:`.codec`.

Both files are kept byte for byte (the state as its exact text, the wire as its lines), and so is
the work directory the session index names for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonlines import Line, parse_lines, render_lines

HARNESS = "kimi"
BUNDLE_KEY = "kimi_code_session"


@dataclass(frozen=True, slots=True)
class KimiCodeSession:
    """One Kimi Code session: ``state`` is ``state.json``'s exact text (None when absent),
    ``wire`` the main agent's wire lines; ``work_dir`` what ``session_index.jsonl`` names."""

    session_id: str
    state: str | None
    wire: tuple[Line, ...]
    wire_newline: bool = True
    work_dir: str | None = None

    def state_value(self) -> dict[str, Any]:
        if self.state is None:
            return {}
        try:
            value = json.loads(self.state)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


def render_wire(native: KimiCodeSession) -> str:
    return render_lines(native.wire, native.wire_newline)


def to_bundle(native: KimiCodeSession) -> dict[str, Any]:
    return {
        BUNDLE_KEY: 1,
        "id": native.session_id,
        "work_dir": native.work_dir,
        "state": native.state,
        "wire": render_wire(native),
    }


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and document.get(BUNDLE_KEY) == 1
        and isinstance(document.get("wire"), str)
    )


def from_bundle(document: Any) -> KimiCodeSession:
    if not sniff(document):
        raise Malformed(HARNESS, "not a Kimi Code session bundle ({kimi_code_session, wire, …})")
    session_id, state, work_dir = (
        document.get("id"),
        document.get("state"),
        document.get("work_dir"),
    )
    if not isinstance(session_id, str):
        raise Malformed(HARNESS, "the bundle's `id` must be text")
    if not (state is None or isinstance(state, str)) or not (
        work_dir is None or isinstance(work_dir, str)
    ):
        raise Malformed(HARNESS, "the bundle's `state` and `work_dir` must be text or null")
    wire, trailing = parse_lines(document["wire"])
    return KimiCodeSession(session_id, state, wire, trailing, work_dir)
