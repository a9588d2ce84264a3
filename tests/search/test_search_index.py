"""The index re-reads only what changed, prunes what is gone, and degrades instead of failing."""

from __future__ import annotations

import os
import sqlite3
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from searchfixtures import save_claude, stores_under, transcript

from txcript.harnesses.base import Discovered
from txcript.search import find, indexed_sessions, open_index
from txcript.sessions import discover

sys.path.insert(0, str(Path(__file__).parents[1] / "cursor_desktop"))
import dbfixtures as fx


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return stores_under(tmp_path, monkeypatch)


def _update() -> list[tuple[str, str, str]]:
    index = open_index()
    try:
        return index.update(discover()).read_keys
    finally:
        index.close()


def test_only_new_changed_and_gone_sessions_cost_a_read(stores: Path) -> None:
    root = stores / "claude"
    one = save_claude(root, transcript("11111111-1111-4111-8111-111111111111", [("user", "alpha")]))
    save_claude(root, transcript("22222222-2222-4222-8222-222222222222", [("user", "beta")]))
    assert len(_update()) == 2  # first build reads both
    assert _update() == []  # nothing changed: nothing read

    save_claude(root, transcript("33333333-3333-4333-8333-333333333333", [("user", "gamma")]))
    assert [key[1] for key in _update()] == ["33333333-3333-4333-8333-333333333333"]

    with one.open("a") as handle:  # an appended message changes size and mtime
        handle.write(one.read_text().splitlines()[-1].replace("alpha", "alpha again") + "\n")
    assert [key[1] for key in _update()] == ["11111111-1111-4111-8111-111111111111"]

    one.unlink()
    index = open_index()
    try:
        stats = index.update(discover())
        assert (stats.read, stats.pruned) == (0, 1)
        assert all(key[1] != "11111111-1111-4111-8111-111111111111" for key in index.docs())
    finally:
        index.close()


def test_a_changed_cursor_last_updated_at_rereads_that_session_only(stores: Path) -> None:
    database = stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    first = _update()
    assert first, "the Cursor sessions were indexed"
    assert _update() == []
    conn = sqlite3.connect(database)
    conn.execute(
        "UPDATE composerHeaders SET lastUpdatedAt = lastUpdatedAt + 1 WHERE composerId = ?",
        (fx.CID_A,),
    )
    conn.commit()
    conn.close()
    assert [key[1] for key in _update()] == [fx.CID_A]


