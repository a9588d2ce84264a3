"""The metadata cache under Cursor desktop discovery: a warm listing reads no composerData cell,
equals a cold one, and every kind of change to a session reads that session again."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import dbfixtures as fx
import pytest
from dbfixtures import Header, StateDB

from txcript.harnesses.cursor_desktop import codec
from txcript.harnesses.cursor_desktop import discovery as discovery_module
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared.cache import close_metadata_cache
from txcript.shared.dirs import cache_dir

T0 = fx.T0
ONE = "11111111-0000-4000-8000-000000000001"
TWO = "22222222-0000-4000-8000-000000000002"
DRAFT = "33333333-0000-4000-8000-000000000003"


def composer(cid: str, model: str) -> str:
    return fx.composer_3_16(cid, None, T0, model, ["b1"])


def build(root: Path) -> Path:
    db = StateDB(root / "globalStorage" / "state.vscdb")
    for cid, cwd in ((ONE, "/w/one"), (TWO, None)):
        head = fx.head_3_16(cid, T0, name=f"title {cid[:2]}", cwd=cwd)
        db.header(Header(cid, head, created_at=T0, last_updated_at=T0 + 1, recency=T0))
        db.put(f"composerData:{cid}", composer(cid, "model-a"))
        db.put(f"bubbleId:{cid}:b1", fx.user_bubble("b1", "hello"))
    head = fx.head_3_16(DRAFT, T0, name="draft", cwd="/w/d")
    db.header(Header(DRAFT, head, created_at=T0, last_updated_at=T0 + 1, recency=T0))
    db.put(f"composerData:{DRAFT}", composer(DRAFT, "model-a"))
    return db.close()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    build(tmp_path)
    return tmp_path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many composerData cells discovery parses."""
    calls: list[int] = []
    original = discovery_module._composer_cell

    def counted(raw: bytes | None) -> tuple[object, bool]:
        calls.append(1)
        return original(raw)

    monkeypatch.setattr(discovery_module, "_composer_cell", counted)
    yield calls


def models(root: Path) -> dict[str, str | None]:
    return {d.meta_id: d.model for d in CursorDesktopStore(root).discover()}


def execute(root: Path, sql: str, *args: object) -> None:
    with sqlite3.connect(root / "globalStorage" / "state.vscdb") as conn:
        conn.execute(sql, args)


def test_a_warm_listing_reads_no_cell_and_equals_the_cold_one(root: Path, reads: list[int]) -> None:
    store = CursorDesktopStore(root)
    cold = store.discover()
    assert len(reads) == 3  # two sessions and the draft (is its conversation inline?)
    warm = store.discover()
    assert warm == cold and len(reads) == 3
    assert (cache_dir() / "metadata.sqlite3").is_file()
    for item in warm:  # still exactly what a load derives
        meta = codec.to_common(store.load(item.reference)).meta
        assert (item.title, item.cwd, item.model, item.timestamp) == (
            meta.title,
            meta.cwd,
            meta.model,
            meta.timestamp,
        )


def test_a_new_bubble_is_seen(root: Path) -> None:
    assert models(root) == {ONE: "model-a", TWO: "model-a"}
    # What the app does on a new message: a bubble row, composerData rewritten (INSERT OR
    # REPLACE: a new rowid) and the header's lastUpdatedAt moved; and a draft's first bubble.
    execute(root, "INSERT INTO cursorDiskKV VALUES (?, ?)", f"bubbleId:{ONE}:b2", "{}")
    execute(
        root,
        "INSERT OR REPLACE INTO cursorDiskKV VALUES (?, ?)",
        f"composerData:{ONE}",
        composer(ONE, "model-b"),
    )
    execute(root, "INSERT INTO cursorDiskKV VALUES (?, ?)", f"bubbleId:{DRAFT}:b1", "{}")
    assert models(root) == {ONE: "model-b", TWO: "model-a", DRAFT: "model-a"}


def test_a_rewrite_of_the_same_length_in_place_is_seen(root: Path) -> None:
    assert models(root)[ONE] == "model-a"
    # UPDATE keeps the rowid and the length; only the header's lastUpdatedAt moves.
    execute(
        root,
        "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
        composer(ONE, "model-z"),
        f"composerData:{ONE}",
    )
    assert models(root)[ONE] == "model-a"  # nothing in the key moved: the cached fields stand
    execute(root, "UPDATE composerHeaders SET lastUpdatedAt = ? WHERE composerId = ?", T0 + 2, ONE)
    assert models(root)[ONE] == "model-z"


def test_a_deleted_and_recreated_session_is_seen(root: Path) -> None:
    assert models(root)[TWO] == "model-a"
    execute(root, "DELETE FROM cursorDiskKV WHERE key = ?", f"composerData:{TWO}")
    assert TWO in models(root)  # still listed: it has a bubble and a header
    execute(
        root,
        "INSERT INTO cursorDiskKV VALUES (?, ?)",
        f"composerData:{TWO}",
        composer(TWO, "model-q"),
    )  # same length and header, a new rowid
    assert models(root)[TWO] == "model-q"


def test_a_session_without_last_updated_at_is_never_taken_from_the_cache(root: Path) -> None:
    execute(root, "UPDATE composerHeaders SET lastUpdatedAt = NULL WHERE composerId = ?", ONE)
    assert models(root)[ONE] == "model-a"
    execute(
        root,
        "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
        composer(ONE, "model-z"),
        f"composerData:{ONE}",
    )
    assert models(root)[ONE] == "model-z"


