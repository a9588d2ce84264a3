"""One test per hazard of the reference implementation (facts §22, 1–11): each shows that save and
delete are safe where the reference was not. "Nothing written" always means a full database dump
is byte-identical and no backup was left behind."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import dbfixtures as fx
import pytest
from dbfixtures import Header, Session, StateDB, js
from test_save_roundtrip import (
    backup_count,
    db_path,
    dump,
    item,
    split,
)

from txcript.errors import BadInput, StoreError
from txcript.harnesses.cursor_desktop import sidebar, text
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.harnesses.cursor_desktop.write import from_common
from txcript.model import Message, Meta, Text, Transcript

T = datetime(2026, 8, 21, 9, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def make_body(cid: str, cwd: str | None = None, said: str = "hello") -> CursorSession:
    """A small session as ``continue`` writes it (from Common)."""
    meta = Meta(id=cid, timestamp=T, cwd=cwd, title=f"Session {cid}")
    messages = (
        Message(role="user", content=(Text(said),), timestamp=T),
        Message(role="assistant", content=(Text("sure"),), timestamp=T, model="m"),
    )
    return from_common(Transcript(meta=meta, messages=messages))


def add_session(path: Path, cid: str) -> None:
    """Add an app-shaped session (header row, composerData, bubbles, aux rows) to a database."""
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO composerHeaders (composerId, createdAt, lastUpdatedAt, recency, value) "
        "VALUES (?, ?, ?, ?, ?)",
        (cid, fx.T0, fx.T0, fx.T0, fx.head_3_16(cid, fx.T0, name=f"Title {cid}")),
    )
    rows = [
        (f"composerData:{cid}", fx.composer_3_16(cid, cid, fx.T0, "m", ["u", "r"])),
        (f"bubbleId:{cid}:u", fx.user_bubble("u", f"question of {cid}")),
        (f"bubbleId:{cid}:r", fx.assistant_bubble("r", f"answer of {cid}")),
        (f"checkpointId:{cid}:1", js({"files": [cid]})),
        (f"messageRequestContext:{cid}:u", js({"of": cid})),
        (f"composerVirtualRowHeights:{cid}", js({"u": 1})),
    ]
    conn.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", rows)
    conn.commit()
    conn.close()


@pytest.fixture
def crowded(tmp_path: Path) -> CursorDesktopStore:
    """The 3.16 fixture plus sessions whose ids LIKE, substring or case would confuse."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    for cid in ("abc", "ABC", "abcd", "xabc", "ab"):
        add_session(db_path(root), cid)
    return CursorDesktopStore(root)


def assert_refused(store: CursorDesktopStore, attempt: object, error: type, match: str) -> None:
    before = dump(store.database)
    count = backup_count()
    with pytest.raises(error, match=match):
        attempt()  # type: ignore[operator]
    assert dump(store.database) == before
    assert backup_count() == count


# ------------------------------------------------------------------------------ 1. LIKE


@pytest.mark.parametrize("cid", ["a_c", "_", "a_", "_bc", "ABc", "aBC", "abc%", "a%"])
def test_1_like_wildcards_and_case_never_reach_other_sessions(
    crowded: CursorDesktopStore, cid: str
) -> None:
    """``%``/``_`` are LIKE wildcards and LIKE ignores ASCII case: the reference's delete of
    ``%`` wiped every session. Keys are compared exactly here: ids of another case are sessions
    of their own, ``%`` and ``_`` are refused outright by the writer (facts §22.1), and a delete
    of an id that does not exist removes nothing even when it would match others as a pattern."""
    store = crowded
    assert_refused(store, lambda: store.delete(cid, force=True), BadInput, "no cursor_desktop")
    with pytest.raises(BadInput):
        store.load(cid)
    if "%" in cid or "_" in cid:
        assert_refused(
            store, lambda: store.save(make_body(cid), force=True), BadInput, "contains `[%_]`"
        )
        return
    before = dump(store.database)
    store.save(make_body(cid, cwd="/like"), force=True)
    after = dump(store.database)
    assert split(after, cid)[1] == split(before, cid)[1]
    assert store.load(cid).bubbles == make_body(cid, cwd="/like").bubbles
    assert store.load("abc").bubbles == tuple(
        KVRow(f"bubbleId:abc:{b}", fx.user_bubble(b, "question of abc"))
        if b == "u"
        else KVRow(f"bubbleId:abc:{b}", fx.assistant_bubble(b, "answer of abc"))
        for b in ("u", "r")
    )
    store.delete(cid, force=True)
    assert dump(store.database)["cursorDiskKV"] == before["cursorDiskKV"]
    assert dump(store.database)["composerHeaders"] == before["composerHeaders"]


