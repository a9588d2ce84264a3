"""The Cursor desktop store: sessions in the app's global ``state.vscdb`` (read side).

**Where.** The root is the app's ``User`` directory (:func:`default_root`); every session lives in
``<root>/globalStorage/state.vscdb``. :mod:`.database` opens it without disturbing the app.

**Which sessions.** A session (composer) exists when the database has a head for it or a
``composerData:<cid>`` row (even a NULL one). Heads come from, best first: a ``composerHeaders``
row (3.16+), an entry of the ``ItemTable`` key ``composer.composerHeaders`` (3.7.x), or a head
synthesised from the composer id (≈0.45–1.7 record none). Every source is consulted, so a
database mid-migration, an empty header table, or a header row with a NULL id never hides
sessions recorded elsewhere. A session is *listed* only when it has a message: a non-NULL
``bubbleId:<cid>:`` row, or a non-empty inline ``composerData.conversation`` (≈0.45). Listing is
newest first: header ``recency``, else the head's (or composerData's) ``createdAt``; unknown last.

**Cheap discovery.** One SQL statement (plus one read of the 3.7 ItemTable index, when present),
in one read transaction. Bubble ownership is an existence test on a key *range*
(``key >= 'bubbleId:<cid>:' AND key < 'bubbleId:<cid>;'``) over the unique key index, never
``LIKE``. Bubble bodies are never read. The ``composerData`` cell (the model is only there) comes
back as bytes and is read the way a load reads it, without building the whole document: a
``msgspec`` struct decodes only the members the metadata needs (:data:`codec.COMPOSER_FIELD_PATHS`,
the two times, and whether ``conversation`` is a non-empty array) and validates the rest while
skipping it; see :func:`_composer_cell`. SQLite's JSON functions are not used for this: they were
slower, and they read JSON differently from the codec (first of duplicate keys, no unescaping of
keys, 2,000 levels of nesting, ``1e400`` accepted, JSON5 in newer versions), so discovery and a
load could disagree. The one difference left: a number beyond the double range (``1e400``) in a
member discovery skips makes the codec reject the whole document, while discovery still reads
its fields. ``JSON.stringify``, which writes these cells, cannot produce such a number.

**Metadata cache.** What discovery extracts from a composerData cell is kept in the metadata
cache (:mod:`txcript.shared.cache`) under ``<rowid>:<header lastUpdatedAt>:<byte length>``; the
length comes from a blob handle, which does not read the cell, so a warm listing reads no cell
at all (:class:`_Cells`). :meth:`CursorDesktopStore.lookup` runs the discovery statement on one
key range (an id or id prefix) instead of every session.

**Load.** Every cell is the exact text Cursor stored (``CAST(value AS TEXT)``); NULL rows and
cells that are not UTF-8 are dropped. Bubbles are the exact key range in rowid order. Aux rows
are the rows keyed ``<kind>:<cid>`` or ``<kind>:<cid>:…`` for every kind except ``bubbleId``,
``composerData`` and ``agentKv``, matched exactly (:data:`.database.AUX_ROWS_SQL`), in rowid
order. The rowid order is sorted in Python, never with ``ORDER BY``: SQLite would sort the values
themselves (megabytes for a long session) through a temp file, so a read-only export would need
temp space.

Header rows are read leniently, where the reference discards the whole row when one column has
the wrong storage class: a TEXT or UTF-8 BLOB ``value`` is kept as the head; integer columns
holding a REAL (``recency REAL``) or decimal TEXT are converted; an unusable column becomes 0/NULL
on its own. Only a NULL or non-text ``value`` makes the head fall back to the ItemTable entry or a
synthesised head (the row's columns are still used). Columns txcript does not model
(``subagentTypeName`` …) are carried in ``extra_columns``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import sqlite3
import sys
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from txcript.errors import BadInput, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved, home_dir, prefix_bounds
from txcript.harnesses.cursor_desktop import codec, database
from txcript.harnesses.cursor_desktop.database import (
    AUX_ROWS_SQL,
    ITEM_HEADERS_KEY,
    InvalidText,
    Schema,
    cell_integer,
    cell_text,
    quote_identifier,
)
from txcript.harnesses.cursor_desktop.native import CursorSession, HeaderOrigin, KVRow
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.cache import metadata_cache
from txcript.shared.files import preflight_write, sqlite_files
from txcript.shared.ids import CURSOR_IDS
from txcript.shared.jsonutil import MISSING, lookup, pick, try_loads
from txcript.shared.text import shown
from txcript.shared.timeutil import from_epoch_ms

HARNESS = "cursor_desktop"
ENV_OVERRIDE = "CURSOR_DESKTOP_USER_DIR"
DEFAULT_BUSY_TIMEOUT = 5.0
#: Seconds to wait for the app's lock before giving up (default :data:`DEFAULT_BUSY_TIMEOUT`).
BUSY_TIMEOUT_ENV = "TXCRIPT_BUSY_TIMEOUT"

SqlValue = str | int | float | bytes | None

#: composerData values discovery extracts: the codec's metadata fields plus the two times a
#: head without a header row takes its columns from.
_COMPOSER_PATHS: dict[str, tuple[str | int, ...]] = {
    **codec.COMPOSER_FIELD_PATHS,
    " createdAt": ("createdAt",),
    " lastUpdatedAt": ("lastUpdatedAt",),
}


# ------------------------------------------------------------------------------------ locations


def busy_timeout_setting() -> float:
    """``TXCRIPT_BUSY_TIMEOUT`` in seconds when it is a non-negative number, else the default."""
    try:
        value = float(os.environ.get(BUSY_TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_BUSY_TIMEOUT
    return value if math.isfinite(value) and value >= 0 else DEFAULT_BUSY_TIMEOUT


def root_for(system: str, home: Path) -> Path:
    """The app's ``User`` directory under ``home`` on ``system`` (a ``sys.platform`` value)."""
    if system == "darwin":
        return home / "Library" / "Application Support" / "Cursor" / "User"
    if system in ("win32", "cygwin"):
        return home / "AppData" / "Roaming" / "Cursor" / "User"
    return home / ".config" / "Cursor" / "User"


