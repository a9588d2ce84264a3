"""Direct lookup in the Cursor desktop store: an id or id prefix is one key-range query, and it
names the same session (or gives the same error) as a full discovery, in every generation."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import dbfixtures as fx
import pytest
from dbfixtures import js

from lookup_checks import assert_same_answers
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore

GENERATIONS: dict[str, Callable[[Path], Path]] = {
    "3.16": fx.app_3_16,
    "3.7": fx.app_3_7,
    "1.7": fx.app_1_7,
    "0.50": fx.app_0_50,
    "0.45": fx.app_0_45,
}
#: Shares its first 13 characters with ``fx.CID_A``: the prefix ``3f0c9a52-6d1e`` is ambiguous.
TWIN = "3f0c9a52-6d1e-4fff-8fff-ffffffffffff"


def add_twin(database: Path) -> None:
    """A header-less session whose id shares a prefix with session A (3.16)."""
    with sqlite3.connect(database) as conn:
        conn.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (f"composerData:{TWIN}", js({"composerId": TWIN, "name": "Twin", "createdAt": 1})),
        )
        conn.execute(
            "INSERT INTO cursorDiskKV VALUES (?, ?)",
            (f"bubbleId:{TWIN}:b1", fx.user_bubble("b1", "hi")),
        )


def references(store: CursorDesktopStore) -> tuple[list[str], list[str]]:
    """Refs a lookup answers (ids, unique prefixes, id#range) and refs only discovery can."""
    listed = store.discover()
    ids = [d.meta_id for d in listed]
    direct: list[str] = []
    others = ["no-such-session", "zz#1", fx.EMPTY_DRAFT, fx.CID_DRAFT, "3f0c9a52-6d1e"]
    for cid in ids:
        direct.append(cid)
        direct.append(f"{cid}#1")
        for length in (4, 9, 20):
            prefix = cid[:length]
            if sum(other.startswith(prefix) for other in ids) == 1:
                direct.append(prefix)
            else:
                others.append(prefix)
    others += [d.title for d in listed if d.title]
    return direct, [o for o in others if o not in direct]


@pytest.mark.parametrize("generation", list(GENERATIONS))
def test_lookup_names_what_discovery_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, generation: str
) -> None:
    database = GENERATIONS[generation](tmp_path / "globalStorage" / "state.vscdb")
    if generation == "3.16":
        add_twin(database)
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(tmp_path))
    store = CursorDesktopStore(tmp_path)
    direct, others = references(store)
    assert direct
    assert_same_answers(monkeypatch, CursorDesktopStore, direct, others)
    assert_same_answers(monkeypatch, CursorDesktopStore, direct, others, scope="cursor_desktop")
    listed = {d.meta_id: d for d in store.discover()}
    for cid, session in listed.items():
        assert store.lookup(cid) == [session]
    assert store.lookup(fx.CID_DRAFT) == []  # exists, but has no message: not listed


def test_lookup_on_3_16_finds_the_ambiguous_pair(tmp_path: Path) -> None:
    add_twin(fx.app_3_16(tmp_path / "globalStorage" / "state.vscdb"))
    store = CursorDesktopStore(tmp_path)
    assert {d.meta_id for d in store.lookup("3f0c9a52-6d1e")} == {fx.CID_A, TWIN}
    assert [d.meta_id for d in store.lookup("3f0c9a52-6d1e-4b")] == [fx.CID_A]


def test_lookup_bounds_are_exact(tmp_path: Path) -> None:
    """Keys that sort just outside a prefix's range are never matched, whatever they hold."""
    database = tmp_path / "globalStorage" / "state.vscdb"
    db = fx.StateDB(database)
    for cid in ("ab", "ab\U0010ffff", "ac", "aa\uffff", "ab-é", "b"):
        db.put(f"composerData:{cid}", js({"name": cid}))
        db.put(f"bubbleId:{cid}:b1", fx.user_bubble("b1", "hi"))
    db.close()
    store = CursorDesktopStore(tmp_path)
    assert sorted(d.meta_id for d in store.lookup("ab")) == ["ab", "ab-é", "ab\U0010ffff"]
    assert [d.meta_id for d in store.lookup("ab-")] == ["ab-é"]
    assert store.lookup("a\udcff") == []  # a lone surrogate names no stored key
    assert store.lookup("'; DROP TABLE cursorDiskKV; --") == []
    assert len(store.discover()) == 6


def test_lookup_without_a_database(tmp_path: Path) -> None:
    assert CursorDesktopStore(tmp_path).lookup("abc") == []
    (tmp_path / "globalStorage").mkdir()
    (tmp_path / "globalStorage" / "state.vscdb").write_bytes(b"")
    assert CursorDesktopStore(tmp_path).lookup("abc") == []
    assert os.path.getsize(tmp_path / "globalStorage" / "state.vscdb") == 0
