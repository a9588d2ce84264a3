"""Native round trip through the store on every generation: ``load → save → load`` loses nothing.

Every comparison is a full dump of the database (every table, every row, ``typeof`` and bytes of
every cell, with rowids), so a save that touched anything it should not is caught, whatever it
touched. The helpers here (:func:`dump`, :func:`split`, :func:`entry_texts`) are shared by the
other save/delete test modules.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dbfixtures as fx
import pytest
from dbfixtures import Header, Session, StateDB, js

from txcript.harnesses.cursor_desktop import saving, sidebar
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.harnesses.cursor_desktop.workspaces import same_folder
from txcript.shared import backups
from txcript.shared.jsonutil import try_loads

Cell = tuple[str, bytes | None]
Table = dict[int, tuple[Cell, ...]]
Dump = dict[str, Table]

SIDEBAR_KEYS = (sidebar.PROJECTS_KEY, sidebar.MEMBERSHIP_KEY)
INDEX_KEY = "composer.composerHeaders"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Backups go to a private data directory."""
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


# ------------------------------------------------------------------------------------ helpers


def db_path(root: Path) -> Path:
    return root / "globalStorage" / "state.vscdb"


def dump(path: Path) -> Dump:
    """Every table (and the schema) as ``rowid → ((typeof, bytes), …)``."""
    conn = sqlite3.connect(path)
    try:
        result: Dump = {
            "sqlite_master": {
                rowid: tuple(("text", str(cell).encode()) for cell in row)
                for rowid, *row in conn.execute(
                    "SELECT rowid, type, name, tbl_name, sql FROM sqlite_master"
                )
            }
        }
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        for table in tables:
            columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')]
            cells = ", ".join(f'typeof("{c}"), CAST("{c}" AS BLOB)' for c in columns)
            result[table] = {
                row[0]: tuple(zip(row[1::2], row[2::2], strict=True))
                for row in conn.execute(f'SELECT rowid, {cells} FROM "{table}"')
            }
        return result
    finally:
        conn.close()


def _text(cell: Cell) -> str | None:
    return None if cell[1] is None else cell[1].decode("utf-8", "replace")


def belongs(key: str | None, cid: str) -> bool:
    """Whether a ``cursorDiskKV`` key is one of the session's rows (what delete removes)."""
    if key is None:
        return False
    kind, colon, rest = key.partition(":")
    if not colon:
        return False
    if kind == "agentKv":
        return key == f"agentKv:checkpoint:{cid}"
    return rest == cid or rest.startswith(cid + ":")


def split(before: Dump, cid: str) -> tuple[Dump, Dump]:
    """(the session's own rows and the sidebar/index keys, every other row)."""
    own: Dump = {}
    others: Dump = {}
    for table, rows in before.items():
        own[table], others[table] = {}, {}
        for rowid, cells in rows.items():
            if table == "cursorDiskKV":
                mine = belongs(_text(cells[0]), cid)
            elif table == "composerHeaders":
                mine = _text(cells[0]) == cid
            elif table == "ItemTable":
                mine = _text(cells[0]) in (*SIDEBAR_KEYS, INDEX_KEY)
            else:
                mine = False
            (own if mine else others)[table][rowid] = cells
    return own, others


def item(snapshot: Dump, key: str) -> str | None:
    for cells in snapshot.get("ItemTable", {}).values():
        if _text(cells[0]) == key:
            return _text(cells[1])
    return None


def entry_texts(text: str | None, kind: type) -> list[str]:
    """The exact source text of every top-level entry of a JSON array/object value."""
    if text is None:
        return []
    container = sidebar.entries(text, kind)
    assert container is not None, text
    return [text[e.start : e.end] for e in container.entries]


