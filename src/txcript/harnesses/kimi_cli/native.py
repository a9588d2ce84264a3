"""The Kimi CLI native body: a session directory's files, each kept byte for byte.

A session is ``sessions/<md5(work dir)>/<uuid>/`` holding ``context.jsonl`` (the model context:
``{role, content, tool_calls?, tool_call_id?}`` messages and ``_system_prompt`` / ``_checkpoint`` /
``_usage`` bookkeeping lines), ``wire.jsonl`` (a ``{type: "metadata", protocol_version}`` line,
then ``{timestamp, message: {type, payload}}`` events: the only times the session records) and
``state.json`` (``custom_title``, approvals, plan mode, archive flag, todos). The oldest layout is
a flat ``sessions/<md5>/<uuid>.jsonl`` context file with nothing beside it; Kimi moves it into a
directory on first access, and the body reads it the same way (``wire``/``state`` absent).

``/undo`` and ``/clear`` rotate the old context to ``context_1.jsonl``…; the live context is
``context.jsonl`` alone, so the rotated files are not part of the body.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonlines import Line, parse_lines, render_lines

HARNESS = "kimi_cli"
MESSAGE_ROLES = frozenset(("user", "assistant", "tool", "system"))
BOOKKEEPING_ROLES = frozenset(("_system_prompt", "_checkpoint", "_usage"))
#: The wire protocol this writer speaks (Kimi CLI 1.52's).
WIRE_PROTOCOL = "1.10"
BUNDLE_KEY = "kimi_cli_session"


@dataclass(frozen=True, slots=True)
class KimiCliSession:
    """One Kimi CLI session.

    ``context``/``wire`` (with their final-newline flags) are those files' exact lines (``wire``
    None when the session has no wire file); ``state`` is ``state.json``'s exact text, or None.
    ``work_dir`` is the directory the session belongs to, from ``kimi.json`` (None when the index
    does not name it). ``flat`` marks the oldest layout; it does not take part in equality, since
    a save writes the layout Kimi migrates it to.
    """

    session_id: str
    work_dir: str | None
    context: tuple[Line, ...]
    context_newline: bool = True
    wire: tuple[Line, ...] | None = None
    wire_newline: bool = True
    state: str | None = None
    flat: bool = field(default=False, compare=False)

    def state_value(self) -> dict[str, Any]:
        if self.state is None:
            return {}
        try:
            value = json.loads(self.state)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


def is_context_line(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str)


def parse_context(text: str, label: str) -> tuple[tuple[Line, ...], bool]:
    lines, trailing = parse_lines(text)
    if any(line.text.strip() for line in lines) and not any(
        is_context_line(line.value) for line in lines
    ):
        raise Malformed(HARNESS, f"{label} holds no Kimi context records")
    return lines, trailing


def render_context(native: KimiCliSession) -> str:
    return render_lines(native.context, native.context_newline)


def render_wire(native: KimiCliSession) -> str | None:
    return None if native.wire is None else render_lines(native.wire, native.wire_newline)


def to_bundle(native: KimiCliSession) -> dict[str, Any]:
    """The text form: one JSON document holding the session's files as text."""
    return {
        BUNDLE_KEY: 1,
        "id": native.session_id,
        "work_dir": native.work_dir,
        "context": render_context(native),
        "wire": render_wire(native),
        "state": native.state,
    }


def from_bundle(document: Any) -> KimiCliSession:
    if not sniff(document):
        raise Malformed(HARNESS, "not a Kimi CLI session bundle ({kimi_cli_session, context, …})")
    session_id = document.get("id")
    work_dir = document.get("work_dir")
    wire = document.get("wire")
    state = document.get("state")
    if not isinstance(session_id, str) or not (work_dir is None or isinstance(work_dir, str)):
        raise Malformed(HARNESS, "the bundle's `id` must be text and `work_dir` text or null")
    if not (wire is None or isinstance(wire, str)) or not (state is None or isinstance(state, str)):
        raise Malformed(HARNESS, "the bundle's `wire` and `state` must be text or null")
    context, context_newline = parse_context(document["context"], "the bundle's context")
    wire_lines, wire_newline = parse_lines(wire) if wire is not None else (None, True)
    return KimiCliSession(
        session_id=session_id,
        work_dir=work_dir,
        context=context,
        context_newline=context_newline,
        wire=wire_lines,
        wire_newline=wire_newline,
        state=state,
    )


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and document.get(BUNDLE_KEY) == 1
        and isinstance(document.get("context"), str)
    )