def test_the_human_listing_skips_cells_whose_head_has_title_and_cwd(
    root: Path, reads: list[int]
) -> None:
    store = CursorDesktopStore(root)
    titles = store.discover_titles()
    # ONE's head has title and cwd: not read. TWO's head has no cwd, the draft no bubble.
    assert len(reads) == 2
    assert {d.meta_id: d.model for d in titles} == {ONE: None, TWO: "model-a"}
    full = store.discover()
    assert [(d.meta_id, d.title, d.cwd, d.timestamp) for d in titles] == [
        (d.meta_id, d.title, d.cwd, d.timestamp) for d in full
    ]
    reads.clear()
    assert store.discover_titles() == full  # warm: every cell came from the cache
    assert reads == []


def test_a_corrupt_cache_file_is_built_again_with_one_warning(root: Path) -> None:
    """Left in place, a damaged file failed every later run the same way (each one listing
    cold, with the same warning): it is replaced at once, and the next run uses the new one."""
    expected = CursorDesktopStore(root).discover()
    close_metadata_cache()  # a new process opens the file afresh
    path = cache_dir() / "metadata.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"not a database, not at all" * 200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert CursorDesktopStore(root).discover() == expected
        assert CursorDesktopStore(root).discover() == expected
        close_metadata_cache()  # the next process
        assert CursorDesktopStore(root).discover() == expected
    assert [str(w.message) for w in caught] == [
        "metadata cache damaged (file is not a database); building a new one"
    ]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM listing").fetchone()[0] > 0
    finally:
        conn.close()


def test_a_cache_dir_that_cannot_be_made_degrades_with_one_warning(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(blocker / "cache"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert len(CursorDesktopStore(root).discover()) == 2
    assert len(caught) == 1 and "metadata cache unavailable" in str(caught[0].message)


def test_a_format_change_discards_the_cache(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from txcript.shared import cache

    assert models(root)[ONE] == "model-a"
    execute(
        root,
        "UPDATE cursorDiskKV SET value = ? WHERE key = ?",
        composer(ONE, "model-z"),
        f"composerData:{ONE}",
    )
    monkeypatch.setattr(cache, "METADATA_FORMAT", "metadata-test")
    close_metadata_cache()
    assert models(root)[ONE] == "model-z"


def test_entries_of_gone_sessions_are_pruned(root: Path) -> None:
    assert len(models(root)) == 2
    execute(root, "DELETE FROM cursorDiskKV WHERE key LIKE ?", f"%{TWO}%")
    execute(root, "DELETE FROM composerHeaders WHERE composerId = ?", TWO)
    assert list(models(root)) == [ONE]
    with sqlite3.connect(cache_dir() / "metadata.sqlite3") as conn:
        references = [r for (r,) in conn.execute("SELECT reference FROM listing")]
    assert sorted(references) == sorted([ONE, DRAFT])


def test_a_cell_that_is_not_utf8_is_read_each_time(root: Path, reads: list[int]) -> None:
    execute(
        root, "UPDATE cursorDiskKV SET value = ? WHERE key = ?", b"\xff\xfe{", f"composerData:{TWO}"
    )
    CursorDesktopStore(root).discover()
    first = len(reads)
    CursorDesktopStore(root).discover()
    assert len(reads) == first  # cached as "no document" like any other cell


def test_a_changed_head_is_seen_even_when_nothing_else_moved(root: Path, reads: list[int]) -> None:
    """The listing cached for a session depends on its head too: a rename in the head alone
    (same lastUpdatedAt, same cell) shows the new title."""
    store = CursorDesktopStore(root)
    assert {d.meta_id: d.title for d in store.discover()}[ONE] == "title 11"
    reads.clear()
    head = fx.head_3_16(ONE, T0, name="renamed in the head", cwd="/w/one")
    execute(root, "UPDATE composerHeaders SET value = ? WHERE composerId = ?", head, ONE)
    assert {d.meta_id: d.title for d in store.discover()}[ONE] == "renamed in the head"
    assert len(reads) == 1  # that session's cell only
    reads.clear()
    execute(root, "UPDATE composerHeaders SET createdAt = ? WHERE composerId = ?", T0 - 9, ONE)
    listed = {d.meta_id: d for d in store.discover()}
    assert listed[ONE].timestamp == datetime.fromtimestamp((T0 - 9) / 1000, UTC)
    assert len(reads) == 1


_LIST_PROBE = """
import json, sys
from txcript.cli import main
sys.argv = ["txcript", "list", "--from", "cursor_desktop", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
print("\\n" + json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("flags", [("--json",), ()])
def test_a_listing_cold_or_warm_imports_neither_the_codec_nor_its_tools(
    root: Path, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    """Listing derives metadata with the small meta module: the codec, its tool tables and the
    writer are for loads and saves."""
    import json
    import subprocess
    import sys

    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(root))
    for _ in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", _LIST_PROBE, *flags],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        assert "title 11" in done.stdout
        modules = set(json.loads(done.stderr.strip().splitlines()[-1]))
        assert "txcript.harnesses.cursor_desktop.discovery" in modules
        loaded = {"codec", "tools", "write", "saving", "text"} & {
            m.rsplit(".", 1)[-1]
            for m in modules
            if m.startswith("txcript.harnesses.cursor_desktop.")
        }
        assert loaded == set()