def every_composer(path: Path) -> list[str]:
    """Every composer id the database names anywhere (listed or not)."""
    conn = sqlite3.connect(path)
    try:
        ids = [
            row[0][len("composerData:") :]
            for row in conn.execute(
                "SELECT key FROM cursorDiskKV "
                "WHERE key >= 'composerData:' AND key < 'composerData;'"
            )
        ]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        if "composerHeaders" in tables:
            ids += [
                r[0]
                for r in conn.execute("SELECT composerId FROM composerHeaders")
                if isinstance(r[0], str)
            ]
        if "ItemTable" in tables:
            index = conn.execute(
                "SELECT value FROM ItemTable WHERE key = ?", (INDEX_KEY,)
            ).fetchone()
            if index is not None:
                ids += [h["composerId"] for h in json.loads(index[0])["allComposers"]]
    finally:
        conn.close()
    return list(dict.fromkeys(ids))


def cells(session: CursorSession) -> CursorSession:
    """The body without the bookkeeping a store adds (where the head came from, the reference)."""
    return dataclasses.replace(session, header_origin="table", reference=None, extra_columns=())


def backup_count() -> int:
    return len(backups.list_backups())


# ------------------------------------------------------------------------------ generations

Builder = Callable[[Path], Path]

GENERATIONS: dict[str, Builder] = {
    "3.16 app DDL, WAL": lambda p: fx.app_3_16(p),
    "3.16 app DDL, rollback journal": lambda p: fx.app_3_16(p, journal="delete"),
    "3.16 txcript DDL, primary-key KV": lambda p: fx.app_3_16(
        p, headers="txcript", kv_key="primary", journal="delete"
    ),
    "3.16 recency REAL": lambda p: fx.app_3_16(p, headers="real_recency"),
    "3.7 ItemTable heads, WAL": lambda p: fx.app_3_7(p),
    "3.7 pretty index, rollback journal": lambda p: fx.app_3_7(
        p, journal="delete", pretty_index=True
    ),
    "1.7, WAL": lambda p: fx.app_1_7(p),
    "1.7, rollback journal": lambda p: fx.app_1_7(p, journal="delete"),
    "0.50": lambda p: fx.app_0_50(p),
    "0.50, WAL": lambda p: fx.app_0_50(p, journal="wal"),
    "0.45 inline": lambda p: fx.app_0_45(p),
    "0.45 inline, WAL, unique KV": lambda p: fx.app_0_45(p, journal="wal", kv_key="unique"),
}


def loadable(store: CursorDesktopStore) -> list[CursorSession]:
    found = []
    for cid in every_composer(store.database):
        try:
            found.append(store.load(cid))
        except Exception:  # a name with nothing loadable behind it (e.g. a NULL composerData)
            continue
    return found


def check_sidebar_change(before: Dump, after: Dump, session: CursorSession, cid: str) -> None:
    """The two sidebar keys changed exactly as registration says, or not at all."""
    from txcript.harnesses.cursor_desktop import codec

    old_projects, new_projects = (item(d, sidebar.PROJECTS_KEY) for d in (before, after))
    old_members, new_members = (item(d, sidebar.MEMBERSHIP_KEY) for d in (before, after))
    composer = None if session.composer_data is None else try_loads(session.composer_data)
    meta = codec.derive_meta(
        cid, session.created_at, try_loads(session.header), codec.composer_fields(composer)
    )
    if not meta.cwd:
        assert (new_projects, new_members) == (old_projects, old_members)
        return
    assert new_projects is not None and new_members is not None
    # Every project and every other membership keeps its exact bytes, in order.
    old_p, new_p = entry_texts(old_projects, list), entry_texts(new_projects, list)
    assert new_p[: len(old_p)] == old_p and len(new_p) - len(old_p) in (0, 1)
    old_m = entry_texts(old_members, dict)
    new_m = entry_texts(new_members, dict)
    mine = json.dumps(cid) + ":"
    assert [e for e in new_m if not e.startswith(mine)] == [
        e for e in old_m if not e.startswith(mine)
    ]
    membership = json.loads(new_members)
    projects = {p["id"]: p for p in json.loads(new_projects)}
    project = projects[membership[cid]]
    if len(new_p) > len(old_p):  # a project was created: it is the session's folder's
        assert same_folder(project["workspace"]["uri"]["fsPath"], meta.cwd)


