"""Where a Cline, Roo or Kilo store finds its tasks: every editor's storage of the extension, the
Cline CLI's session directory, and Kilo's database — all under one root.

**The root** is a home directory (``~`` by default; ``TXCRIPT_CLINE_HOME``, ``TXCRIPT_ROO_HOME``
or ``TXCRIPT_KILO_HOME`` name another, and ``--out DIR`` does too). Under it:

* the editors' data directories, in the place each system keeps them — ``.config`` (Linux),
  ``Library/Application Support`` (macOS), ``AppData/Roaming`` (Windows); all three are read
  whatever the system, a new copy goes where this system keeps them — and in each,
  ``Code``, ``Code - Insiders``, ``Cursor`` and ``VSCodium``: ``<editor>/User/globalStorage/
  <extension id>/`` is the extension's storage, ``<editor>/User/globalStorage/state.vscdb`` the
  editor's state database;
* Cline: ``.cline/data/sessions/`` (the CLI's sessions);
* Kilo: ``.local/share/kilo/kilo.db`` (its 2026 line, an OpenCode database).

When the root is the user's own home and no override names it, the variables the apps
themselves honour move these places as they move the apps: ``XDG_CONFIG_HOME`` (Linux) and
``APPDATA`` (Windows) for the editors, ``CLINE_SESSION_DATA_DIR`` > ``CLINE_DATA_DIR`` >
``CLINE_DIR`` for the CLI, ``XDG_DATA_HOME`` for Kilo.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import places
from .flavours import EDITORS, Editor, Flavour

STATE_DB = "state.vscdb"


@dataclass(frozen=True, slots=True)
class ExtensionDir:
    """One editor's storage of the extension."""

    editor: Editor
    #: ``<editor>/User/globalStorage``
    global_storage: Path
    #: ``<editor>/User/globalStorage/<extension id>``
    path: Path

    @property
    def tasks(self) -> Path:
        return self.path / "tasks"

    @property
    def state_db(self) -> Path:
        return self.global_storage / STATE_DB

    @property
    def history_file(self) -> Path:
        return self.path / "state" / "taskHistory.json"


class Locations:
    """The places one store looks in, worked out once from its root."""

    def __init__(self, root: Path, flavour: Flavour) -> None:
        self.root = root
        self.flavour = flavour
        bases, own, sessions, kilo = places(root, flavour.harness)
        #: The editors' data directories read, and the one a new copy's editor directory goes.
        self.app_data = bases
        self.own_app_data = own
        self.sessions = sessions
        self.kilo_db = kilo

    def extension_dir(self, app_data: Path, editor: Editor) -> ExtensionDir:
        storage = app_data / editor.directory / "User" / "globalStorage"
        return ExtensionDir(editor, storage, storage / self.flavour.extension)

    def extension_dirs(self) -> list[ExtensionDir]:
        """Every editor's storage of the extension that exists (no symlinked directories)."""
        found = []
        for app_data in self.app_data:
            for editor in EDITORS:
                candidate = self.extension_dir(app_data, editor)
                if os.path.isdir(candidate.path) and not os.path.islink(candidate.path):
                    found.append(candidate)
        return found

    def save_target(self) -> ExtensionDir:
        """Where a new task goes: the editor whose storage of the extension was used last;
        else the first editor that is installed; else VS Code, where this system keeps it."""
        existing = self.extension_dirs()
        if existing:

            def used(candidate: ExtensionDir) -> int:
                try:
                    return max(
                        os.stat(p).st_mtime_ns
                        for p in (candidate.path, candidate.tasks)
                        if os.path.exists(p)
                    )
                except (OSError, ValueError):
                    return 0

            return max(existing, key=used)
        for editor in EDITORS:
            candidate = self.extension_dir(self.own_app_data, editor)
            if os.path.isdir(candidate.global_storage.parent):
                return candidate
        return self.extension_dir(self.own_app_data, EDITORS[0])


def open_locations(root: Path, flavour: Flavour) -> Locations:
    return Locations(root, flavour)