def default_root() -> Path | None:
    """``$CURSOR_DESKTOP_USER_DIR`` when set and non-empty, else the per-OS default, else None."""
    override = os.environ.get(ENV_OVERRIDE)
    if override:
        return Path(override)
    home = home_dir()
    return None if home is None else root_for(sys.platform, home)


# ------------------------------------------------------------------------------------ cells


def _json_int(value: object) -> int | None:
    return value if type(value) is int else None


def _scalar(value: object) -> SqlValue:
    if isinstance(value, InvalidText):
        return value.raw
    if value is None or isinstance(value, str | int | float | bytes):
        return value
    return None


def synthesized_head(cid: str) -> str:
    """The head of a session with none recorded: ``{"type":"head","composerId":…}``, escaped."""
    return json.dumps(
        {"type": "head", "composerId": cid}, separators=(",", ":"), ensure_ascii=False
    )


def _fields_of(document: Any) -> dict[str, Any] | None:
    """The :data:`_COMPOSER_PATHS` values of a parsed composerData (None unless an object)."""
    if not isinstance(document, dict):
        return None
    return pick(document, _COMPOSER_PATHS)


def _meta_fields(fields: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (fields or {}).items() if k in codec.COMPOSER_FIELD_PATHS}


#: The top-level composerData members discovery reads: the first step of every
#: :data:`_COMPOSER_PATHS` path, each decoded as any JSON value, plus ``conversation`` kept as
#: raw bytes (only whether it is a non-empty array matters, and it can be large). Every other
#: member is skipped without building Python objects.
_MEMBERS: tuple[str, ...] = tuple(dict.fromkeys(str(path[0]) for path in _COMPOSER_PATHS.values()))
_ComposerMembers: Any = msgspec.defstruct(
    "_ComposerMembers",
    [(name, Any, msgspec.UNSET) for name in _MEMBERS]
    + [("conversation", msgspec.Raw, msgspec.Raw())],
)
_members_decoder = msgspec.json.Decoder(_ComposerMembers)
#: ``(field key, first member, rest of the path)`` of every :data:`_COMPOSER_PATHS` entry.
_SPLIT_PATHS: tuple[tuple[str, str, tuple[str | int, ...]], ...] = tuple(
    (key, str(path[0]), path[1:]) for key, path in _COMPOSER_PATHS.items()
)
#: A non-empty JSON array (the value was already validated as JSON by the decoder).
_NONEMPTY_ARRAY = re.compile(rb"\[[ \t\n\r]*[^ \t\n\r\]]")


def _composer_cell(raw: bytes | None) -> tuple[dict[str, Any] | None, bool]:
    """``(_fields_of(document), has inline messages)`` of a composerData cell's bytes.

    Exactly what a load reads from the same cell: a cell that is not UTF-8 is no document, and
    the document is ``try_loads``'s reading of the text (strict JSON, duplicate keys last-wins,
    escaped keys unescaped, no NaN, surrogates paired…). Fast path:
    :data:`_ComposerMembers` decodes only the members the fields come from and validates the
    rest of the document while skipping it, except for UTF-8 (checked here first) and the range
    of numbers (see the module notes). A document it declines (not an object, a number out of
    range in a member it reads, nesting too deep …) takes the slow path of a full parse.
    """
    if raw is None:
        return None, False
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None, False
    try:
        members = _members_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        document = try_loads(raw.decode("utf-8"))
        conversation = document.get("conversation") if isinstance(document, dict) else None
        return _fields_of(document), isinstance(conversation, list) and bool(conversation)
    fields: dict[str, Any] = {}
    for key, first, rest in _SPLIT_PATHS:  # _fields_of, on the members that were present
        value = getattr(members, first)
        if value is not msgspec.UNSET and (
            not rest or (value := lookup(value, rest)) is not MISSING
        ):
            fields[key] = value
    return fields, _NONEMPTY_ARRAY.match(members.conversation) is not None