def test_a_corrupt_cache_is_built_again_with_one_warning(stores: Path) -> None:
    """A file that is not a database made every query build the whole index in memory, with
    the same warning, until someone deleted it: now the first query replaces it, and the
    next one reads nothing again."""
    save_claude(
        stores / "claude",
        transcript("44444444-4444-4444-8444-444444444444", [("user", "the auth bug")]),
    )
    cache = stores / "cache"
    cache.mkdir()
    (cache / "search.sqlite3").write_bytes(b"this is not a database" * 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = find("auth bug")
        assert _update() == []  # the new file holds the session
    assert [m.session.meta_id for m in found] == ["44444444-4444-4444-8444-444444444444"]
    messages = [str(w.message) for w in caught]
    assert messages == ["search cache damaged (file is not a database); building a new one"]


def test_a_read_only_cache_dir_degrades_with_one_warning(stores: Path) -> None:
    if os.name != "posix" or os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    cache = stores / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert find("anything") == []
        assert len(caught) == 1 and "cache unavailable" in str(caught[0].message)
    finally:
        cache.chmod(0o700)


def test_a_cache_path_that_is_a_directory_degrades_with_one_warning(stores: Path) -> None:
    """Works as root too: the cache file's place is taken by a directory."""
    (stores / "cache" / "search.sqlite3").mkdir(parents=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert find("anything") == []
    assert len(caught) == 1 and "search cache unavailable" in str(caught[0].message)


def test_a_new_index_format_discards_the_old_index(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_claude(
        stores / "claude", transcript("55555555-5555-4555-8555-555555555555", [("user", "x")])
    )
    assert len(_update()) == 1
    from txcript.search import index as index_module

    monkeypatch.setattr(index_module, "FORMAT", "search-test-next")
    assert len(_update()) == 1  # rebuilt from scratch


def test_an_index_laid_out_by_another_schema_is_discarded_without_a_new_format(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The format stamp carries a checksum of the schema: an index written by a build whose
    schema differed under the same version (the ``unlisted`` table came after ``search-9``
    first landed) is built again, not used and failed on."""
    save_claude(
        stores / "claude", transcript("55555555-5555-4555-8555-555555555555", [("user", "x")])
    )
    assert len(_update()) == 1
    assert len(_update()) == 0
    from txcript.search import index as index_module

    monkeypatch.setattr(index_module, "SCHEMA", index_module.SCHEMA + ";\nCREATE TABLE extra(x)")
    assert len(_update()) == 1  # rebuilt from scratch


def test_ranking_literal_first_then_newest_then_hits_in_transcript_order(stores: Path) -> None:
    root = stores / "claude"
    save_claude(
        root, transcript("aaaaaaaa-0000-4000-8000-000000000001", [("user", "a u t h bug")], day=5)
    )
    save_claude(
        root, transcript("aaaaaaaa-0000-4000-8000-000000000002", [("user", "old auth bug")], day=1)
    )
    save_claude(
        root, transcript("aaaaaaaa-0000-4000-8000-000000000003", [("user", "new auth bug")], day=3)
    )
    save_claude(
        root,
        transcript(
            "aaaaaaaa-0000-4000-8000-000000000004",
            [("user", "auth bug one"), ("assistant", "unrelated"), ("user", "auth bug two")],
            day=2,
        ),
    )
    found = find("auth bug")
    assert [m.session.meta_id[-1] for m in found] == ["3", "4", "2", "1"]
    assert [h.line for h in found[1].hits] == ["auth bug one", "auth bug two"]
    assert [h.message for h in found[1].hits] == [0, 2]


def test_filters_hide_sessions_but_do_not_prune_them(stores: Path) -> None:
    save_claude(
        stores / "claude", transcript("66666666-6666-4666-8666-666666666666", [("user", "x")])
    )
    index = open_index()
    try:
        assert indexed_sessions(index, cwd="/elsewhere") == []
        assert len(index.docs()) == 1
    finally:
        index.close()


def _with_tool_output(session_id: str, output: str, day: int = 0) -> Any:
    from txcript import model as m

    item = transcript(session_id, [("user", "run it")], day=day)
    call = m.Message(
        role="assistant",
        content=(m.ToolUse(id="c1", tool=m.Bash(command="make")),),
        timestamp=item.meta.timestamp,
    )
    result = m.Message(
        role="user",
        content=(m.ToolResult(tool_use_id="c1", content=output),),
        timestamp=item.meta.timestamp,
    )
    return m.Transcript(meta=item.meta, messages=(*item.messages, call, result))


def test_tool_output_compressed_on_the_worker_thread_is_what_inline_compression_stores(
    tmp_path: Path, stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large update compresses tool output on a worker thread while it reads on (bz2 took a
    quarter of a first build): every part lands in its own session's row, byte for byte what
    compressing it in line stores, and is found again."""
    from txcript.search import index as index_module
    from txcript.search.lines import ORIGINS

    for n in range(40):
        output = f"run {n}: ECONNRESET " + "x" * (n * 97 % 3000)
        save_claude(
            stores / "claude", _with_tool_output(f"cccccccc-0000-4000-8000-{n:012d}", output)
        )
    bodies = []
    for threshold in (1, 10**9):  # the worker for every update, then never
        monkeypatch.setattr(index_module, "_WORKER_SESSIONS", threshold)
        monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / f"cache-{threshold}"))
        assert len(_update()) == 40
        found = find("ECONNRESET", origins=frozenset(ORIGINS), limit=100)
        assert len(found) == 40 and {m.hits[0].origin for m in found} == {"tool_result"}
        conn = sqlite3.connect(tmp_path / f"cache-{threshold}" / "search.sqlite3")
        bodies.append(
            dict(conn.execute("SELECT id, output FROM doc JOIN body USING (doc)").fetchall())
        )
        conn.close()
    assert bodies[0] == bodies[1] and all(bodies[0].values())


@pytest.mark.parametrize("worker", [False, True], ids=["in line", "on the worker thread"])
def test_an_interrupted_first_build_keeps_what_it_finished(
    stores: Path, monkeypatch: pytest.MonkeyPatch, worker: bool
) -> None:
    """ctrl-c during a first build over a large store: the finished batches stay, the index
    opens afterwards, and the next update reads only what the interrupted one had not stored.
    The worker thread compressing tool output is gone once the interrupt is raised."""
    import threading

    from txcript.search import index as index_module

    root = stores / "claude"
    for n in range(6):
        save_claude(root, _with_tool_output(f"bbbbbbbb-0000-4000-8000-00000000000{n}", f"s{n}"))
    monkeypatch.setattr(index_module, "_BATCH_SESSIONS", 2)
    monkeypatch.setattr(index_module, "_WORKER_SESSIONS", 1 if worker else 10**9)
    real = index_module._read_lines
    calls = {"n": 0}

    def interrupted(session: object) -> object:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(session)  # type: ignore[arg-type]

    monkeypatch.setattr(index_module, "_read_lines", interrupted)
    index = open_index()
    with pytest.raises(KeyboardInterrupt):
        index.update(discover())
    index.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("txcript-index")]
    monkeypatch.setattr(index_module, "_read_lines", real)
    assert len(_update()) == 2  # four were committed in two batches before the interrupt


@pytest.mark.parametrize(
    "pattern",
    [
        "auth bug",
        "auth",
        "Auth",
        "bug auth",
        "a u",
        "'uth",
        "^the",
        "bug$",
        "!auth bug",
        "xyz",
        "café",
        "ab",
        "a",
        "AB",
        "b$",
        "^a",
        "é",
        "ca",
        "u !t",
    ],
)
def test_tiered_search_ranks_exactly_as_scanning_every_line(stores: Path, pattern: str) -> None:
    """The tiers skip work, never results: same sessions, order, scores and hits as a scan."""
    from txcript.search import search
    from txcript.search.pattern import Pattern

    root = stores / "claude"
    texts = [
        "the auth bug",
        "Auth bug in the CAFE",
        "a-u-t-h then bug",
        "bug auth",
        "oauth bugs",
        "nothing here",
        "un café",
        "abc",
        "the bug",
        "auth",
    ]
    for n, text in enumerate(texts):
        save_claude(
            root,
            transcript(f"cccccccc-0000-4000-8000-0000000000{n:02d}", [("user", text)], day=n % 4),
        )
    index = open_index()
    try:
        sessions = indexed_sessions(index)
        for limit in (1, 3, 20):
            got = search(index, sessions, pattern, limit=limit)
            parsed = Pattern(pattern)
            expected = []
            for rank, session in enumerate(sessions):
                doc = index.docs()[(session.harness, session.meta_id, session.reference)][0]
                scores = [
                    found.score
                    for line in index.lines_of(doc, frozenset({"user", "meta"}))
                    if (found := parsed.match(line.text)) is not None
                ]
                if scores:
                    expected.append((-max(scores), rank, session.meta_id))
            expected.sort()
            assert [(m.session.meta_id, m.score) for m in got] == [
                (sid, -score) for score, _, sid in expected[:limit]
            ], (pattern, limit)
    finally:
        index.close()


def test_corrupt_pages_met_after_opening_are_rebuilt_with_one_warning(stores: Path) -> None:
    """The cache is opened without a full integrity check (it would read the whole file on every
    query), so damage past the header surfaces only when a query reads it: that run replaces
    the file, with the one warning an unreadable file gives, and still finds the session. It
    was left in place, and every later run went on in memory with the same warning."""
    save_claude(
        stores / "claude",
        transcript("77777777-7777-4777-8777-777777777777", [("user", "the auth bug")]),
    )
    assert find("auth bug")
    path = stores / "cache" / "search.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'body'").fetchone()
    conn.close()
    with path.open("r+b") as handle:  # the page holding the sessions' lines, read by queries only
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = find("auth bug")
    assert [m.session.meta_id for m in found] == ["77777777-7777-4777-8777-777777777777"]
    messages = [str(w.message) for w in caught]
    assert messages == [
        "search cache damaged (database disk image is malformed); building a new one"
    ]
    with warnings.catch_warnings(record=True) as caught:  # the next run uses the new file
        warnings.simplefilter("always")
        assert [m.session.meta_id for m in find("auth bug")] == [
            "77777777-7777-4777-8777-777777777777"
        ]
        assert _update() == []
    assert [str(w.message) for w in caught] == []


