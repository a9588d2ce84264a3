"""The Amp text form: the thread document, as stored and as ``amp threads export`` prints it."""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import loads_strict

from .native import HARNESS, AmpThread


def from_text(text: str) -> AmpThread:
    """Parse a thread document; :class:`Malformed` names what is wrong."""
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"not valid JSON: {exc}") from None
    if not sniff(document):
        raise Malformed(HARNESS, "not an Amp thread (no `T-` id and `messages` array)")
    return AmpThread(text, document)


def to_text(native: AmpThread) -> str:
    return native.text


def sniff(document: Any) -> bool:
    """A thread document: an object with a ``T-`` id, a ``messages`` array and a creation time."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("id"), str)
        and document["id"].startswith("T-")
        and isinstance(document.get("messages"), list)
        and ("created" in document or "v" in document)
    )