# ------------------------------------------------------------------------------------ heads


class _HeadIndex(msgspec.Struct):
    allComposers: list[msgspec.Raw] = msgspec.field(default_factory=list)


def _item_heads(conn: sqlite3.Connection, schema: Schema) -> dict[str, str]:
    """composerId → head text from the ``ItemTable`` index (3.7.x); the first entry per id wins.

    The index holds no per-session cell to keep verbatim, so a head is its entry minified with
    the original key order and tokens (what SQLite's JSON functions would render).
    """
    if not schema.has_item_table:
        return {}
    row = conn.execute(
        "SELECT CAST(value AS TEXT) FROM ItemTable WHERE key = ?", (ITEM_HEADERS_KEY,)
    ).fetchone()
    text = None if row is None else cell_text(row[0])
    if text is None:
        return {}
    try:
        index = msgspec.json.decode(text, type=_HeadIndex)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}
    heads: dict[str, str] = {}
    for raw in index.allComposers:
        try:
            entry = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            continue
        cid = entry.get("composerId") if isinstance(entry, dict) else None
        if isinstance(cid, str) and cid and cid not in heads:
            heads[cid] = msgspec.json.format(bytes(raw), indent=-1).decode("utf-8")
    return heads


@dataclass(frozen=True, slots=True)
class _Head:
    """A session's head and header columns, exactly as load and discovery both see them."""

    header: str
    origin: HeaderOrigin
    workspace_id: str | None = None
    created_at: int = 0
    last_updated_at: int = 0
    is_archived: bool = False
    is_subagent: bool = False
    recency: int = 0
    checkpoint_at: int | None = None
    extra_columns: tuple[tuple[str, SqlValue], ...] = ()
    #: What discovery sorts by, newest first (None sorts last).
    sort_key: int | None = None


_KNOWN_COLUMNS = frozenset(
    {
        "composerid",
        "workspaceid",
        "createdat",
        "lastupdatedat",
        "isarchived",
        "issubagent",
        "recency",
        "checkpointat",
        "value",
    }
)


def _header_names(schema: Schema) -> tuple[str, ...]:
    """The header columns' names as rows are keyed: known ones lower-cased, others as declared."""
    return tuple(
        name.lower() if name.lower() in _KNOWN_COLUMNS else name for name in schema.header_columns
    )


def _listing_columns(schema: Schema) -> list[tuple[str, str]]:
    """``(declared name, row key)`` of the header columns :func:`_table_head` reads."""
    return [
        (column, name)
        for column, name in zip(schema.header_columns, _header_names(schema), strict=True)
        if name in ("value", "createdat", "recency", "lastupdatedat")
    ]


def _header_row(schema: Schema, cells: Sequence[object]) -> dict[str, object]:
    """A header row by column name (:func:`_header_names`)."""
    return dict(zip(_header_names(schema), cells, strict=True))


def _table_head(
    cid: str, row: dict[str, object], item_head: str | None
) -> tuple[str, int, int | None]:
    """``(head text, createdAt, recency)`` of a session with a header row (all discovery needs)."""
    value = cell_text(row.get("value"))
    header = value if value is not None else (item_head or synthesized_head(cid))
    return header, cell_integer(row.get("createdat")) or 0, cell_integer(row.get("recency"))


