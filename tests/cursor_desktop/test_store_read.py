"""The Cursor desktop store's read side over real SQLite databases of every generation."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import dbfixtures as fx
import pytest
from dbfixtures import Header, Session, StateDB, js

from txcript import harnesses
from txcript.errors import BadInput
from txcript.harnesses.cursor_desktop import codec
from txcript.harnesses.cursor_desktop.native import KVRow
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore


def ms(value: int) -> datetime:
    return datetime.fromtimestamp(value / 1000, UTC)


def db_path(root: Path) -> Path:
    return root / "globalStorage" / "state.vscdb"


def listing(
    store: CursorDesktopStore,
) -> list[tuple[str, datetime, str | None, str | None, str | None]]:
    return [(d.reference, d.timestamp, d.title, d.cwd, d.model) for d in store.discover()]


def assert_discovery_matches_load(store: CursorDesktopStore) -> None:
    """Discovery metadata equals a full load + ``to_common`` for every listed session.

    The one exception is a session with no creation time at all, whose timestamp is "now" by
    the codec's rule: both sides must then be recent rather than equal.
    """
    found = store.discover()
    assert found
    for item in found:
        meta = codec.to_common(store.load(item.reference)).meta
        assert item.harness == "cursor_desktop"
        assert (item.meta_id, item.title, item.cwd, item.model, item.git_branch) == (
            meta.id,
            meta.title,
            meta.cwd,
            meta.model,
            meta.git_branch,
        )
        if item.timestamp != meta.timestamp:
            now = datetime.now(UTC)
            assert abs((now - item.timestamp).total_seconds()) < 60
            assert abs((now - meta.timestamp).total_seconds()) < 60


# ------------------------------------------------------------------------------------ locations


CURSOR = harnesses.get("cursor_desktop")
default_root = CURSOR.default_root


def test_default_root_per_os(tmp_path: Path) -> None:
    root_for = CURSOR.info.root.under  # type: ignore[union-attr]
    assert root_for(tmp_path, "darwin") == tmp_path / "Library/Application Support/Cursor/User"
    assert root_for(tmp_path, "win32") == tmp_path / "AppData/Roaming/Cursor/User"
    assert root_for(tmp_path, "linux") == tmp_path / ".config/Cursor/User"


def test_default_root_override_and_home(
    monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", "/custom/User")
    assert default_root() == Path("/custom/User")
    store = harnesses.get("cursor_desktop").store()
    assert isinstance(store, CursorDesktopStore)
    assert store.database == Path("/custom/User/globalStorage/state.vscdb")
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", "")
    assert default_root() is not None and str(default_root()).startswith(str(isolated_home))
    monkeypatch.delenv("HOME")
    monkeypatch.delenv("USERPROFILE")
    assert default_root() is None


def test_store_shape(tmp_path: Path) -> None:
    store = CursorDesktopStore(tmp_path)
    assert store.root == tmp_path
    assert store.database == tmp_path / "globalStorage" / "state.vscdb"
    assert store.location("anything") == str(store.database)
    assert store.discover() == []  # no database yet
    with pytest.raises(BadInput, match="no cursor_desktop session `x`"):
        store.load("x")
    with pytest.raises(BadInput, match="no cursor_desktop session `x` \\(no database at"):
        store.delete("x")


# ------------------------------------------------------------------------------------ 3.16+

EXPECTED_3_16 = [
    (fx.CID_A, ms(fx.T0), "Run the tests", "/Users/dev/acme", "claude-fable-5"),
    # Header-less leftover: sorted by its composerData createdAt, title from composerData.
    (fx.CID_LEGACY, ms(fx.T0 - 5000), "Left over", None, None),
    # Archived: subtitle (trimmed), cwd from trackedGitRepos, no composerData model (the
    # bubbles' model is never read to list).
    (fx.CID_B, ms(fx.T0 - 86_400_000), "Archived", "/Users/dev/repo", None),
    # NULL recency sorts last.
    (fx.CID_C, ms(fx.T0 - 1000), "No recency", None, "composer-2"),
]


@pytest.mark.parametrize("headers", ["app", "txcript", "real_recency"])
@pytest.mark.parametrize("kv_key", ["unique", "primary"])
@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_discover_3_16(
    tmp_path: Path, headers: fx.HeaderTable, kv_key: fx.KvKey, journal: fx.Journal
) -> None:
    fx.app_3_16(db_path(tmp_path), headers=headers, kv_key=kv_key, journal=journal)
    store = CursorDesktopStore(tmp_path)
    assert listing(store) == EXPECTED_3_16
    assert_discovery_matches_load(store)


def test_load_3_16_exact_body(tmp_path: Path) -> None:
    fx.app_3_16(db_path(tmp_path))
    specs = {spec.cid: spec for spec in fx.sessions_3_16()}
    a = specs[fx.CID_A]
    assert a.header is not None
    body = CursorDesktopStore(tmp_path).load(fx.CID_A)
    assert body.header == a.header.value
    assert body.header_origin == "table"
    assert body.reference == fx.CID_A
    assert body.workspace_id == "84c9a67ebe7054485d323a481a9cffeb"
    assert (body.created_at, body.last_updated_at, body.recency) == (
        fx.T0,
        fx.T0 + 5000,
        fx.T0 + 9000,
    )
    assert (body.is_archived, body.is_subagent, body.checkpoint_at) == (False, False, None)
    assert body.extra_columns == (("subagentTypeName", "explore"),)
    assert body.composer_data == a.composer_data
    # rowid order (not conversation order), the NULL row dropped.
    assert body.bubbles == tuple(KVRow(k, v) for k, v in a.loaded_bubbles())
    assert [row.key for row in body.bubbles] == [
        f"bubbleId:{fx.CID_A}:a-text",
        f"bubbleId:{fx.CID_A}:a-user",
        f"bubbleId:{fx.CID_A}:a-think",
    ]
    # Every <kind>:<cid>[:…] row except agentKv, in rowid order, values verbatim.
    assert body.aux == tuple(KVRow(k, v) for k, v in a.aux[:5])
    assert all(not row.key.startswith("agentKv:") for row in body.aux)


def test_load_3_16_other_rows(tmp_path: Path) -> None:
    fx.app_3_16(db_path(tmp_path), headers="txcript")
    store = CursorDesktopStore(tmp_path)
    b = store.load(fx.CID_B)
    assert (b.is_archived, b.workspace_id, b.extra_columns) == (True, "empty-window", ())
    assert b.aux == (KVRow(f"checkpointId:{fx.CID_B}:ck-9", js({"files": []})),)
    c = store.load(fx.CID_C)
    assert (c.recency, c.workspace_id) == (0, None)  # NULL → 0 / None
    legacy = store.load(fx.CID_LEGACY)
    assert legacy.header_origin == "synthesized"
    assert legacy.header == '{"type":"head","composerId":"' + fx.CID_LEGACY + '"}'
    assert (legacy.created_at, legacy.last_updated_at, legacy.recency) == (
        fx.T0 - 5000,
        fx.T0 - 4000,
        0,
    )
    # Drafts and NULL-bubble sessions are not listed, but they exist and load.
    draft = store.load(fx.CID_DRAFT)
    assert draft.bubbles == () and draft.header_origin == "table"
    empty = store.load(fx.EMPTY_DRAFT)
    assert empty.composer_data is None and empty.bubbles == ()
    assert store.load(fx.CID_NULLS).bubbles == ()


def test_real_recency_reads_as_integer(tmp_path: Path) -> None:
    fx.app_3_16(db_path(tmp_path), headers="real_recency")
    with sqlite3.connect(db_path(tmp_path)) as conn:
        kind = conn.execute(
            "SELECT typeof(recency) FROM composerHeaders WHERE composerId = ?", (fx.CID_A,)
        )
        assert kind.fetchone() == ("real",)
    body = CursorDesktopStore(tmp_path).load(fx.CID_A)
    assert body.recency == fx.T0 + 9000 and type(body.recency) is int


# ------------------------------------------------------------------------------------ 3.7


@pytest.mark.parametrize("pretty_index", [False, True])
def test_discover_and_load_3_7(tmp_path: Path, pretty_index: bool) -> None:
    fx.app_3_7(db_path(tmp_path), pretty_index=pretty_index)
    store = CursorDesktopStore(tmp_path)
    assert listing(store) == [
        (fx.CID_37, ms(fx.T37), "Fix the login form", "/home/me/web/app", "claude-4.5-sonnet")
    ]
    assert_discovery_matches_load(store)
    body = store.load(fx.CID_37)
    real = next(head for head in fx.heads_3_7() if head["composerId"] == fx.CID_37)
    # The index entry, minified with its own key order and tokens (whatever the index's layout).
    assert body.header == js(real)
    assert body.header_origin == "item_table"
    assert (body.workspace_id, body.created_at, body.last_updated_at) == (
        "a" * 32,
        fx.T37,
        fx.T37 + 60_000,
    )
    assert [row.key for row in body.bubbles] == [
        f"bubbleId:{fx.CID_37}:{b}" for b in ("u1", "t1", "r1")
    ]
    assert [row.key for row in body.aux] == [
        f"checkpointId:{fx.CID_37}:c1",
        f"ofsContent:{fx.CID_37}:file:///home/me/web/app/login.tsx",
        f"codeBlockPartialInlineDiffFates:{fx.CID_37}:x",
    ]
    assert body.aux[1].value == "raw file text"
    empty = store.load(fx.EMPTY_DRAFT)
    assert (empty.header_origin, empty.composer_data, empty.created_at) == (
        "item_table",
        None,
        fx.T37 + 100_000,
    )


# ---------------------------------------------------------------------- 1.7 / 0.50 / 0.45


def test_discover_and_load_1_7(tmp_path: Path) -> None:
    fx.app_1_7(db_path(tmp_path))
    store = CursorDesktopStore(tmp_path)
    assert listing(store) == [
        # composerData names "default": no session model (bubbles are never read to list).
        (fx.CID_17_B, ms(fx.T17 + 3_600_000), "Second", None, None),
        (fx.CID_17, ms(fx.T17), "Explain the parser", None, None),
    ]
    assert_discovery_matches_load(store)
    body = store.load(fx.CID_17)
    assert body.header_origin == "synthesized"
    assert [row.key for row in body.aux] == [
        f"messageRequestContext:{fx.CID_17}:WARM_SUBMIT",
        f"checkpointId:{fx.CID_17}:k",
    ]


def test_discover_and_load_0_50(tmp_path: Path) -> None:
    fx.app_0_50(db_path(tmp_path))
    store = CursorDesktopStore(tmp_path)
    assert listing(store) == [(fx.CID_050, ms(fx.T050), "Port to Rust", None, None)]
    assert_discovery_matches_load(store)
    body = store.load(fx.CID_050)
    assert [row.key for row in body.bubbles] == [
        f"bubbleId:{fx.CID_050}:q",
        f"bubbleId:{fx.CID_050}:r",
    ]
    assert [row.key for row in body.aux] == [f"codeBlockDiff:{fx.CID_050}:z"]


def test_discover_and_load_0_45_inline(tmp_path: Path) -> None:
    fx.app_0_45(db_path(tmp_path))
    store = CursorDesktopStore(tmp_path)
    # The composer with an empty conversation[] is a draft, not a session.
    assert listing(store) == [(fx.CID_045, ms(fx.T045), "Inline chat", None, None)]
    assert_discovery_matches_load(store)
    body = store.load(fx.CID_045)
    assert body.bubbles == () and body.aux == ()
    assert body.composer_data is not None and '"conversation":[' in body.composer_data
    assert len(codec.to_common(body).messages) == 2


# ------------------------------------------------------------------------------------ policies


def _db(tmp_path: Path, **kwargs: object) -> StateDB:
    return StateDB(db_path(tmp_path), **kwargs)  # type: ignore[arg-type]


def _simple(
    cid: str, created: int, *, header: bool = True, recency: object = None, name: str = "t"
) -> Session:
    return Session(
        cid=cid,
        composer_data=js({"_v": 17, "composerId": cid, "name": name, "createdAt": created}),
        bubbles=[("u", fx.user_bubble("u", "hi"))],
        header=Header(cid, fx.head_3_16(cid, created), created_at=created, recency=recency)
        if header
        else None,
    )


def test_empty_header_table_still_lists_composer_data_sessions(tmp_path: Path) -> None:
    db = _db(tmp_path)
    db.session(_simple("one", 2000, header=False)).session(_simple("two", 1000, header=False))
    db.close()
    assert [d.reference for d in CursorDesktopStore(tmp_path).discover()] == ["one", "two"]


def test_null_composer_id_does_not_switch_to_legacy_mode(tmp_path: Path) -> None:
    db = _db(tmp_path)
    db.session(_simple("headed", 1000, recency=5000))
    db.header(Header(None, js({"type": "head"}), recency=9999))
    db.header(Header(42, js({"type": "head"}), recency=9999))  # an INTEGER id: ignored as well
    db.close()
    store = CursorDesktopStore(tmp_path)
    found = store.discover()
    assert [(d.reference, d.title) for d in found] == [("headed", "t")]
    assert store.load("headed").header_origin == "table"


def test_header_storage_classes_are_read_leniently(tmp_path: Path) -> None:
    head = fx.head_3_16("blob", 1000, name="Blob head", cwd="/w")
    db = _db(tmp_path)
    db.session(_simple("blob", 1000, header=False))
    db.header(
        Header(
            "blob",
            head.encode(),
            created_at=1000.0,
            last_updated_at="2000",
            recency="junk",
            is_archived=2.0,
        )
    )
    db.session(_simple("nullvalue", 3000, header=False, name="from composerData"))
    db.header(Header("nullvalue", None, created_at=3000, recency=3000))
    db.close()
    store = CursorDesktopStore(tmp_path)
    blob = store.load("blob")
    assert blob.header == head  # a UTF-8 BLOB head is kept, not replaced by a synthesized one
    assert (blob.created_at, blob.last_updated_at, blob.recency, blob.is_archived) == (
        1000,
        2000,
        0,
        True,
    )
    nullvalue = store.load("nullvalue")
    assert nullvalue.header_origin == "table"
    assert nullvalue.header == '{"type":"head","composerId":"nullvalue"}'
    assert nullvalue.created_at == 3000
    # recency "junk" is unknown, so "blob" sorts after "nullvalue"; the title survives.
    assert [(d.reference, d.title, d.cwd) for d in store.discover()] == [
        ("nullvalue", "from composerData", None),
        ("blob", "Blob head", "/w"),
    ]
    assert_discovery_matches_load(store)


def test_kv_blob_values_and_bad_utf8(tmp_path: Path) -> None:
    db = _db(tmp_path)
    spec = _simple("s", 1000)
    db.session(spec)
    db.put("composerData:s", (spec.composer_data or "").encode())  # BLOB storage class
    db.put("bubbleId:s:v", fx.assistant_bubble("v", "blob bubble").encode())
    db.put("bubbleId:s:w", b"\xff\xfe not utf-8")
    db.close()
    body = CursorDesktopStore(tmp_path).load("s")
    assert body.composer_data == spec.composer_data
    assert [row.key for row in body.bubbles] == ["bubbleId:s:u", "bubbleId:s:v"]
    assert body.bubbles[1].value == fx.assistant_bubble("v", "blob bubble")


def test_archived_subagent_and_draft_sessions_with_bubbles_are_listed(tmp_path: Path) -> None:
    db = _db(tmp_path)
    for cid, created in (("arch", 3000), ("sub", 2000), ("drafty", 1000)):
        db.session(_simple(cid, created, header=False))
    db.header(
        Header("arch", fx.head_3_16("arch", 3000, is_archived=True), is_archived=1, recency=3000)
    )
    db.header(Header("sub", fx.head_3_16("sub", 2000), is_subagent=1, recency=2000))
    db.header(Header("drafty", fx.head_3_16("drafty", 1000, is_draft=True), recency=1000))
    db.close()
    assert [d.reference for d in CursorDesktopStore(tmp_path).discover()] == [
        "arch",
        "sub",
        "drafty",
    ]


def test_discovery_never_needs_bubble_bodies(tmp_path: Path) -> None:
    db = _db(tmp_path)
    db.session(
        Session(
            cid="odd",
            composer_data="{not json",
            bubbles=[("x", "{corrupt"), ("y", "\x00" * 10), ("z", "[" * 5000)],
            header=Header("odd", "not json either", created_at=1000, recency=1000),
        )
    )
    db.put("bubbleId:odd:big", "x" * 2_000_000)
    db.session(Session(cid="arr", composer_data="[1, 2]", bubbles=[("x", "{}")]))
    db.session(Session(cid="str", composer_data='"just a string"', bubbles=[("x", "7")]))
    db.close()
    store = CursorDesktopStore(tmp_path)
    assert [(d.reference, d.title, d.model) for d in store.discover()] == [
        ("odd", None, None),
        ("arr", None, None),
        ("str", None, None),
    ]
    assert_discovery_matches_load(store)
    assert codec.to_common(store.load("odd")).messages == ()


# ---------------------------------------------------------------- composerData as a load reads it


def _one_session(
    tmp_path: Path, cell: str | bytes, *, bubbles: bool = True, as_text: bool = False
) -> CursorDesktopStore:
    """One session whose head names nothing, so title, cwd and model come from ``cell``."""
    db = _db(tmp_path)
    db.session(
        Session(
            cid="s",
            composer_data=None,
            no_composer_row=True,
            bubbles=[("u", fx.user_bubble("u", "hi"))] if bubbles else [],
            header=Header("s", fx.head_3_16("s", 1000), created_at=1000, recency=1000),
        )
    )
    if as_text:  # a TEXT cell holding exactly these bytes, UTF-8 or not
        db.conn.execute(
            "INSERT INTO cursorDiskKV (key, value) VALUES ('composerData:s', CAST(? AS TEXT))",
            (cell,),
        )
    else:
        db.put("composerData:s", cell)
    db.close()
    return CursorDesktopStore(tmp_path)


_DEEP = '{"name":"deep","modelConfig":{"modelName":"m"},"x":' + "[" * 1500 + "]" * 1500 + "}"


# Each cell is one where SQLite's JSON functions (which discovery used to call) and the codec's
# parser read the document differently; discovery must read it the way a load does.
@pytest.mark.parametrize(
    ("cell", "as_text", "expected"),
    [
        pytest.param(
            '{"name":"first","name":"second",'
            '"modelConfig":{"modelName":"m1"},"modelConfig":{"modelName":"m2"}}',
            False,
            ("second", None, "m2"),
            id="duplicate keys: the last wins",
        ),
        pytest.param(
            '{"modelConfig":{"modelName":"m1"},"name":"n","modelConfig":"m2"}',
            False,
            ("n", None, None),
            id="a duplicate of another type replaces the first",
        ),
        pytest.param(
            '{"n\\u0061me":"escaped","modelConfig":{"model\\u004eame":"m"}}',
            False,
            ("escaped", None, "m"),
            id="escaped keys",
        ),
        pytest.param(
            '{"name":42,"subtitle":"  sub  ","modelConfig":["m"],'
            '"workspaceIdentifier":{"uri":{"fsPath":7}},"trackedGitRepos":[{"repoPath":"/repo"}]}',
            False,
            ("sub", "/repo", None),
            id="wrong types",
        ),
        pytest.param(
            '{"name":"n","trackedGitRepos":{"0":{"repoPath":"/x"}},'
            '"agentLocation":{"environment":{"uri":{"fsPath":"/agent"}}}}',
            False,
            ("n", "/agent", None),
            id="an index into an object",
        ),
        pytest.param(
            '{"name":"big","x":-123456789012345678901234567890,'
            '"modelConfig":{"modelName":"m","n":123456789012345678901234567890}}',
            False,
            ("big", None, "m"),
            id="integers beyond 64 bits",
        ),
        pytest.param(' \n{"name":"ws"}\t\r\n', False, ("ws", None, None), id="whitespace"),
        pytest.param(_DEEP, False, (None, None, None), id="nested deeper than Python parses"),
        pytest.param(
            '{"name":"t","x":"\\ud800"}', False, (None, None, None), id="an unpaired surrogate"
        ),
        pytest.param('{"name":"t","x":NaN}', False, (None, None, None), id="NaN"),
        pytest.param(
            '{"name":"t","createdAt":1e400}',
            False,
            (None, None, None),
            id="a number out of range in a member discovery reads",
        ),
        pytest.param('\ufeff{"name":"bom"}', False, (None, None, None), id="a byte-order mark"),
        pytest.param('{"name":"t"} {}', False, (None, None, None), id="trailing data"),
        pytest.param("", False, (None, None, None), id="empty"),
        pytest.param(
            b'{"name":"t","x":"\xff"}', False, (None, None, None), id="a BLOB that is not UTF-8"
        ),
        pytest.param(
            b'{"name":"t","x":"\xff"}', True, (None, None, None), id="TEXT that is not UTF-8"
        ),
        pytest.param(
            b'{"name":"caf\xc3\xa9","modelConfig":{"modelName":"m"}}',
            False,
            ("café", None, "m"),
            id="a UTF-8 BLOB",
        ),
    ],
)
def test_discovery_reads_composer_data_like_load(
    tmp_path: Path, cell: str | bytes, as_text: bool, expected: tuple[str | None, ...]
) -> None:
    store = _one_session(tmp_path, cell, as_text=as_text)
    assert [(d.title, d.cwd, d.model) for d in store.discover()] == [expected]
    assert_discovery_matches_load(store)


_TURN = '{"type":1,"bubbleId":"b1","text":"hi"}'


@pytest.mark.parametrize(
    ("cell", "listed"),
    [
        pytest.param('{"name":"t","conversation":[ \n ]}', False, id="empty"),
        pytest.param('{"name":"t","conversation":[ \n ' + _TURN + " ]}", True, id="one turn"),
        pytest.param('{"conversation":[1]}', True, id="a non-empty array"),
        pytest.param('{"conversation":[' + _TURN + '],"conversation":[]}', False, id="dup, empty"),
        pytest.param('{"conversation":[],"conversation":[' + _TURN + "]}", True, id="dup, turn"),
        pytest.param('{"conversation":{"0":' + _TURN + "}}", False, id="an object"),
        pytest.param('{"conv\\u0065rsation":[' + _TURN + "]}", True, id="an escaped key"),
        pytest.param('{"conversation":[' + _TURN + '],"x":NaN}', False, id="not JSON"),
        pytest.param("[[" + _TURN + "]]", False, id="not an object"),
    ],
)
def test_inline_conversations_are_read_like_load(tmp_path: Path, cell: str, listed: bool) -> None:
    store = _one_session(tmp_path, cell, bubbles=False)
    assert [d.reference for d in store.discover()] == (["s"] if listed else [])
    if listed:
        assert_discovery_matches_load(store)


@pytest.mark.xfail(
    strict=True,
    reason="known gap (see the store's module notes): a number beyond the double range in a "
    "composerData member discovery skips invalidates the document only for a load",
)
def test_out_of_range_number_in_a_skipped_member(tmp_path: Path) -> None:
    store = _one_session(tmp_path, '{"name":"t","x":1e400}')
    assert_discovery_matches_load(store)


@pytest.mark.parametrize(
    ("target", "others"),
    [
        ("x_y", ["xzy", "X_Y", "x_yz"]),
        ("a%c", ["abc", "a%cd", "A%C"]),
        ("abc", ["ABC", "abcd", "zabc"]),
        ("a", ["ab", "ba", "A"]),
    ],
)
def test_ids_never_adopt_other_sessions_rows(
    tmp_path: Path, target: str, others: list[str]
) -> None:
    db = _db(tmp_path)
    for n, cid in enumerate([target, *others]):
        db.session(
            Session(
                cid=cid,
                composer_data=js({"composerId": cid, "name": cid, "createdAt": 1000 + n}),
                bubbles=[(f"b{n}", fx.user_bubble(f"b{n}", cid))],
                aux=[
                    (f"checkpointId:{cid}:k{n}", "{}"),
                    (f"composerVirtualRowHeights:{cid}", "{}"),
                ],
            )
        )
    db.put(f"x:{target}{target}", "{}")  # contains the id, but is not <kind>:<id>[:…]
    db.put(f"agentKv:checkpoint:{target}", "{}")
    db.close()
    store = CursorDesktopStore(tmp_path)
    body = store.load(target)
    assert [row.key for row in body.bubbles] == [f"bubbleId:{target}:b0"]
    assert [row.key for row in body.aux] == [
        f"checkpointId:{target}:k0",
        f"composerVirtualRowHeights:{target}",
    ]
    assert {d.reference for d in store.discover()} == {target, *others}
    with pytest.raises(BadInput):
        store.load("%")
    with pytest.raises(BadInput):
        store.load("_")


def test_unknown_id_is_a_one_line_bad_input(tmp_path: Path) -> None:
    fx.app_3_16(db_path(tmp_path))
    with pytest.raises(BadInput) as caught:
        CursorDesktopStore(tmp_path).load("nope\nnewline")
    assert str(caught.value) == "no cursor_desktop session `nope\\nnewline`"
    with pytest.raises(BadInput):
        CursorDesktopStore(tmp_path).load("")


# ------------------------------------------------------------------------------------ fingerprints


def test_fingerprints(tmp_path: Path) -> None:
    path = fx.app_3_16(db_path(tmp_path))
    store = CursorDesktopStore(tmp_path)
    first = store.fingerprints([fx.CID_A, fx.CID_LEGACY, "nope", fx.CID_A])
    assert set(first) == {fx.CID_A, fx.CID_LEGACY, "nope"}
    assert first[fx.CID_A].startswith(f"{fx.T0 + 5000}/")
    assert first[fx.CID_LEGACY].startswith("/")  # no header row, but still a token
    assert first["nope"] == ""

    # The app bumps lastUpdatedAt → the token changes.
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE composerHeaders SET lastUpdatedAt = lastUpdatedAt + 1 WHERE composerId = ?",
            (fx.CID_A,),
        )
    second = store.fingerprints([fx.CID_A, fx.CID_LEGACY])
    assert second[fx.CID_A] != first[fx.CID_A]
    assert second[fx.CID_LEGACY] == first[fx.CID_LEGACY]

    # Content re-saved with the same lastUpdatedAt (the reference's blind spot) → changes too.
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO cursorDiskKV VALUES (?, ?)",
            (f"bubbleId:{fx.CID_A}:a-user", fx.user_bubble("a-user", "Run the tests again")),
        )
        conn.execute(
            "INSERT OR REPLACE INTO cursorDiskKV VALUES (?, ?)",
            (f"bubbleId:{fx.CID_LEGACY}:l-user", fx.user_bubble("l-user", "edited")),
        )
    third = store.fingerprints([fx.CID_A, fx.CID_LEGACY])
    assert third[fx.CID_A] != second[fx.CID_A]
    assert third[fx.CID_LEGACY] != second[fx.CID_LEGACY]
    assert store.fingerprints([]) == {}


def test_fingerprints_without_a_usable_database(tmp_path: Path) -> None:
    store = CursorDesktopStore(tmp_path)
    assert store.fingerprints(["a"]) == {"a": ""}
    db_path(tmp_path).parent.mkdir(parents=True)
    db_path(tmp_path).write_bytes(b"definitely not sqlite" * 10)
    assert store.fingerprints(["a", "b"]) == {"a": "", "b": ""}


# ------------------------------------------------------------------------------------ scale


def test_discovery_is_one_query_and_scales(tmp_path: Path) -> None:
    db = _db(tmp_path)
    for n in range(1500):
        cid = f"{n:08d}-0000-4000-8000-000000000000"
        db.put(
            f"composerData:{cid}",
            js(
                {
                    "_v": 17,
                    "composerId": cid,
                    "modelConfig": {"modelName": "m"},
                    "conversationState": "~" + "A" * 4000,
                }
            ),
        )
        db.header(Header(cid, fx.head_3_16(cid, n, name=f"s{n}"), created_at=n + 1, recency=n + 1))
        if n % 3:
            for b in range(3):
                db.put(f"bubbleId:{cid}:{b}", fx.user_bubble(str(b), "x" * 2000))
    db.close()
    store = CursorDesktopStore(tmp_path)
    statements: list[str] = []
    original = sqlite3.connect

    def tracing(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = original(*args, **kwargs)  # type: ignore[arg-type]
        if "metadata.sqlite3" not in str(args[0]):  # txcript's own cache is not the store
            conn.set_trace_callback(statements.append)
        return conn

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite3, "connect", tracing)
        found = store.discover()
    assert len(found) == 1000
    assert found[0].title == "s1499"
    selects = [s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))]
    assert len(selects) <= 3, selects
    assert not any("LIKE" in s.upper() for s in statements)
