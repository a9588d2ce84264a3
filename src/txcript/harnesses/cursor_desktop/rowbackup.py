"""Row backups of one write into ``state.vscdb``, and the undo that reverses exactly that write.

A save or a delete can replace or remove only these rows, so only these are copied (inside the
write's transaction, before its first change; see :func:`.saving.transaction`):

* the session's rows: its ``composerHeaders`` row and, in ``cursorDiskKV``, ``composerData:<cid>``,
  ``agentKv:checkpoint:<cid>``, every ``bubbleId:<cid>:…`` row and every aux row
  ``<kind>:<cid>[:…]`` (NULL tombstones included), each with its rowid and the storage class and
  bytes of every cell;
* the ``ItemTable`` values it edits: the two Agents-sidebar keys and the 3.7 head index
  ``composer.composerHeaders``, where present.

The manifest records a hash of the session's *state* (its rows, plus its own membership entry and
3.7 index head) before and after the write, the hash of each edited ``ItemTable`` value after it,
and which entries of those JSON values the write added, changed or removed (by project id,
composer id). :func:`undo` then:

* refuses when the session's state no longer hashes as the write left it (the app kept working
  in it), unless forced. Its sidebar entries count by their parsed JSON, not their bytes: a
  program that rewrites the same values with other spacing changed nothing;
* replaces the session's rows by the stored ones, with their old rowids where those are free;
* puts an ``ItemTable`` value back byte for byte when it still holds exactly what the write left
  (the same parsed JSON);
  otherwise undoes only the write's own entries in it (removes the membership entry and the
  project a save added, puts back the entry a delete removed), leaving every other entry as the
  app left it. A project the write added stays when another session now belongs to it;
* drops a table the write created when it is empty again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from txcript.errors import StoreError
from txcript.harnesses.cursor_desktop import database, sidebar
from txcript.harnesses.cursor_desktop.database import ITEM_HEADERS_KEY, quote_identifier
from txcript.shared import backup_rows, backups
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.text import shown

ITEM_KEYS = (sidebar.PROJECTS_KEY, sidebar.MEMBERSHIP_KEY, ITEM_HEADERS_KEY)
SESSION_TABLES = ("cursorDiskKV", "composerHeaders")
WRITTEN = ("cursordiskkv", "composerheaders", "itemtable")
_EXCLUDED_AUX_KINDS = ("bubbleId", "composerData", "agentKv")
_TYPES = {"text": bytes, "blob": bytes, "integer": int, "real": float, "null": type(None)}

Cell = tuple[str, str, object]  # (column, typeof, value); TEXT as its UTF-8 bytes
Row = tuple[int, list[Cell]]


def _cells_sql(columns: Sequence[str], alias: str = "") -> str:
    parts = []
    for column in columns:
        q = alias + quote_identifier(column)
        parts.append(
            f"typeof({q}), CASE WHEN typeof({q}) = 'text' THEN CAST({q} AS BLOB) ELSE {q} END"
        )
    return ", ".join(parts)


def table_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({quote_identifier(table)})")]


def _rows(
    conn: sqlite3.Connection, table: str, columns: Sequence[str], where: str, params: Sequence[Any]
) -> list[Row]:
    sql = f"SELECT rowid, {_cells_sql(columns)} FROM {quote_identifier(table)} WHERE {where}"
    return _collect(conn, sql, columns, params)


def _collect(
    conn: sqlite3.Connection, sql: str, columns: Sequence[str], params: Sequence[Any]
) -> list[Row]:
    found = []
    for rowid, *flat in conn.execute(sql, params):
        cells = [(column, str(flat[2 * i]), flat[2 * i + 1]) for i, column in enumerate(columns)]
        found.append((int(rowid), cells))
    return found


def tables_present(conn: sqlite3.Connection) -> list[str]:
    return sorted(
        str(name)
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(name, str)
    )


_DDL = re.compile(r"CREATE (TABLE|INDEX|UNIQUE INDEX) [^;]*", re.IGNORECASE | re.DOTALL)


def schema_of(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The DDL of the written tables (and their indexes), to recreate one an undo dropped."""
    found: dict[str, list[str]] = {}
    for table, sql in conn.execute(
        "SELECT tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index') "
        "AND sql IS NOT NULL ORDER BY type DESC, rowid"
    ):
        if isinstance(table, str) and table.lower() in WRITTEN and isinstance(sql, str):
            found.setdefault(table.lower(), []).append(sql)
    return found


