"""The Amp store: the thread files of Amp's local-first era (read only).

**Where.** The root is Amp's data directory, ``$XDG_DATA_HOME/amp`` (default
``~/.local/share/amp`` on every system: the CLI kept the XDG layout on macOS and Windows too).
Threads are ``threads/T-<uuid>.json``. Opened at the default root, the store also reads the
editor extension's older thread store, ``<editor User dir>/globalStorage/sourcegraph.amp/threads3/``
of VS Code, Cursor and Windsurf on this system. Only ``T-*.json`` files are opened: the
``session.json`` and ``secrets.json`` beside them hold credentials and are never read.

**Read only.** Current Amp keeps threads on its servers and never reads these files, so a file
txcript wrote there would be a copy nobody can continue; :meth:`AmpStore.save` and
:meth:`AmpStore.delete` refuse (``docs/formats/amp.md``). A thread from the server is read from
the document ``amp threads export <T-id>`` prints (``txcript export FILE``).

**Discovery** reads each thread file (regular files only, size-capped; links are not followed)
and derives its Meta with the same :func:`~.codec.meta_of` a load uses. A file that is not a
thread is skipped, and all such files are counted in one warning.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, TxcriptError, Unconvertible
from txcript.harnesses.base import Discovered, Saved
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    decode_lossless,
    file_key,
    read_regular,
)

from .codec import meta_of
from .native import HARNESS, AmpThread
from .text import from_text

#: The editor extension's thread store, under each editor's ``User`` directory.
_EXTENSION_STORE = ("globalStorage", "sourcegraph.amp", "threads3")
_EDITORS = ("Code", "Cursor", "Windsurf")


def _editor_user_dirs(home: Path, system: str = sys.platform) -> list[Path]:
    if system == "darwin":
        base = home / "Library" / "Application Support"
    elif system in ("win32", "cygwin"):
        base = Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [base / editor / "User" for editor in _EDITORS]


def _read_only() -> Unconvertible:
    return Unconvertible(
        HARNESS,
        "Amp is a read-only source: current Amp keeps threads on its servers and never reads a "
        "local file, so a copy written here could not be continued",
    )


class AmpStore:
    def __init__(self, root: Path, *, extension_dirs: Iterable[Path] = ()) -> None:
        self.root = root
        self.directories = [root / "threads", *extension_dirs]

    def _files(self) -> Iterator[Path]:
        for directory in self.directories:
            try:
                with os.scandir(directory) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("T-") and entry.name.endswith(".json"):
                    yield Path(entry.path)

    def _read(self, path: Path) -> AmpThread:
        if os.path.islink(path):
            raise BadInput(f"{path} is a symbolic link; Amp threads are read only as files")
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        return from_text(decode_lossless(data))

    def discover(self) -> list[Discovered]:
        return self.discover_references(str(p) for p in self._files())

    def fingerprinted(self) -> dict[str, str]:
        return self.fingerprints(str(p) for p in self._files())

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        found: list[Discovered] = []
        skipped = 0
        for reference in references:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", TranscriptWarning)
                    meta = meta_of(self._read(Path(reference)))
            except (TxcriptError, OSError):
                skipped += 1
                continue
            found.append(Discovered.from_meta(HARNESS, reference, meta))
        if skipped:
            warn(f"skipped {skipped} file(s) under the Amp store that are not readable threads")
        return found

    def load(self, reference: str) -> AmpThread:
        path = Path(reference)
        if not any(path.parent == d for d in self.directories) or not path.name.startswith("T-"):
            raise BadInput(f"no Amp thread at {reference}")
        try:
            return self._read(path)
        except OSError as exc:
            raise BadInput(f"cannot read the Amp thread {reference}: {exc}") from None

    def save(self, native: AmpThread, *, force: bool = False) -> Saved:
        raise _read_only()

    def delete(self, reference: str, *, force: bool = False) -> None:
        raise _read_only()

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out = {}
        for reference in references:
            try:
                out[reference] = file_key(os.stat(reference, follow_symlinks=False))
            except OSError:
                out[reference] = ""
        return out

    def location(self, reference: str) -> str:
        return reference


def default_root(home: Path) -> Path:
    """Amp's data directory (what the registry declares): ``$XDG_DATA_HOME/amp``, else under
    the home."""
    base = os.environ.get("XDG_DATA_HOME")
    return Path(base) / "amp" if base else home / ".local" / "share" / "amp"


def open_store(root: Path) -> AmpStore:
    """The store at ``root``; at the default root, the editor extension's threads too."""
    from txcript.harnesses.declare import home_dir

    extension: list[Path] = []
    home = home_dir()
    if home is not None and root == default_root(home):
        extension = [user.joinpath(*_EXTENSION_STORE) for user in _editor_user_dirs(home)]
    return AmpStore(root, extension_dirs=extension)
