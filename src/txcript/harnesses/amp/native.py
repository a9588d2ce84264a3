"""The Amp native body: one thread document, its exact text beside its parsed value.

A thread is one JSON object (``{v, id: "T-<uuid>", created, title, env, messages, …}``). Beside
the conversation it holds two parts that are **not** conversation and are never read as
messages: ``usageLedger`` (the credits and tokens each inference cost) and ``~debug`` (a copy of
the whole last request, system prompt included). They stay in the body, so ``export --format
native`` gives the document back byte for byte, but the codec reads neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HARNESS = "amp"

#: Top-level members that are bookkeeping, not conversation (read by nothing but the body).
NOT_CONVERSATION = ("usageLedger", "~debug")


@dataclass(frozen=True, slots=True)
class AmpThread:
    """One thread: ``text`` exactly as stored (or printed by ``amp threads export``)."""

    text: str
    document: dict[str, Any] = field(compare=False, repr=False)

    @property
    def id(self) -> str:
        value = self.document.get("id")
        return value if isinstance(value, str) else ""
