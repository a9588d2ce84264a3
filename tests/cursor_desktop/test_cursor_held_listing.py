"""A Cursor desktop listing kept whole under the database's change token: an untouched database
is listed without being read, and any write to it is seen by the next listing."""

from __future__ import annotations

import os
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path

import dbfixtures as fx
import pytest
from dbfixtures import Header, StateDB

from txcript import sessions
from txcript.diagnostics import warn
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared.cache import cache_path, close_metadata_cache, metadata_cache_off

T0 = fx.T0
ONE = "11111111-0000-4000-8000-000000000001"
TWO = "22222222-0000-4000-8000-000000000002"
#: An mtime long past, so the database's change token is settled (see shared/sqlite.py).
LONG_AGO_NS = 1_700_000_000 * 10**9


def add_session(db: StateDB, cid: str, title: str) -> None:
    head = fx.head_3_16(cid, T0, name=title, cwd="/w/" + title)
    db.header(Header(cid, head, created_at=T0, last_updated_at=T0 + 1, recency=T0))
    db.put(f"composerData:{cid}", fx.composer_3_16(cid, None, T0, "model-a", ["b1"]))
    db.put(f"bubbleId:{cid}:b1", fx.user_bubble("b1", "hello " + title))


def settle(database: Path, age_ns: int = 0) -> None:
    for path in (database, Path(f"{database}-wal")):
        if path.exists():
            os.utime(path, ns=(LONG_AGO_NS + age_ns, LONG_AGO_NS + age_ns))


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    db = StateDB(tmp_path / "User" / "globalStorage" / "state.vscdb")
    add_session(db, ONE, "one")
    path = db.close()
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(tmp_path / "User"))
    return path


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the store itself is listed."""
    calls: list[int] = []
    original = CursorDesktopStore._discover

    def counted(self: CursorDesktopStore, *args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(CursorDesktopStore, "_discover", counted)
    yield calls


def ids(**kwargs: bool) -> list[str]:
    return [d.meta_id for d in sessions.discover(["cursor_desktop"], **kwargs)]


def test_an_untouched_database_is_listed_once_then_from_the_cache(
    database: Path, listings: list[int]
) -> None:
    settle(database)
    first = sessions.discover(["cursor_desktop"])
    close_metadata_cache()  # the next listing is a new process as far as the cache knows
    assert sessions.discover(["cursor_desktop"]) == first
    assert [d.meta_id for d in first] == [ONE] and len(listings) == 1
    # The human listing (no model) is kept on its own: it may leave the model out.
    assert ids(with_model=False) == [ONE] and ids(with_model=False) == [ONE]
    assert len(listings) == 2


def test_a_write_moves_the_token_and_the_next_listing_sees_it(
    database: Path, listings: list[int]
) -> None:
    settle(database)
    assert ids() == [ONE] and ids() == [ONE] and len(listings) == 1
    with sqlite3.connect(database) as conn:
        conn.execute("DELETE FROM composerHeaders WHERE composerId = ?", (ONE,))
        conn.execute("DELETE FROM cursorDiskKV WHERE key LIKE ?", (f"%{ONE}%",))
    conn.close()
    # Just written: the file system's timestamps may not have moved yet, so nothing is trusted.
    assert ids() == [] and ids() == [] and len(listings) == 3
    settle(database, age_ns=1)
    assert ids() == [] and len(listings) == 4
    assert ids() == [] and len(listings) == 4


def test_a_new_session_written_by_another_process_is_listed(
    database: Path, listings: list[int]
) -> None:
    settle(database)
    assert ids() == [ONE]
    other = StateDB.__new__(StateDB)  # another process adding a session to the same file
    other.path, other.headers = database, "app"
    other.conn = sqlite3.connect(database, isolation_level=None)
    other.conn.execute("BEGIN")
    add_session(other, TWO, "two")
    other.close()
    settle(database, age_ns=2)
    assert sorted(ids()) == sorted([ONE, TWO]) and len(listings) == 2


def test_a_listing_that_warned_is_made_again_so_the_warning_is_given_again(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settle(database)
    original = CursorDesktopStore._discover

    def warning(self: CursorDesktopStore, *args: object, **kwargs: object) -> object:
        warn("skipping one session: damaged")
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(CursorDesktopStore, "_discover", warning)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert ids() == [ONE] and ids() == [ONE]
    assert [str(w.message) for w in said] == ["skipping one session: damaged"] * 2


def test_a_damaged_kept_listing_is_replaced_not_trusted(
    database: Path, listings: list[int]
) -> None:
    settle(database)
    assert ids() == [ONE]
    close_metadata_cache()
    with sqlite3.connect(cache_path("metadata")) as conn:
        assert conn.execute("UPDATE held SET listing = ?", (b'[{"harness": 1}]',)).rowcount == 1
    conn.close()
    assert ids() == [ONE] and len(listings) == 2
    assert ids() == [ONE] and len(listings) == 2


def test_doctor_mode_neither_trusts_nor_keeps_a_listing(
    database: Path, listings: list[int]
) -> None:
    settle(database)
    with metadata_cache_off():
        assert ids() == [ONE] and ids() == [ONE]
    assert len(listings) == 2
    assert not cache_path("metadata").exists()
