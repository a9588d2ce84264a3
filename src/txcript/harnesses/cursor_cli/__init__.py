"""Cursor CLI (``cursor-agent``, binary now ``agent``): chats under ``~/.cursor/chats``.

Layers: :mod:`.native` (the chat directory's content, byte for byte), :mod:`.codec` with
:mod:`.head` (metadata), :mod:`.tools` (tool vocabulary) and :mod:`.graph`/:mod:`.protobuf` (the
turn graph), :mod:`.text` (the JSON dump that is the text form) and :mod:`.store` (the chat
directories).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from txcript.harnesses.base import Harness, Store
from txcript.harnesses.cursor_cli.native import CursorChat
from txcript.model import Transcript


class CursorCli(Harness[CursorChat]):
    id = "cursor"
    name = "Cursor CLI"
    has_store = True
    can_write = True

    def to_common(self, native: CursorChat) -> Transcript:
        from txcript.harnesses.cursor_cli import codec

        return codec.to_common(native)

    def from_common(self, transcript: Transcript) -> CursorChat:
        from txcript.harnesses.cursor_cli import codec

        return codec.from_common(transcript)

    def from_text(self, text: str) -> CursorChat:
        from txcript.harnesses.cursor_cli import text as text_form

        return text_form.from_text(text)

    def to_text(self, native: CursorChat) -> str:
        from txcript.harnesses.cursor_cli import text as text_form

        return text_form.to_text(native)

    def sniff(self, document: Any) -> bool:
        from txcript.harnesses.cursor_cli import text as text_form

        return text_form.sniff(document)

    def default_root(self) -> Path | None:
        from txcript.harnesses.cursor_cli import store

        return store.default_root()

    def open_store(self, root: Path) -> Store[CursorChat] | None:
        from txcript.harnesses.cursor_cli import store

        return store.CursorCliStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["agent", f"--resume={session_id}"]
