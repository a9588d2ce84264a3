"""Gemini CLI (Google): chats as JSON Lines logs (or legacy JSON documents) under ``~/.gemini``.

Layers: :mod:`.native` (the byte-exact body both file forms parse into, and the replay of a log's
re-appended records, ``$set`` patches and rewinds), :mod:`.tools` (Gemini's built-in tools ↔
typed Common tools), :mod:`.codec` (native ↔ Common), :mod:`.projects` (the project registry)
and :mod:`.store` (the chat files). The text form is the chat file itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.harnesses.base import Harness

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.gemini.native import GeminiSession
    from txcript.model import Transcript


class Gemini(Harness["GeminiSession"]):
    id = "gemini"
    name = "Gemini CLI"
    has_store = True
    can_write = True
    executables = ("gemini",)
    resume_in_cwd = True  # gemini --resume looks in the project of the directory it starts in

    def to_common(self, native: GeminiSession) -> Transcript:
        from txcript.harnesses.gemini import codec

        return codec.to_common(native)

    def from_common(self, transcript: Transcript) -> GeminiSession:
        from txcript.harnesses.gemini import codec

        return codec.from_common(transcript)

    def from_text(self, text: str) -> GeminiSession:
        from txcript.harnesses.gemini import native

        return native.parse(text)

    def to_text(self, native: GeminiSession) -> str:
        from txcript.harnesses.gemini import native as native_form

        return native_form.render(native)

    def sniff(self, document: Any) -> bool:
        from txcript.harnesses.gemini import native

        return native.sniff(document)

    def sniff_lines(self, values: list[Any]) -> bool:
        from txcript.harnesses.gemini import native

        return native.sniff_lines(values)

    def default_root(self) -> Path | None:
        from txcript.harnesses.gemini import locations

        return locations.default_root()

    def open_store(self, root: Path) -> Any:
        from txcript.harnesses.gemini import store

        return store.GeminiStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["gemini", "--resume", session_id]