def test_1_deleting_one_of_two_ids_differing_in_case_keeps_the_other(
    crowded: CursorDesktopStore,
) -> None:
    store = crowded
    before = dump(store.database)
    store.delete("abc", force=True)
    after = dump(store.database)
    assert split(after, "abc")[1] == split(before, "abc")[1]
    assert {d.reference for d in store.discover()} >= {"ABC", "abcd", "xabc", "ab"}
    assert "abc" not in {d.reference for d in store.discover()}


def test_1_a_percent_id_is_refused_on_save(crowded: CursorDesktopStore) -> None:
    body = make_body("%")
    assert_refused(crowded, lambda: crowded.save(body, force=True), BadInput, "contains `%`")


# ------------------------------------------------------------------------------ 2. hostile rows


HOSTILE = [
    ("aux", f"composerData:{fx.CID_B}"),
    ("aux", f"bubbleId:{fx.CID_B}:b-user"),
    ("aux", f"checkpointId:{fx.CID_B}:ck-9"),
    ("aux", "agentKv:blob:9f86d081884c7d659a2feaa0c55ad015"),
    ("aux", f"agentKv:checkpoint:{fx.CID_A}"),
    ("aux", f"checkpointId:{fx.CID_A}x:1"),
    ("aux", f"plainkey{fx.CID_A}"),
    ("aux", "composer.autoAccept.lastSeenHeadSha"),
    ("bubble", f"bubbleId:{fx.CID_B}:b-user"),
    ("bubble", f"bubbleId:{fx.CID_A}x:1"),
    ("bubble", f"composerData:{fx.CID_B}"),
]


@pytest.mark.parametrize(("where", "key"), HOSTILE)
def test_2_rows_keyed_for_another_session_are_refused(tmp_path: Path, where: str, key: str) -> None:
    """A text-form body carrying a row keyed for another session (or a shared row) would let the
    reference overwrite it. Every row must be the session's own; nothing is written otherwise."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    row = KVRow(key, '{"hostile":true}')
    body = (
        dataclasses.replace(native, aux=(*native.aux, row))
        if where == "aux"
        else dataclasses.replace(native, bubbles=(*native.bubbles, row))
    )
    # It arrives as a text form, as it would from a file.
    hostile = text.from_text(text.to_text(body))
    assert_refused(store, lambda: store.save(hostile, force=True), BadInput, "does not belong")


# ------------------------------------------------------------------------------ 3. disagreement


def test_3_head_bubbles_and_composer_data_must_name_the_same_session(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    native = dataclasses.replace(store.load(fx.CID_A), reference=None)
    head = json.loads(native.header)
    head["composerId"] = fx.CID_C
    renamed = dataclasses.replace(native, header=js(head))
    assert_refused(
        store, lambda: store.save(renamed, force=True), BadInput, "does not belong to session"
    )
    composer = json.loads(native.composer_data or "")
    composer["composerId"] = fx.CID_B
    other_composer = dataclasses.replace(native, composer_data=js(composer))
    assert_refused(
        store, lambda: store.save(other_composer, force=True), BadInput, "composerData names"
    )
    nameless = dataclasses.replace(native, header=js({"type": "head"}))
    assert_refused(store, lambda: store.save(nameless, force=True), BadInput, "no composer id")


def test_3_a_row_whose_head_names_another_session_is_not_saved_over_it(tmp_path: Path) -> None:
    """Regression: a header row keyed ``Y`` whose head JSON says ``composerId: X`` loads as a body
    for ``Y`` with X's id in its head. The save took the head's id and, the body having no
    bubbles to contradict it, upserted X's header row with Y's columns: session X lost its
    title, cwd and times. A body whose head disagrees with the reference it was loaded under is
    now refused."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    conn = sqlite3.connect(db_path(root))
    conn.execute(
        "INSERT INTO composerHeaders (composerId, createdAt, value) VALUES (?, ?, ?)",
        ("impostor", 5, js({"type": "head", "composerId": fx.CID_A, "name": "Impostor"})),
    )
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    body = store.load("impostor")
    assert json.loads(body.header)["composerId"] == fx.CID_A and not body.bubbles
    assert_refused(store, lambda: store.save(body, force=True), BadInput, "loaded as `impostor`")
    assert store.discover()[0].title == "Run the tests"


# ------------------------------------------------------------------------------ 4. delete


