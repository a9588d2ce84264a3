"""Writing a task where the extension's History view lists it, and taking it out again.

A save writes the task directory (every file of the body, atomically, never through a link) and
its index entry, all or nothing:

* the entry goes into the index the storage already keeps — Cline's ``state/taskHistory.json``,
  or the editor's globalState in ``state.vscdb`` — else the one the body came from, else the
  extension's current one; Roo's and Kilo's own ``history_item.json`` is one of the task's files;
* the editor caches that index in memory and writes it back, so a save refuses while the editor
  runs unless forced (:func:`refuse_while_running`);
* into ``state.vscdb`` it goes as Cursor desktop's writes do: one ``BEGIN IMMEDIATE``
  transaction changing only the extension's row (:mod:`txcript.shared.vscode_state`), the task's
  files written inside it, and a row backup holding the row and every file the save replaced, so
  ``txcript restore <backup>`` undoes exactly that save (the row and the task directory);
* into ``taskHistory.json`` it goes by an atomic rename, and ``txcript delete <id>`` undoes it.

A Cline CLI session is written as its session directory (the CLI's own ``sessions.db`` index is
not touched: txcript does not know its schema).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Saved
from txcript.shared import backup_rows, backups, files, vscode_state
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.files import Undo, sqlite_files, write_atomic
from txcript.shared.ids import CLINE_IDS, KILO_IDS, UUID_IDS, IdGrammar, id_problem, option_safe
from txcript.shared.processes import find_processes
from txcript.shared.text import shown

from . import index
from .flavours import EDITORS, Editor, Flavour
from .locations import ExtensionDir, Locations
from .native import SESSION, ClineTask

_GRAMMARS: dict[str, IdGrammar] = {"cline": CLINE_IDS, "roo": UUID_IDS, "kilo": KILO_IDS}
#: The backup's pseudo-table of the task files a save replaced (path, bytes before; NULL: absent).
FILES_TABLE = "task_files"
_ITEM_TABLE_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
)


class EditorRunning(TxcriptError):
    """The editor is running; writing its extension's index under it is refused unless forced."""


def _refuse(editors: tuple[Editor, ...], flavour_name: str) -> None:
    for editor in editors:
        pids = find_processes(editor.processes)
        if pids:
            shown = ", ".join(str(p) for p in pids[:3])
            raise EditorRunning(
                f"{editor.name} is running (pid {shown}); {flavour_name} keeps its task history "
                "in memory and would overwrite or hide a task written under it. Quit the editor "
                "and retry, or pass --force"
            )


def refuse_while_running() -> None:
    """Refuse while any of the editors runs (restore cannot tell which one a backup's is)."""
    _refuse(EDITORS, "the extension")


def check_id(flavour: Flavour, task_id: str) -> str:
    _GRAMMARS[flavour.harness].check(task_id, flavour.name)
    return option_safe(task_id)


def _index_kind(extension: ExtensionDir, flavour: Flavour, native: ClineTask) -> str | None:
    """Which index the entry goes into (see the module notes)."""
    kinds = []
    if os.path.isfile(extension.history_file):
        kinds.append(index.FILE)
    if os.path.isfile(extension.state_db):
        try:
            item = vscode_state.read_item(extension.state_db, flavour.state_key)
        except (StoreError, BadInput):
            item = None
        if index.state_history(item) is not None:
            kinds.append(index.STATE)
    if native.entry_origin in kinds:
        return native.entry_origin
    if kinds:
        return kinds[0]
    if native.entry_origin is not None:
        return native.entry_origin
    # Roo's and Kilo's own history_item.json (one of the task's files) is their index now.
    return index.FILE if flavour.index == "file" else None