# ------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_load_save_load_is_lossless_and_touches_nothing_else(
    tmp_path: Path, generation: str
) -> None:
    """Every loadable session of every generation: the reloaded body equals the saved one, every
    other row and ItemTable key is byte-identical (rowids included), and only the sidebar keys
    may change, exactly as registration says. A second save writes nothing at all."""
    root = tmp_path / "User"
    GENERATIONS[generation](db_path(root))
    store = CursorDesktopStore(root)
    sessions = loadable(store)
    assert sessions
    for native in sessions:
        cid = native.reference
        assert cid is not None
        before = dump(store.database)
        saved = store.save(native, force=True)
        assert (saved.id, saved.reference, saved.location) == (cid, cid, str(store.database))
        after = dump(store.database)
        assert store.load(cid) == native
        own_before, others_before = split(before, cid)
        own_after, others_after = split(after, cid)
        assert others_after == others_before
        # The session's own rows (bubbles, tombstones, aux, composerData, header row, the 3.7
        # index) are not rewritten at all: a body that is already stored writes nothing.
        for table in ("cursorDiskKV", "composerHeaders"):
            assert own_after.get(table) == own_before.get(table)
        assert item(after, INDEX_KEY) == item(before, INDEX_KEY)
        check_sidebar_change(before, after, native, cid)
        # Idempotent: saving again changes nothing, byte for byte.
        store.save(store.load(cid), force=True)
        assert dump(store.database) == after
        assert store.load(cid) == native


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_saving_into_another_root_gives_the_same_cells(tmp_path: Path, generation: str) -> None:
    """The same bodies saved into a copy of the database at another root (as ``--out`` does)
    give the very database an in-place save gives; saved into an empty root they read back with
    the same cells (a header row is created there, so the app lists them)."""
    root = tmp_path / "User"
    GENERATIONS[generation](db_path(root))
    copy = tmp_path / "Copy"
    db_path(copy).parent.mkdir(parents=True)
    shutil.copyfile(db_path(root), db_path(copy))
    empty = tmp_path / "Empty"
    source = CursorDesktopStore(root)
    for native in loadable(source):
        cid = native.reference
        assert cid is not None
        CursorDesktopStore(copy).save(native, force=True)
        source.save(native, force=True)
        CursorDesktopStore(empty).save(native, force=True)
        fresh = CursorDesktopStore(empty).load(cid)
        assert fresh.header_origin == "table"
        expected = cells(native)
        if native.header_origin != "table" and not native.recency:
            # A head without a row was listed by its creation time; its new row keeps that.
            expected = dataclasses.replace(expected, recency=native.created_at)
        assert cells(fresh) == expected
    assert dump(db_path(copy)) == dump(db_path(root))


