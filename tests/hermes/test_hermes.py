"""Hermes: both database generations, both log formats and a corrupted database read exactly;
a copy written as rows in one backed-up transaction that ``restore`` undoes."""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import expected
import hermes_fixtures as fx
import pytest

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreError
from txcript.shared import backups

HERMES = harnesses.get("hermes")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def _store(root: Path) -> Any:
    store = HERMES.store(root)
    assert store is not None
    return store


def _common(root: Path, session_id: str) -> Any:
    store = _store(root)
    (found,) = [d for d in store.discover() if d.meta_id == session_id]
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return json.loads(m.to_json(HERMES.to_common(store.load(found.reference))))


def _rows(db: Path) -> list[Any]:
    conn = sqlite3.connect(db)
    try:
        return [
            *conn.execute("SELECT * FROM sessions ORDER BY id"),
            *conn.execute("SELECT * FROM messages ORDER BY id"),
        ]
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("session_id", "want"),
    [
        (fx.CLI_ID, expected.CLI),
        (fx.TELEGRAM_ID, expected.TELEGRAM),
        (fx.CRON_ID, expected.CRON),
        (fx.JSONL_ID, expected.TRANSCRIPT),
        (fx.SNAPSHOT_ID, expected.SNAPSHOT),
    ],
    ids=["newest-schema", "untitled", "schema-v6", "jsonl-log", "json-snapshot"],
)
def test_each_generation_reads_exactly(tmp_path: Path, session_id: str, want: Any) -> None:
    fx.write_home(tmp_path)
    assert _common(tmp_path, session_id) == want


def test_listing_shows_sources_and_the_database_wins_over_a_log(tmp_path: Path) -> None:
    """Archived sessions are not listed; the stale log of a database session is not either; the
    routing index and request dumps are never read as sessions; a profile's database lists."""
    fx.write_home(tmp_path)
    listed = {d.meta_id: (d.kind, d.title) for d in _store(tmp_path).discover()}
    assert listed == {
        fx.CLI_ID: ("cli", "Fix the failing test"),
        fx.TELEGRAM_ID: ("telegram", "What is on my calendar?"),
        fx.JSONL_ID: ("discord", "ping the server"),
        fx.SNAPSHOT_ID: ("cli", "Hello from the snapshot"),
        fx.CRON_ID: ("cron", "Nightly report"),
    }
    store = _store(tmp_path)
    for found in store.discover():
        meta = HERMES.meta_of(store.load(found.reference))
        assert (found.meta_id, found.timestamp, found.title, found.cwd, found.model) == (
            meta.id,
            meta.timestamp,
            meta.title,
            meta.cwd,
            meta.model,
        )


def test_list_filters_by_source_kind(tmp_path: Path, run_cli: RunCli) -> None:
    fx.write_home(tmp_path / "hermes")
    env = {"HERMES_HOME": str(tmp_path / "hermes")}
    done = run_cli(
        "list", "--from", "hermes", "--kind", "telegram", "--kind", "CRON", "--json", env=env
    )
    assert done.code == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [(r["id"], r["kind"]) for r in rows] == [
        (fx.TELEGRAM_ID, "telegram"),
        (fx.CRON_ID, "cron"),
    ]
    table = run_cli("list", "--from", "hermes", "--kind", "telegram", env=env)
    assert "[telegram] What is on my calendar?" in table.stdout


def test_a_malformed_database_gives_one_warning_and_the_rest_still_lists(
    tmp_path: Path, run_cli: RunCli
) -> None:
    fx.write_home(tmp_path)
    broken = fx.corrupt(tmp_path / "profiles" / "broken" / "state.db")
    with pytest.warns(TranscriptWarning) as said:
        listed = [d.meta_id for d in _store(tmp_path).discover()]
    assert len(listed) == 5
    messages = [str(w.message) for w in said]
    assert len(messages) == 1 and str(broken) in messages[0] and "malformed" in messages[0]
    done = run_cli("list", "--json", env={"HERMES_HOME": str(tmp_path)})
    assert done.code == 0
    assert len([r for r in json.loads(done.stdout) if r["harness"] == "hermes"]) == 5
    assert done.stderr.count("txcript: warning:") == 1 and "Traceback" not in done.stderr


