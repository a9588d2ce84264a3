"""The Crush store: every project database ``projects.json`` lists.

**Where.** ``root`` is Crush's global data directory (``$CRUSH_GLOBAL_DATA``, else
``$XDG_DATA_HOME/crush``, else ``~/.local/share/crush``; ``%LOCALAPPDATA%\\crush`` on Windows).
Its ``projects.json`` is the only list of every project's data directory (``<project>/.crush``),
each holding ``crush.db`` (:mod:`.projects`).

**References.** ``<database path>#<session id>``. **Listing** reads each database's session rows
and the first assistant model of each session; title sessions (``title-<parent id>``) are Crush's
own bookkeeping and are not listed, and an agent tool's sub-session is listed with its parent. A
database that cannot be read is skipped with a warning. A listing is kept under a change token
(the index file and every database, by ``stat``), so an untouched store is not opened again.

**Writing** goes to the project Crush would open in the session's cwd: the nearest listed
project at or above it (:mod:`.write`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from functools import partial
from pathlib import Path, PurePath
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable
from txcript.harnesses.base import Discovered, Saved, prefix_bounds
from txcript.shared.workdir import filing_directory

from . import database, projects
from .codec import meta_from
from .native import HARNESS, CrushSession
from .projects import Project


class CrushStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._projects: tuple[tuple[int, int], list[Project]] | None = None

    def projects(self) -> list[Project]:
        """The projects ``projects.json`` lists, read again only when the file changed (a
        command resolving many references reads it once)."""
        try:
            stat = os.stat(projects.index_path(self.root))
            key = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = (-1, -1)
        if self._projects is None or self._projects[0] != key:
            self._projects = (key, projects.read(self.root))
        return self._projects[1]

    def _split(self, reference: str) -> tuple[Project, str] | None:
        for project in self.projects():
            prefix = f"{project.database}#"
            if reference.startswith(prefix) and len(reference) > len(prefix):
                return project, reference[len(prefix) :]
        return None

    def location(self, reference: str) -> str:
        split = self._split(reference)
        return reference if split is None else f"{split[0].database} session {split[1]}"

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        return self._listed(None)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        bounds = prefix_bounds(id_prefix)
        if bounds is None:
            return []
        return [d for d in self._listed(bounds) if d.meta_id.startswith(id_prefix)]

    def _listed(self, bounds: tuple[str, str] | None) -> list[Discovered]:
        found: list[Discovered] = []
        for project in self.projects():

            def rows(conn: Any, schema: database.Schema) -> Any:
                return database.session_rows(conn, schema, bounds), database.first_models(
                    conn, schema
                )

            try:
                read = database.read(project.database, rows)
            except (StoreError, StoreUnreadable) as exc:
                warn(f"skipped {exc}")
                continue
            if read is None:
                continue
            listed, models = read
            for row in listed:
                ident = row.get("id")
                parent = row.get("parent_session_id")
                if not isinstance(ident, str) or (parent and ident == f"title-{parent}"):
                    continue  # (a title session: Crush's bookkeeping for its parent's title)
                meta = meta_from(row, project.path, models.get(ident))
                count = row.get("message_count")
                found.append(
                    Discovered.from_meta(
                        HARNESS,
                        f"{project.database}#{ident}",
                        meta,
                        parent=parent if isinstance(parent, str) and parent else None,
                        message_count=count if type(count) is int else None,
                    )
                )
        found.sort(key=lambda d: d.timestamp, reverse=True)
        return found

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> CrushSession:
        split = self._split(reference)
        if split is None:
            raise BadInput(f"no Crush session {reference} (not in a project of {self.root})")
        project, session_id = split
        native = database.read(
            project.database,
            lambda conn, schema: database.load(
                conn, schema, project.database, session_id, project.path
            ),
        )
        if native is None:
            raise BadInput(f"no Crush database at {project.database}")
        return native

    # -- write ------------------------------------------------------------------------------
    def project_for(self, cwd: str | None) -> Project:
        """The project Crush opens when started in ``cwd`` (the current directory for a session
        with none, as every writer files one): the nearest listed project at or above it (Crush
        takes the nearest ``.crush`` upward) whose database exists."""
        wanted = PurePath(os.path.normpath(filing_directory(cwd)))
        found: Project | None = None
        for project in self.projects():
            path = PurePath(os.path.normpath(project.path))
            nearer = found is None or len(path.parts) > len(PurePath(found.path).parts)
            inside = path == wanted or path in wanted.parents
            if inside and nearer and project.database.is_file():
                found = project
        if found is not None:
            return found
        raise StoreError(
            f"Crush has no project at {cwd} (no {projects.DB_NAME} listed for it in "
            f"{projects.index_path(self.root)}); run `crush` there once, then try again. "
            "Nothing was written"
        )

    def save(self, native: CrushSession, *, force: bool = False) -> Saved:
        from txcript.shared.files import preflight_write, sqlite_files

        from . import write

        project = self.project_for(native.project)
        preflight_write(
            project.data_dir, sqlite_files(project.database), store="Crush", access=True
        )
        backup = write.save(project.database, project.data_dir, native, force=force)
        reference = f"{project.database}#{native.id}"
        return Saved(
            id=native.id,
            reference=reference,
            location=self.location(reference),
            backup=backup.id if backup is not None else None,
        )

    def delete(self, reference: str, *, force: bool = False) -> None:
        from . import write

        split = self._split(reference)
        if split is None:
            raise BadInput(f"no Crush session {reference}")
        project, session_id = split
        write.delete(project.database, project.data_dir, session_id, force=force)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        by_db: dict[Path, list[tuple[str, str]]] = {}
        for reference in references:
            split = self._split(reference)
            if split is None:
                out[reference] = ""
                continue
            by_db.setdefault(split[0].database, []).append((reference, split[1]))
        for db, wanted in by_db.items():
            ids = [session_id for _, session_id in wanted]
            try:
                prints: Any = database.read(db, partial(_fingerprints, ids=ids))
            except (StoreError, StoreUnreadable):
                prints = None
            for reference, session_id in wanted:
                out[reference] = (prints or {}).get(session_id, "")
        return out


def _fingerprints(conn: Any, schema: database.Schema, *, ids: list[str]) -> dict[str, str]:
    return database.fingerprints(conn, schema, ids)


def change_token(root: Path) -> str:
    """A token that moves whenever ``projects.json`` or any database it lists may have been
    written (``stat`` alone: each database's file, ``-wal`` and ``-journal``); ``""`` when any of
    them cannot be examined or was written in the last two seconds."""
    from txcript.shared.sqlite import change_token as database_token

    index = projects.index_path(root)
    parts = [database_token(index)]
    if not parts[0]:
        return ""
    try:
        with warnings.catch_warnings():  # (discovery gives them; a token is only a shortcut)
            warnings.simplefilter("ignore")
            listed = projects.read(root)
    except StoreError:
        return ""
    for project in listed:
        token = database_token(project.database)
        if not token:
            return ""
        parts.append(token)
    return "|".join(parts)


def database_of(store: CrushStore) -> tuple[Path, ...]:
    """The databases a restore may write to without --force: every project's of this store."""
    return tuple(project.database for project in store.projects())
