"""Cursor CLI (``cursor-agent``, binary now ``agent``): chats under ``~/.cursor/chats``.

Layers: :mod:`.native` (the chat directory's content, byte for byte), :mod:`.codec` with
:mod:`.head` (metadata), :mod:`.tools` (tool vocabulary) and :mod:`.graph`/:mod:`.protobuf` (the
turn graph), :mod:`.text` (the JSON dump that is the text form) and :mod:`.store` (the chat
directories). :mod:`.transcripts` is the read-only ``cursor_transcripts`` source: the readable
agent transcripts Cursor keeps under ``~/.cursor/projects``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.errors import Unconvertible
from txcript.harnesses.base import Harness, Store
from txcript.shared.ids import UUID_IDS

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.cursor_cli.native import AgentTranscript, CursorChat
    from txcript.model import Transcript


class CursorCli(Harness["CursorChat"]):
    id = "cursor"
    name = "Cursor CLI"
    has_store = True
    can_write = True
    id_grammar = UUID_IDS
    resume_in_cwd = True  # agent --resume finds chats under the workspace it starts in
    executables = ("agent", "cursor-agent")

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
        from txcript.harnesses.cursor_cli import locations

        return locations.default_root()

    def open_store(self, root: Path) -> Store[CursorChat] | None:
        from txcript.harnesses.cursor_cli import store

        return store.CursorCliStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["agent", f"--resume={session_id}"]


class CursorTranscripts(Harness["AgentTranscript"]):
    """Cursor's agent transcripts: read-only copies kept beside the chats."""

    id = "cursor_transcripts"
    name = "Cursor agent transcripts"
    has_store = True
    can_write = False

    def to_common(self, native: AgentTranscript) -> Transcript:
        from txcript.harnesses.cursor_cli import transcripts

        return transcripts.to_common(native)

    def from_common(self, transcript: Transcript) -> AgentTranscript:
        raise Unconvertible(self.id, "Cursor's agent transcripts are a read-only source")

    def from_text(self, text: str) -> AgentTranscript:
        from txcript.harnesses.cursor_cli import transcripts

        return transcripts.parse(text)

    def to_text(self, native: AgentTranscript) -> str:
        return native.text

    def sniff_lines(self, values: list[Any]) -> bool:
        from txcript.harnesses.cursor_cli import transcripts

        return transcripts.sniff_lines(values)

    def default_root(self) -> Path | None:
        from txcript.harnesses.base import home_dir

        home = home_dir()
        return None if home is None else home / ".cursor"

    def open_store(self, root: Path) -> Store[AgentTranscript] | None:
        from txcript.harnesses.cursor_cli import transcripts

        return transcripts.TranscriptStore(root)
