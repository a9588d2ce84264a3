"""A damaged search index never breaks a query: it is read as the stores say, or dropped.

The index lives in the user's cache dir, where anything can damage it (a crash, a bad disk,
another txcript version, a user poking at it with ``sqlite3``). Every test here builds a real
index by querying real Claude Code and Cursor desktop stores, damages the file, and runs the real
``txcript query`` (human and ``--json``), the picker's listing, the MCP search tool and shell
completion over it. Each must give the answer an undamaged index gives, with at most the one
"search cache unavailable" warning of an in-memory run, exit 0, no traceback, and no raw
terminal escape sequence in what it prints.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "search"))
sys.path.insert(0, str(Path(__file__).parents[1] / "cursor_desktop"))
import dbfixtures as fx
from searchfixtures import save_claude, stores_under, transcript

from conftest import CliResult, RunCli
from txcript.harnesses.base import Discovered
from txcript.search import find, indexed_sessions, open_index, with_fallback
from txcript.search.index import FORMAT as index_format
from txcript.search.index import SCHEMA as index_schema
from txcript.search.index import indexed_ids
from txcript.shared.cache import format_stamp

ONE = "11111111-1111-4111-8111-111111111111"
TWO = "22222222-2222-4222-8222-222222222222"
THREE = "33333333-3333-4333-8333-333333333333"
#: A raw escape sequence or control character in printed text (newlines and tabs aside).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: The one warning a damaged index may give (it is replaced, or this run goes on in memory).
WARNING = ("txcript: warning: search cache unavailable", "txcript: warning: search cache damaged")


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return stores_under(tmp_path, monkeypatch)


def _cursor_database(stores: Path) -> Path:
    return stores / "Cursor" / "User" / "globalStorage" / "state.vscdb"


def _index_path(stores: Path) -> Path:
    return stores / "cache" / "search.sqlite3"


def _build(stores: Path, *, same_start: bool = False) -> Path:
    """Two Claude Code sessions and a Cursor desktop database (unwritten for a minute, so its
    change token stands), indexed by one query; the index file, checkpointed."""
    root = stores / "claude"
    save_claude(root, transcript(ONE, [("user", "alpha auth bug")], title="one", day=0))
    later = 0 if same_start else 1
    save_claude(root, transcript(TWO, [("user", "beta auth bug")], title="two", day=later))
    database = _cursor_database(stores)
    fx.app_3_16(database)
    fx.written_ago(database, 60)
    assert find("")
    path = _index_path(stores)
    _checkpoint(path)
    return path


def _checkpoint(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


# -- ways to damage it ---------------------------------------------------------------------------
Damage = Callable[[sqlite3.Connection], None]


def _sql(statement: str, *params: object) -> Damage:
    def damage(conn: sqlite3.Connection) -> None:
        conn.execute(statement, params)

    return damage


def _both(first: Damage, then: Damage) -> Damage:
    def damage(conn: sqlite3.Connection) -> None:
        first(conn)
        then(conn)

    return damage


def _loosened(then: Damage) -> Damage:
    """Drop the doc table's NOT NULL constraints first (as another program's schema could)."""

    def damage(conn: sqlite3.Connection) -> None:
        (sql,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'doc'").fetchone()
        (version,) = conn.execute("PRAGMA schema_version").fetchone()
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute(
            "UPDATE sqlite_master SET sql = ? WHERE name = 'doc'", (sql.replace(" NOT NULL", ""),)
        )
        conn.execute(f"PRAGMA schema_version = {version + 1}")
        conn.execute("PRAGMA writable_schema = OFF")
        conn.commit()
        then(conn)

    return damage


def _listing(session_id: str, **changes: Any) -> Damage:
    """Rewrite one session's held listing (msgspec JSON of a Discovered) with ``changes``."""

    def damage(conn: sqlite3.Connection) -> None:
        (held,) = conn.execute("SELECT listing FROM doc WHERE id = ?", (session_id,)).fetchone()
        listing = json.loads(held)
        listing.update(changes)
        conn.execute(
            "UPDATE doc SET listing = ? WHERE id = ?",
            (json.dumps(listing).encode(), session_id),
        )

    return damage