def test_4_delete_checks_first_is_atomic_and_removes_the_membership(tmp_path: Path) -> None:
    """The reference deleted KV rows before knowing the session existed, outside a transaction,
    and left its sidebar membership dangling. (That a delete killed half way leaves all or
    nothing is shown with real killed processes in ``test_write_faults``.)"""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    store = CursorDesktopStore(root)
    path = store.database
    conn = sqlite3.connect(path)
    conn.execute(
        "UPDATE ItemTable SET value = ? WHERE key = ?",
        (
            '{\n  "other": "p-9",\n  "' + fx.CID_A + '": "p-1",\n  "zz": "p-9"\n}',
            sidebar.MEMBERSHIP_KEY,
        ),
    )
    conn.commit()
    conn.close()
    assert_refused(store, lambda: store.delete("missing", force=True), BadInput, "no cursor")
    before = dump(path)
    store.delete(fx.CID_A, force=True)
    after = dump(path)
    assert item(after, sidebar.MEMBERSHIP_KEY) == '{\n  "other": "p-9",\n  "zz": "p-9"\n}'
    own, others = split(after, fx.CID_A)
    assert others == split(before, fx.CID_A)[1]
    assert own["cursorDiskKV"] == {} and own["composerHeaders"] == {}
    assert backup_count() == 1


# ------------------------------------------------------------------------------ 5. sidebar


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (sidebar.PROJECTS_KEY, '{"not": "an array"}'),
        (sidebar.PROJECTS_KEY, "[broken"),
        (sidebar.PROJECTS_KEY, '"a string"'),
        (sidebar.PROJECTS_KEY, "[1] trailing"),
        (sidebar.PROJECTS_KEY, "[" * 100_000 + "]" * 100_000),  # deeper than Python parses
        (sidebar.MEMBERSHIP_KEY, "[]"),
        (sidebar.MEMBERSHIP_KEY, "{broken"),
        (sidebar.MEMBERSHIP_KEY, "null"),
        ("composer.composerHeaders", '{"allComposers": "nope"}'),
    ],
)
def test_5_sidebar_values_we_cannot_parse_are_refused_not_replaced(
    tmp_path: Path, key: str, value: str
) -> None:
    """The reference treated an unparseable projects/membership value as empty and wrote it back,
    wiping the user's projects. Now the save is refused and nothing is written."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    conn = sqlite3.connect(db_path(root))
    conn.execute("INSERT OR REPLACE INTO ItemTable VALUES (?, ?)", (key, value))
    if key == "composer.composerHeaders":  # the 3.7 index is only written without a header table
        conn.execute("DROP TABLE composerHeaders")
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    body = make_body("new-session", cwd="/work/proj")
    assert_refused(store, lambda: store.save(body, force=True), StoreError, "refusing to replace")


def test_5_other_projects_and_memberships_keep_their_exact_bytes(tmp_path: Path) -> None:
    """Regression: re-pointing or removing a membership re-serialised the whole map (and the
    reference re-serialised every project), so spacing, key order and number spellings of every
    other entry changed. Now entries are spliced in and out of the JSON text, and a value stored
    as a BLOB stays a BLOB."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    projects = (
        '[ {"name":"Other", "id":"p0", "createdAt":1.0e3, '
        '"workspace":{"uri":{"fsPath":"/other"}}} ]'
    )
    membership = '{ "old" : "p0",\n "new-session": "gone-project" , "z":"p0" }'
    conn = sqlite3.connect(db_path(root))
    conn.execute("INSERT OR REPLACE INTO ItemTable VALUES (?, ?)", (sidebar.PROJECTS_KEY, projects))
    conn.execute(
        "INSERT OR REPLACE INTO ItemTable VALUES (?, ?)",
        (sidebar.MEMBERSHIP_KEY, membership.encode()),
    )
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    store.save(make_body("new-session", cwd="/work/proj"), force=True)
    after = dump(store.database)
    new_projects = item(after, sidebar.PROJECTS_KEY)
    assert new_projects is not None and new_projects.startswith(projects[:-2] + ",{")
    project_id = json.loads(new_projects)[1]["id"]
    # The dangling membership is re-pointed in place; the others keep their bytes.
    assert item(after, sidebar.MEMBERSHIP_KEY) == membership.replace(
        '"gone-project"', json.dumps(project_id)
    )
    types = {
        c[0][1]: c[1][0]
        for c in after["ItemTable"].values()
        if c[0][1] in (b"glass.localAgentProjectMembership.v1",)
    }
    assert types == {b"glass.localAgentProjectMembership.v1": "blob"}
    store.delete("new-session", force=True)
    assert item(dump(store.database), sidebar.MEMBERSHIP_KEY) == '{ "old" : "p0",\n "z":"p0" }'