def save(root: Path, places: Locations, native: ClineTask, *, force: bool) -> Saved:
    """Write ``native`` into the store rooted at ``root`` (whose places are ``places``)."""
    flavour = places.flavour
    task_id = check_id(flavour, native.id)
    if native.origin == SESSION:
        return _save_session(root, places, native, task_id, force=force)
    extension = places.save_target()
    task_dir = extension.tasks / task_id
    kind = _index_kind(extension, flavour, native) if native.entry is not None else None
    targets = [task_dir / name for name, _ in native.files]
    if kind == index.FILE:
        targets.append(extension.history_file)
    elif kind == index.STATE:
        targets += sqlite_files(extension.state_db)
    files.preflight_write(root, targets, store=flavour.name)
    if not force:
        _refuse((extension.editor,), flavour.name)
    if os.path.lexists(task_dir) and not force:
        raise BadInput(
            f"{flavour.name} already holds a task `{task_id}` at {task_dir}; refusing to "
            "overwrite it (pass --force to replace it)"
        )
    undo = Undo()
    backup: backups.Backup | None = None
    try:
        if kind == index.STATE:
            backup = _save_into_state(extension, flavour, native, task_dir, undo)
        else:
            _write_task(undo, task_dir, native, None)
            if kind == index.FILE:
                assert native.entry is not None
                read = index.read_file_index(extension.history_file)
                text = index.put_entry(None if read is None else read[0], native.entry)
                undo.make_dirs(extension.history_file.parent)
                undo.write(extension.history_file, text.encode("utf-8", "surrogateescape"))
    except BaseException:
        undo.run()
        raise
    notes = (
        f"{flavour.name} lists the task in its History view (in {extension.editor.name}; "
        "reopen the window if it was open)",
    )
    return Saved(
        id=task_id,
        reference=str(task_dir),
        location=str(task_dir),
        notes=notes,
        backup=None if backup is None else backup.id,
    )


def _write_task(
    undo: Undo, task_dir: Path, native: ClineTask, pending: backup_rows.PendingRows | None
) -> None:
    """The task's files; with ``pending``, what each replaces goes into the backup first."""
    for name, _ in native.files:
        problem = id_problem(name)
        if problem is not None:
            raise BadInput(
                f"the task holds a file named `{shown(name)}`, which is not a file name ({problem})"
            )
    undo.make_dirs(task_dir)
    rows = []
    for position, (name, data) in enumerate(native.files):
        path = task_dir / name
        before: bytes | None = None
        if os.path.lexists(path):
            before = path.read_bytes() if path.is_file() and not path.is_symlink() else None
        rows.append(
            (
                position,
                [
                    ("path", "text", str(path).encode("utf-8", "surrogateescape")),
                    ("data", "null" if before is None else "blob", before),
                    ("after", "blob", data),
                ],
            )
        )
        undo.write(path, data)
    if pending is not None:
        pending.add_rows(FILES_TABLE, rows)


def _save_into_state(
    extension: ExtensionDir,
    flavour: Flavour,
    native: ClineTask,
    task_dir: Path,
    undo: Undo,
) -> backups.Backup | None:
    assert native.entry is not None
    entry = native.entry
    database = extension.state_db
    if not os.path.lexists(database):
        # No editor has run here yet: the table VS Code creates, so the entry has a home.
        undo.make_dirs(database.parent)
        undo.add(lambda: _remove_database(database))
        try:
            conn = sqlite3.connect(database)
            try:
                conn.execute(_ITEM_TABLE_SCHEMA)
                conn.commit()
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise shared_sqlite.translate(
                vscode_state.label(database), database, exc, writing=True
            ) from None

    def change(item: vscode_state.Item | None) -> str:
        return index.with_state_history(item, lambda old: index.put_entry(old, entry))

    return vscode_state.write(
        database,
        flavour.state_key,
        change,
        harness=flavour.harness,
        session=native.id,
        operation="save",
        alongside=lambda pending: _write_task(undo, task_dir, native, pending),
    )


def _remove_database(database: Path) -> None:
    """Take back a state database this save created (and any journal SQLite left beside it)."""
    for path in sqlite_files(database):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _save_session(
    root: Path, places: Locations, native: ClineTask, task_id: str, *, force: bool
) -> Saved:
    sessions = places.sessions
    if sessions is None:
        raise BadInput(f"{places.flavour.name} keeps no CLI sessions")
    directory = sessions / task_id
    files.preflight_write(root, [directory / name for name, _ in native.files], store="Cline CLI")
    if os.path.lexists(directory) and not force:
        raise BadInput(
            f"the Cline CLI already holds a session `{task_id}` at {directory}; refusing to "
            "overwrite it (pass --force to replace it)"
        )
    undo = Undo()
    try:
        _write_task(undo, directory, native, None)
    except BaseException:
        undo.run()
        raise
    return Saved(id=task_id, reference=str(directory), location=str(directory))


