"""Cursor desktop discovery: which sessions a database lists, and their listing fields.

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
``msgspec`` struct decodes only the members the metadata needs (:data:`.meta.COMPOSER_FIELD_PATHS`,
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
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import zlib
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import partial
from typing import Any

import msgspec

from txcript.harnesses.base import Discovered
from txcript.harnesses.cursor_desktop.database import Schema, cell_integer, quote_identifier
from txcript.harnesses.cursor_desktop.heads import (
    COMPOSER_PATHS,
    bubble_range_sql,
    cid_column,
    fields_of,
    json_int,
    listing_columns,
    read_item_heads,
    resolve_head,
    table_head,
)
from txcript.harnesses.cursor_desktop.meta import COMPOSER_FIELD_PATHS, derive_meta
from txcript.shared.cache import metadata_cache
from txcript.shared.jsonutil import MISSING, lookup, try_loads
from txcript.shared.timeutil import from_epoch_ms

HARNESS = "cursor_desktop"


def _meta_fields(fields: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (fields or {}).items() if k in COMPOSER_FIELD_PATHS}


#: The top-level composerData members discovery reads: the first step of every
#: :data:`COMPOSER_PATHS` path, each decoded as any JSON value, plus ``conversation`` kept as
#: raw bytes (only whether it is a non-empty array matters, and it can be large). Every other
#: member is skipped without building Python objects.
_MEMBERS: tuple[str, ...] = tuple(dict.fromkeys(str(path[0]) for path in COMPOSER_PATHS.values()))
_ComposerMembers: Any = msgspec.defstruct(
    "_ComposerMembers",
    [(name, Any, msgspec.UNSET) for name in _MEMBERS]
    + [("conversation", msgspec.Raw, msgspec.Raw())],
)
_members_decoder = msgspec.json.Decoder(_ComposerMembers)
#: ``(field key, first member, rest of the path)`` of every :data:`COMPOSER_PATHS` entry.
_SPLIT_PATHS: tuple[tuple[str, str, tuple[str | int, ...]], ...] = tuple(
    (key, str(path[0]), path[1:]) for key, path in COMPOSER_PATHS.items()
)
#: A non-empty JSON array (the value was already validated as JSON by the decoder).
_NONEMPTY_ARRAY = re.compile(rb"\[[ \t\n\r]*[^ \t\n\r\]]")


def _composer_cell(raw: bytes | None) -> tuple[dict[str, Any] | None, bool]:
    """``(fields_of(document), has inline messages)`` of a composerData cell's bytes.

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
        return fields_of(document), isinstance(conversation, list) and bool(conversation)
    fields: dict[str, Any] = {}
    for key, first, rest in _SPLIT_PATHS:  # fields_of, on the members that were present
        value = getattr(members, first)
        if value is not msgspec.UNSET and (
            not rest or (value := lookup(value, rest)) is not MISSING
        ):
            fields[key] = value
    return fields, _NONEMPTY_ARRAY.match(members.conversation) is not None


# -------------------------------------------------------------------------------- SQL


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
        cid_col = cid_column(schema)
        in_range = f" AND {cid_col} >= ?2 AND {cid_col} < ?3" if ranged else ""
        sources.insert(
            0,
            f"SELECT {cid_col} FROM composerHeaders WHERE typeof({cid_col}) = 'text'{in_range}",
        )
        joins = f"LEFT JOIN composerHeaders h ON h.{cid_col} = c.cid "
        header_cols = f", h.{cid_col} IS NOT NULL" + "".join(
            f", h.{quote_identifier(column)}" for column, _ in listing_columns(schema)
        )
    key_range = (
        "key >= 'composerData:' || ?2 AND key < 'composerData:' || ?3"
        if ranged
        else "key >= 'composerData:' AND key < 'composerData;'"
    )
    sources.append(f"SELECT substr(key, 14) FROM cursorDiskKV WHERE {key_range}")
    has_bubbles = (
        f"EXISTS (SELECT 1 FROM cursorDiskKV b WHERE {bubble_range_sql('c.cid', 'b')} "
        "AND b.value IS NOT NULL)"
    )
    return (
        f"WITH cand(cid) AS ({' UNION '.join(sources)}) "
        "SELECT c.cid AS cid, d.key IS NOT NULL AS cd_row, d.rowid AS cd_rowid, "
        f"{has_bubbles} AS has_bubbles{header_cols} "
        f"FROM cand c {joins}"
        "LEFT JOIN cursorDiskKV d ON d.key = 'composerData:' || c.cid"
    )


# ---------------------------------------------------------------------------- workers


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
        try:
            key = ""
            if last_updated is not None:
                if head is None:
                    key = f"{rowid}:{last_updated}:{len(blob)}"
                else:
                    text, created_at = head
                    raw = text.encode("utf-8", "surrogatepass")
                    key = (
                        f"{rowid}:{last_updated}:{len(blob)}:{created_at}:{len(raw)}"
                        f":{zlib.crc32(raw)}"
                    )
            cached = self.known.get(cid)
            if key and cached is not None and cached[0] == key:
                try:
                    return _entry_decoder.decode(cached[1])
                except (msgspec.DecodeError, msgspec.ValidationError):
                    pass
            if needed is not None and not needed():
                return _CellEntry({}, False)
            entry = _CellEntry(*_composer_cell(blob.read()))
        finally:
            blob.close()
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
    meta = derive_meta(cid, created_at, parsed_head, {})
    return created_at > 0 and meta.title is not None and meta.cwd is not None


def discover_sessions(
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
    item_heads = read_item_heads(conn, schema)
    found: list[tuple[int | None, Discovered]] = []
    seen: set[str] = set()
    names = tuple(name for _, name in listing_columns(schema))
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
            header, created_at, sort_key = table_head(cid, row, item_heads.get(cid))
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
            head = resolve_head(cid, row, item_heads.get(cid), fields or {})
            header, created_at, sort_key = head.header, head.created_at, head.sort_key
            updated = head.last_updated_at
            parsed_head = try_loads(header)
        if not updated and isinstance(parsed_head, dict):
            updated = json_int(parsed_head.get("lastUpdatedAt"))
        meta = derive_meta(cid, created_at, parsed_head, _meta_fields(fields))
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
    """The listing entry of a cache hit: what :func:`.meta.derive_meta` gave for the same key."""
    timestamp = _listed_timestamp(created_at)
    assert timestamp is not None  # only such listings are cached
    # Positional (harness, reference, meta_id, timestamp, title, cwd, model, git_branch,
    # updated_at): one per listed session, and keywords cost a quarter more.
    return Discovered(HARNESS, cid, cid, timestamp, title, cwd, model, None, _updated_at(updated))