def _recreate(conn: sqlite3.Connection, table: str, details: dict[str, Any], name: str) -> None:
    statements = details.get("schema", {}).get(table.lower())
    if not isinstance(statements, list) or not statements:
        raise StoreError(f"the database no longer has a {table} table; nothing was written")
    for sql in statements:
        if not isinstance(sql, str) or not _DDL.fullmatch(sql.strip()):
            raise StoreError(f"backup {name} holds a schema that is not plain DDL; refusing it")
        conn.execute(sql)


def _has(tables: Sequence[str], name: str) -> bool:
    return name.lower() in {t.lower() for t in tables}


def _kv_rows(conn: sqlite3.Connection, cid: str) -> list[Row]:
    """Every ``cursorDiskKV`` row of the session (exact keys and key ranges, never LIKE)."""
    columns = table_columns(conn, "cursorDiskKV")
    rows = _rows(
        conn,
        "cursorDiskKV",
        columns,
        "key = ? OR key = ? OR (key >= ? AND key < ?)",
        (
            f"composerData:{cid}",
            f"agentKv:checkpoint:{cid}",
            f"bubbleId:{cid}:",
            f"bubbleId:{cid};",
        ),
    )
    aux_sql = database.AUX_MATCH.format(columns="d.rowid, " + _cells_sql(columns, "d."))
    rows += _collect(conn, aux_sql, columns, (cid,))
    return sorted(rows, key=lambda row: row[0])


@dataclass
class State:
    """The session's rows and the edited ``ItemTable`` values, as stored at one moment."""

    tables: list[str]
    rows: dict[str, list[Row]]
    items: dict[str, Row | None]
    #: :func:`session_hash` by composer id, computed once (a capture is never changed).
    hashes: dict[str, str] = field(default_factory=dict, compare=False, repr=False)


def capture(conn: sqlite3.Connection, cid: str) -> State:
    return _state(conn, cid, _kv_rows)


def _state(
    conn: sqlite3.Connection, cid: str, kv_rows: Callable[[sqlite3.Connection, str], list[Row]]
) -> State:
    tables = tables_present(conn)
    schema = database.probe(conn)
    rows: dict[str, list[Row]] = {"cursorDiskKV": [], "composerHeaders": []}
    if schema.has_kv:
        rows["cursorDiskKV"] = kv_rows(conn, cid)
    if schema.has_header_table:
        column = next(c for c in schema.header_columns if c.lower() == "composerid")
        rows["composerHeaders"] = _rows(
            conn,
            "composerHeaders",
            schema.header_columns,
            f"{quote_identifier(column)} = ?",
            (cid,),
        )
    items: dict[str, Row | None] = dict.fromkeys(ITEM_KEYS)
    if schema.has_item_table:
        columns = table_columns(conn, "ItemTable")
        for key in ITEM_KEYS:
            found = _rows(conn, "ItemTable", columns, "key = ?", (key,))
            items[key] = found[-1] if found else None
    return State(tables, rows, items)


