"""The Goose store: ``<root>/sessions/sessions.db``, and the older ``<root>/sessions/*.jsonl``.

**Where.** ``root`` is Goose's data directory: ``$GOOSE_PATH_ROOT/data`` when that (absolute)
variable is set, else ``$XDG_DATA_HOME/goose`` or ``~/.local/share/goose`` on Linux **and**
macOS, ``%APPDATA%\\Block\\goose\\data`` on Windows.

**References.** A database session is ``<database path>#<session id>``; a JSONL session is the
path of its file. **Listing**: every session row but ``hidden`` and archived ones (the row alone:
no message is read), then each JSONL file whose name is no database session (Goose imported those
into the database when it created it). A listing is kept under the database's change token.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved, prefix_bounds
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    decode_lossless,
    file_fingerprints,
    modified_at,
    read_head,
    read_regular,
)
from txcript.shared.jsonl import parse_lines
from txcript.shared.jsonutil import try_loads

from . import database
from .codec import legacy_meta, meta_from_row
from .native import HARNESS, GooseSession, LegacyFile

DB_NAME = "sessions.db"
_HEAD = 1 << 16


def database_path(root: Path) -> Path:
    return root / "sessions" / DB_NAME


class GooseStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sessions = root / "sessions"
        self.database = database_path(root)

    def _split(self, reference: str) -> str | None:
        prefix = f"{self.database}#"
        if reference.startswith(prefix) and len(reference) > len(prefix):
            return reference[len(prefix) :]
        return None

    def location(self, reference: str) -> str:
        session = self._split(reference)
        return reference if session is None else f"{self.database} session {session}"

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        return self._listed("")

    def lookup(self, id_prefix: str) -> list[Discovered]:
        if prefix_bounds(id_prefix) is None:
            return []
        return [d for d in self._listed(id_prefix) if d.meta_id.startswith(id_prefix)]

    def _legacy_files(self, id_prefix: str) -> list[Path]:
        try:
            entries = sorted(os.scandir(self.sessions), key=lambda e: e.name)
        except OSError:
            return []
        out = []
        for entry in entries:
            if entry.name.endswith(".jsonl") and entry.name[:-6].startswith(id_prefix):
                try:
                    if not entry.is_dir():
                        out.append(Path(entry.path))
                except OSError:
                    continue
        return out

    def _listed(self, id_prefix: str) -> list[Discovered]:
        found: list[Discovered] = []
        seen: set[str] = set()
        bounds = prefix_bounds(id_prefix) if id_prefix else None
        try:
            rows = database.read(
                self.database, lambda conn, schema: database.session_rows(conn, schema, bounds)
            )
        except (StoreError, StoreUnreadable) as exc:
            warn(f"skipped {exc}")
            rows = None
        for row in rows or []:
            ident = row.get("id")
            if not isinstance(ident, str):
                continue
            seen.add(ident)
            if row.get("session_type") == "hidden" or row.get("archived_at") is not None:
                continue
            meta = meta_from_row(row)
            found.append(Discovered.from_meta(HARNESS, f"{self.database}#{ident}", meta))
        for path in self._legacy_files(id_prefix):
            name = path.name[: -len(".jsonl")]
            if name in seen:
                continue
            meta_and_time = self._scan_legacy(path, name)
            if meta_and_time is None:
                continue
            meta, updated = meta_and_time
            found.append(Discovered.from_meta(HARNESS, str(path), meta, updated_at=updated))
        found.sort(key=lambda d: d.timestamp, reverse=True)
        return found

    def _scan_legacy(self, path: Path, name: str) -> tuple[Any, Any] | None:
        try:
            head = read_head(path, limit=_HEAD)
            stat = path.stat()
        except (TxcriptError, OSError) as exc:
            warn(f"skipping {path}: {exc}")
            return None
        values = []
        for raw in head.split(b"\n"):
            if raw.strip():
                values.append(try_loads(decode_lossless(raw)))
            if len(values) >= 2:
                break
        if len(values) < 2 and len(head) >= _HEAD:  # a first message longer than the head
            text = decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
            values = [try_loads(part) for part in text.split("\n") if part.strip()][:2]
        if not values or not isinstance(values[0], dict) or "working_dir" not in values[0]:
            warn(f"skipping {path}: not a Goose session file (no metadata line)")
            return None
        return legacy_meta(name, values[0], values[1] if len(values) > 1 else None), modified_at(
            stat
        )

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> GooseSession:
        session_id = self._split(reference)
        if session_id is not None:
            native = database.read(
                self.database,
                lambda conn, schema: database.load(conn, schema, self.database, session_id),
            )
            if native is None:
                raise BadInput(f"no Goose database at {self.database}")
            return native
        path = Path(reference)
        if path.parent != self.sessions or not path.name.endswith(".jsonl"):
            raise BadInput(f"no Goose session at {reference}")
        if not os.path.lexists(path):
            raise BadInput(f"reading {reference}: no such Goose session file")
        lines, final_newline = parse_lines(
            decode_lossless(read_regular(path, limit=MAX_SESSION_FILE_BYTES))
        )
        return GooseSession(legacy=LegacyFile(path.name[: -len(".jsonl")], lines, final_newline))

    # -- write ------------------------------------------------------------------------------
    def save(self, native: GooseSession, *, force: bool = False) -> Saved:
        from txcript.shared.files import preflight_write, sqlite_files

        from . import write

        if not self.database.is_file():
            raise StoreError(
                f"no Goose database at {self.database}; run `goose` once to create it "
                "(nothing was written)"
            )
        preflight_write(self.sessions, sqlite_files(self.database), store="Goose")
        backup = write.save(self.database, native)
        reference = f"{self.database}#{native.id}"
        return Saved(
            id=native.id,
            reference=reference,
            location=self.location(reference),
            backup=backup.id if backup is not None else None,
        )

    def delete(self, reference: str, *, force: bool = False) -> None:
        from . import write

        session_id = self._split(reference)
        if session_id is None:
            raise BadInput(
                f"{reference} is not a Goose database session (the older JSONL files are read only)"
            )
        write.delete(self.database, session_id)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        wanted: list[tuple[str, str]] = []
        for reference in references:
            session_id = self._split(reference)
            if session_id is None:
                out.update(file_fingerprints([reference]))
            else:
                wanted.append((reference, session_id))
        if wanted:
            ids = [session_id for _, session_id in wanted]
            try:
                prints: Any = database.read(
                    self.database, lambda conn, schema: database.fingerprints(conn, schema, ids)
                )
            except (StoreError, StoreUnreadable):
                prints = None
            for reference, session_id in wanted:
                out[reference] = (prints or {}).get(session_id, "")
        return out


def change_token(root: Path) -> str:
    """A token that moves whenever the database, or the JSONL directory, may have changed."""
    from txcript.shared.sqlite import change_token as database_token

    token = database_token(database_path(root))
    if not token:
        return ""
    try:
        listing = os.stat(root / "sessions")
    except FileNotFoundError:
        return token
    except OSError:
        return ""
    return f"{token}|{listing.st_mtime_ns}:{listing.st_size}"


def database_of(store: GooseStore) -> Path:
    return store.database
