"""Kilo Code: the tasks of its older extension (a Roo fork, read as Roo's are), and the sessions of
its 2026 line, kept in ``kilo.db`` — an OpenCode database, read and written by the OpenCode
database code in :mod:`txcript.shared.formats.opencode` under Kilo's name.

A Kilo session is one of two bodies: a :class:`~.native.ClineTask` (a task directory) or an
:class:`~txcript.shared.formats.opencode.native.OpenCodeSession` (rows of ``kilo.db``). A new
copy is written as the latter: the kind Kilo lists and resumes now (``kilo --session <id>``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from txcript import model as m
from txcript.diagnostics import warn
from txcript.errors import BadInput, Malformed, StoreError, StoreUnreadable
from txcript.harnesses.base import Discovered, Saved, prefix_bounds
from txcript.shared import backups, files
from txcript.shared.files import sqlite_files
from txcript.shared.formats.opencode import codec as opencode_codec
from txcript.shared.formats.opencode import database
from txcript.shared.formats.opencode import text as opencode_text
from txcript.shared.formats.opencode.native import Dialect, NativeMessage, OpenCodeSession, Record

from . import codec, text
from .native import ClineTask

KILO = Dialect("kilo", "Kilo", "kilo")

KiloSession = ClineTask | OpenCodeSession


# ----------------------------------------------------------------------------------- codec


def to_common(native: KiloSession) -> m.Transcript:
    if isinstance(native, OpenCodeSession):
        return opencode_codec.to_common(native)
    return codec.to_common(native)


#: Kilo's default agent (OpenCode's is ``build``, which Kilo does not have).
AGENT = "code"


def from_common(transcript: m.Transcript) -> OpenCodeSession:
    return opencode_codec.from_common(transcript, agent=AGENT)


def meta_of(native: KiloSession) -> m.Meta:
    if isinstance(native, OpenCodeSession):
        return opencode_codec.session_meta(native)
    return codec.meta_of(native)


# ------------------------------------------------------------------------------ text form

_SESSION_KEY = "kilo_session"


def _record(record: Record) -> dict[str, Any]:
    return {
        "id": record.id,
        "text": record.text,
        "time_created": record.time_created,
        "time_updated": record.time_updated,
    }


def _record_of(value: Any) -> Record:
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        raise Malformed("kilo", "a message or part has no string `id`")
    text, created, updated = value.get("text"), value.get("time_created"), value.get("time_updated")
    if not isinstance(text, str):
        raise Malformed("kilo", f"record {value['id']} has no `text`")
    for stamp in (created, updated):
        if stamp is not None and (type(stamp) is not int):
            raise Malformed("kilo", f"record {value['id']} has a time that is not an integer")
    return Record(value["id"], text, created, updated)


def to_text(native: KiloSession) -> str:
    """A task bundle, or a ``kilo.db`` session's rows exactly as stored (every column, each
    ``data`` cell's text), so the text form round-trips."""
    if isinstance(native, OpenCodeSession):
        document = {
            _SESSION_KEY: {
                "session": native.session,
                "messages": [
                    {"record": _record(x.record), "parts": [_record(p) for p in x.parts]}
                    for x in native.messages
                ],
                "orphan_parts": [[owner, _record(part)] for owner, part in native.orphan_parts],
            }
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return text.kilo_to_text(native)


def from_text(document: str) -> KiloSession:
    """A task bundle (:mod:`.text`), a ``kilo.db`` session (:func:`to_text`), or a ``kilo
    export`` document (OpenCode's export)."""
    if text.is_bundle(document):
        return text.from_text(document)
    head = document.lstrip()[:200]
    if head.startswith("{") and f'"{_SESSION_KEY}"' in head:
        try:
            value = json.loads(document)
        except ValueError as exc:
            raise Malformed("kilo", f"the session document is not JSON: {exc}") from None
        body = value.get(_SESSION_KEY) if isinstance(value, dict) else None
        if not isinstance(body, dict) or not isinstance(body.get("session"), dict):
            raise Malformed("kilo", f"a session document has a `{_SESSION_KEY}.session` object")
        messages, orphans = body.get("messages", []), body.get("orphan_parts", [])
        if not isinstance(messages, list) or not isinstance(orphans, list):
            raise Malformed("kilo", "the session's `messages` or `orphan_parts` is not a list")
        built = []
        for message in messages:
            if not isinstance(message, dict) or not isinstance(message.get("parts", []), list):
                raise Malformed("kilo", "a message entry is not an object with a `parts` list")
            built.append(
                NativeMessage(
                    _record_of(message.get("record")),
                    tuple(_record_of(p) for p in message.get("parts", [])),
                )
            )
        orphan_parts = []
        for pair in orphans:
            if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                raise Malformed("kilo", "an orphan part is not [message id, part]")
            orphan_parts.append((pair[0], _record_of(pair[1])))
        return OpenCodeSession(body["session"], tuple(built), tuple(orphan_parts))
    return opencode_text.from_text(document)


def sniff(document: Any) -> bool:
    return text.sniff_flavour(document, "kilo") or (
        isinstance(document, dict) and isinstance(document.get(_SESSION_KEY), dict)
    )


# ---------------------------------------------------------------------------------- store


def discover(path: Path, id_prefix: str = "") -> list[Discovered]:
    bounds = prefix_bounds(id_prefix)

    def rows_of(conn: sqlite3.Connection, schema: database.Schema) -> list[Any]:
        return database.discover_rows(conn, schema, bounds)

    try:
        rows = database.read(path, rows_of, KILO) or []
    except (StoreError, StoreUnreadable) as exc:
        warn(f"skipped {exc}")
        return []
    found = []
    for row, meta in rows:
        parent = row.get("parent_id")
        found.append(
            Discovered.from_meta(
                KILO.harness,
                f"{path}#{meta.id}",
                meta,
                parent=parent if isinstance(parent, str) and parent else None,
            )
        )
    return found


def load(path: Path, session_id: str) -> OpenCodeSession:
    native = database.read(
        path, lambda conn, schema: database.load(conn, schema, path, session_id, KILO), KILO
    )
    if native is None:
        raise BadInput(f"no Kilo database at {path}")
    return native  # type: ignore[no-any-return]


def save(path: Path, native: OpenCodeSession) -> Saved:
    from txcript.shared.formats.opencode import write

    files.preflight_write(path.parent, sqlite_files(path), store="Kilo")
    session_id, _ = write.save(path, native, KILO)
    reference = f"{path}#{session_id}"
    taken = [
        b
        for b in backups.list_backups(path)
        if b.harness == KILO.harness and b.session == session_id
    ]
    return Saved(
        id=session_id,
        reference=reference,
        location=f"{path} session {session_id}",
        backup=max(taken, key=lambda b: b.created_at).id if taken else None,
    )


def delete(path: Path, session_id: str) -> None:
    from txcript.shared.formats.opencode import write

    write.archive(path, session_id, KILO)


def fingerprints(path: Path, references: Iterable[str]) -> dict[str, str]:
    wanted = {reference: reference[len(str(path)) + 1 :] for reference in references}
    ids = list(wanted.values())
    try:
        prints: Any = database.read(
            path, lambda conn, schema: database.fingerprints(conn, schema, ids), KILO
        )
    except (StoreError, StoreUnreadable):
        prints = None
    return {reference: (prints or {}).get(sid, "") for reference, sid in wanted.items()}


def undo_backup(backup: backups.Backup, *, force: bool = False) -> backups.Backup | None:
    """Undo one write: into ``kilo.db`` as OpenCode's are undone, else an editor state row."""
    if Path(backup.database).name == "kilo.db":
        from txcript.shared.formats.opencode import write

        return write.undo(backup, force=force, busy_timeout=database.BUSY_TIMEOUT, dialect=KILO)
    from . import saving

    return saving.undo_backup(backup, force=force)


def backup_committed(backup: backups.Backup, partial: Path) -> bool:
    if Path(backup.database).name == "kilo.db":
        from txcript.shared.formats.opencode import rowbackup

        return rowbackup.committed(backup, partial)
    from . import saving

    return saving.backup_committed(backup, partial)