def test_a_copy_is_rows_in_one_transaction_that_restore_undoes(tmp_path: Path) -> None:
    db = fx.write_newest(tmp_path / "state.db")
    before = _rows(db)
    source = m.from_json(json.dumps(expected.CRON))
    copy = m.Transcript(
        meta=m.Meta(
            id="20261204_010203_abcdef",
            timestamp=source.meta.timestamp,
            cwd="/w",
            title="Nightly report",
        ),
        messages=source.messages,
    )
    saved = _store(tmp_path).save(HERMES.from_common(copy))
    assert saved.id == "20261204_010203_abcdef" and saved.backup is not None
    conn = sqlite3.connect(db)
    row = conn.execute(
        "SELECT source, cwd, title, message_count, archived FROM sessions WHERE id = ?", (saved.id,)
    ).fetchone()
    indexed = conn.execute(
        "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'errors'"
    ).fetchone()
    conn.close()
    assert row == ("import", "/w", "Nightly report", 4, 0)
    assert indexed == (2,)  # Hermes's own search index saw the rows (its trigger fired)
    after = _rows(db)
    assert [r for r in after if r in before] == before  # every other row as it was
    back = _common(tmp_path, saved.id)
    assert back["messages"] == expected.CRON["messages"]
    (backup,) = backups.list_backups(db)
    HERMES.undo_backup(backup)
    assert _rows(db) == before


def test_a_title_another_session_has_gets_a_number(tmp_path: Path) -> None:
    fx.write_newest(tmp_path / "state.db")
    source = m.from_json(json.dumps(expected.CLI))
    copy = m.Transcript(
        meta=m.Meta(id="copy_1", timestamp=source.meta.timestamp, title="Fix the failing test"),
        messages=source.messages,
    )
    saved = _store(tmp_path).save(HERMES.from_common(copy))
    assert saved.notes == (
        "Hermes keeps titles unique: the copy is titled `Fix the failing test (2)`",
    )
    assert _common(tmp_path, "copy_1")["meta"]["title"] == "Fix the failing test (2)"


def test_a_v6_database_takes_a_copy_in_the_columns_it_has(tmp_path: Path) -> None:
    db = fx.write_v6(tmp_path / "state.db")
    source = m.from_json(json.dumps(expected.CLI))
    copy = m.Transcript(
        meta=m.Meta(id="copy_2", timestamp=source.meta.timestamp, title="t"),
        messages=source.messages,
    )
    saved = _store(tmp_path).save(HERMES.from_common(copy))
    # the reasoning text goes to v6's `reasoning`; its opaque details have no column there
    assert saved.notes == (
        "this database's older schema has no `reasoning_details` column: what the copy held "
        "there is not in it",
    )
    want = json.loads(json.dumps(expected.CLI["messages"]))
    del want[1]["content"][0]["encrypted"]
    assert _common(tmp_path, "copy_2")["messages"] == want
    conn = sqlite3.connect(db)
    count = conn.execute("SELECT COUNT(*) FROM messages WHERE session_id = 'copy_2'").fetchone()
    assert count == (9,)
    conn.close()


def test_delete_archives_where_the_schema_can_and_restore_brings_it_back(tmp_path: Path) -> None:
    db = fx.write_newest(tmp_path / "state.db")
    before = _rows(db)
    store = _store(tmp_path)
    store.delete(f"{db}#{fx.CLI_ID}")
    assert fx.CLI_ID not in [d.meta_id for d in store.discover()]
    with pytest.raises(BadInput, match="already deleted"):
        store.delete(f"{db}#{fx.CLI_ID}")
    HERMES.undo_backup(backups.list_backups(db)[0])
    assert _rows(db) == before
    v6 = fx.write_v6(tmp_path / "v6" / "state.db")
    _store(tmp_path / "v6").delete(f"{v6}#{fx.CRON_ID}")
    assert _store(tmp_path / "v6").discover() == []


def test_an_undo_is_refused_once_hermes_changed_the_session(tmp_path: Path) -> None:
    db = fx.write_newest(tmp_path / "state.db")
    source = m.from_json(json.dumps(expected.CRON))
    copy = m.Transcript(
        meta=m.Meta(id="copy_3", timestamp=source.meta.timestamp), messages=source.messages
    )
    _store(tmp_path).save(HERMES.from_common(copy))
    conn = sqlite3.connect(db)
    conn.execute("UPDATE sessions SET title = 'renamed in Hermes' WHERE id = 'copy_3'")
    conn.commit()
    conn.close()
    changed = _rows(db)
    with pytest.raises(BadInput, match="changed since"):
        HERMES.undo_backup(backups.list_backups(db)[0])
    assert _rows(db) == changed