def test_an_unwritten_cursor_database_is_not_fingerprinted_again(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cursor's fingerprints scan every bubble key of a multi-GB database; while the database's
    files have not moved since the last update, the held fingerprints stand. A write moves
    them: the next update asks again and re-reads exactly the changed session."""
    from txcript.harnesses.cursor_desktop.store import CursorDesktopStore

    database = stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    fx.written_ago(database, 60)
    asked: list[int] = []
    real = CursorDesktopStore.fingerprints

    def counted(self: CursorDesktopStore, references: object) -> dict[str, str]:
        refs = list(references)  # type: ignore[call-overload]
        asked.append(len(refs))
        return real(self, refs)

    monkeypatch.setattr(CursorDesktopStore, "fingerprints", counted)
    assert _update(), "the Cursor sessions were indexed"
    assert asked and asked[-1] > 0
    asked.clear()
    assert _update() == []
    assert asked == []  # nothing written since: nothing asked

    conn = sqlite3.connect(database)
    conn.execute(
        "UPDATE composerHeaders SET lastUpdatedAt = lastUpdatedAt + 1 WHERE composerId = ?",
        (fx.CID_A,),
    )
    conn.commit()
    conn.close()
    assert [key[1] for key in _update()] == [fx.CID_A]  # written just now: asked in full
    fx.written_ago(database, 30)
    asked.clear()
    assert _update() == []
    assert asked and asked[-1] > 0  # a new token is checked once in full, then it stands
    asked.clear()
    assert _update() == []
    assert asked == []


def test_an_unwritten_cursor_database_is_not_discovered_again(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovering Cursor queries every session's header and composerData; while the
    database's files have not moved since the index kept its listing, that listing is the
    answer. A write moves them: the next query discovers again and sees the change."""
    from txcript.harnesses.cursor_desktop.store import CursorDesktopStore

    database = stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    fx.written_ago(database, 60)
    discovered: list[int] = []
    real = CursorDesktopStore.discover

    def counted(self: CursorDesktopStore) -> list[Discovered]:
        found = real(self)
        discovered.append(len(found))
        return found

    monkeypatch.setattr(CursorDesktopStore, "discover", counted)

    def listed() -> list[tuple[str, str, str | None]]:
        index = open_index()
        try:
            return [(s.meta_id, s.timestamp.isoformat(), s.title) for s in indexed_sessions(index)]
        finally:
            index.close()

    first = listed()
    assert first and discovered == [len(first)]
    assert listed() == first  # the same listing, from the index
    assert discovered == [len(first)]

    conn = sqlite3.connect(database)
    conn.execute(
        "UPDATE composerHeaders SET createdAt = createdAt - 86400000 WHERE composerId = ?",
        (fx.CID_A,),
    )
    conn.commit()
    conn.close()
    fx.written_ago(database, 30)
    second = listed()
    assert len(discovered) == 2  # written since: discovered again
    assert listed() == second and len(discovered) == 2  # and the new listing is kept
    assert second != first
    assert second == [(s.meta_id, s.timestamp.isoformat(), s.title) for s in discover()]


def test_a_database_written_in_the_last_seconds_gives_no_change_token(tmp_path: Path) -> None:
    from txcript.shared.sqlite import change_token

    database = tmp_path / "state.vscdb"
    sqlite3.connect(database).execute("CREATE TABLE t(x)").connection.close()
    assert change_token(database) == ""  # mtime resolution: a same-size write could hide
    fx.written_ago(database, 60)
    first = change_token(database)
    assert first
    conn = sqlite3.connect(database)
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    fx.written_ago(database, 30)
    assert change_token(database) not in ("", first)
    assert change_token(tmp_path / "missing.vscdb") == "-/-/-"


def test_a_large_build_trains_a_dictionary_that_later_runs_and_updates_decode_with(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build of many sessions trains the said parts' zstd dictionary on its first
    sessions and stores it in the index; a later process (a fresh :class:`Index`) finds with
    it, and an update compresses a changed session with it."""
    from txcript.search import index as index_module

    monkeypatch.setattr(index_module, "_TRAIN_SESSIONS", 40)
    monkeypatch.setattr(index_module, "_DICTIONARY_BYTES", 2048)
    root = stores / "claude"
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
    ]
    paths = []
    for n in range(80):
        said = [
            (
                "user" if k % 2 == 0 else "assistant",
                " ".join(words[(n + k + j) % 12] for j in range(9)),
            )
            for k in range(12)
        ]
        said.append(("user", f"marker{n:03d} Café"))
        paths.append(
            save_claude(root, transcript(f"cccccccc-0000-4000-8000-{n:012d}", said, day=n % 30))
        )
    assert len(_update()) == 80
    conn = sqlite3.connect(stores / "cache" / "search.sqlite3")
    try:
        (dictionaries,) = conn.execute("SELECT count(*) FROM dictionary").fetchone()
    finally:
        conn.close()
    assert dictionaries == 1

    found = find("'marker017")
    assert [(m.session.meta_id, [h.line for h in m.hits]) for m in found] == [
        ("cccccccc-0000-4000-8000-000000000017", ["marker017 Café"])
    ]
    assert [m.session.meta_id for m in find("marker042 cafe")] == [
        "cccccccc-0000-4000-8000-000000000042"
    ]
    with paths[5].open("a") as handle:
        handle.write(
            paths[5].read_text().splitlines()[-1].replace("marker005", "renamed005") + "\n"
        )
    assert [key[1] for key in _update()] == ["cccccccc-0000-4000-8000-000000000005"]
    assert [h.line for h in find("'renamed005")[0].hits] == ["renamed005 Café"]
    others = {f"cccccccc-0000-4000-8000-{n:012d}" for n in range(80) if n != 5}
    assert {m.session.meta_id for m in find("'marker0", limit=100)} >= others


def test_a_small_first_build_trains_no_dictionary(stores: Path) -> None:
    save_claude(
        stores / "claude",
        transcript("dddddddd-0000-4000-8000-000000000001", [("user", "the auth bug")]),
    )
    assert len(_update()) == 1
    conn = sqlite3.connect(stores / "cache" / "search.sqlite3")
    try:
        assert conn.execute("SELECT count(*) FROM dictionary").fetchone() == (0,)
    finally:
        conn.close()
    assert [m.session.meta_id for m in find("auth bug")] == ["dddddddd-0000-4000-8000-000000000001"]


class _Decoding:
    """One session per text (id tail → its one user line, a day apart), indexed, and which
    sessions (by id tail) the searches decoded a part of since :meth:`take`."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, texts: dict[str, str]):
        from txcript.search import index as index_module

        for n, (tail, text) in enumerate(texts.items()):
            session_id = f"ffffffff-0000-4000-8000-0000000000{tail}"
            save_claude(root, transcript(session_id, [("user", text)], day=n))
        self.index = open_index()
        self.sessions = indexed_sessions(self.index)
        tails = {doc: key[1][-2:] for key, (doc, _) in self.index.docs().items()}
        self.decoded: set[str] = set()
        real_part = index_module.Index.part

        def part(index: index_module.Index, doc: int, which: int) -> object:
            self.decoded.add(tails[doc])
            return real_part(index, doc, which)

        monkeypatch.setattr(index_module.Index, "part", part)

    def found(self, pattern: str) -> list[str]:
        from txcript.search import search

        return [m.session.meta_id[-2:] for m in search(self.index, self.sessions, pattern)]

    def take(self) -> set[str]:
        taken, self.decoded = self.decoded, set()
        return taken


def test_the_scan_for_gapped_matches_reads_only_sessions_holding_the_exact_atoms(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the literal tiers find fewer sessions than asked for, every session is scanned for
    gapped fuzzy matches. A line must still hold an exact atom literally, so only sessions the
    trigram index names for it are read: `'ECONNRESET retry` with no match scanned all 5,000
    benchmark sessions in 359 ms, now 2 ms. A non-ASCII exact atom narrows nothing (its folded
    form is not what the index holds) and the scan reads everything, as before."""
    texts = {
        "0a": "test the parser before the rollback",  # tstprs (gapped) and rollback
        "0b": "test the parser",  # no rollback: never read
        "0c": "rollback now",  # rollback, no tstprs
        "0d": "test the parser at the café",
    }
    decoding = _Decoding(stores / "claude", monkeypatch, texts)
    try:
        assert decoding.found("tstprs 'rollback") == ["0a"]
        decoded = decoding.take()
        assert "0a" in decoded and "0b" not in decoded
        assert decoding.found("tstprs 'café") == ["0d"]
        assert decoding.take() == {"0a", "0b", "0c", "0d"}
    finally:
        decoding.index.close()


def test_prefix_and_suffix_atoms_read_only_sessions_with_a_line_that_starts_or_ends_so(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`parser config$` matched one of the 5,000 benchmark sessions but read 4,783 (every one
    saying `config` anywhere: 294 ms). The trigram index now holds each line between line
    breaks and is asked for `config` before one, so a session whose lines only say it midway
    is never read; `^ro` is narrowed as a three-character needle, a line break and `ro`."""
    texts = {
        "0a": "rollback: test the parser config",  # starts with ro, ends with config
        "0b": "the parser test: rollback config now",  # says both midway only: never read
        "0c": "config the parser test\nrollback",  # its second line starts with ro
    }
    decoding = _Decoding(stores / "claude", monkeypatch, texts)
    try:
        for pattern, found in [
            ("tstprs config$", ["0a"]),
            ("^ro tstprs", ["0a"]),
            ("^ro", ["0c", "0a"]),
        ]:
            assert decoding.found(pattern) == found
            assert "0b" not in decoding.take(), pattern
    finally:
        decoding.index.close()


def test_a_scan_limit_bounds_short_patterns_to_the_newest_sessions(stores: Path) -> None:
    """The picker's bound: a pattern the trigram index cannot narrow looks only at the newest
    sessions, and ranks exactly within them."""
    from txcript.search import search

    root = stores / "claude"
    for n, text in enumerate(["an ab here", "ab", "xy", "a b", "zz ab"]):
        save_claude(
            root, transcript(f"eeeeeeee-0000-4000-8000-0000000000{n:02d}", [("user", text)], day=n)
        )
    index = open_index()
    try:
        sessions = indexed_sessions(index)  # newest first: 04, 03, 02, 01, 00
        assert [m.session.meta_id[-2:] for m in search(index, sessions, "ab")] == [
            "04",
            "01",
            "00",
            "03",
        ]
        assert [m.session.meta_id[-2:] for m in search(index, sessions, "ab", scan_limit=3)] == [
            "04",
            "03",
        ]
    finally:
        index.close()
