"""The Copilot CLI store: ``<root>/session-state/`` and ``<root>/session-store.db``.

**Root.** ``COPILOT_HOME``, else ``~/.copilot`` (``%USERPROFILE%\\.copilot`` on Windows).

**Sessions** come from three places, newest layout first:

* ``session-state/<id>/events.jsonl`` with ``workspace.yaml`` beside it (late 2025 on);
* a flat ``session-state/<id>.jsonl`` event log, and the same in ``history-session-state/``
  (the older layouts, which the CLI migrates when a session is resumed);
* ``session-store.db`` (2026): a session listed only there (its event log pruned or never
  copied) is read from its rows; a session with an event log gets its store row as well (the
  ``summary`` title). Its reference is ``<database>#<id>``.

**Discovery** parses each event log only until its ``session.start``, first prompt and first
reply are known, then only the lines holding a ``session.title_changed`` (matched as bytes), and
reads the store database once; load feeds the same :class:`~.codec.MetaScan`, so both agree.
Directory symlinks are never followed; the database is read without creating or changing a file
beside it (:mod:`txcript.shared.sqlite`).

**Read-only.** Copilot CLI validates a resumed session strictly and its event vocabulary grows
every release, so a written copy would be a bet on one release's schema; ``save`` and ``delete``
refuse with a one-line error.
"""

from __future__ import annotations

import os
import re
import sqlite3
import warnings
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from txcript.diagnostics import TranscriptWarning, warn
from txcript.errors import BadInput, TxcriptError, Unconvertible
from txcript.harnesses.base import Discovered, Saved
from txcript.shared import sqlite as db
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    decode_lossless,
    file_fingerprints,
    modified_at,
    read_regular,
    read_regular_stat,
)
from txcript.shared.jsonlines import parse_lines
from txcript.shared.jsonutil import try_loads
from txcript.shared.listing import cached_listing, stat_key

from .codec import MetaScan, meta_of, parse_time
from .native import HARNESS, CopilotSession, StoreRows

DATABASE = "session-store.db"
EVENT_DIRS = ("session-state", "history-session-state")
_SESSION_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,127}")
_TITLE_LINE = re.compile(rb'"type"\s*:\s*"session\.title_changed"')
READ_ONLY = (
    "Copilot CLI is a read-only source: it validates a resumed session strictly, so txcript "
    "does not write into its store"
)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as listing:
            return sorted(listing, key=lambda e: e.name)
    except OSError:
        return []


def _rows(value: Any) -> dict[str, Any]:
    return {k: (None if isinstance(v, db.InvalidText) else v) for k, v in value.items()}


def read_database(path: Path, only: str | None = None) -> dict[str, StoreRows]:
    """Every session's rows in ``session-store.db`` (or only session ``only``'s); ``{}`` when
    there is no database. A database whose schema lacks a table gives what the others hold."""
    label = f"the Copilot store database {path}"
    info = db.inspect(path, label)
    if info is None or info.size == 0:
        return {}

    def work(conn: sqlite3.Connection) -> dict[str, StoreRows]:
        conn.row_factory = sqlite3.Row
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "sessions" not in tables:
            return {}
        where, args = (" WHERE id = ?", (only,)) if only is not None else ("", ())
        sessions = {
            row["id"]: _rows(dict(row))
            for row in conn.execute(f"SELECT * FROM sessions{where}", args)
            if isinstance(row["id"], str)
        }
        turns: dict[str, list[dict[str, Any]]] = {}
        usage: dict[str, list[dict[str, Any]]] = {}
        scope, scoped = (" WHERE session_id = ?", (only,)) if only is not None else ("", ())
        if "turns" in tables:
            for row in conn.execute(f"SELECT * FROM turns{scope} ORDER BY id", scoped):
                turns.setdefault(row["session_id"], []).append(_rows(dict(row)))
        if "assistant_usage_events" in tables:
            query = f"SELECT * FROM assistant_usage_events{scope} ORDER BY id"
            for row in conn.execute(query, scoped):
                usage.setdefault(row["session_id"], []).append(_rows(dict(row)))
        return {
            ident: StoreRows(row, tuple(turns.get(ident, ())), tuple(usage.get(ident, ())))
            for ident, row in sessions.items()
        }

    return db.read(path, info, work, label=label, busy_timeout=2.0)


def scan_events(data: bytes) -> MetaScan:
    """The Meta-deciding events of an event log's bytes, parsing as few lines as it can."""
    scan = MetaScan()
    position, size = 0, len(data)
    while position < size and (
        scan.start is None
        or scan.prompt is None
        or (scan.model is None and not scan.start.get("selectedModel"))
    ):
        end = data.find(b"\n", position)
        end = size if end < 0 else end
        value = try_loads(decode_lossless(data[position:end])) if end > position else None
        position = end + 1
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            scan.feed(value)
    while position < size:
        found = _TITLE_LINE.search(data, position)
        if found is None:
            break
        start = max(data.rfind(b"\n", position, found.start()) + 1, position)
        end = data.find(b"\n", found.end())
        end = size if end < 0 else end
        value = try_loads(decode_lossless(data[start:end]))
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            scan.feed(value)
        position = end + 1
    return scan


class CopilotStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.database = root / DATABASE

    def location(self, reference: str) -> str:
        """Where a session is, for people: a file or directory, or ``<database> session <id>``
        for a session read from the store database."""
        database, hashed, ident = reference.rpartition("#")
        if hashed and Path(database) == self.database:
            return f"{database} session {ident}"
        return reference

    # -- discovery --------------------------------------------------------------------------
    def event_logs(self, id_prefix: str = "") -> list[tuple[str, Path]]:
        """``(session id, events file)`` of every event log, newest layout first for an id."""
        seen: set[str] = set()
        out: list[tuple[str, Path]] = []
        for name in EVENT_DIRS:
            base = self.root / name
            entries = _entries(base)
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and _SESSION_NAME.fullmatch(entry.name):
                    events = Path(entry.path) / "events.jsonl"
                    fresh = entry.name.startswith(id_prefix) and entry.name not in seen
                    if fresh and os.path.lexists(events):
                        seen.add(entry.name)
                        out.append((entry.name, events))
            for entry in entries:
                stem = entry.name[: -len(".jsonl")]
                if (
                    entry.name.endswith(".jsonl")
                    and _SESSION_NAME.fullmatch(stem)
                    and stem.startswith(id_prefix)
                    and stem not in seen
                    and not entry.is_dir(follow_symlinks=False)
                ):
                    seen.add(stem)
                    out.append((stem, Path(entry.path)))
        return out

    def _database_rows(self, only: str | None = None) -> dict[str, StoreRows]:
        try:
            return read_database(self.database, only)
        except TxcriptError as exc:
            warn(f"skipping {self.database}: {exc}")
            return {}

    def _workspace(self, events: Path) -> str | None:
        if events.name != "events.jsonl":
            return None
        path = events.parent / "workspace.yaml"
        if not os.path.lexists(path):
            return None
        return decode_lossless(read_regular(path, limit=MAX_SIDE_FILE_BYTES))

    def _listed(self, id_prefix: str) -> list[Discovered]:
        rows = self._database_rows()
        logs = {str(path): (ident, path) for ident, path in self.event_logs(id_prefix)}
        logged = {ident for ident, _ in logs.values()}
        database = [self.database, Path(f"{self.database}-wal")]
        # A log's listing also depends on its workspace and on its store row (the title it may
        # fall back to), so its key takes in the database's files too.
        keys = {
            reference: stat_key([path, path.parent / "workspace.yaml", *database])
            for reference, (_, path) in logs.items()
        }

        def list_one(reference: str) -> Discovered | None:
            ident, path = logs[reference]
            return self._list_log(ident, path, rows.get(ident))

        scope = f"{HARNESS}:{self.root}"
        out = cached_listing(scope, keys, list_one, Discovered, complete=not id_prefix)
        for ident, held in rows.items():
            if ident in logged or not ident.startswith(id_prefix) or not held.turns:
                continue
            native = CopilotSession(ident, None, True, None, held)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TranscriptWarning)
                meta = meta_of(native)
            updated = _updated(held)
            reference = f"{self.database}#{ident}"
            out.append(Discovered.from_meta(HARNESS, reference, meta, updated_at=updated))
        out.sort(key=lambda d: d.updated_at or d.timestamp, reverse=True)
        return out

    def _list_log(self, ident: str, path: Path, row: StoreRows | None) -> Discovered | None:
        try:
            data, status = read_regular_stat(path, limit=MAX_SESSION_FILE_BYTES)
            workspace = self._workspace(path)
        except TxcriptError as exc:
            warn(f"skipping {path}: {exc}")
            return None
        scan = scan_events(data)
        if scan.first_time is None and scan.start is None:
            if data.strip():
                warn(f"skipping {path}: it holds no Copilot CLI events")
            return None
        meta = scan.meta(CopilotSession(ident, (), True, workspace, row))
        reference = str(path.parent if path.name == "events.jsonl" else path)
        return Discovered.from_meta(HARNESS, reference, meta, updated_at=modified_at(status))

    def discover(self) -> list[Discovered]:
        return self._listed("")

    def lookup(self, id_prefix: str) -> list[Discovered]:
        return [d for d in self._listed(id_prefix) if d.meta_id.startswith(id_prefix)]

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> CopilotSession:
        database, hashed, ident = reference.rpartition("#")
        if hashed and Path(database) == self.database:
            held = self._database_rows(ident).get(ident)
            if held is None:
                raise BadInput(f"no Copilot CLI session `{ident}` in {self.database}")
            return CopilotSession(ident, None, True, None, held)
        path = Path(reference)
        events = path / "events.jsonl" if path.is_dir() else path
        if not os.path.lexists(events):
            raise BadInput(f"no Copilot CLI session at {reference}")
        ident = path.name if path.is_dir() else path.stem
        data = read_regular(events, limit=MAX_SESSION_FILE_BYTES)
        lines, trailing = parse_lines(decode_lossless(data))
        workspace = self._workspace(events)
        return CopilotSession(
            ident, lines, trailing, workspace, self._database_rows(ident).get(ident)
        )

    def save(self, native: CopilotSession, *, force: bool = False) -> Saved:
        raise Unconvertible(HARNESS, READ_ONLY)

    def delete(self, reference: str, *, force: bool = False) -> None:
        raise BadInput(f"{READ_ONLY}; nothing was deleted")

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        token = db.change_token(self.database) if self.database.exists() else "-"
        out = {}
        for reference in references:
            if "#" in reference:
                out[reference] = token and f"db:{token}"
                continue
            path = Path(reference)
            files = [path / "events.jsonl", path / "workspace.yaml"] if path.is_dir() else [path]
            keys = file_fingerprints([str(f) for f in files])
            out[reference] = token and "|".join([*keys.values(), token])
        return out


def _updated(rows: StoreRows) -> datetime | None:
    return parse_time(rows.session.get("updated_at"))
