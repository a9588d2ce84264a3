"""The Common JSON document as a pseudo-harness, so ``convert --from common`` works like any other.

Its native body is the :class:`~txcript.model.Transcript` itself; its codec is the identity.
"""

from __future__ import annotations

from typing import Any

from txcript.harnesses.base import Harness
from txcript.model import Transcript, from_json, to_json


class CommonFormat(Harness[Transcript]):
    id = "common"
    name = "Common JSON"
    listed = False

    def to_common(self, native: Transcript) -> Transcript:
        return native

    def from_common(self, transcript: Transcript) -> Transcript:
        return transcript

    def from_text(self, text: str) -> Transcript:
        return from_json(text)

    def to_text(self, native: Transcript) -> str:
        return to_json(native, indent=2) + "\n"

    def sniff(self, document: Any) -> bool:
        return (
            isinstance(document, dict)
            and isinstance(document.get("meta"), dict)
            and isinstance(document.get("messages", []), list)
        )