def state_after(
    conn: sqlite3.Connection,
    cid: str,
    *,
    unchanged: State | None = None,
    written: Mapping[str, str] | None = None,
    inserted: Sequence[Row] = (),
) -> State:
    """What :func:`capture` would read now, without reading back the values this write stored.

    The session's ``cursorDiskKV`` rows are found through the key index alone (rowid and key);
    each row's cells then come from what the write bound: ``written`` (key → the TEXT value of an
    ``INSERT OR REPLACE (key, value)``), else ``inserted`` (rows put back with their cells, by
    rowid), else ``unchanged`` (the state before, for a row the write did not touch, by rowid).
    A row is only taken from what was bound when SQLite stores that exactly (no column affinity
    converts it, every column known); any other row is read. The result is the same state
    :func:`capture` gives: the hash an undo checks against is computed from it.
    """
    written = written or {}
    declared = {
        str(row[1]): str(row[2] or "")
        for row in conn.execute(f"PRAGMA table_info({quote_identifier('cursorDiskKV')})")
    }
    columns = list(declared)
    affinity = {column: _affinity(kind) for column, kind in declared.items()}
    by_name = {c.lower(): c for c in columns}
    plain = set(by_name) == {"key", "value"}
    key_column = by_name.get("key", "key")
    value_column = by_name.get("value", "value")
    by_rowid = {row[0]: row[1] for row in inserted}
    before = {} if unchanged is None else dict(unchanged.rows.get("cursorDiskKV", []))
    kept = {column for column, kind in affinity.items() if kind in ("TEXT", "BLOB")}
    # A bound TEXT key and value are stored as bound: both columns keep TEXT, nothing else set.
    bound_exactly = plain and {key_column, value_column} <= kept
    key_first = columns[:1] == [key_column]

    #: Per shape of a row (its columns and storage classes, in order): where each table column
    #: is among its cells, or None when SQLite would not store them as given.
    shapes: dict[tuple[tuple[str, str], ...], list[int] | None] = {}

    def placed(shape: tuple[tuple[str, str], ...]) -> list[int] | None:
        names = [column for column, _ in shape]
        if len(set(names)) != len(names) or set(names) != declared.keys():
            return None
        for column, kind in shape:
            if kind != "null" and (kind not in ("text", "blob") or column not in kept):
                return None
        return [names.index(column) for column in columns]

    def as_stored(cells: list[Cell]) -> list[Cell] | None:
        """``cells`` in the table's column order when SQLite stores them as given, else None."""
        shape = tuple((column, kind) for column, kind, _ in cells)
        if shape not in shapes:
            shapes[shape] = placed(shape)
        order = shapes[shape]
        return None if order is None else [cells[i] for i in order]

    def kv_rows(conn: sqlite3.Connection, cid: str) -> list[Row]:
        found: list[Row] = []
        for rowid, kind, key in _kv_keys(conn, cid, key_column):
            text = key.decode("utf-8", "surrogateescape") if kind == "text" else None
            cells: list[Cell] | None = None
            if text is not None and text in written:
                if bound_exactly:
                    value = (value_column, "text", written[text].encode("utf-8", "surrogatepass"))
                    pair: list[Cell] = [(key_column, "text", key), value]
                    found.append((rowid, pair if key_first else pair[::-1]))
                    continue
            elif rowid in by_rowid:
                cells = as_stored(by_rowid[rowid])
            elif rowid in before:
                cells = before[rowid]
            if cells is not None and any(
                c[0] == key_column and (c[1] != kind or c[2] != key) for c in cells
            ):
                cells = None  # not the row the key index names
            if cells is None:
                found += _rows(conn, "cursorDiskKV", columns, "rowid = ?", (rowid,))
            else:
                found.append((rowid, cells))
        return sorted(found, key=lambda row: row[0])

    return _state(conn, cid, kv_rows)


