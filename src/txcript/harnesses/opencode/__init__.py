"""OpenCode (``opencode``): sessions as rows of an SQLite database, and the file stores before it.

Layers: :mod:`.codec` (native body ↔ Common, with :mod:`.tools` for tools, stop reasons and ids),
:mod:`.text` (the ``opencode export`` document), :mod:`.database` (reading and writing the
database), :mod:`.files` (the JSON file stores of older versions) and :mod:`.store` (every store
under one data directory). :mod:`.native` defines the body they share.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.harnesses.base import Harness
from txcript.shared.ids import OPENCODE_IDS

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.opencode.native import OpenCodeSession
    from txcript.model import Transcript


class OpenCode(Harness["OpenCodeSession"]):
    id = "opencode"
    name = "OpenCode"
    has_store = True
    can_write = True
    id_grammar = OPENCODE_IDS
    executables = ("opencode",)

    def to_common(self, native: OpenCodeSession) -> Transcript:
        from txcript.harnesses.opencode import codec

        return codec.to_common(native)

    def from_common(self, transcript: Transcript) -> OpenCodeSession:
        from txcript.harnesses.opencode import codec

        return codec.from_common(transcript)

    def from_text(self, text: str) -> OpenCodeSession:
        from txcript.harnesses.opencode import text as text_form

        return text_form.from_text(text)

    def to_text(self, native: OpenCodeSession) -> str:
        from txcript.harnesses.opencode import text as text_form

        return text_form.to_text(native)

    def sniff(self, document: Any) -> bool:
        from txcript.harnesses.opencode import text as text_form

        return text_form.sniff(document)

    def default_root(self) -> Path | None:
        from txcript.harnesses.opencode import locations

        return locations.default_root()

    def open_store(self, root: Path) -> Any:
        from txcript.harnesses.opencode import store

        return store.OpenCodeStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["opencode", "--session", session_id]

    def store_database(self, root: Path | None = None) -> Path | None:
        """The database a restore may write to without --force (the configured store's)."""
        opened: Any = self.store(root)
        return None if opened is None else Path(opened.database)

    def undo_backup(self, backup: Any, *, force: bool = False) -> Any:
        """Undo the one save or delete a row backup guarded; returns the undo's own backup."""
        from txcript.harnesses.opencode import database, rowbackup

        return rowbackup.undo(backup, force=force, busy_timeout=database.BUSY_TIMEOUT)

    def backup_committed(self, backup: Any, partial: Path) -> bool:
        from txcript.harnesses.opencode import rowbackup

        return rowbackup.committed(backup, partial)

    def new_session_id(self) -> str:
        from txcript.harnesses.opencode.tools import new_session_id
        from txcript.shared.timeutil import now, to_epoch_ms

        return new_session_id(to_epoch_ms(now()))
