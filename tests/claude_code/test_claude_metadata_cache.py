"""The metadata cache under Claude Code discovery: a file whose (size, mtime ns) the cache holds
is not read again, and a file appended to, truncated or rewritten (even with an mtime earlier
than before) is."""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

import pytest
from claude_fixtures import SID, assistant, jsonl, put, realistic_records, store, text, user

from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.claude_code import reader
from txcript.harnesses.claude_code import store as store_module
from txcript.shared.cache import close_metadata_cache
from txcript.shared.dirs import cache_dir

OLD_NS = 1_780_000_000_000_000_000  # settled long ago


def records(title: str) -> list[object]:
    return [
        user("u1", None, "09:00:00", "hello"),
        assistant("a1", "u1", "09:00:01", [text("hi")]),
        {"type": "custom-title", "customTitle": title, "sessionId": SID},
    ]


def age(path: Path, ns: int = OLD_NS) -> None:
    os.utime(path, ns=(ns, ns))


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session files discovery scans."""
    calls: list[str] = []
    original = store_module.scan_bytes

    def counted(data: bytes, session_id: str) -> store_module.MetaScan:
        calls.append(session_id)
        return original(data, session_id)

    monkeypatch.setattr(store_module, "scan_bytes", counted)
    return calls


def titles(root: Path) -> list[str | None]:
    return [d.title for d in store(root).discover()]


def test_a_warm_listing_reads_no_file_and_equals_the_cold_one(
    tmp_path: Path, scans: list[str]
) -> None:
    path = put(tmp_path, realistic_records())
    age(path)
    cold = store(tmp_path).discover()
    assert scans == [SID]
    warm = store(tmp_path).discover()
    assert warm == cold and scans == [SID]
    assert store(tmp_path).lookup(SID[:8]) == cold and scans == [SID]
    with pytest.warns(TranscriptWarning, match="line 13: not valid JSON"):  # (the fixture's)
        loaded = reader.to_common(store(tmp_path).load(str(path))).meta
    assert (warm[0].title, warm[0].cwd, warm[0].model, warm[0].timestamp) == (
        loaded.title,
        loaded.cwd,
        loaded.model,
        loaded.timestamp,
    )


def test_a_file_appended_to_is_read_again(tmp_path: Path) -> None:
    path = put(tmp_path, records("first"))
    age(path)
    assert titles(tmp_path) == ["first"]
    with path.open("ab") as handle:
        handle.write(jsonl([{"type": "custom-title", "customTitle": "renamed"}]).encode())
    age(path, OLD_NS + 1)
    assert titles(tmp_path) == ["renamed"]


def test_a_file_truncated_in_place_is_read_again(tmp_path: Path) -> None:
    path = put(tmp_path, records("kept title"))
    age(path)
    assert titles(tmp_path) == ["kept title"]
    data = path.read_bytes()
    with path.open("r+b") as handle:
        handle.truncate(data.rindex(b"{"))
    age(path)  # the same mtime: the size alone tells
    assert titles(tmp_path) == [None]


def test_a_rewrite_with_an_earlier_mtime_is_read_again(tmp_path: Path) -> None:
    """A clock that went backwards: same size, an mtime before the cached one."""
    path = put(tmp_path, records("title A"))
    age(path)
    assert titles(tmp_path) == ["title A"]
    path.write_bytes(jsonl(records("title B")).encode())
    age(path, OLD_NS - 10**9)
    assert titles(tmp_path) == ["title B"]


def test_a_file_modified_just_now_is_not_cached(tmp_path: Path, scans: list[str]) -> None:
    """Within its file system's mtime resolution a same-size rewrite could keep the mtime."""
    put(tmp_path, records("fresh"))
    assert titles(tmp_path) == ["fresh"] and titles(tmp_path) == ["fresh"]
    assert scans == [SID, SID]


def test_gone_files_are_forgotten_and_unreadable_ones_warn_each_time(tmp_path: Path) -> None:
    path = put(tmp_path, records("x"))
    age(path)
    garbage = path.parent / "garbage.jsonl"
    garbage.write_bytes(b"not json\n")
    age(garbage)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert titles(tmp_path) == ["x"]
        assert len(caught) == 1 and "garbage.jsonl" in str(caught[0].message)
    path.unlink()
    with pytest.warns(TranscriptWarning, match="garbage.jsonl"):  # (said each time)
        assert titles(tmp_path) == []
    import sqlite3

    with sqlite3.connect(cache_dir() / "metadata.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM listing").fetchone() == (0,)


def test_a_corrupt_cache_file_is_built_again_with_one_warning(tmp_path: Path) -> None:
    path = put(tmp_path, records("x"))
    age(path)
    assert titles(tmp_path) == ["x"]
    close_metadata_cache()
    cache_file = cache_dir() / "metadata.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{cache_file}{suffix}").unlink(missing_ok=True)
    cache_file.write_bytes(os.urandom(8192))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert titles(tmp_path) == ["x"] and titles(tmp_path) == ["x"]
        close_metadata_cache()
        assert titles(tmp_path) == ["x"]
    assert len(caught) == 1 and "metadata cache damaged" in str(caught[0].message)


def test_a_read_only_cache_dir_degrades_with_one_warning(tmp_path: Path) -> None:
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    path = put(tmp_path, records("x"))
    age(path)
    close_metadata_cache()
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o500)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert titles(tmp_path) == ["x"]
        assert len(caught) == 1 and "cache unavailable" in str(caught[0].message)
    finally:
        directory.chmod(0o700)


def test_a_cache_that_is_locked_by_a_writer_degrades_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Works as root too: another process holds the one writer's lock past the timeout."""
    import sqlite3

    from txcript.shared import cache

    path = put(tmp_path, records("x"))
    age(path)
    assert titles(tmp_path) == ["x"]
    monkeypatch.setattr(cache, "_BUSY_TIMEOUT", 0.05)
    close_metadata_cache()
    holder = sqlite3.connect(cache_dir() / "metadata.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        other = put(tmp_path, records("y"), session_id="99999999-0000-4000-8000-000000000009")
        age(other)
        started = time.monotonic()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert sorted(titles(tmp_path), key=str) == ["x", "y"]
        assert time.monotonic() - started < 60
        assert len(caught) == 1 and "metadata cache unavailable" in str(caught[0].message)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        close_metadata_cache()


def test_with_the_cache_off_every_file_is_read_and_nothing_is_kept(
    tmp_path: Path, scans: list[str]
) -> None:
    from txcript.shared.cache import metadata_cache_off

    age(put(tmp_path, records("x")))
    close_metadata_cache()
    with metadata_cache_off():
        assert titles(tmp_path) == ["x"] and titles(tmp_path) == ["x"]
    assert scans == [SID, SID]
    assert not (cache_dir() / "metadata.sqlite3").exists()
