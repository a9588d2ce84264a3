"""The Grok text form: one session directory as a portable JSON document (no I/O).

``{"grok_session": <uuid>, "project": <project dir name>, "chat_history": <text>|null,
"updates": <text>|null, "summary": <text>|null}`` — each file's text exactly, ``null`` for a
file the directory does not have.
"""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import dumps_pretty, loads_strict

from .native import HARNESS, GrokSession

_FIELDS = (("chat_history", "chat"), ("updates", "updates"), ("summary", "summary"))


def to_text(native: GrokSession) -> str:
    document: dict[str, Any] = {"grok_session": native.id, "project": native.project}
    for name, attribute in _FIELDS:
        document[name] = getattr(native, attribute)
    return dumps_pretty(document) + "\n"


def from_text(text: str) -> GrokSession:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"not valid JSON: {exc}") from None
    if not sniff(document):
        raise Malformed(HARNESS, "not a Grok session document (no `grok_session`)")
    if not isinstance(document.get("project", ""), str):
        raise Malformed(HARNESS, "`project` is not a string")
    files: dict[str, str | None] = {}
    for name, attribute in _FIELDS:
        value = document.get(name)
        if value is not None and not isinstance(value, str):
            raise Malformed(HARNESS, f"`{name}` is not a string or null")
        files[attribute] = value
    if files["chat"] is None and files["updates"] is None:
        raise Malformed(HARNESS, "the session has neither `chat_history` nor `updates`")
    return GrokSession(id=document["grok_session"], project=document.get("project", ""), **files)


def sniff(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("grok_session"), str)