def _resolve_head(
    cid: str, row: dict[str, object] | None, item_head: str | None, fields: Mapping[str, Any]
) -> _Head:
    """Combine the header row, the ItemTable head and the composerData times into one head."""
    if row is not None:
        header, created_at, recency = _table_head(cid, row, item_head)
        return _Head(
            header=header,
            origin="table",
            workspace_id=cell_text(row.get("workspaceid")),
            created_at=created_at,
            last_updated_at=cell_integer(row.get("lastupdatedat")) or 0,
            is_archived=bool(cell_integer(row.get("isarchived"))),
            is_subagent=bool(cell_integer(row.get("issubagent"))),
            recency=recency or 0,
            checkpoint_at=cell_integer(row.get("checkpointat")),
            extra_columns=tuple(
                (name, _scalar(cell)) for name, cell in row.items() if name not in _KNOWN_COLUMNS
            ),
            sort_key=recency,
        )
    cd_created = _json_int(fields.get(" createdAt"))
    cd_updated = _json_int(fields.get(" lastUpdatedAt"))
    if item_head is not None:
        head = try_loads(item_head)
        head = head if isinstance(head, dict) else {}
        workspace = head.get("workspaceIdentifier")
        workspace_id = workspace.get("id") if isinstance(workspace, dict) else None
        created = _json_int(head.get("createdAt"))
        created = cd_created if created is None else created
        updated = _json_int(head.get("lastUpdatedAt"))
        updated = cd_updated if updated is None else updated
        return _Head(
            header=item_head,
            origin="item_table",
            workspace_id=workspace_id if isinstance(workspace_id, str) and workspace_id else None,
            created_at=created or 0,
            last_updated_at=updated or 0,
            is_archived=head.get("isArchived") is True,
            sort_key=created,
        )
    return _Head(
        header=synthesized_head(cid),
        origin="synthesized",
        created_at=cd_created or 0,
        last_updated_at=cd_updated or 0,
        sort_key=cd_created,
    )


# ------------------------------------------------------------------------------------ SQL


def _cid_column(schema: Schema) -> str:
    return quote_identifier(next(c for c in schema.header_columns if c.lower() == "composerid"))


def _bubble_range_sql(cid: str, alias: str) -> str:
    return (
        f"{alias}.key >= 'bubbleId:' || {cid} || ':' AND {alias}.key < 'bubbleId:' || {cid} || ';'"
    )


def _discovery_sql(schema: Schema, ranged: bool = False) -> str:
    """One statement listing every candidate session; see the module notes. ``ranged`` keeps
    only the composer ids in ``[?2, ?3)`` (a lookup by id prefix), by key range on both
    indexes.

    Per candidate: its id, whether a composerData row exists and its rowid (the cell itself is
    opened by rowid, and read only when the metadata cache does not hold it; see
    :class:`_Cells`), whether it owns a non-NULL bubble row, and its header row's columns.
    SQLite's JSON functions are not used: they parse the whole cell once per call, and their
    reading of JSON differs from the codec's (duplicate keys, escaped keys, nesting depth,
    out-of-range numbers, and JSON5 in newer SQLite versions), so discovery could disagree with
    a load.
    """
    sources = ["SELECT value FROM json_each(?1)"]
    joins = ""
    header_cols = ""
    if schema.has_header_table:
        cid_col = _cid_column(schema)
        in_range = f" AND {cid_col} >= ?2 AND {cid_col} < ?3" if ranged else ""
        sources.insert(
            0,
            f"SELECT {cid_col} FROM composerHeaders WHERE typeof({cid_col}) = 'text'{in_range}",
        )
        joins = f"LEFT JOIN composerHeaders h ON h.{cid_col} = c.cid "
        header_cols = f", h.{cid_col} IS NOT NULL" + "".join(
            f", h.{quote_identifier(column)}" for column, _ in _listing_columns(schema)
        )
    key_range = (
        "key >= 'composerData:' || ?2 AND key < 'composerData:' || ?3"
        if ranged
        else "key >= 'composerData:' AND key < 'composerData;'"
    )
    sources.append(f"SELECT substr(key, 14) FROM cursorDiskKV WHERE {key_range}")
    has_bubbles = (
        f"EXISTS (SELECT 1 FROM cursorDiskKV b WHERE {_bubble_range_sql('c.cid', 'b')} "
        "AND b.value IS NOT NULL)"
    )
    return (
        f"WITH cand(cid) AS ({' UNION '.join(sources)}) "
        "SELECT c.cid AS cid, d.key IS NOT NULL AS cd_row, d.rowid AS cd_rowid, "
        f"{has_bubbles} AS has_bubbles{header_cols} "
        f"FROM cand c {joins}"
        "LEFT JOIN cursorDiskKV d ON d.key = 'composerData:' || c.cid"
    )


#: Aux rows. The distinct key kinds (the text before the first ``:``) are enumerated with a
#: skip-scan of the key index — one seek per kind, plus a pass over keys without a colon — and
#: each kind but ``bubbleId``, ``composerData`` and ``agentKv`` is probed for exactly
#: ``<kind>:<cid>`` and for the range ``<kind>:<cid>:`` … ``<kind>:<cid>;``. No ``LIKE``, no
#: substring match, cost independent of how many sessions the database holds.


def _rows_by_rowid(cursor: Iterable[Sequence[Any]]) -> tuple[KVRow, ...]:
    """``(rowid, key, value)`` records as rows in rowid order.

    Sorted here, not with ``ORDER BY rowid``: SQLite would sort the whole values (megabytes for a
    long session) through a temp file, so a read would need temp space and fail when the temp
    dir is full or missing. Only the small rowids are compared here.
    """
    records = sorted(cursor, key=lambda record: record[0])
    return tuple(
        KVRow(key, value)
        for _, key, value in records
        if isinstance(key, str) and isinstance(value, str)
    )