def test_a_save_that_changes_nothing_takes_no_backup_and_keeps_the_fingerprint(
    tmp_path: Path,
) -> None:
    """Regression: every save rewrote the session's rows, so saving what is stored changed its
    rowids (and with them the change-detection fingerprint), and took a full backup of the
    database (gigabytes, and one that rotated an older, useful backup out). A save now runs dry
    first: with nothing to write it writes nothing and backs nothing up."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_C)  # no cwd: no sidebar registration either
    fingerprint = store.fingerprints([fx.CID_C])
    before = dump(store.database)
    store.save(native, force=True)
    assert dump(store.database) == before
    assert store.fingerprints([fx.CID_C]) == fingerprint
    assert backup_count() == 0
    store.save(dataclasses.replace(native, recency=native.recency + 1), force=True)
    (backup,) = backups.list_backups()
    assert (backup.kind, backup.operation, backup.session) == ("row", "save", fx.CID_C)
    saving.undo(backup)
    assert dump(store.database) == before  # the backup holds the state the save replaced


# ------------------------------------------------------------------------------ changed bodies


def _bubble(cid: str, bid: str, text: str) -> KVRow:
    return KVRow(f"bubbleId:{cid}:{bid}", fx.user_bubble(bid, text))


def test_a_changed_body_replaces_its_bubbles_in_order_and_keeps_everything_else(
    tmp_path: Path,
) -> None:
    """Fewer, changed and new bubbles: the session's rows become the body's, in its order; the
    unchanged prefix keeps its rowids; NULL tombstones, stale aux rows and every other session's
    rows stay as they were.

    Regression: the save deleted every ``bubbleId:<cid>:`` row before re-inserting the body's,
    NULL-valued tombstones included, and a body never carries NULL rows (the reader skips them),
    so a plain round trip lost them."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    first, second, third = native.bubbles[:3]
    changed = KVRow(second.key, second.value.replace("Run the tests", "Run them all"))
    body = dataclasses.replace(
        native,
        bubbles=(first, changed, _bubble(fx.CID_A, "new", "one more")),
        aux=native.aux[:1],
    )
    before = dump(store.database)
    store.save(body, force=True)
    after = dump(store.database)
    reloaded = store.load(fx.CID_A)
    assert reloaded.bubbles == body.bubbles
    # Stale aux rows are not removed by a save (a save never deletes what it does not replace).
    assert reloaded.aux == native.aux
    assert third.key not in {row.key for row in reloaded.bubbles}
    kv_before = {_text(c[0]): (rowid, c) for rowid, c in before["cursorDiskKV"].items()}
    kv_after = {_text(c[0]): (rowid, c) for rowid, c in after["cursorDiskKV"].items()}
    assert kv_after[first.key] == kv_before[first.key]  # the unchanged prefix: same rowid
    tombstone = f"bubbleId:{fx.CID_A}:a-null"
    assert kv_after[tombstone] == kv_before[tombstone]
    assert kv_after[changed.key][0] > max(rowid for rowid, _ in kv_before.values())
    assert split(after, fx.CID_A)[1] == split(before, fx.CID_A)[1]


