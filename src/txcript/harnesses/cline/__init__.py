"""Cline, Roo Code and Kilo Code (``cline``, ``roo``, ``kilo``): VS Code agents that keep each task
as a directory of JSON files in the editor's storage of the extension, listed by a history index.

One reader serves the three (:mod:`.flavours` says what differs): :mod:`.native` (the task's
files and index entry), :mod:`.codec` (↔ Common, both tool eras, with :mod:`.tools` and
:mod:`.xmlera`), :mod:`.text` (a task bundle), :mod:`.store` (every editor under one root, with
:mod:`.locations`, :mod:`.index`, :mod:`.heads`) and :mod:`.saving` (writes, guarded like Cursor
desktop's where the index is the editor's ``state.vscdb``). :mod:`.kilo` adds Kilo's ``kilo.db``
through the OpenCode database code in :mod:`txcript.shared.formats.opencode`.

The harnesses are declared in the registry (:mod:`txcript.harnesses`); this package holds only
their logic. What this module itself holds is where their stores live (plain data and ``os``
calls): ``list`` asks it whether any of them exists before it imports a layer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

#: Each system's place for the editors' data directories, under the home directory (Linux,
#: macOS, Windows). All three are read, whatever the system.
APP_DATA = (".config", "Library/Application Support", "AppData/Roaming")
#: The editors' data directory names, in the order a new copy prefers them.
EDITOR_DIRS = ("Code", "Code - Insiders", "Cursor", "VSCodium")
#: Each harness's extension id, as VS Code names its ``globalStorage`` directory.
EXTENSIONS = {
    "cline": "saoudrizwan.claude-dev",
    "roo": "rooveterinaryinc.roo-cline",
    "kilo": "kilocode.kilo-code",
}
#: The txcript variable naming each harness's root (a home directory).
ROOT_ENV = {"cline": "TXCRIPT_CLINE_HOME", "roo": "TXCRIPT_ROO_HOME", "kilo": "TXCRIPT_KILO_HOME"}


def _env(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value) if value else None


def _system_app_data() -> str:
    if sys.platform == "darwin":
        return APP_DATA[1]
    if sys.platform in ("win32", "cygwin"):
        return APP_DATA[2]
    return APP_DATA[0]


def app_env(root: Path, harness: str) -> bool:
    """Do the apps' own variables count? Only for the user's own home, when no txcript variable
    names another root."""
    if os.environ.get(ROOT_ENV[harness]):
        return False
    home = os.environ.get("USERPROFILE") if os.name == "nt" else None
    home = home or os.environ.get("HOME")
    return bool(home) and Path(root) == Path(str(home))


def places(root: Path, harness: str) -> tuple[list[Path], Path, Path | None, Path | None]:
    """Under the home ``root``: the editors' data directories to read, the one a new copy goes
    to, the Cline CLI's session directory (Cline only) and ``kilo.db`` (Kilo only)."""
    honour = app_env(root, harness)
    bases = [root.joinpath(*relative.split("/")) for relative in APP_DATA]
    own = root.joinpath(*_system_app_data().split("/"))
    sessions = root / ".cline" / "data" / "sessions"
    kilo = root / ".local" / "share" / "kilo" / "kilo.db"
    if honour:
        moved = _env("APPDATA") if os.name == "nt" else _env("XDG_CONFIG_HOME")
        if moved is not None:
            own = moved
            bases = [moved, *bases]
        if (found := _env("CLINE_SESSION_DATA_DIR")) is not None:
            sessions = found
        elif (found := _env("CLINE_DATA_DIR")) is not None:
            sessions = found / "sessions"
        elif (found := _env("CLINE_DIR")) is not None:
            sessions = found / "data" / "sessions"
        if (found := _env("XDG_DATA_HOME")) is not None:
            kilo = found / "kilo" / "kilo.db"
    return (
        list(dict.fromkeys(bases)),
        own,
        sessions if harness == "cline" else None,
        kilo if harness == "kilo" else None,
    )


def _present(root: Path, harness: str) -> bool:
    bases, _own, sessions, kilo = places(root, harness)
    extension = EXTENSIONS[harness]
    for base in bases:
        for editor in EDITOR_DIRS:
            if os.path.isdir(base / editor / "User" / "globalStorage" / extension):
                return True
    return any(p is not None and os.path.lexists(p) for p in (sessions, kilo))


def cline_present(root: Path) -> bool:
    """Is there any Cline storage under ``root`` (an editor's, or the CLI's)?"""
    return _present(root, "cline")


def roo_present(root: Path) -> bool:
    return _present(root, "roo")


def kilo_present(root: Path) -> bool:
    return _present(root, "kilo")