# ------------------------------------------------------------------------------------ the store


class CursorDesktopStore:
    """Read access to one Cursor ``User`` directory's ``globalStorage/state.vscdb``.

    ``busy_timeout`` (seconds) is how long a read waits for a writer's lock before failing.
    """

    def __init__(self, root: Path, *, busy_timeout: float | None = None) -> None:
        self.root = root
        self.database = root / "globalStorage" / "state.vscdb"
        self.busy_timeout = busy_timeout if busy_timeout is not None else busy_timeout_setting()

    def location(self, reference: str) -> str:
        return str(self.database)

    def discover(self) -> list[Discovered]:
        """Every session with at least one message, newest first.

        A missing database, an empty file, and a database without a ``cursorDiskKV`` table hold
        no sessions (``[]``). A path that is a directory, not SQLite, truncated or corrupt raises
        :class:`~txcript.errors.StoreUnreadable`; a lock held past the busy timeout raises
        :class:`~txcript.errors.StoreError`.
        """
        return self._discover(None, with_model=True)

    def discover_titles(self) -> list[Discovered]:
        """:meth:`discover` for a listing that shows no model: a session whose head gives its
        title and cwd is listed without reading its composerData cell (its model is None)."""
        return self._discover(None, with_model=False)

    def _discover(self, bounds: tuple[str, str] | None, *, with_model: bool) -> list[Discovered]:
        info = database.inspect(self.database)
        if info is None or info.size == 0:
            return []
        scope = f"{HARNESS}:{self.database}"
        found = database.read(
            self.database,
            info,
            lambda conn, schema: _discover(conn, schema, scope, bounds, with_model),
            busy_timeout=self.busy_timeout,
        )
        found.sort(key=lambda item: (item[0] is None, -(item[0] or 0), item[1].reference))
        return [discovered for _, discovered in found]

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The listed sessions whose composer id starts with ``id_prefix``, exactly as
        :meth:`discover` lists them: the same statement, limited to one key range of the
        ``composerHeaders`` and ``cursorDiskKV`` key indexes, so its cost does not grow with
        the number of sessions in the database."""
        bounds = prefix_bounds(id_prefix)
        return [] if bounds is None else self._discover(bounds, with_model=True)

    def load(self, reference: str) -> CursorSession:
        """The session's native body; :class:`~txcript.errors.BadInput` when there is none."""
        if not reference:
            raise BadInput(_no_session(reference))
        info = database.inspect(self.database)
        if info is None:
            raise BadInput(f"{_no_session(reference)}: no database at {self.database}")
        path = self.database

        def work(conn: sqlite3.Connection, schema: Schema) -> CursorSession:
            if not schema.has_kv:
                raise StoreUnreadable(
                    f"cursor_desktop database {path} has no cursorDiskKV table "
                    "(not a Cursor state database?)"
                )
            return _load(conn, schema, reference)

        return database.read(path, info, work, busy_timeout=self.busy_timeout)

    def change_token(self) -> str:
        """Moves whenever the database may have been written (``stat`` of it and its WAL and
        journal; see :func:`txcript.shared.sqlite.change_token`): while it stands, every
        fingerprint stands, and asking for them (a scan of every bubble key) can be skipped."""
        return shared_sqlite.change_token(self.database)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """A change token per reference; ``""`` when unknown (treat as changed). Never raises.

        The token is ``<lastUpdatedAt>/<composerData rowid>/<bubble count>/<max bubble rowid>``:
        the header column (empty without a header row), then row facts that move whenever the
        app — or any ``INSERT OR REPLACE`` — rewrites the session's content, since a replaced
        row gets a new rowid. So re-saved content changes the token even when ``lastUpdatedAt``
        stays put (the reference's blind spot), and legacy sessions get a token too.
        """
        refs = list(dict.fromkeys(references))
        result = dict.fromkeys(refs, "")
        if not refs:
            return result
        try:
            info = database.inspect(self.database)
            if info is None or info.size == 0:
                return result
            result.update(
                database.read(
                    self.database,
                    info,
                    lambda conn, schema: _fingerprints(conn, schema, refs),
                    busy_timeout=self.busy_timeout,
                )
            )
        except (TxcriptError, sqlite3.Error, OSError):
            return dict.fromkeys(refs, "")
        return result

    def save(self, native: CursorSession, *, force: bool = False) -> Saved:
        """Write a session into the database in one transaction, after a backup.

        See :mod:`.saving`; refuses while Cursor is running unless ``force``.
        """
        from txcript.harnesses.cursor_desktop import saving

        CURSOR_IDS.check(saving.session_id_of(native), "Cursor desktop")
        preflight_write(
            self.root, sqlite_files(self.database), store="Cursor desktop", access=False
        )
        return saving.save(
            self.database, self.root, native, force=force, busy_timeout=self.busy_timeout
        )

    def delete(self, reference: str, *, force: bool = False) -> None:
        """Remove a session (header, cells, sidebar membership) in one transaction, after a
        row backup that ``txcript restore`` undoes it with."""
        from txcript.harnesses.cursor_desktop import saving

        saving.delete(self.database, reference, force=force, busy_timeout=self.busy_timeout)