def test_a_reordered_body_is_stored_in_the_new_order(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    body = dataclasses.replace(native, bubbles=tuple(reversed(native.bubbles)))
    store.save(body, force=True)
    assert store.load(fx.CID_A).bubbles == body.bubbles


def test_a_body_without_composer_data_leaves_the_stored_one_untouched(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    before = dump(store.database)
    store.save(dataclasses.replace(native, composer_data=None), force=True)
    assert store.load(fx.CID_A).composer_data == native.composer_data
    assert dump(store.database)["cursorDiskKV"] == before["cursorDiskKV"]


def _odd_header_db(path: Path, **header: Any) -> tuple[Path, str]:
    """A 3.16 database whose one session's header row has the given (oddly typed) cells."""
    cid = "0dd00000-0000-4000-8000-000000000001"
    db = StateDB(path, journal="delete")
    spec = Session(
        cid=cid,
        composer_data=fx.composer_3_16(cid, "Odd", fx.T0, "gpt-9", ["u"]),
        bubbles=[("u", fx.user_bubble("u", "hi", "2026-08-17T06:30:36.299Z"))],
        header=Header(
            cid, header.pop("value", fx.head_3_16(cid, fx.T0, name="Odd", cwd="/odd")), **header
        ),
    )
    db.session(spec)
    return db.close(), cid


@pytest.mark.parametrize(
    "header",
    [
        {"created_at": None, "last_updated_at": None, "recency": None, "is_archived": None},
        {"is_archived": 2, "is_subagent": 7, "recency": fx.T0 + 0.5},
        {"created_at": str(fx.T0), "checkpoint_at": "12", "workspace_id": b"ws-as-blob"},
        {"value": None, "subagent_type_name": b"\x00\xffbytes"},
    ],
    ids=["nulls", "odd-integers", "text-integers", "null-value"],
)
def test_header_cells_that_already_read_right_keep_their_bytes(
    tmp_path: Path, header: dict[str, Any]
) -> None:
    """Regression: the save used to write all nine header columns back, so a NULL ``recency``
    became 0 (and sorted above every NULL-recency session), ``isArchived`` 2 became 1, a REAL or
    TEXT cell became INTEGER: a plain round trip rewrote cells the app had written. Now a column
    is only written when its stored cell does not already read as the body's value."""
    path, cid = _odd_header_db(db_path(tmp_path / "User"), **header)
    store = CursorDesktopStore(tmp_path / "User")
    native = store.load(cid)
    before = dump(path)
    store.save(native, force=True)
    after = dump(path)
    assert store.load(cid) == native
    if "value" in header:
        # A NULL head is filled in with the head the reader synthesised; nothing else changes.
        (row_before,) = before["composerHeaders"].values()
        (row_after,) = after["composerHeaders"].values()
        assert row_after[:-1] == row_before[:-1]
        assert row_after[-1] == ("text", native.header.encode())
    else:
        assert after["composerHeaders"] == before["composerHeaders"]
    assert after["cursorDiskKV"] == before["cursorDiskKV"]


def test_a_changed_head_updates_only_the_columns_that_changed(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    before = dump(store.database)
    store.save(dataclasses.replace(native, is_archived=True, recency=fx.T0 + 99), force=True)
    after = dump(store.database)
    rows_before = {c[0]: (rowid, c) for rowid, c in before["composerHeaders"].items()}
    rows_after = {c[0]: (rowid, c) for rowid, c in after["composerHeaders"].items()}
    key = ("text", fx.CID_A.encode())
    rowid, old = rows_before[key]
    new_rowid, new = rows_after[key]
    assert new_rowid == rowid  # updated in place, not deleted and re-inserted
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert changed == [4, 6]  # isArchived, recency
    assert new[8] == ("text", b"explore")  # subagentTypeName kept
    assert new[4] == ("integer", b"1") and new[6] == ("integer", str(fx.T0 + 99).encode())


def test_a_legacy_session_saved_in_place_stays_without_a_header_row(tmp_path: Path) -> None:
    """A session the database holds without a head (a pre-migration leftover) keeps it that way;
    the same body saved into a database that does not hold it yet gets a header row, with its
    creation time as recency so it is listed where it was."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_LEGACY)
    assert native.header_origin == "synthesized"
    order = [d.reference for d in store.discover()]
    store.save(native, force=True)
    assert store.load(fx.CID_LEGACY).header_origin == "synthesized"
    assert [d.reference for d in store.discover()] == order
    other = CursorDesktopStore(tmp_path / "Other")
    fx.app_3_16(db_path(tmp_path / "Other"))
    conn = sqlite3.connect(other.database)
    conn.execute("DELETE FROM cursorDiskKV WHERE key LIKE ?", (f"%{fx.CID_LEGACY}%",))
    conn.commit()
    conn.close()
    other.save(native, force=True)
    moved = other.load(fx.CID_LEGACY)
    assert moved.header_origin == "table" and moved.recency == native.created_at
    assert [d.reference for d in other.discover()] == order


def test_a_3_7_head_index_is_spliced_not_rewritten(tmp_path: Path) -> None:
    """Regression: the 3.7 head index (every session's head in one ItemTable value) was parsed
    and re-serialised on every save and delete, so a pretty-printed index, or any other session's
    head, lost its exact bytes. Now the session's entry is spliced in or out of the text."""
    root = tmp_path / "User"
    fx.app_3_7(db_path(root), pretty_index=True)
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_37)
    before = item(dump(store.database), INDEX_KEY)
    assert before is not None and "\n" in before
    renamed = json.loads(native.header)
    renamed["name"] = "Renamed"
    store.save(dataclasses.replace(native, header=js(renamed)), force=True)
    after = item(dump(store.database), INDEX_KEY)
    assert after is not None
    old_entries, new_entries = entry_texts(before, dict), entry_texts(after, dict)
    assert len(old_entries) == len(new_entries) == 1
    old_heads = entry_texts(before[before.index("[") : before.rindex("]") + 1], list)
    new_heads = entry_texts(after[after.index("[") : after.rindex("]") + 1], list)
    position = next(i for i, h in enumerate(old_heads) if fx.CID_37 in h)
    assert new_heads[position] == js(renamed)
    assert new_heads[:position] + new_heads[position + 1 :] == (
        old_heads[:position] + old_heads[position + 1 :]
    )
    assert after.replace(js(renamed), "") == before.replace(old_heads[position], "")
    assert store.load(fx.CID_37).header == js(renamed)
