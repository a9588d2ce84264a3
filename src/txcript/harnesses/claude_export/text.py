"""The Claude export text form: one conversation object, exactly as the export holds it.

``from_text`` takes a conversation object, or a ``conversations.json`` array that holds exactly
one (to read a whole export, list it: ``txcript list --from claude_export PATH``).
"""

from __future__ import annotations

import io
from typing import Any

from txcript.errors import Malformed, StoreUnreadable
from txcript.harnesses.claude_export.native import HARNESS, ExportConversation
from txcript.shared.jsonstream import array_elements
from txcript.shared.jsonutil import loads_strict


def is_conversation(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("uuid"), str)
        and isinstance(value.get("chat_messages"), list)
    )


def from_text(text: str) -> ExportConversation:
    data = text.encode("utf-8", "surrogateescape")
    try:
        value = loads_strict(data)
    except ValueError as exc:
        raise Malformed(HARNESS, f"not valid JSON: {exc}") from None
    if isinstance(value, list):
        if len(value) != 1:
            raise Malformed(
                HARNESS,
                f"the document holds {len(value)} conversations, not one (list them with "
                "`txcript list --from claude_export PATH`)",
            )
        try:
            ((_, data),) = array_elements(io.BytesIO(data), "the document")
        except StoreUnreadable as exc:  # (cannot happen for JSON that parsed)
            raise Malformed(HARNESS, str(exc)) from None
        value = value[0]
    if not isinstance(value, dict):
        raise Malformed(HARNESS, "a conversation must be a JSON object")
    return ExportConversation(data, value)


def to_text(conversation: ExportConversation) -> str:
    return conversation.data.decode("utf-8", "surrogateescape")


def sniff(document: Any) -> bool:
    if isinstance(document, list):
        return len(document) == 1 and is_conversation(document[0])
    return is_conversation(document)