def snapshot(path: Path, busy_timeout: float) -> Any:
    """A whole-database snapshot of ``path``, read without touching the files beside it."""
    from txcript.shared import backups

    info = database.inspect(path)
    if info is None or info.size == 0:
        raise BadInput(f"there is no cursor_desktop database at {path} to back up")

    def copy(target: sqlite3.Connection) -> None:
        def work(conn: sqlite3.Connection, _schema: Schema) -> None:
            conn.backup(target)

        database.read(path, info, work, busy_timeout=busy_timeout)

    return backups.snapshot(path, harness="cursor_desktop", copy=copy)


def _no_session(cid: str) -> str:
    return f"no cursor_desktop session `{shown(cid)}`"


# ------------------------------------------------------------------------------------ workers


class _CellEntry(msgspec.Struct, array_like=True):
    """What the metadata cache keeps for a session: the composerData extraction and, for a
    session with a header row, the listing derived from it and the head."""

    fields: dict[str, Any] | None
    inline: bool
    #: ``(title, cwd, model, lastUpdatedAt ms)``, when the listing is a function of the key.
    listing: tuple[str | None, str | None, str | None, int | None] | None = None


_entry_decoder = msgspec.json.Decoder(_CellEntry)
_entry_encoder = msgspec.json.Encoder()


class _Cells:
    """composerData cells by rowid, through the metadata cache.

    A cell is opened as a blob handle, which gives its byte length without reading it. The
    cache key is ``<rowid>:<header lastUpdatedAt>:<byte length>``: a rewrite by ``INSERT OR
    REPLACE`` (what the app and txcript do) gets a new rowid, an in-place update moves the
    header's ``lastUpdatedAt`` or the length. A session without a header row, or whose
    ``lastUpdatedAt`` is not an integer, has no full key: its cell is always read. For a
    session with a header row the key also names the head (its length and CRC-32) and the
    ``createdAt`` column, and the entry then holds the derived listing too, so a hit parses
    neither the head nor the cell.
    """

    def __init__(self, conn: sqlite3.Connection, known: dict[str, tuple[str, bytes]]) -> None:
        self.conn = conn
        self.known = known
        self.fresh: dict[str, tuple[str, bytes]] = {}
        self._pending: dict[str, tuple[str, _CellEntry]] = {}

    def entry(
        self,
        cid: str,
        rowid: object,
        last_updated: int | None,
        head: tuple[str, int] | None = None,
        *,
        needed: Callable[[], bool] | None = None,
    ) -> _CellEntry:
        """The session's :func:`_composer_cell` (``rowid`` None: it has none), from the cache
        when its key matches. ``head`` is ``(head text, createdAt column)`` of a header row.

        ``needed``, asked only when the cache does not hold the cell: False when the caller
        can do without the fields; the cell is then not read, and an empty entry stands for it.
        """
        if not isinstance(rowid, int):
            return _CellEntry(None, False)
        try:
            blob = self.conn.blobopen("cursorDiskKV", "value", rowid, readonly=True)
        except sqlite3.Error:  # a NULL (or non-text) cell: no handle, read it the usual way
            row = self.conn.execute(
                "SELECT CAST(value AS BLOB) FROM cursorDiskKV WHERE rowid = ?", (rowid,)
            ).fetchone()
            return _CellEntry(*_composer_cell(None if row is None else row[0]))
        with blob:
            key = ""
            if last_updated is not None:
                key = f"{rowid}:{last_updated}:{len(blob)}"
                if head is not None:
                    text, created_at = head
                    raw = text.encode("utf-8", "surrogatepass")
                    key += f":{created_at}:{len(raw)}:{zlib.crc32(raw)}"
            cached = self.known.get(cid)
            if key and cached is not None and cached[0] == key:
                with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                    return _entry_decoder.decode(cached[1])
            if needed is not None and not needed():
                return _CellEntry({}, False)
            entry = _CellEntry(*_composer_cell(blob.read()))
        if key:
            self._pending[cid] = (key, entry)
        return entry

    def derived(
        self, cid: str, listing: tuple[str | None, str | None, str | None, int | None]
    ) -> None:
        """Keep the listing derived for the entry just read (a header-row session's)."""
        pending = self._pending.get(cid)
        if pending is not None:
            pending[1].listing = listing

    def to_store(self) -> dict[str, tuple[str, bytes]]:
        """The entries read afresh in this run, encoded (those that cannot be are skipped)."""
        for cid, (key, entry) in self._pending.items():
            with contextlib.suppress(msgspec.EncodeError, UnicodeEncodeError, OverflowError):
                self.fresh[cid] = (key, _entry_encoder.encode(entry))
        return self.fresh


