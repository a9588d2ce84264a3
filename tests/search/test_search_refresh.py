"""A query brings the index in step by reading as little of the stores as it can: an unwritten
store is used as held, a store of files lists and reads only the files that changed, and the
index's own listing is the one discovery gives."""

from __future__ import annotations

import sqlite3
import sys
import warnings
from datetime import timedelta
from pathlib import Path

import pytest
from searchfixtures import BASE, ONE, THREE, TWO, Counted, save_claude, stores_under, transcript
from searchfixtures import ids as _ids

from txcript import harnesses
from txcript.harnesses.base import Discovered
from txcript.harnesses.claude_code.store import ClaudeCodeStore
from txcript.search import find, indexed_sessions, open_index
from txcript.search import index as index_module
from txcript.sessions import discover

sys.path.insert(0, str(Path(__file__).parents[1] / "cursor_desktop"))
import dbfixtures as fx


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return stores_under(tmp_path, monkeypatch)


def _counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    return Counted(monkeypatch, ClaudeCodeStore, label=lambda reference: Path(reference).stem)


def test_a_warm_query_lists_and_reads_only_the_claude_files_that_changed(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = stores / "claude"
    one = save_claude(root, transcript(ONE, [("user", "alpha")], day=0))
    save_claude(root, transcript(TWO, [("user", "beta")], day=1))
    counted = _counted(monkeypatch)

    assert _ids() == [TWO, ONE]
    assert counted.take() == ([ONE, TWO], [[ONE, TWO]])  # the first query reads both
    assert _ids("beta") == [TWO]
    assert counted.take() == ([], [])  # nothing changed: nothing listed, nothing read

    save_claude(root, transcript(THREE, [("user", "gamma")], day=2))
    assert _ids("gamma") == [THREE]
    assert counted.take() == ([THREE], [[THREE]])

    with one.open("a") as handle:  # an appended message moves size and mtime
        handle.write(one.read_text().splitlines()[-1].replace("alpha", "delta") + "\n")
    assert _ids("delta") == [ONE]
    assert counted.take() == ([ONE], [[ONE]])

    one.unlink()
    assert _ids() == [THREE, TWO]
    assert counted.take() == ([], [])  # a gone file is pruned without listing anything


def test_a_claude_file_holding_no_session_is_listed_once_until_it_changes(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code leaves files of summaries only (and of file-history snapshots only): they
    hold no session, so the index held nothing under their fingerprint and listed (read) every
    one of them again on every query. It now records them as listing nothing, until they change
    or go."""
    root = stores / "claude"
    save_claude(root, transcript(ONE, [("user", "alpha")], day=0))
    project = next((root / "projects").iterdir())
    summary, snapshots = project / f"{TWO}.jsonl", project / f"{THREE}.jsonl"
    line = '{"type":"summary","summary":"Old chat","leafUuid":"' + THREE + '"}\n'
    summary.write_text(line)
    snapshots.write_text('{"type":"file-history-snapshot","messageId":"m","snapshot":{}}\n')
    counted = _counted(monkeypatch)

    def unlisted() -> int:
        index = open_index()
        try:
            return int(index.conn.execute("SELECT count(*) FROM unlisted").fetchone()[0])
        finally:
            index.close()

    assert _ids() == [ONE]
    assert counted.take() == ([ONE], [[ONE, TWO, THREE]])
    assert _ids() == [ONE]
    assert counted.take() == ([], [])  # neither file is listed again
    assert unlisted() == 2

    with summary.open("a") as handle:  # it changes (and still holds no session)
        handle.write(line.replace("Old", "Older"))
    assert _ids() == [ONE]
    assert counted.take() == ([], [[TWO]])
    assert _ids() == [ONE]
    assert counted.take() == ([], [])

    snapshots.unlink()
    assert _ids() == [ONE]
    assert counted.take() == ([], [])
    assert unlisted() == 1

    summary.write_text((project / f"{ONE}.jsonl").read_text().replace(ONE, TWO))  # now it does
    assert sorted(_ids()) == sorted([ONE, TWO])
    assert counted.take() == ([TWO], [[TWO]])
    assert unlisted() == 0


def test_the_listing_the_index_holds_is_the_one_discovery_gives(stores: Path) -> None:
    root = stores / "claude"
    for n, session in enumerate((ONE, TWO, THREE)):
        save_claude(root, transcript(session, [("user", f"text {n}")], title=f"T{n}", day=n))
    fx.app_3_16(stores / "Cursor" / "User" / "globalStorage" / "state.vscdb")
    index = open_index()
    try:
        assert indexed_sessions(index)  # builds
        held = indexed_sessions(index)  # from the index
    finally:
        index.close()
    assert held == discover()


def test_equal_start_times_keep_discoverys_order(stores: Path) -> None:
    root = stores / "claude"
    for session in (THREE, ONE, TWO):  # one start time for all
        save_claude(root, transcript(session, [("user", "same time")], day=0))
    index = open_index()
    try:
        indexed_sessions(index)
        held = [s.meta_id for s in indexed_sessions(index)]
    finally:
        index.close()
    assert held == [s.meta_id for s in discover()] == [ONE, TWO, THREE]


def test_since_and_until_hold_to_the_microsecond(stores: Path) -> None:
    save_claude(stores / "claude", transcript(ONE, [("user", "edge")], day=0))
    tick = timedelta(microseconds=1)
    assert [m.session.meta_id for m in find("edge", since=BASE)] == [ONE]
    assert [m.session.meta_id for m in find("edge", until=BASE)] == [ONE]
    assert find("edge", since=BASE + tick) == []
    assert find("edge", until=BASE - tick) == []


def test_a_file_that_is_no_session_file_warns_on_every_query(stores: Path) -> None:
    root = stores / "claude"
    save_claude(root, transcript(ONE, [("user", "alpha")]))
    garbage = root / "projects" / "-work-acme" / f"{TWO}.jsonl"
    garbage.write_bytes(b"\x00\x01 not json at all\n")
    for _ in range(2):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            assert _ids("alpha") == [ONE]
        assert [str(w.message) for w in said if str(garbage) in str(w.message)], "warned again"


def test_a_session_that_could_not_be_read_is_listed_and_read_again(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = stores / "claude"
    save_claude(root, transcript(ONE, [("user", "alpha")], day=0))
    save_claude(root, transcript(TWO, [("user", "beta")], day=1))
    real = index_module._read_lines
    attempts: list[str] = []

    def failing(session: Discovered) -> object:
        attempts.append(session.meta_id)
        return None if session.meta_id == TWO else real(session)

    monkeypatch.setattr(index_module, "_read_lines", failing)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            assert _ids() == [TWO, ONE]  # listed, though it has no lines
            assert _ids("beta") == []
        assert any("could not be read" in str(w.message) for w in said)
    assert attempts.count(TWO) == 4 and attempts.count(ONE) == 1
    monkeypatch.setattr(index_module, "_read_lines", real)
    assert _ids("beta") == [TWO]  # read once it can be


def test_an_unwritten_cursor_store_is_searched_without_opening_it(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    fx.written_ago(database, 60)
    first = _ids()
    assert first

    def refused(root: Path) -> object:
        raise AssertionError("an unwritten store must not be opened")

    monkeypatch.setattr(harnesses.get("cursor_desktop"), "open_store", refused)
    assert _ids() == first


def test_a_store_that_fails_keeps_its_sessions_for_when_it_reads_again(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Cursor database caught unreadable (mid-copy, say) is skipped with a warning; its
    sessions stay in the index, so once it reads again nothing has to be read again."""
    database = stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    save_claude(stores / "claude", transcript(ONE, [("user", "alpha")], day=400))
    every = _ids()
    assert ONE in every and len(every) > 1
    good = database.read_bytes()
    database.write_bytes(b"this is not an SQLite database" * 200)
    counted = _counted(monkeypatch)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert _ids() == [ONE]
    assert any("skipping cursor_desktop" in str(w.message) for w in said)
    database.write_bytes(good)
    assert _ids() == every
    assert counted.take()[0] == []  # the held sessions stood: none read again


def test_a_damaged_listing_in_the_index_degrades_with_one_warning(stores: Path) -> None:
    save_claude(stores / "claude", transcript(ONE, [("user", "alpha")]))
    assert _ids("alpha") == [ONE]
    path = stores / "cache" / "search.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("UPDATE doc SET listing = x'7b6e6f74'")
    conn.commit()
    conn.close()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert _ids("alpha") == [ONE]
    assert len([w for w in said if "search" in str(w.message)]) == 1
