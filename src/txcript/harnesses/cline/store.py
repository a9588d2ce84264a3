"""The Cline, Roo and Kilo stores: tasks in every editor's storage of the extension (plus the
Cline CLI's sessions, and Kilo's ``kilo.db``), under one root (:mod:`.locations`).

**References.** A task is the path of its directory (``…/tasks/<taskId>``), a Cline CLI session
the path of its session directory, a Kilo database session ``<kilo.db path>#<session id>``.

**Listing** reads each storage's history index once (:mod:`.index`), then every task directory
(no symlinked ones): its ``history_item.json`` and the heads of its chat view and history
(:mod:`.heads`), from which it derives the same Meta a load does. A task the index does not list
is listed too (the extension's own fallback); an index entry whose directory is gone is not, with
one warning that counts them.

**Saving** a task (:mod:`.saving`) writes its directory and its index entry, refusing while the
editor runs unless forced. **Deleting** backs the task up and removes its directory and entry.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable
from txcript.harnesses.base import Discovered, Saved
from txcript.shared.files import MAX_SESSION_FILE_BYTES, read_regular
from txcript.shared.jsonutil import try_loads

from . import index
from .codec import derive_meta
from .flavours import CLINE, KILO, ROO, Flavour
from .heads import head_elements
from .locations import ExtensionDir, Locations, open_locations
from .native import API_HISTORY, HISTORY_ITEM, SESSION, TASK, UI_MESSAGES, ClineTask

#: The most files a task directory may hold at its top (more is not a task).
_MAX_FILES = 64


def _dirs(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(
                (e for e in listing if e.is_dir(follow_symlinks=False)), key=lambda e: e.name
            )
    except OSError:
        return []


def _read_files(directory: Path) -> tuple[tuple[str, bytes], ...]:
    """Every regular file at the top of ``directory`` (subdirectories, links and FIFOs left)."""
    found = []
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        raise StoreError(f"cannot read {directory}: {exc.strerror or exc}") from None
    odd = 0
    for entry in entries:
        try:
            regular = entry.is_file(follow_symlinks=False)
        except OSError:
            regular = False
        if not regular:
            # A task's own files are JSON; a directory, link or FIFO under such a name is not
            # read (the checkpoints/ repository and other directories are not the conversation).
            odd += entry.name.endswith(".json")
            continue
        found.append((entry.name, read_regular(entry.path, limit=MAX_SESSION_FILE_BYTES)))
    if odd:
        warn(
            f"{directory}: skipped {odd} entr{'y' if odd == 1 else 'ies'} named like a task "
            "file that are not regular files (a directory, a link or a FIFO)"
        )
    if len(found) > _MAX_FILES:
        raise StoreUnreadable(f"{directory} holds {len(found)} files: not a task directory")
    return tuple(found)


def _both_roles(found: list[Any]) -> bool:
    roles = {x.get("role") for x in found if isinstance(x, dict)}
    return {"user", "assistant"} <= roles


def _history_item(task_dir: Path) -> dict[str, Any] | None:
    path = task_dir / HISTORY_ITEM
    if os.path.islink(path) or not os.path.isfile(path):
        return None  # a load keeps regular files only
    try:
        value = try_loads(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
    except (StoreError, StoreUnreadable):
        return None
    return value if isinstance(value, dict) else None


class ClineFamilyStore:
    def __init__(self, root: Path, flavour: Flavour) -> None:
        self.root = root
        self.flavour = flavour
        self.places: Locations = open_locations(root, flavour)

    # -- where ------------------------------------------------------------------------------
    def _owner(self, reference: str) -> tuple[str, ExtensionDir | None, Path]:
        """What a reference names: ("task", its storage, dir), ("session", None, dir), or
        ("kilo.db", None, database); BadInput for anything outside the store."""
        database = self.places.kilo_db
        if database is not None and reference.startswith(f"{database}#"):
            return "db", None, database
        path = Path(reference)
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise BadInput(f"no {self.flavour.name} task at {reference}") from None
        for extension in self.places.extension_dirs():
            try:
                tasks = extension.tasks.resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            if real.parent == tasks and not path.is_symlink() and real.is_dir():
                return TASK, extension, real
        sessions = self.places.sessions
        if sessions is not None:
            try:
                base = sessions.resolve(strict=True)
            except (OSError, RuntimeError):
                base = None
            if base is not None and real.parent == base and real.is_dir():
                return SESSION, None, real
        raise BadInput(f"{reference} is not a {self.flavour.name} task of the store at {self.root}")

    def location(self, reference: str) -> str:
        database = self.places.kilo_db
        if database is not None and reference.startswith(f"{database}#"):
            return f"{database} session {reference[len(str(database)) + 1 :]}"
        return reference

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        found: list[Discovered] = []
        orphans = 0
        for extension in self.places.extension_dirs():
            entries = index.index_of(extension, self.flavour.state_key)
            listed: set[str] = set()
            for entry_dir in _dirs(extension.tasks):
                task_dir = Path(entry_dir.path)
                listed.add(entry_dir.name)
                found.append(self._listing(task_dir, entries.get(entry_dir.name)))
            orphans += len(set(entries) - listed)
        if orphans:
            warn(
                f"{self.flavour.name}: {orphans} history entr{'y' if orphans == 1 else 'ies'} "
                "name a task whose directory is gone; not listed"
            )
        found += self._sessions()
        found += self._database_sessions()
        return found

    def _listing(self, task_dir: Path, indexed: tuple[dict[str, Any], str] | None) -> Discovered:
        own = _history_item(task_dir)
        entry = own if own is not None else (indexed[0] if indexed else {})
        ui = head_elements(task_dir / UI_MESSAGES, lambda found: len(found) >= 1)
        head = head_elements(task_dir / API_HISTORY, _both_roles)
        meta = derive_meta(task_dir.name, entry, {}, ui[0] if ui else None, head)
        return Discovered.from_meta(self.flavour.harness, str(task_dir), meta)

    def _sessions(self) -> list[Discovered]:
        sessions = self.places.sessions
        if sessions is None:
            return []
        found = []
        for entry_dir in _dirs(sessions):
            directory = Path(entry_dir.path)
            manifest_path = directory / f"{entry_dir.name}.json"
            if not os.path.isfile(manifest_path):
                continue
            try:
                manifest = try_loads(read_regular(manifest_path, limit=MAX_SESSION_FILE_BYTES))
            except (StoreError, StoreUnreadable) as exc:
                warn(f"skipped {manifest_path}: {exc}")
                continue
            if not isinstance(manifest, dict):
                warn(f"skipped {manifest_path}: not a session manifest")
                continue
            messages = _session_head(directory / f"{entry_dir.name}.messages.json")
            meta = derive_meta(entry_dir.name, {}, manifest, None, messages)
            found.append(Discovered.from_meta(self.flavour.harness, str(directory), meta))
        return found

    def _database_sessions(self) -> list[Discovered]:
        database = self.places.kilo_db
        if database is None:
            return []
        from . import kilo

        return kilo.discover(database)

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> Any:
        kind, extension, path = self._owner(reference)
        if kind == "db":
            from . import kilo

            return kilo.load(path, reference[len(str(path)) + 1 :])
        files = _read_files(path)
        if kind == SESSION:
            return ClineTask(path.name, files, None, SESSION)
        assert extension is not None
        entries = index.index_of(extension, self.flavour.state_key)
        indexed = entries.get(path.name)
        return ClineTask(
            path.name,
            files,
            None if indexed is None else indexed[0],
            TASK,
            None if indexed is None else indexed[1],
        )

    # -- write ------------------------------------------------------------------------------
    def save(self, native: Any, *, force: bool = False) -> Saved:
        from . import saving

        if not isinstance(native, ClineTask):
            from . import kilo

            if self.places.kilo_db is None:
                raise BadInput(
                    f"a {self.flavour.name} task is a task directory, not a database session"
                )
            return kilo.save(self.places.kilo_db, native)
        return saving.save(self.root, self.places, native, force=force)

    def delete(self, reference: str, *, force: bool = False) -> None:
        from . import saving

        kind, extension, path = self._owner(reference)
        if kind == "db":
            from . import kilo

            kilo.delete(path, reference[len(str(path)) + 1 :])
            return
        saving.delete(self.flavour, kind, extension, path, force=force)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        database_refs = []
        for reference in references:
            database = self.places.kilo_db
            if database is not None and reference.startswith(f"{database}#"):
                database_refs.append(reference)
                continue
            out[reference] = _directory_print(Path(reference))
        if database_refs:
            from . import kilo

            assert self.places.kilo_db is not None
            out |= kilo.fingerprints(self.places.kilo_db, database_refs)
        return out


def _session_head(path: Path) -> list[Any]:
    """A CLI session's first messages (its file is ``{…, "messages": [...]}``): read whole."""
    if not os.path.isfile(path):
        return []
    try:
        value = try_loads(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
    except (StoreError, StoreUnreadable):
        return []
    messages = value.get("messages") if isinstance(value, dict) else None
    return messages if isinstance(messages, list) else []


def _directory_print(directory: Path) -> str:
    """``<newest mtime ns>:<total size>:<file count>`` of the directory's top files, and of the
    index files beside it (an entry edited there changes the listing too)."""
    parts = []
    candidates = []
    try:
        with os.scandir(directory) as listing:
            candidates = [e.path for e in listing]
    except OSError:
        return ""
    storage = directory.parent.parent
    candidates += [str(storage / "state" / "taskHistory.json"), str(storage.parent / "state.vscdb")]
    for path in sorted(candidates):
        try:
            status = os.stat(path)
        except OSError:
            continue
        parts.append(f"{status.st_mtime_ns}:{status.st_size}")
    return ",".join(parts)


def open_cline(root: Path) -> ClineFamilyStore:
    return ClineFamilyStore(root, CLINE)


def open_roo(root: Path) -> ClineFamilyStore:
    return ClineFamilyStore(root, ROO)


def open_kilo(root: Path) -> ClineFamilyStore:
    return ClineFamilyStore(root, KILO)


def state_database_of(store: ClineFamilyStore) -> Path:
    """The editor state database a restore may write to without --force: that of the editor a
    save goes to (the one whose storage of the extension was used last)."""
    return store.places.save_target().state_db


def kilo_database_of(store: ClineFamilyStore) -> Path | None:
    """Kilo's: its ``kilo.db``, where its copies go."""
    return store.places.kilo_db