def _cell_needed(
    parsed: list[Any], cid: str, header: str, created_at: int, has_bubbles: object, model: bool
) -> bool:
    """Must a header-row session's cell be read (the cache does not hold it), or does its head
    give all a listing without the model shows? The parsed head is left in ``parsed``."""
    parsed.append(try_loads(header))
    return model or not (has_bubbles and _head_decides(cid, created_at, parsed[0]))


def _head_decides(cid: str, created_at: int, parsed_head: Any) -> bool:
    """Does the head alone give the title and the cwd (all a listing without the model shows)?"""
    meta = codec.derive_meta(cid, created_at, parsed_head, {})
    return created_at > 0 and meta.title is not None and meta.cwd is not None


def _discover(
    conn: sqlite3.Connection,
    schema: Schema,
    scope: str,
    bounds: tuple[str, str] | None = None,
    with_model: bool = True,
) -> list[tuple[int | None, Discovered]]:
    """Every listed session, or (``bounds``) those whose id lies in ``[low, high)``.

    ``with_model=False`` leaves the model out where composerData is the only thing left to read
    for it (the head already gives title and cwd): such a session's cell is not read at all.
    """
    if not schema.has_kv:
        return []
    cache = metadata_cache()
    cells = _Cells(conn, cache.entries(scope))
    item_heads = _item_heads(conn, schema)
    found: list[tuple[int | None, Discovered]] = []
    seen: set[str] = set()
    names = tuple(name for _, name in _listing_columns(schema))
    listed = list(item_heads)
    parameters: tuple[str, ...] = (json.dumps(listed),)
    if bounds is not None:
        low, high = bounds
        listed = [cid for cid in listed if low <= cid < high]
        parameters = (json.dumps(listed), low, high)
    for record in conn.execute(_discovery_sql(schema, bounds is not None), parameters):
        cid, has_cd_row, cd_rowid, has_bubbles = record[0], record[1], record[2], record[3]
        if not isinstance(cid, str) or not cid or cid in seen:
            continue
        if bounds is not None and not bounds[0] <= cid < bounds[1]:
            continue
        seen.add(cid)
        if not has_bubbles and cd_rowid is None:
            continue  # no message can exist without bubbles or an inline conversation
        row = None
        if len(record) > 4 and record[4] == 1:  # the session has a header row
            row = dict(zip(names, record[5:], strict=True))
        if row is not None:
            header, created_at, sort_key = _table_head(cid, row, item_heads.get(cid))
            updated = cell_integer(row.get("lastupdatedat"))
            parsed: list[Any] = []
            needed = partial(_cell_needed, parsed, cid, header, created_at, has_bubbles, with_model)
            entry = cells.entry(cid, cd_rowid, updated, (header, created_at), needed=needed)
            if entry.listing is not None:  # a cache hit that holds the whole listing
                if not (has_bubbles or entry.inline):
                    continue
                title, cwd, model, updated = entry.listing
                found.append((sort_key, _listed(cid, created_at, title, cwd, model, updated)))
                continue
            parsed_head = parsed[0] if parsed else try_loads(header)
            fields, inline = entry.fields, entry.inline
            if not (has_bubbles or inline):
                continue
        else:
            entry = cells.entry(cid, cd_rowid, None)
            fields, inline = entry.fields, entry.inline
            if not (has_bubbles or inline):
                continue
            if cid not in item_heads and not has_cd_row:
                continue
            head = _resolve_head(cid, row, item_heads.get(cid), fields or {})
            header, created_at, sort_key = head.header, head.created_at, head.sort_key
            updated = head.last_updated_at
            parsed_head = try_loads(header)
        if not updated and isinstance(parsed_head, dict):
            updated = _json_int(parsed_head.get("lastUpdatedAt"))
        meta = codec.derive_meta(cid, created_at, parsed_head, _meta_fields(fields))
        discovered = Discovered.from_meta(HARNESS, cid, meta, updated_at=_updated_at(updated))
        if row is not None and _listed_timestamp(created_at) == meta.timestamp:
            # The listing is a function of the key (no "now" stands in for a missing start).
            cells.derived(cid, (meta.title, meta.cwd, meta.model, updated))
        found.append((sort_key, discovered))
    gone = () if bounds is not None else [cid for cid in cells.known if cid not in seen]
    cache.update(scope, cells.to_store(), gone)
    return found