# ----------------------------------------------------------------------------------- delete


def delete(
    flavour: Flavour,
    kind: str,
    extension: ExtensionDir | None,
    task_dir: Path,
    *,
    force: bool,
) -> None:
    task_id = task_dir.name
    if kind == SESSION or extension is None:
        backups.create_files(
            [task_dir], harness=flavour.harness, operation="delete", session=task_id
        )
        shutil.rmtree(task_dir)
        return
    if not force:
        _refuse((extension.editor,), flavour.name)
    backed = [task_dir]
    read = (
        index.read_file_index(extension.history_file)
        if os.path.isfile(extension.history_file)
        else None
    )
    in_file = read is not None and task_id in read[1]
    if in_file:
        backed.append(extension.history_file)
    backup = backups.create_files(
        backed, harness=flavour.harness, operation="delete", session=task_id
    )
    try:
        if in_file and read is not None:
            undo = Undo()
            undo.write(
                extension.history_file,
                index.drop_entry(read[0], task_id).encode("utf-8", "surrogateescape"),
            )
        state = (
            vscode_state.read_item(extension.state_db, flavour.state_key)
            if os.path.isfile(extension.state_db)
            else None
        )
        history = index.state_history(state)
        if history is not None and any(
            isinstance(e, dict) and e.get("id") == task_id for e in history
        ):

            def change(item: vscode_state.Item | None) -> str:
                return index.with_state_history(
                    item, lambda old: index.drop_entry(old or "[]", task_id)
                )

            vscode_state.write(
                extension.state_db,
                flavour.state_key,
                change,
                harness=flavour.harness,
                session=task_id,
                operation="delete",
            )
        shutil.rmtree(task_dir)
    except BaseException:
        backups.restore(backup)
        raise


# ------------------------------------------------------------------------------------ undo


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    """Undo one save into ``state.vscdb``: the extension's row as it was, and the task files the
    save wrote taken back (or put back as they were), unless the editor changed them since."""

    def files_back(stored: dict[str, list[Any]], pending: backup_rows.PendingRows) -> None:
        plan: list[tuple[Path, bytes | None, bytes | None]] = []
        for _position, cells in stored.get(FILES_TABLE, []):
            by_name = {column: value for column, _kind, value in cells}
            raw_path = by_name.get("path")
            if not isinstance(raw_path, bytes):
                raise StoreError(f"backup {backup.id} holds a file without a path; refusing it")
            path = Path(raw_path.decode("utf-8", "surrogateescape"))
            current = path.read_bytes() if path.is_file() and not path.is_symlink() else None
            if current != by_name.get("after") and not force:
                raise StoreError(
                    f"{path} has changed since backup {backup.id} was taken; nothing was "
                    "written. Pass --force to undo anyway"
                )
            before = by_name.get("data")
            plan.append((path, current, before if isinstance(before, bytes) else None))
        # The undo's own backup holds the files as it found them: restoring it redoes the save.
        pending.add_rows(
            FILES_TABLE,
            [
                (
                    position,
                    [
                        ("path", "text", str(path).encode("utf-8", "surrogateescape")),
                        ("data", "null" if now is None else "blob", now),
                        ("after", "null" if before is None else "blob", before),
                    ],
                )
                for position, (path, now, before) in enumerate(plan)
            ],
        )
        for path, _now, before in plan:
            if before is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(path, before, follow_symlinks=False)
            elif os.path.lexists(path):
                path.unlink()
        for directory in dict.fromkeys(path.parent for path, _, _ in plan):
            with contextlib.suppress(OSError):
                directory.rmdir()  # the task directory the save created, now empty

    return vscode_state.undo(backup, force=force, alongside=files_back)


def backup_committed(backup: backups.Backup, partial: Path) -> bool:
    return vscode_state.committed(backup, partial)