def test_5_a_session_already_in_a_project_keeps_it(tmp_path: Path) -> None:
    """Regression: a save re-pointed the session's membership to the project of its folder even
    when it already belonged to an existing project (the user's grouping). An existing
    membership naming a project that exists is now kept; only a dangling one is re-pointed."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    projects = js([{"id": "mine", "name": "Mine", "workspace": {"uri": {"fsPath": "/elsewhere"}}}])
    conn = sqlite3.connect(db_path(root))
    conn.execute("INSERT OR REPLACE INTO ItemTable VALUES (?, ?)", (sidebar.PROJECTS_KEY, projects))
    conn.execute(
        "INSERT OR REPLACE INTO ItemTable VALUES (?, ?)",
        (sidebar.MEMBERSHIP_KEY, js({fx.CID_A: "mine"})),
    )
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    before = dump(store.database)
    store.save(store.load(fx.CID_A), force=True)
    assert dump(store.database) == before


# ------------------------------------------------------------------------------ 6. columns


def test_6_unknown_header_columns_keep_their_values(tmp_path: Path) -> None:
    """``INSERT OR REPLACE`` reset every column the reference did not list (``subagentTypeName``)
    to NULL. Columns are written one by one here, and only the known ones."""
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    conn = sqlite3.connect(db_path(root))
    conn.execute("ALTER TABLE composerHeaders ADD COLUMN futureColumn BLOB")
    conn.execute("UPDATE composerHeaders SET futureColumn = x'00ff'")
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    native = store.load(fx.CID_A)
    # A body from elsewhere (the text form of another machine) knows none of those columns.
    foreign = dataclasses.replace(native, extra_columns=(), is_archived=True, recency=1)
    store.save(foreign, force=True)
    conn = sqlite3.connect(db_path(root))
    row = conn.execute(
        "SELECT subagentTypeName, futureColumn, isArchived, recency FROM composerHeaders "
        "WHERE composerId = ?",
        (fx.CID_A,),
    ).fetchone()
    conn.close()
    assert row == ("explore", b"\x00\xff", 1, 1)
    store.save(make_body("brand-new"), force=True)
    assert dict(store.load("brand-new").extra_columns) == {
        "subagentTypeName": None,
        "futureColumn": None,
    }


# ------------------------------------------------------------------------------ 7. NULL id


def test_7_a_null_composer_id_hides_nothing_and_blocks_no_write(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    conn = sqlite3.connect(db_path(root))
    conn.execute("INSERT INTO composerHeaders (composerId, value) VALUES (NULL, '{}')")
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    listed = [d.reference for d in store.discover()]
    assert listed == [fx.CID_A, fx.CID_LEGACY, fx.CID_B, fx.CID_C]
    store.save(make_body("after-null"), force=True)
    store.delete(fx.CID_B, force=True)
    assert [d.reference for d in store.discover()] == [
        "after-null",  # the newest
        fx.CID_A,
        fx.CID_LEGACY,
        fx.CID_C,
    ]


# ------------------------------------------------------------------------------ 8. typed columns


def test_8_a_wrongly_typed_header_cell_keeps_the_head(tmp_path: Path) -> None:
    """The reference discarded a whole header row when one cell had the wrong storage class, and
    a save then replaced it with a synthesized head: title and cwd were gone. Here the head is
    read from the row regardless, and a round trip leaves every cell as it was."""
    root = tmp_path / "User"
    cid = "typed000-0000-4000-8000-000000000008"
    db = StateDB(db_path(root), journal="delete")
    head = fx.head_3_16(cid, fx.T0, name="Typed", cwd="/typed")
    db.session(
        Session(
            cid=cid,
            composer_data=fx.composer_3_16(cid, "Typed", fx.T0, "m", ["u"]),
            bubbles=[("u", fx.user_bubble("u", "hi"))],
            header=Header(
                cid,
                head.encode(),  # a BLOB head
                created_at=str(fx.T0),  # decimal TEXT in an INTEGER column
                recency=float(fx.T0),
                is_archived="yes",  # unusable: reads as false
            ),
        )
    )
    db.close()
    store = CursorDesktopStore(root)
    (found,) = store.discover()
    assert (found.title, found.cwd) == ("Typed", "/typed")
    before = dump(store.database)
    store.save(store.load(cid), force=True)
    assert dump(store.database)["composerHeaders"] == before["composerHeaders"]
    assert store.load(cid).header == head


# ------------------------------------------------------------------------------ 9. aux


def test_9_aux_rows_are_the_sessions_own_never_a_prefix_or_case_match(
    crowded: CursorDesktopStore,
) -> None:
    """``LIKE '%<cid>%'`` made session ``ab`` adopt ``abc``'s, ``xabc``'s and ``ABC``'s rows; a
    save then copied them and a delete removed them."""
    store = crowded
    native = store.load("ab")
    assert [row.key for row in native.aux] == [
        "checkpointId:ab:1",
        "messageRequestContext:ab:u",
        "composerVirtualRowHeights:ab",
    ]
    before = dump(store.database)
    store.save(native, force=True)
    assert dump(store.database) == before
    store.delete("ab", force=True)
    after = dump(store.database)
    assert split(after, "ab")[1] == split(before, "ab")[1]
    for cid in ("abc", "ABC", "abcd", "xabc"):
        assert len(store.load(cid).aux) == 3


# ------------------------------------------------------------------------------ 10. escaping


def test_10_a_synthesized_head_is_valid_json_for_any_id(tmp_path: Path) -> None:
    """The reference built ``{"type":"head","composerId":"<cid>"}`` by interpolation, so an id
    with a quote gave invalid JSON (and a save wrote it into the header row)."""
    root = tmp_path / "User"
    cid = 'we"ird é\u2028'
    db = StateDB(db_path(root), headers="none", journal="delete")
    db.put(f"composerData:{cid}", js({"composerId": cid, "createdAt": fx.T0}))
    db.put(f"bubbleId:{cid}:u", fx.user_bubble("u", "hi"))
    db.close()
    store = CursorDesktopStore(root)
    (found,) = store.discover()
    assert found.reference == cid
    native = store.load(cid)
    assert json.loads(native.header) == {"type": "head", "composerId": cid}
    # Such an id is read, but never written: it is no composer id (see docs/security.md).
    fresh = CursorDesktopStore(tmp_path / "Fresh")
    with pytest.raises(BadInput, match="not a valid Cursor desktop id"):
        fresh.save(native, force=True)
    assert not (tmp_path / "Fresh").exists()


# ------------------------------------------------------------------------------ 11. URIs


@pytest.mark.parametrize(
    ("folder", "cwd", "name", "external", "uri_path"),
    [
        (
            "file:///Users/me/My%20Proj",
            "/Users/me/My Proj",
            "My Proj",
            "file:///Users/me/My%20Proj",
            "/Users/me/My Proj",
        ),
        (
            "file:///c%3A/Users/me/repo",
            "C:\\Users\\me\\repo",
            "repo",
            "file:///c%3A/Users/me/repo",
            "/C:/Users/me/repo",
        ),
        (
            "file:///home/me/caf%C3%A9/",
            "/home/me/café",
            "café",
            "file:///home/me/caf%C3%A9",
            "/home/me/café",
        ),
    ],
)
def test_11_percent_encoded_and_windows_workspace_uris_resolve(
    tmp_path: Path, folder: str, cwd: str, name: str, external: str, uri_path: str
) -> None:
    """The reference compared ``workspace.json`` folders to the cwd without decoding, so a space,
    a non-ASCII letter or a Windows drive never matched, and wrote ``"file://" + cwd`` unencoded.
    The header's URI is checked against the literal strings VS Code writes (``external``
    percent-encoded, the drive letter lower-cased and its colon escaped; ``path`` decoded).
    """
    root = tmp_path / "User"
    manifest = root / "workspaceStorage" / ("e" * 32) / "workspace.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"folder": folder}))
    store = CursorDesktopStore(root)
    store.save(make_body("uri-session", cwd=cwd), force=True)
    native = store.load("uri-session")
    assert native.workspace_id == "e" * 32
    head = json.loads(native.header)
    assert head["workspaceIdentifier"]["uri"] == {
        "$mid": 1,
        "external": external,
        "fsPath": cwd,
        "path": uri_path,
        "scheme": "file",
    }
    conn = sqlite3.connect(store.database)
    projects = json.loads(
        conn.execute(
            "SELECT value FROM ItemTable WHERE key = ?", (sidebar.PROJECTS_KEY,)
        ).fetchone()[0]
    )
    conn.close()
    assert [(p["name"], p["workspace"]["id"]) for p in projects] == [(name, "e" * 32)]