def _updated_at(updated: int | None) -> datetime | None:
    """The app's own last-activity time (what its sidebar sorts by), not a file mtime."""
    return from_epoch_ms(updated) if updated and 0 < updated < 2**47 else None


def _listed_timestamp(created_at: int) -> datetime | None:
    return from_epoch_ms(created_at) if 0 < created_at < 2**47 else None


def _listed(
    cid: str,
    created_at: int,
    title: str | None,
    cwd: str | None,
    model: str | None,
    updated: int | None,
) -> Discovered:
    """The listing entry of a cache hit: what :func:`codec.derive_meta` gave for the same key."""
    timestamp = _listed_timestamp(created_at)
    assert timestamp is not None  # only such listings are cached
    return Discovered(
        harness=HARNESS,
        reference=cid,
        meta_id=cid,
        timestamp=timestamp,
        title=title,
        cwd=cwd,
        model=model,
        updated_at=_updated_at(updated),
    )


def _load(conn: sqlite3.Connection, schema: Schema, cid: str) -> CursorSession:
    row = None
    if schema.has_header_table:
        columns = ", ".join(quote_identifier(column) for column in schema.header_columns)
        record = conn.execute(
            f"SELECT {columns} FROM composerHeaders WHERE {_cid_column(schema)} = ?", (cid,)
        ).fetchone()
        row = None if record is None else _header_row(schema, record)
    cd_record = conn.execute(
        "SELECT CAST(value AS TEXT) FROM cursorDiskKV WHERE key = ?", (f"composerData:{cid}",)
    ).fetchone()
    composer_data = None if cd_record is None else cell_text(cd_record[0])
    item_head = None
    if row is None or cell_text(row.get("value")) is None:
        item_head = _item_heads(conn, schema).get(cid)
    if row is None and item_head is None and cd_record is None:
        raise BadInput(_no_session(cid))
    parsed = None if composer_data is None else try_loads(composer_data)
    head = _resolve_head(cid, row, item_head, _fields_of(parsed) or {})
    bubbles = _rows_by_rowid(
        conn.execute(
            "SELECT rowid, key, CAST(value AS TEXT) FROM cursorDiskKV "
            "WHERE key >= ? AND key < ? AND value IS NOT NULL",
            (f"bubbleId:{cid}:", f"bubbleId:{cid};"),
        )
    )
    return CursorSession(
        header=head.header,
        bubbles=bubbles,
        workspace_id=head.workspace_id,
        created_at=head.created_at,
        last_updated_at=head.last_updated_at,
        is_archived=head.is_archived,
        is_subagent=head.is_subagent,
        recency=head.recency,
        checkpoint_at=head.checkpoint_at,
        composer_data=composer_data,
        aux=_rows_by_rowid(conn.execute(AUX_ROWS_SQL, (cid,))),
        extra_columns=head.extra_columns,
        header_origin=head.origin,
        reference=cid,
    )


def _fingerprints(conn: sqlite3.Connection, schema: Schema, refs: list[str]) -> dict[str, str]:
    if not schema.has_kv:
        return {}
    exists, updated, join = "0", "NULL", ""
    if schema.has_header_table:
        cid_col = _cid_column(schema)
        join = f"LEFT JOIN composerHeaders h ON h.{cid_col} = r.value"
        exists = f"h.{cid_col} IS NOT NULL"
        named = [c for c in schema.header_columns if c.lower() == "lastupdatedat"]
        updated = f"h.{quote_identifier(named[0])}" if named else "NULL"
    bubbles = (
        f"FROM cursorDiskKV b WHERE {_bubble_range_sql('r.value', 'b')} AND b.value IS NOT NULL"
    )
    sql = (
        f"SELECT r.value, {exists}, {updated}, "
        "(SELECT rowid FROM cursorDiskKV WHERE key = 'composerData:' || r.value), "
        f"(SELECT count(*) {bubbles}), (SELECT max(b.rowid) {bubbles}) "
        f"FROM json_each(?1) r {join}"
    )
    tokens: dict[str, str] = {}
    for cid, has_row, last_updated, cd_rowid, count, max_rowid in conn.execute(
        sql, (json.dumps(refs),)
    ):
        if not isinstance(cid, str) or cid in tokens:
            continue
        if not has_row and cd_rowid is None:
            tokens[cid] = ""
            continue
        parts = (cell_integer(last_updated), cd_rowid, count, max_rowid)
        tokens[cid] = "/".join("" if part is None else str(part) for part in parts)
    return tokens
