"""Cursor desktop: agent sessions ("composers") kept in the app's global ``state.vscdb``.

Layers: :mod:`.codec` (native body ↔ Common), :mod:`.text` (the portable JSON text form),
:mod:`.store` (the SQLite database; its listing is :mod:`.discovery`). :mod:`.native` defines
the body they share.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.harnesses.base import Harness
from txcript.shared.ids import CURSOR_IDS

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.cursor_desktop.native import CursorSession
    from txcript.model import Meta, Transcript


class CursorDesktop(Harness["CursorSession"]):
    id = "cursor_desktop"
    name = "Cursor desktop"
    has_store = True
    can_write = True
    id_grammar = CURSOR_IDS
    executables = ("cursor",)

    def to_common(self, native: CursorSession) -> Transcript:
        from txcript.harnesses.cursor_desktop import codec

        return codec.to_common(native)

    def meta_of(self, native: CursorSession) -> Meta:
        from txcript.harnesses.cursor_desktop import codec

        return codec.meta_of(native)

    def from_common(self, transcript: Transcript) -> CursorSession:
        from txcript.harnesses.cursor_desktop import codec

        return codec.from_common(transcript)

    def from_text(self, text: str) -> CursorSession:
        from txcript.harnesses.cursor_desktop import text as text_form

        return text_form.from_text(text)

    def to_text(self, native: CursorSession) -> str:
        from txcript.harnesses.cursor_desktop import text as text_form

        return text_form.to_text(native)

    def to_text_chunks(self, native: CursorSession) -> Iterable[bytes]:
        from txcript.harnesses.cursor_desktop import text as text_form

        return text_form.to_text_chunks(native)

    def sniff(self, document: Any) -> bool:
        from txcript.harnesses.cursor_desktop import text as text_form

        return text_form.sniff(document)

    def default_root(self) -> Path | None:
        from txcript.harnesses.cursor_desktop import locations

        return locations.default_root()

    def change_token(self, root: Path) -> str:
        from txcript.harnesses.cursor_desktop import locations

        return locations.change_token(root)

    def open_store(self, root: Path) -> Any:
        from txcript.harnesses.cursor_desktop import store

        return store.CursorDesktopStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["cursor"]

    def undo_backup(self, backup: Any, *, force: bool = False) -> Any:
        """Undo the one write a row backup guarded; returns the backup of the undo itself."""
        from txcript.harnesses.cursor_desktop import locations, saving

        return saving.undo(backup, force=force, busy_timeout=locations.busy_timeout_setting())

    def backup_committed(self, backup: Any, partial: Path) -> bool:
        from txcript.harnesses.cursor_desktop import rowbackup

        return rowbackup.committed(backup, partial)

    def snapshot(self, root: Path | None = None) -> Any:
        """A whole-database snapshot of the store (SQLite's online backup API)."""
        from txcript.harnesses.cursor_desktop import store

        opened: Any = self.store(root)
        if opened is None:
            from txcript.errors import BadInput

            raise BadInput("cursor_desktop has no store on this machine (is HOME set?)")
        return store.snapshot(opened.database, opened.busy_timeout)

    def store_database(self, root: Path | None = None) -> Path | None:
        """The database a restore may write to without --force (the configured store's)."""
        opened: Any = self.store(root)
        return None if opened is None else Path(opened.database)

    def refuse_while_running(self) -> None:
        """Raise when the desktop app is running (its database must not change under it)."""
        from txcript.harnesses.cursor_desktop import saving

        saving.refuse_while_running()
