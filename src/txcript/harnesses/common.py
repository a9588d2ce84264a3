"""The Common JSON document as a pseudo-harness, so ``convert --from common`` works like any other.

Its native body is the :class:`~txcript.model.Transcript` itself; its codec is the identity.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from txcript.model import Transcript


def to_common(native: Transcript) -> Transcript:
    return native


def from_common(transcript: Transcript) -> Transcript:
    return transcript


def from_text(text: str) -> Transcript:
    from txcript.model import from_json

    return from_json(text)


def to_text(native: Transcript) -> str:
    from txcript.model import to_json

    return to_json(native, indent=2) + "\n"


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("meta"), dict)
        and isinstance(document.get("messages", []), list)
    )
