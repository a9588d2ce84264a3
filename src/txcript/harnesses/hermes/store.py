"""The Hermes store: ``state.db`` and the logs under ``sessions/`` of a home and its profiles.

**Where.** ``$HERMES_HOME`` (default ``~/.hermes``), and each profile's home under
``profiles/<name>/`` (see :mod:`.locations`). A database session's reference is
``<database>#<session id>``; a log's is its path.

**Listing.** Every database's sessions that are not archived, then the logs whose session no
database of that home holds (the database wins). Each is listed with its source kind (``cli``,
``telegram``, ``cron`` …, a log's ``platform``) and the session it continues (``parent``). A
database that cannot be read — malformed, truncated, not Hermes's — is skipped with one warning
naming it, and every other store still lists; so is a log that does not parse.

**Writing** goes into the configured home's ``state.db`` (:mod:`.write`): a copy from anywhere
becomes database rows, which ``hermes --resume <id>`` opens. A log session saved as itself
(a same-harness round trip) is written back as its file, atomically.
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, StoreError, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.shared import backups
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    decode_lossless,
    file_key,
    preflight_write,
    read_regular,
    sqlite_files,
    write_atomic,
)
from txcript.shared.ids import HERMES_IDS

from . import database, locations, logs
from .codec import kind_of, meta_of
from .native import DB, HARNESS, JSON, HermesSession


def _listing(native: HermesSession, reference: str) -> Discovered:
    parent = native.session.get("parent_session_id")
    return Discovered.from_meta(
        HARNESS,
        reference,
        meta_of(native),
        parent=parent if isinstance(parent, str) and parent else None,
        kind=kind_of(native),
    )


def _read_log(path: Path, session_id: str, kind: str) -> HermesSession:
    text = decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
    if kind == JSON:
        return logs.parse_snapshot(text, session_id)
    return logs.parse_jsonl(text, session_id)


class HermesStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.database = locations.database(root)

    # -- where ------------------------------------------------------------------------------
    def _databases(self) -> list[Path]:
        return [locations.database(home) for home in locations.homes(self.root)]

    def _split(self, reference: str) -> tuple[Path, str] | None:
        for db in self._databases():
            prefix = f"{db}#"
            if reference.startswith(prefix) and len(reference) > len(prefix):
                return db, reference[len(prefix) :]
        return None

    def location(self, reference: str) -> str:
        split = self._split(reference)
        return reference if split is None else f"{split[0]} session {split[1]}"

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        found: list[Discovered] = []
        broken_logs = 0
        for home in locations.homes(self.root):
            db = locations.database(home)
            held: set[str] = set()
            try:
                listed = database.read(db, _discover_rows) or []
            except (StoreError, StoreUnreadable) as exc:
                warn(f"skipped {exc}")
                listed = []
            for native in listed:
                held.add(native.id)
                found.append(_listing(native, f"{db}#{native.id}"))
            for path, session_id, kind in logs.log_files(home / locations.LOGS):
                if session_id in held:
                    continue
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", TranscriptWarning)
                        native = _read_log(path, session_id, kind)
                except (TxcriptError, OSError):
                    broken_logs += 1
                    continue
                if native.id in held:
                    continue
                held.add(native.id)
                found.append(_listing(native, str(path)))
        if broken_logs:
            warn(f"skipped {broken_logs} Hermes session log(s) that do not parse")
        return found

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> HermesSession:
        split = self._split(reference)
        if split is not None:
            db, session_id = split
            native = database.read(
                db, lambda conn, schema: database.load(conn, schema, db, session_id)
            )
            if native is None:
                raise BadInput(f"no Hermes database at {db}")
            return native
        path = Path(reference)
        named = logs.log_id(path.name)
        inside = any(path.parent == home / locations.LOGS for home in locations.homes(self.root))
        if named is None or not inside or os.path.islink(path):
            raise BadInput(f"no Hermes session at {reference}")
        return _read_log(path, *named)

    # -- write ------------------------------------------------------------------------------
    def save(self, native: HermesSession, *, force: bool = False) -> Saved:
        HERMES_IDS.check(native.id, "Hermes")
        if native.kind != DB:
            return self._save_log(native, force=force)
        from . import write

        preflight_write(self.root, sqlite_files(self.database), store="Hermes")
        session_id, backup, notes = write.save(self.database, native)
        reference = f"{self.database}#{session_id}"
        return Saved(
            id=session_id,
            reference=reference,
            location=self.location(reference),
            notes=tuple(notes),
            backup=None if backup is None else backup.id,
        )

    def _save_log(self, native: HermesSession, *, force: bool) -> Saved:
        target = self.root / locations.LOGS / logs.file_name(native)
        preflight_write(self.root, [target], store="Hermes")
        if os.path.lexists(target) and not force:
            raise BadInput(f"the Hermes store already holds {target}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            data = (native.log or "").encode("utf-8", "surrogateescape")
            write_atomic(target, data, follow_symlinks=False)
        except OSError as exc:
            raise StoreError(f"writing {target}: {exc.strerror or exc}") from None
        return Saved(id=native.id, reference=str(target), location=str(target))

    def delete(self, reference: str, *, force: bool = False) -> None:
        split = self._split(reference)
        if split is not None:
            from . import write

            write.delete(split[0], split[1])
            return
        path = Path(reference)
        native = self.load(reference)
        backup = backups.create_files(
            [path], harness=HARNESS, operation="delete", session=native.id
        )
        try:
            path.unlink()
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(f"deleting {path}: {exc.strerror or exc}") from None

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        by_db: dict[Path, list[tuple[str, str]]] = {}
        for reference in references:
            split = self._split(reference)
            if split is None:
                try:
                    out[reference] = file_key(os.stat(reference, follow_symlinks=False))
                except OSError:
                    out[reference] = ""
                continue
            by_db.setdefault(split[0], []).append((reference, split[1]))
        for db, wanted in by_db.items():
            ids = [session_id for _, session_id in wanted]
            try:
                prints: Any = database.read(db, _fingerprinter(ids))
            except (StoreError, StoreUnreadable):
                prints = None
            for reference, session_id in wanted:
                out[reference] = (prints or {}).get(session_id, "")
        return out


def _discover_rows(conn: sqlite3.Connection, schema: database.Schema) -> list[HermesSession]:
    """Every listed session, with just enough rows for its Meta (its first user row)."""
    firsts = database.first_user_rows(conn, schema)
    found = []
    for row in database.session_rows(conn, schema):
        session_id = row.get("id")
        if not isinstance(session_id, str) or not session_id:
            continue
        first = firsts.get(session_id)
        found.append(HermesSession(session=row, messages=() if first is None else (first,)))
    return found


def _fingerprinter(
    ids: list[str],
) -> Callable[[sqlite3.Connection, database.Schema], dict[str, str]]:
    return lambda conn, schema: database.fingerprints(conn, schema, ids)


def database_of(store: HermesStore) -> Path:
    """The database a restore may write to without --force (the configured home's)."""
    return Path(store.database)