@pytest.mark.parametrize("hostile", ["../x", "a/b", "-x", "", "a b"])
def test_hostile_ids_are_refused_before_anything_is_written(tmp_path: Path, hostile: str) -> None:
    db = fx.write_newest(tmp_path / "state.db")
    before = db.read_bytes()
    source = m.from_json(json.dumps(expected.CRON))
    copy = m.Transcript(
        meta=m.Meta(id=hostile, timestamp=source.meta.timestamp), messages=source.messages
    )
    native = HERMES.from_common(copy)
    with pytest.raises(BadInput):
        _store(tmp_path).save(native)
    assert db.read_bytes() == before
    assert backups.list_backups(db) == []


def test_a_fresh_root_gets_a_database_hermes_completes(tmp_path: Path) -> None:
    source = m.from_json(json.dumps(expected.CLI))
    saved = _store(tmp_path / "new").save(HERMES.from_common(source))
    assert (tmp_path / "new" / "state.db").is_file()
    assert _common(tmp_path / "new", saved.id) == expected.CLI


def test_the_listing_is_kept_under_a_change_token_that_moves_with_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    fx.write_home(tmp_path)
    old = time.time() - 60
    for path in [tmp_path, *tmp_path.rglob("*")]:
        os.utime(path, (old, old))
    token = HERMES.change_token(tmp_path)
    assert token and token == HERMES.change_token(tmp_path)
    (tmp_path / "sessions" / f"{fx.JSONL_ID}.jsonl").write_text(fx.jsonl_text() + "\n")
    os.utime(tmp_path / "sessions" / f"{fx.JSONL_ID}.jsonl", (old + 1, old + 1))
    assert HERMES.change_token(tmp_path) not in ("", token)
    conn = sqlite3.connect(tmp_path / "state.db")
    conn.execute("UPDATE sessions SET title = 'x' WHERE id = ?", (fx.CLI_ID,))
    conn.commit()
    conn.close()
    assert HERMES.change_token(tmp_path) == ""  # written just now: no token yet


def test_secrets_in_columns_are_never_read(tmp_path: Path) -> None:
    db = fx.write_newest(tmp_path / "state.db")
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE sessions ADD COLUMN provider_api_key TEXT")
    conn.execute("UPDATE sessions SET provider_api_key = 'sk-SECRET'")
    conn.commit()
    conn.close()
    store = _store(tmp_path)
    native = store.load(f"{db}#{fx.CLI_ID}")
    assert "provider_api_key" not in native.session
    assert "sk-SECRET" not in HERMES.to_text(native)


def test_store_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "state.db").write_text("not a database")
    with pytest.warns(TranscriptWarning, match="not an SQLite database"):
        assert _store(tmp_path).discover() == []
    with pytest.raises((BadInput, StoreError)):
        _store(tmp_path).load(f"{tmp_path / 'state.db'}#{fx.CLI_ID}")


def test_a_transcript_log_splits_only_at_newlines(tmp_path: Path) -> None:
    """Regression (found by the Grok fixpoint property, the same reader shape here): a JSONL log
    split with ``splitlines`` breaks inside a message holding U+2028 or U+0085."""
    text = "one\u2028two\x85three"
    lines = [
        {"role": "session_meta", "model": "m", "platform": "cli", "timestamp": fx.T_JSONL},
        {"role": "user", "content": text, "timestamp": fx.T_JSONL + 1},
    ]
    logs = tmp_path / "sessions"
    logs.mkdir()
    (logs / "20260101_000000_aaaaaa.jsonl").write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    )
    assert _common(tmp_path, "20260101_000000_aaaaaa")["messages"][0]["content"] == [
        {"type": "text", "text": text}
    ]


def test_a_second_listing_under_the_same_token_opens_no_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    from txcript import sessions
    from txcript.harnesses.hermes import store as hermes_store

    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    fx.write_home(tmp_path / "home")
    old = time.time() - 60
    for path in [tmp_path / "home", *(tmp_path / "home").rglob("*")]:
        os.utime(path, (old, old))
    first = sessions.store_listing(HERMES, tmp_path / "home", explicit=True)

    def refuse(self: Any) -> Any:
        raise AssertionError("the store was opened although its token stood")

    monkeypatch.setattr(hermes_store.HermesStore, "discover", refuse)
    assert sessions.store_listing(HERMES, tmp_path / "home", explicit=True) == first
    assert first is not None and len(first) == 5
