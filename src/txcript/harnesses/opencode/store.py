"""The OpenCode store: every database and file store under one data directory.

**Where.** ``$OPENCODE_DB`` names one database file (and nothing else is read); otherwise the
data directory is ``$XDG_DATA_HOME/opencode``, else ``~/.local/share/opencode``. In it live
``opencode.db``, one database per release channel (``opencode-<channel>.db``) and the JSON file
stores of older versions (:mod:`.files`).

**References.** A database session is ``<database path>#<session id>``; a file-store session is
the path of its info file. :meth:`OpenCodeStore.location` says which.

**Listing.** A session found in more than one place is listed once: a database wins over a file
store (OpenCode migrated those files into it), and ``opencode.db`` over a channel database.
Archived sessions (``time_archived`` set) are not listed. A database or file that cannot be read
is skipped with a warning.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable
from txcript.harnesses.base import Discovered, Saved, prefix_bounds
from txcript.shared.files import preflight_write, sqlite_files
from txcript.shared.formats.opencode import database
from txcript.shared.formats.opencode.codec import first_assistant_model, meta_of
from txcript.shared.formats.opencode.native import HARNESS, OpenCodeSession

from . import files

DB_NAME = "opencode.db"


def _is_database_path(root: Path) -> bool:
    return root.suffix == ".db" or os.path.isfile(root)


class OpenCodeStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        #: The one database of ``$OPENCODE_DB`` (no channel databases, no file stores).
        self.single = _is_database_path(root)
        self.database = root if self.single else root / DB_NAME

    # -- where ------------------------------------------------------------------------------
    def databases(self) -> list[Path]:
        if self.single:
            return [self.root]
        found = [self.database]
        try:
            names = sorted(
                e.name
                for e in os.scandir(self.root)
                if e.name.startswith("opencode-") and e.name.endswith(".db")
            )
        except OSError:
            names = []
        return found + [self.root / name for name in names]

    def _split(self, reference: str) -> tuple[Path, str] | None:
        for db in self.databases():
            prefix = f"{db}#"
            if reference.startswith(prefix) and len(reference) > len(prefix):
                return db, reference[len(prefix) :]
        return None

    def location(self, reference: str) -> str:
        split = self._split(reference)
        if split is None:
            return reference
        return f"{split[0]} session {split[1]}"

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        return self._listed("")

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The sessions whose id starts with ``id_prefix``: one key range of each database's
        ``session`` table, and the file store's info files so named (a session's info file is
        named after its id); listed exactly as :meth:`discover` lists them."""
        if prefix_bounds(id_prefix) is None:
            return []
        return [d for d in self._listed(id_prefix) if d.meta_id.startswith(id_prefix)]

    def _listed(self, id_prefix: str) -> list[Discovered]:
        found: list[Discovered] = []
        seen: set[str] = set()
        bounds = prefix_bounds(id_prefix)

        def rows_of(conn: sqlite3.Connection, schema: database.Schema) -> list[Any]:
            return database.discover_rows(conn, schema, bounds)

        for db in self.databases():
            try:
                rows = database.read(db, rows_of) or []
            except (StoreError, StoreUnreadable) as exc:
                warn(f"skipped {exc}")
                continue
            for row, meta in rows:
                if meta.id in seen:
                    continue
                seen.add(meta.id)
                parent = row.get("parent_id")
                found.append(
                    Discovered.from_meta(
                        HARNESS,
                        f"{db}#{meta.id}",
                        meta,
                        parent=parent if isinstance(parent, str) and parent else None,
                    )
                )
        if self.single:
            return found
        for location in files.sessions(self.root):
            if not location.info.name.startswith(id_prefix):
                continue
            head = files.head(location)
            if head is None:
                continue
            row, first = head
            model = None
            if first is not None and "model" not in row:
                model = first_assistant_model(first.record.data)
            meta = meta_of(row, model)
            if meta.id in seen:
                continue
            seen.add(meta.id)
            found.append(Discovered.from_meta(HARNESS, str(location.info), meta))
        return found

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> OpenCodeSession:
        split = self._split(reference)
        if split is not None:
            db, session_id = split
            native = database.read(
                db, lambda conn, schema: database.load(conn, schema, db, session_id)
            )
            if native is None:
                raise BadInput(f"no OpenCode database at {db}")
            return native  # type: ignore[no-any-return]
        location = None if self.single else files.locate(self.root, Path(reference))
        if location is None:
            raise BadInput(f"no OpenCode session at {reference}")
        return files.load(location)

    # -- write ------------------------------------------------------------------------------
    def save(self, native: OpenCodeSession, *, force: bool = False) -> Saved:
        from txcript.shared.formats.opencode import write

        preflight_write(self.database.parent, sqlite_files(self.database), store="OpenCode")
        created = write.create_database(self.database)
        try:
            session_id, backup = write.save(self.database, native)
        except BaseException:
            if created:
                write.remove_created(self.database)
            raise
        reference = f"{self.database}#{session_id}"
        return Saved(
            id=session_id, reference=reference, location=self.location(reference), backup=backup
        )

    def delete(self, reference: str, *, force: bool = False) -> None:
        from txcript.shared.formats.opencode import write

        split = self._split(reference)
        if split is None:
            raise BadInput(
                f"{reference} is not an OpenCode database session (file-store sessions are "
                "read only)"
            )
        write.archive(split[0], split[1])

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        by_db: dict[Path, list[tuple[str, str]]] = {}
        for reference in references:
            split = self._split(reference)
            if split is None:
                try:
                    stat = os.stat(reference)
                    out[reference] = f"{stat.st_mtime_ns}:{stat.st_size}"
                except OSError:
                    out[reference] = ""
                continue
            by_db.setdefault(split[0], []).append((reference, split[1]))
        for db, wanted in by_db.items():
            ids = [session_id for _, session_id in wanted]
            try:
                prints: Any = database.read(
                    db, lambda conn, schema, ids=ids: database.fingerprints(conn, schema, ids)
                )
            except (StoreError, StoreUnreadable):
                prints = None
            for reference, session_id in wanted:
                out[reference] = (prints or {}).get(session_id, "")
        return out


def database_of(store: OpenCodeStore) -> Path:
    """The database a restore may write to without --force (the configured store's)."""
    return Path(store.database)