def _affinity(declared: str) -> str:
    """SQLite's column affinity for a declared type (section 3.1 of its datatype rules)."""
    upper = declared.upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in upper or not upper:
        return "BLOB"
    if any(word in upper for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def _kv_keys(conn: sqlite3.Connection, cid: str, key_column: str) -> list[tuple[int, str, bytes]]:
    """``(rowid, typeof(key), key bytes)`` of the session's ``cursorDiskKV`` rows: the same rows
    as :func:`_kv_rows`, read from the key index without touching a value."""
    q = quote_identifier(key_column)
    keys = f"rowid, typeof({q}), CAST({q} AS BLOB)"
    found = list(
        conn.execute(
            f"SELECT {keys} FROM cursorDiskKV WHERE key = ? OR key = ? OR (key >= ? AND key < ?)",
            (
                f"composerData:{cid}",
                f"agentKv:checkpoint:{cid}",
                f"bubbleId:{cid}:",
                f"bubbleId:{cid};",
            ),
        )
    )
    aux = database.AUX_MATCH.format(columns=f"d.rowid, typeof(d.{q}), CAST(d.{q} AS BLOB)")
    found += conn.execute(aux, (cid,))
    return [(int(rowid), str(kind), bytes(key)) for rowid, kind, key in found]


# ------------------------------------------------------------------------------ hashing


def _feed(digest: Any, row: Row) -> None:
    rowid, cells = row
    head = b"row %d\n" % rowid
    for column, kind, value in cells:
        if isinstance(value, bytes):
            raw = value
        elif value is None:
            raw = b""
        else:
            raw = repr(value).encode()
        head += b"%s\0%s\0%d\0" % (column.encode(), kind.encode(), len(raw))
        if len(raw) > 512:  # a value of megabytes is hashed where it lies, not copied first
            digest.update(head)
            digest.update(raw)
            head = b""
        else:
            head += raw
    digest.update(head)


def value_text(row: Row | None) -> str | None:
    """An ``ItemTable`` row's value as text (None when absent, NULL or not UTF-8)."""
    if row is None:
        return None
    for column, _, value in row[1]:
        if column.lower() == "value":
            if isinstance(value, bytes):
                try:
                    return value.decode("utf-8")
                except UnicodeDecodeError:
                    return None
            return None if value is None else str(value)
    return None


def item_hash(row: Row | None) -> str:
    digest = hashlib.sha256(b"item\n")
    if row is not None:
        _feed(digest, (0, [c for c in row[1] if c[0].lower() == "value"]))
    return digest.hexdigest()


def canonical(text: str | None) -> str | None:
    """JSON text as its parsed value, written one way (sorted keys, no spaces); None when it
    is absent or not JSON. Two texts that read as the same value give the same string."""
    if text is None:
        return None
    value = try_loads(text)
    if value is INVALID:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def item_json_hash(row: Row | None) -> str | None:
    """:func:`item_hash` of the value's parsed JSON (:func:`canonical`); None when it is not
    JSON."""
    text = canonical(value_text(row))
    if text is None:
        return None
    return hashlib.sha256(b"item json\n" + text.encode("utf-8", "surrogatepass")).hexdigest()


def own_entries(state: State, cid: str) -> dict[str, str | None]:
    """The session's own entries in the sidebar membership and the 3.7 index (their text)."""
    found: dict[str, str | None] = {}
    for key in (sidebar.MEMBERSHIP_KEY, ITEM_HEADERS_KEY):
        text = value_text(state.items.get(key))
        parsed = entry_map(key, text) if text is not None else None
        entry = None if parsed is None else parsed[1].get(cid)
        found[key] = None if entry is None or parsed is None else _span(parsed[0], entry)
    return found


def _entry_json(text: str) -> str:
    """A sidebar entry's text (an array element, or an object member ``"key": value``) as its
    parsed JSON written one way."""
    stripped = text.strip()
    if stripped.startswith('"'):
        member = canonical("{" + stripped + "}")  # a member: the key and its value
        if member is not None:
            return member
    return canonical(stripped) or text


def _entry_or_none(text: str | None) -> str | None:
    return None if text is None else _entry_json(text)


def session_hash(state: State, cid: str) -> str:
    """The hash of the session's rows and of its own sidebar entries by their parsed JSON."""
    known = state.hashes.get(cid)
    if known is None:
        known = state.hashes[cid] = _session_hash(state, cid, parsed=True)
    return known


def session_hashes(state: State, cid: str) -> tuple[str, str]:
    """:func:`session_hash`, and the hash backups taken before it read entries by parsed JSON
    recorded (their entries' exact text): either one names the same state."""
    return session_hash(state, cid), _session_hash(state, cid, parsed=False)


def _session_hash(state: State, cid: str, *, parsed: bool) -> str:
    version = b"v2" if parsed else b"v1"
    digest = hashlib.sha256(b"cursor_desktop session state " + version + b"\n")
    for table in SESSION_TABLES:
        digest.update(f"table {table}\n".encode())
        for row in sorted(state.rows.get(table, []), key=lambda r: r[0]):
            _feed(digest, row)
    for key, text in own_entries(state, cid).items():
        digest.update(f"entry {key}\n".encode())
        if text is not None and parsed:
            text = _entry_json(text)
        digest.update(b"-" if text is None else b"+" + text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


# ------------------------------------------------------------------------------ JSON entries


@functools.lru_cache(maxsize=16)
def entry_map(key: str, text: str) -> tuple[sidebar.Container, dict[str, int]] | None:
    """The container of ``key``'s JSON value and the index of each entry by its id.

    Cached: one write parses each sidebar value (thousands of entries) several times, before and
    after. Callers must not change what it returns.
    """
    if key == sidebar.PROJECTS_KEY:
        container = sidebar.entries(text, list)
        if container is None:
            return None
        ids: dict[str, int] = {}
        for i, entry in enumerate(container.entries):
            value = entry.value
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                ids.setdefault(value["id"], i)
        return container, ids
    if key == sidebar.MEMBERSHIP_KEY:
        container = sidebar.entries(text, dict)
        if container is None:
            return None
        return container, {e.key: i for i, e in enumerate(container.entries) if e.key is not None}
    heads = sidebar.head_index(text)
    if heads is None:
        return None
    ids = {}
    for i, entry in enumerate(heads.entries):
        if isinstance(entry.value, dict) and isinstance(entry.value.get("composerId"), str):
            ids.setdefault(entry.value["composerId"], i)
    return heads, ids


def _span(container: sidebar.Container, index: int) -> str:
    entry = container.entries[index]
    return container.text[entry.start : entry.end]


def changes(before: State, after: State) -> dict[str, Any]:
    """Per edited ``ItemTable`` key: its hash after, and ``{id: [before, position, after]}``."""
    result: dict[str, Any] = {}
    for key in ITEM_KEYS:
        old, new = before.items.get(key), after.items.get(key)
        if item_hash(old) == item_hash(new):
            continue
        old_text, new_text = value_text(old), value_text(new)
        old_map = entry_map(key, old_text) if old_text is not None else None
        new_map = entry_map(key, new_text) if new_text is not None else None
        entries: dict[str, list[Any]] | None = None
        if (old_map is not None or old_text is None) and (new_map is not None or new_text is None):
            entries = {}
            old_ids = {} if old_map is None else old_map[1]
            new_ids = {} if new_map is None else new_map[1]
            for ident in dict.fromkeys([*old_ids, *new_ids]):
                was = (
                    None
                    if old_map is None or ident not in old_ids
                    else _span(old_map[0], old_ids[ident])
                )
                now = (
                    None
                    if new_map is None or ident not in new_ids
                    else _span(new_map[0], new_ids[ident])
                )
                if was != now:
                    entries[ident] = [was, old_ids.get(ident, 0), now]
        result[key] = {
            "after": item_hash(new),
            "after_json": item_json_hash(new),
            "entries": entries,
        }
    return result


# ------------------------------------------------------------------------------ writing


def write_rows(pending: backup_rows.PendingRows, state: State) -> None:
    for table in SESSION_TABLES:
        pending.add_rows(table, state.rows.get(table, []))
    pending.add_rows("ItemTable", [row for row in state.items.values() if row is not None])


def belongs(key: str, cid: str) -> bool:
    """Whether a ``cursorDiskKV`` key is one of the session's rows (what delete removes)."""
    if key in (f"composerData:{cid}", f"agentKv:checkpoint:{cid}"):
        return True
    if key.startswith(f"bubbleId:{cid}:"):
        return True
    kind, colon, rest = key.partition(":")
    if not colon or not kind or kind in _EXCLUDED_AUX_KINDS:
        return False
    return rest == cid or rest.startswith(cid + ":")


def _checked(stored: dict[str, list[Row]], cid: str, name: str) -> dict[str, list[Row]]:
    """The stored rows, refusing any that is not this session's (a backup file is input)."""
    for table, rows in stored.items():
        if table not in (*SESSION_TABLES, "ItemTable"):
            raise StoreError(f"backup {name} holds rows of table `{shown(table)}`; refusing it")
        for _, cells in rows:
            for _column, kind, value in cells:
                if not isinstance(value, _TYPES[kind]):
                    raise StoreError(f"backup {name} holds a cell whose type does not match")
            by_column = {c.lower(): (k, v) for c, k, v in cells}
            if table == "cursorDiskKV":
                kind, key = by_column.get("key", ("null", None))
                text = key.decode("utf-8", "replace") if isinstance(key, bytes) else None
                if kind != "text" or text is None or not belongs(text, cid):
                    raise StoreError(f"backup {name} holds a row of another session; refusing it")
            elif table == "composerHeaders":
                kind, value = by_column.get("composerid", ("null", None))
                if kind != "text" or value != cid.encode("utf-8"):
                    raise StoreError(f"backup {name} holds another session's header; refusing it")
            else:
                kind, value = by_column.get("key", ("null", None))
                if (
                    kind != "text"
                    or not isinstance(value, bytes)
                    or value.decode("utf-8", "replace") not in ITEM_KEYS
                ):
                    raise StoreError(
                        f"backup {name} holds an unexpected ItemTable row; refusing it"
                    )
    return stored


def _insert(conn: sqlite3.Connection, table: str, row: Row, columns: Sequence[str]) -> int:
    """Insert a stored row with its rowid (or a new one where the rowid is now taken)."""
    return _insert_all(conn, table, [row], columns)[0]


def _insert_all(
    conn: sqlite3.Connection, table: str, rows: Sequence[Row], columns: Sequence[str]
) -> list[int]:
    """Insert stored rows in their order, each with its rowid where that is free (else a new
    one), and return the rowid each got. Runs of rows of the same shape go in one executemany.
    """
    known = {c.lower(): c for c in columns}
    quoted = quote_identifier(table)
    taken: set[int] = set()
    wanted = [rowid for rowid, _ in rows]
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        taken.update(
            int(rowid)
            for (rowid,) in conn.execute(
                f"SELECT rowid FROM {quoted} WHERE rowid IN ({marks})", chunk
            )
        )
    got: list[int] = []
    run_sql: str | None = None
    run: list[list[object]] = []

    def flush() -> None:
        if run_sql is not None and run:
            conn.executemany(run_sql, run)
        run.clear()

    statements: dict[tuple[bool, tuple[tuple[str, str], ...]], str] = {}

    def statement(free: bool, shape: tuple[tuple[str, str], ...]) -> str:
        names = ["rowid"] if free else []
        marks_list = ["?"] if free else []
        for column, kind in shape:
            if column.lower() not in known:
                raise StoreError(
                    f"the backup names column `{shown(column)}` that {table} no longer has; "
                    "nothing was written"
                )
            names.append(quote_identifier(known[column.lower()]))
            marks_list.append("CAST(? AS TEXT)" if kind == "text" else "?")
        return f"INSERT INTO {quoted} ({', '.join(names)}) VALUES ({', '.join(marks_list)})"

    for rowid, cells in rows:
        free = rowid not in taken
        key = (free, tuple((column, kind) for column, kind, _ in cells))
        sql = statements.get(key)
        if sql is None:
            sql = statements[key] = statement(*key)
        values: list[object] = [rowid] if free else []
        values += [value for _, _, value in cells]
        if not free:
            flush()
            got.append(int(conn.execute(sql, values).lastrowid or 0))
            taken.add(got[-1])
            run_sql = None
            continue
        if sql != run_sql:
            flush()
            run_sql = sql
        run.append(values)
        taken.add(rowid)
        got.append(rowid)
    flush()
    return got


def _set_value(conn: sqlite3.Connection, key: str, text: str, current: Row) -> None:
    blob = any(c[0].lower() == "value" and c[1] == "blob" for c in current[1])
    cell: str | bytes = text.encode("utf-8") if blob else text
    conn.execute("UPDATE ItemTable SET value = ? WHERE key = ?", (cell, key))


def _splice(key: str, text: str, ident: str, was: str | None, position: int) -> str | None:
    """``text`` with the entry ``ident`` set back to ``was`` (None: removed); None if unparsable."""
    parsed = entry_map(key, text)
    if parsed is None:
        return None
    container, ids = parsed
    if ident in ids:
        index = ids[ident]
        if key == sidebar.MEMBERSHIP_KEY:  # JSON.parse keeps the last of duplicate keys
            doomed = {i for i, e in enumerate(container.entries) if e.key == ident}
        else:
            doomed = {index}
        if was is None:
            return sidebar.remove(container, doomed)
        entry = container.entries[index]
        text = text[: entry.start] + was + text[entry.end :]
        if len(doomed) > 1:
            reparsed = entry_map(key, text)
            if reparsed is None:
                return None
            container = reparsed[0]
            return sidebar.remove(container, doomed - {index})
        return text
    if was is None:
        return text
    return sidebar.insert(container, position, was)


def _undo_items(
    conn: sqlite3.Connection,
    stored: dict[str, Row],
    details: dict[str, Any],
    current: State,
) -> None:
    columns = table_columns(conn, "ItemTable") if _has(current.tables, "ItemTable") else []
    order = [sidebar.MEMBERSHIP_KEY, ITEM_HEADERS_KEY, sidebar.PROJECTS_KEY]
    for key in order:
        change = details.get("items", {}).get(key)
        if not isinstance(change, dict):
            continue
        now = current.items.get(key)
        old = stored.get(key)
        entries = change.get("entries")
        added_in_use = (
            key == sidebar.PROJECTS_KEY
            and isinstance(entries, dict)
            and any(
                was is None and _still_used(conn, ident) for ident, (was, _, _) in entries.items()
            )
        )
        after_json = change.get("after_json")
        untouched = item_hash(now) == change.get("after") or (
            after_json is not None and item_json_hash(now) == after_json
        )
        if untouched and not added_in_use:
            # Untouched since the write (the same JSON, whatever its spacing): its exact old
            # bytes and rowid come back.
            if now is not None:
                conn.execute("DELETE FROM ItemTable WHERE rowid = ?", (now[0],))
            if old is not None:
                _insert(conn, "ItemTable", old, columns)
            continue
        text = value_text(now)
        if now is None or text is None or not isinstance(entries, dict):
            continue  # the app replaced or removed the value since: leave its version
        for ident, (was, position, _after) in entries.items():
            if key == sidebar.PROJECTS_KEY and was is None and _still_used(conn, ident):
                continue
            parsed = entry_map(key, text)
            current_entry = (
                None
                if parsed is None or ident not in parsed[1]
                else _span(parsed[0], parsed[1][ident])
            )
            if key == sidebar.PROJECTS_KEY and _entry_or_none(current_entry) != _entry_or_none(
                _after
            ):
                continue  # the app changed that project since: keep its version
            spliced = _splice(key, text, ident, was, int(position))
            if spliced is not None:
                text = spliced
        _set_value(conn, key, text, now)


def _still_used(conn: sqlite3.Connection, project: str) -> bool:
    row = conn.execute(
        "SELECT CAST(value AS TEXT) FROM ItemTable WHERE key = ?", (sidebar.MEMBERSHIP_KEY,)
    ).fetchone()
    if row is None or row[0] is None:
        return False
    parsed = sidebar.entries(str(row[0]), dict)
    return parsed is not None and any(e.value == project for e in parsed.entries)


def undo(
    conn: sqlite3.Connection,
    cid: str,
    stored_rows: dict[str, list[Row]],
    details: dict[str, Any],
    name: str,
    current: State | None = None,
) -> list[Row]:
    """Put the session's rows and sidebar entries back as the backup holds them.

    ``current`` is the session's state captured earlier in this transaction, before any change
    (the change check's); without it the state is read here. Returns the ``cursorDiskKV`` rows
    put back, each with the rowid it got.
    """
    stored = _checked(stored_rows, cid, name)
    current = capture(conn, cid) if current is None else current
    for table in SESSION_TABLES:
        doomed = [(rowid,) for rowid, _ in current.rows.get(table, [])]
        if doomed:
            conn.executemany(f"DELETE FROM {quote_identifier(table)} WHERE rowid = ?", doomed)
    put_back: list[Row] = []
    for table in SESSION_TABLES:
        rows = stored.get(table, [])
        if not rows:
            continue
        if not _has(current.tables, table):
            _recreate(conn, table, details, name)
        rowids = _insert_all(conn, table, rows, table_columns(conn, table))
        if table == "cursorDiskKV":
            put_back = [(rowid, cells) for rowid, (_, cells) in zip(rowids, rows, strict=True)]
    items: dict[str, Row] = {}
    for row in stored.get("ItemTable", []):
        key = value_key(row)
        if key is not None:
            items[key] = row
    if any(stored.get("ItemTable", [])) or details.get("items"):
        if not _has(current.tables, "ItemTable") and items:
            _recreate(conn, "ItemTable", details, name)
            current = capture(conn, cid)
        if _has(current.tables, "ItemTable"):
            _undo_items(conn, items, details, current)
    before_tables = {t.lower() for t in details.get("tables", [])}
    for table in ("ItemTable", "composerHeaders", "cursorDiskKV"):
        if _has(current.tables, table) and table.lower() not in before_tables:
            empty = conn.execute(f"SELECT 1 FROM {quote_identifier(table)} LIMIT 1").fetchone()
            if empty is None:
                conn.execute(f"DROP TABLE {quote_identifier(table)}")
    return put_back


def value_key(row: Row) -> str | None:
    for column, kind, value in row[1]:
        if column.lower() == "key" and kind == "text" and isinstance(value, bytes):
            return value.decode("utf-8", "replace")
    return None


def committed(backup: backups.Backup, partial: Path) -> bool:
    """For the sweep: whether the write an abandoned, sealed row backup guarded did commit.

    The store is read read-only; a session whose state still hashes as before the write means
    the write rolled back (the backup is not needed), anything else keeps the backup.
    """
    path = Path(backup.database)
    info = database.inspect(path)
    if info is None or backup.session is None:
        return False
    cid = backup.session
    state = database.read(path, info, lambda conn, _schema: capture(conn, cid), busy_timeout=1.0)
    return backup.before_hash not in session_hashes(state, cid)