def _listing_of(source: str, target: str) -> Damage:
    """Hold ``source``'s listing in ``target``'s row."""
    return _sql(
        "UPDATE doc SET listing = (SELECT listing FROM doc WHERE id = ?) WHERE id = ?",
        source,
        target,
    )


def _damage(path: Path, damage: Damage) -> None:
    conn = sqlite3.connect(path)
    damage(conn)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


class Snapshot:
    """The damaged file, put back before each reader so none sees what another one healed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = path.read_bytes()

    def restore(self) -> None:
        for extra in ("-wal", "-shm"):
            Path(f"{self.path}{extra}").unlink(missing_ok=True)
        self.path.write_bytes(self.data)


# -- what every reader must still answer -------------------------------------------------------
def _cli_answers(run_cli: RunCli, args: tuple[str, ...]) -> tuple[CliResult, CliResult]:
    return run_cli("query", *args), run_cli("query", *args, "--json")


def _found(pattern: str, **filters: Any) -> list[tuple[Discovered, int, tuple[str, ...]]]:
    return [(m.session, m.score, tuple(h.line for h in m.hits)) for m in find(pattern, **filters)]


def _picker_listing() -> list[Discovered]:
    """What the picker lists, degrading as :func:`txcript.cli.picker.run_picker` does."""
    index = open_index()
    try:
        listed, index = with_fallback(index, indexed_sessions)
        return listed
    finally:
        index.close()


def _mcp_search(pattern: str) -> dict[str, Any]:
    from txcript.mcp_server import SearchArgs, search_sessions

    return search_sessions(SearchArgs(pattern=pattern))


def _library_answers(pattern: str, filters: dict[str, Any]) -> tuple[object, ...]:
    return _found(pattern, **filters), _picker_listing(), _mcp_search(pattern)


def _assert_clean(result: CliResult) -> None:
    assert result.code == 0, result
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr == "" or (
        result.stderr.startswith(WARNING) and result.stderr.count("\n") == 1
    ), result.stderr
    assert not RAW_CONTROL.search(result.stdout + result.stderr), result


def _assert_library_clean(caught: list[warnings.WarningMessage]) -> None:
    messages = [str(w.message) for w in caught]
    assert len(messages) <= 1, messages
    assert all(m.startswith(("search cache unavailable", "search cache damaged")) for m in messages)


def _check_readers(
    stores: Path,
    run_cli: RunCli,
    damage: Damage | Callable[[Path], None],
    *,
    pattern: str = "auth bug",
    cli_filters: tuple[str, ...] = (),
    filters: dict[str, Any] | None = None,
    on_file: bool = False,
) -> None:
    """Every reader over the damaged index answers as over the undamaged one."""
    path = _build(stores)
    filters = filters or {}
    args = (pattern, *cli_filters)
    want_cli = _cli_answers(run_cli, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = _library_answers(pattern, filters)
    assert not caught and want[0], (caught, want)
    _checkpoint(path)
    if on_file:
        damage(path)  # type: ignore[call-arg]
    else:
        _damage(path, damage)  # type: ignore[arg-type]
    snapshot = Snapshot(path)

    human, machine = _cli_answers(run_cli, args)
    for got, expected in zip((human, machine), want_cli, strict=True):
        _assert_clean(got)
        assert got.stdout == expected.stdout
    snapshot.restore()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got_library = _found(pattern, **filters)
    _assert_library_clean(caught)
    assert got_library == want[0]
    for reader, expected in ((_picker_listing, want[1]), (lambda: _mcp_search(pattern), want[2])):
        snapshot.restore()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert reader() == expected
        _assert_library_clean(caught)
    snapshot.restore()
    assert all(isinstance(i, str) and not RAW_CONTROL.search(i) for i in indexed_ids(""))


# -- wrong types and values in rows ---------------------------------------------------------------
ROW_DAMAGE: dict[str, Damage] = {
    "text in started": _sql("UPDATE doc SET started = 'soon' WHERE id = ?", ONE),
    "a real number in started": _sql("UPDATE doc SET started = 1.5e300 WHERE id = ?", ONE),
    "a blob harness": _sql("UPDATE doc SET harness = CAST(harness AS BLOB) WHERE id = ?", ONE),
    "a null harness": _loosened(_sql("UPDATE doc SET harness = NULL WHERE id = ?", ONE)),
    "a blob reference": _sql(
        "UPDATE doc SET reference = CAST(reference AS BLOB) WHERE id = ?", ONE
    ),
    "a null reference": _loosened(_sql("UPDATE doc SET reference = NULL WHERE id = ?", ONE)),
    "a blob reference in a store with a token": _sql(
        "UPDATE doc SET reference = CAST(reference AS BLOB) WHERE harness = 'cursor_desktop'"
    ),
    "a blob fingerprint": _sql(
        "UPDATE doc SET fingerprint = CAST(fingerprint AS BLOB) WHERE id = ?", ONE
    ),
    "a null fingerprint": _loosened(_sql("UPDATE doc SET fingerprint = NULL WHERE id = ?", ONE)),
    "a blob fingerprint in a store with a token": _sql(
        "UPDATE doc SET fingerprint = CAST(fingerprint AS BLOB) WHERE harness = 'cursor_desktop'"
    ),
    "a blob id": _sql("UPDATE doc SET id = CAST(id AS BLOB) WHERE id = ?", ONE),
    "a blob cwd": _sql("UPDATE doc SET cwd = CAST(cwd AS BLOB) WHERE id = ?", ONE),
    "a null cwd": _sql("UPDATE doc SET cwd = NULL WHERE id = ?", ONE),
    "text in seq": _sql("UPDATE doc SET seq = 'first' WHERE harness = 'cursor_desktop'"),
    "a null seq": _loosened(_sql("UPDATE doc SET seq = NULL WHERE harness = 'cursor_desktop'")),
    "an integer listing": _sql("UPDATE doc SET listing = 5 WHERE id = ?", ONE),
    "a null listing": _loosened(_sql("UPDATE doc SET listing = NULL WHERE id = ?", ONE)),
    "a listing that is not JSON": _sql("UPDATE doc SET listing = x'00ff00ff' WHERE id = ?", ONE),
    "a listing of another session": _listing_of(TWO, ONE),
    "a listing of another harness": _listing(ONE, harness="cursor_desktop"),
    "a listing of an unknown harness": _listing(ONE, harness="\x1b[2Jnobody"),
    "a listing with another id": _listing(ONE, meta_id=THREE),
    "a listing with another reference": _listing(ONE, reference="/etc/passwd"),
    "a listing with another cwd": _listing(ONE, cwd="/elsewhere"),
    "a listing with the latest timestamp": _listing(ONE, timestamp="9999-12-31T23:59:59.999999Z"),
    "a listing with the earliest timestamp": _listing(ONE, timestamp="0001-01-01T00:00:00Z"),
    "a listing with a timestamp past the range": _listing(ONE, timestamp="10000-01-01T00:00:00Z"),
    "a listing with a naive timestamp": _listing(ONE, timestamp="2026-11-01T09:00:00"),
    "a listing with a naive updated_at": _listing(ONE, updated_at="2026-11-01T09:00:00"),
    "a listing of the wrong shape": _listing(ONE, title=["not", "text"]),
    "a body that is not zstd": _sql(
        "UPDATE body SET said = x'28b52ffd00deadbeef' "
        "WHERE doc = (SELECT doc FROM doc WHERE id = ?)",
        ONE,
    ),
    "a body that is no compressed data at all": _sql(
        "UPDATE body SET said = randomblob(64) WHERE doc = (SELECT doc FROM doc WHERE id = ?)",
        ONE,
    ),
    "a format marker that is a blob": _sql(
        "UPDATE cache_meta SET value = CAST(value AS BLOB) WHERE key = 'format'"
    ),
    "a store row with text in complete": _sql("UPDATE store SET complete = 'maybe'"),
    "a store row with a blob token": _sql("UPDATE store SET token = CAST(token AS BLOB)"),
    "a store row with a blob root": _sql("UPDATE store SET root = CAST(root AS BLOB)"),
    "no doc table": _sql("DROP TABLE doc"),
    "no store table": _sql("DROP TABLE store"),
}


@pytest.mark.parametrize("damage", ROW_DAMAGE.values(), ids=ROW_DAMAGE.keys())
def test_a_damaged_row_gives_the_undamaged_answer(
    stores: Path, run_cli: RunCli, damage: Damage
) -> None:
    _check_readers(stores, run_cli, damage)


CWD_DAMAGE: dict[str, Damage] = {
    "a blob cwd": _sql("UPDATE doc SET cwd = CAST(cwd AS BLOB) WHERE id = ?", TWO),
    "text in started": ROW_DAMAGE["text in started"],
    "a listing with another cwd": _listing(TWO, cwd="/elsewhere"),
}


@pytest.mark.parametrize("damage", CWD_DAMAGE.values(), ids=CWD_DAMAGE.keys())
def test_a_damaged_row_gives_the_undamaged_answer_with_filters(
    stores: Path, run_cli: RunCli, damage: Damage
) -> None:
    """The cwd and start-time filters run in SQL (and on the cwd column): a wrong type there
    must neither crash them nor let a session through."""
    from txcript.shared.timeutil import parse_when

    _check_readers(
        stores,
        run_cli,
        damage,
        cli_filters=("--cwd", "/work/acme", "--since", "2026-11-02"),
        filters={"cwd": "/work/acme", "since": parse_when("2026-11-02", end_of_day=False)},
    )


def test_text_in_started_cannot_pass_the_since_filter(stores: Path) -> None:
    """SQLite orders any text after every integer: a session whose start time became text
    would pass every ``since`` and lead the newest-first order."""
    from txcript.shared.timeutil import parse_when

    path = _build(stores)
    _damage(path, ROW_DAMAGE["text in started"])
    since = parse_when("2026-11-02", end_of_day=False)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        found = [m.session.meta_id for m in find("auth bug", since=since)]
    assert found == [TWO]


def test_text_in_seq_among_equal_start_times_gives_discovery_order(stores: Path) -> None:
    """Sessions starting at the same moment are put in discovery's order by harness, seq and
    reference: a seq of another type must not make that comparison fail."""
    path = _build(stores, same_start=True)
    want = _found("auth bug")
    _damage(path, _sql("UPDATE doc SET seq = 'x' WHERE id = ?", ONE))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _found("auth bug") == want
    _assert_library_clean(caught)


# -- escape sequences held in the index ----------------------------------------------------------
def test_escape_sequences_in_a_held_listing_are_scrubbed_from_human_output(
    stores: Path, run_cli: RunCli
) -> None:
    """A listing is shown as the index holds it: its title, id and cwd go through the
    terminal scrub (the cwd column and the listing agree, so the index trusts the row)."""
    path = _build(stores)
    hostile_cwd = "/work/\x1b]0;owned\x07acme\x9b2J"
    _damage(
        path,
        _both(
            _listing(ONE, title="\x1b[2J\x1b]52;c;Y2xpcA==\x07one\x9b31m", cwd=hostile_cwd),
            _sql("UPDATE doc SET cwd = ? WHERE id = ?", hostile_cwd, ONE),
        ),
    )
    human = run_cli("query", "alpha")
    _assert_clean(human)
    assert ONE in human.stdout and "one" in human.stdout
    _damage(path, _listing(ONE, title=None))  # a session labelled by its cwd's last part
    untitled = run_cli("query", "alpha")
    _assert_clean(untitled)
    assert "acme" in untitled.stdout


# -- the file as a whole --------------------------------------------------------------------------
def _truncate_half(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


def _truncate_header(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(60)


def _not_sqlite(path: Path) -> None:
    path.write_bytes(b"this is not a database\n" * 400)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


FILE_DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated to half": _truncate_half,
    "truncated inside the header": _truncate_header,
    "not SQLite": _not_sqlite,
    "empty": _empty,
}


@pytest.mark.parametrize("damage", FILE_DAMAGE.values(), ids=FILE_DAMAGE.keys())
def test_a_damaged_file_gives_the_undamaged_answer(
    stores: Path, run_cli: RunCli, damage: Callable[[Path], None]
) -> None:
    _check_readers(stores, run_cli, damage, on_file=True)


def test_a_locked_index_gives_the_answer_with_at_most_one_warning(
    stores: Path, run_cli: RunCli
) -> None:
    """Another connection holds the index exclusively while a query must write (a new
    session): the query waits its short timeout, then answers from memory with one warning."""
    path = _build(stores)
    save_claude(stores / "claude", transcript(THREE, [("user", "gamma auth bug")], day=2))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = run_cli("query", "auth bug", "--json")
        _assert_clean(result)
        assert [row["id"] for row in json.loads(result.stdout)] == [THREE, TWO, ONE]
        assert indexed_ids("3333") in ([THREE], [])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert [m.session.meta_id for m in find("auth bug")] == [THREE, TWO, ONE]
        _assert_library_clean(caught)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# -- parts of a session's lines --------------------------------------------------------------------
def test_a_missing_body_row_gives_the_undamaged_answer(stores: Path, run_cli: RunCli) -> None:
    _check_readers(
        stores,
        run_cli,
        _sql("DELETE FROM body WHERE doc = (SELECT doc FROM doc WHERE id = ?)", ONE),
    )


def test_a_body_that_is_text_gives_the_undamaged_answer(stores: Path, run_cli: RunCli) -> None:
    _check_readers(
        stores,
        run_cli,
        _sql(
            "UPDATE body SET said = 'plain text' WHERE doc = (SELECT doc FROM doc WHERE id = ?)",
            ONE,
        ),
    )


DICTIONARY_DAMAGE: dict[str, Damage] = {
    "text": _sql("INSERT INTO dictionary(id, data) VALUES (7, 'not a dictionary')"),
    "a dictionary header over garbage": _sql(
        "INSERT INTO dictionary(id, data) VALUES (7, ?)", bytes.fromhex("37a430ec") + bytes(200)
    ),
}


@pytest.mark.parametrize("damage", DICTIONARY_DAMAGE.values(), ids=DICTIONARY_DAMAGE.keys())
def test_a_damaged_dictionary_gives_the_answer_when_a_session_must_be_stored(
    stores: Path, run_cli: RunCli, damage: Damage
) -> None:
    """The said parts' zstd dictionary is read when a new session's lines are compressed:
    damaged, it fails that write, and the query degrades instead of raising."""
    path = _build(stores)
    _damage(path, damage)
    save_claude(stores / "claude", transcript(THREE, [("user", "gamma auth bug")], day=2))
    snapshot = Snapshot(path)
    result = run_cli("query", "auth bug", "--json")
    _assert_clean(result)
    assert [row["id"] for row in json.loads(result.stdout)] == [THREE, TWO, ONE]
    snapshot.restore()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [m.session.meta_id for m in find("auth bug")] == [THREE, TWO, ONE]
    _assert_library_clean(caught)


def test_a_body_left_by_a_deleted_doc_row_is_replaced_without_a_warning(
    stores: Path, run_cli: RunCli
) -> None:
    """A deleted doc row (a user's ``DELETE``) leaves its lines behind, and SQLite gives the
    next session stored the same doc number: that session's lines replace them, so neither
    this query nor the next one warns, and the session matches its own lines only."""
    path = _build(stores)
    conn = sqlite3.connect(path)
    ((harness, session_id),) = conn.execute(
        "SELECT harness, id FROM doc ORDER BY doc DESC LIMIT 1"
    ).fetchall()
    conn.close()
    assert harness == "claude_code"  # (a file store: the missing session is listed again)
    _damage(path, _sql("DELETE FROM doc WHERE id = ?", session_id))
    for _ in range(2):
        result = run_cli("query", "auth bug", "--json")
        assert result.code == 0 and result.stderr == "", result
        assert [row["id"] for row in json.loads(result.stdout)] == [TWO, ONE]
    word = "alpha" if session_id == ONE else "beta"
    only = run_cli("query", word, "--json")
    assert [row["id"] for row in json.loads(only.stdout)] == [session_id], only


@pytest.mark.parametrize(
    "damage",
    [
        ROW_DAMAGE["a listing of another harness"],
        ROW_DAMAGE["a body that is not zstd"],
        ROW_DAMAGE["no store table"],
        _sql("DROP TABLE unlisted"),
    ],
    ids=[
        "a listing of another harness",
        "a body that is not zstd",
        "no store table",
        "no unlisted",
    ],
)
def test_a_damaged_index_warns_once_and_is_built_again_by_the_next_run(
    stores: Path, run_cli: RunCli, damage: Damage
) -> None:
    """Damage that fails a run would fail every later run (one warning and a whole in-memory
    build each time): the run that meets it marks the index for a rebuild. A missing table
    counted as a lock or a full disk does, not as damage: an index from a build without the
    ``unlisted`` table warned "no such table: unlisted" and ran in memory on every query."""
    path = _build(stores)
    want = run_cli("query", "auth bug", "--json")
    _damage(path, damage)
    first = run_cli("query", "auth bug", "--json")
    assert first.stderr.startswith(WARNING) and first.stdout == want.stdout, first
    for _ in range(2):
        again = run_cli("query", "auth bug", "--json")
        assert again.code == 0 and again.stderr == "" and again.stdout == want.stdout, again


def test_a_locked_index_is_not_marked_for_a_rebuild(stores: Path, run_cli: RunCli) -> None:
    """A lock is not damage: once it is released the index is used as it is."""
    path = _build(stores)
    save_claude(stores / "claude", transcript(THREE, [("user", "gamma auth bug")], day=2))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert run_cli("query", "auth bug").stderr.startswith(WARNING)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    conn = sqlite3.connect(path)
    (marker,) = conn.execute("SELECT value FROM cache_meta WHERE key = 'format'").fetchone()
    conn.close()
    assert marker == format_stamp(index_format, index_schema)


# -- stores that are gone --------------------------------------------------------------------------
GONE_DAMAGE: dict[str, Damage] = {
    "a Claude row holding a Cursor listing": _listing_of(fx.CID_A, ONE),
    "Cursor rows relabelled as Claude": _sql(
        "UPDATE doc SET harness = 'claude_code' WHERE harness = 'cursor_desktop'"
    ),
    "Cursor rows relabelled as a blob": _sql(
        "UPDATE doc SET harness = CAST(harness AS BLOB) WHERE harness = 'cursor_desktop'"
    ),
    "a Cursor store row with text in complete": _sql("UPDATE store SET complete = 'yes'"),
}


@pytest.mark.parametrize("damage", GONE_DAMAGE.values(), ids=GONE_DAMAGE.keys())
def test_a_damaged_row_never_brings_back_a_store_that_is_gone(
    stores: Path, run_cli: RunCli, damage: Damage
) -> None:
    path = _build(stores)
    shutil.rmtree(stores / "Cursor")
    _damage(path, damage)
    snapshot = Snapshot(path)
    result = run_cli("query", "", "--json")
    _assert_clean(result)
    assert [(row["harness"], row["id"]) for row in json.loads(result.stdout)] == [
        ("claude_code", TWO),
        ("claude_code", ONE),
    ]
    snapshot.restore()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = [(s.harness, s.meta_id) for s, _, _ in _found("")]
        listed = [(s.harness, s.meta_id) for s in _picker_listing()]
    _assert_library_clean(caught)
    assert found == listed == [("claude_code", TWO), ("claude_code", ONE)]


def test_text_in_complete_does_not_vouch_for_an_incomplete_listing(stores: Path) -> None:
    """``complete`` says the held listing is the store's whole listing; anything but the
    integer 1 must not, or the index answers from a listing it never finished."""
    path = _build(stores)
    want = _found("")
    _damage(
        path,
        _both(
            _sql("DELETE FROM doc WHERE id = ?", fx.CID_A),
            _sql("UPDATE store SET complete = 'no'"),
        ),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _found("") == want
    _assert_library_clean(caught)


# -- a listing read while another process prunes ---------------------------------------------------
def test_a_doc_pruned_between_ranking_and_listing_is_a_database_error(stores: Path) -> None:
    """Another txcript may prune a session between the ranking and the listing reads: that
    must surface as the DatabaseError a caller degrades on, not a KeyError."""
    path = _build(stores)
    index = open_index()
    try:
        ranked = index.ranked(["claude_code"])
        other = sqlite3.connect(path)
        other.execute("DELETE FROM doc WHERE id = ?", (ONE,))
        other.commit()
        other.close()
        with pytest.raises(sqlite3.DatabaseError):
            ranked.sessions(ranked.docs)
    finally:
        index.close()


# -- shell completion ------------------------------------------------------------------------------
def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


COMPLETION_DAMAGE: dict[str, Callable[[Path], None]] = {
    **FILE_DAMAGE,
    "a blob id": lambda path: _damage(path, _sql("UPDATE doc SET id = CAST(id AS BLOB)")),
    "an id with escapes": lambda path: _damage(
        path, _sql("UPDATE doc SET id = ? WHERE id = ?", "\x1b]0;owned\x07" + ONE, ONE)
    ),
    "an id with a newline": lambda path: _damage(
        path, _sql("UPDATE doc SET id = ? WHERE id = ?", ONE + "\nrm -rf", ONE)
    ),
    "an id of invalid UTF-8": lambda path: _damage(
        path, _sql("UPDATE doc SET id = CAST(x'ff11fe' AS TEXT) WHERE id = ?", ONE)
    ),
    "no doc table": lambda path: _damage(path, _sql("DROP TABLE doc")),
    "a directory": _directory,
}


@pytest.mark.parametrize("damage", COMPLETION_DAMAGE.values(), ids=COMPLETION_DAMAGE.keys())
def test_completion_over_a_damaged_index_never_raises_nor_offers_control_text(
    stores: Path, damage: Callable[[Path], None]
) -> None:
    path = _build(stores)
    damage(path)
    ids = indexed_ids("")
    assert all(isinstance(i, str) and not RAW_CONTROL.search(i) for i in ids), ids
    assert set(ids) <= {ONE, TWO, fx.CID_A, fx.CID_B, fx.CID_C, fx.CID_LEGACY}


def test_completion_while_the_index_is_locked_never_raises(stores: Path) -> None:
    path = _build(stores)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert indexed_ids("1") in ([ONE], [])
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_completion_under_a_cache_dir_whose_name_is_too_long_never_raises(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even looking for the index can fail (here: ENAMETOOLONG from stat)."""
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(stores / ("x" * 300)))
    assert indexed_ids("") == []


def test_completion_skips_a_damaged_id_and_offers_the_others(stores: Path) -> None:
    path = _build(stores)
    _damage(
        path,
        _both(
            _sql("UPDATE doc SET id = CAST(x'ff11fe' AS TEXT) WHERE id = ?", ONE),
            _sql("UPDATE doc SET id = CAST(id AS BLOB) WHERE id = ?", fx.CID_A),
        ),
    )
    assert indexed_ids("") == sorted({TWO, fx.CID_B, fx.CID_C, fx.CID_LEGACY})
