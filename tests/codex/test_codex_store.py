"""The Codex store: byte-lossless round trips, discovery, the state database, path safety."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from codex_fixtures import (
    BARE_ID,
    BROKEN_LINE,
    LEGACY_ID,
    SESSION_ID,
    THREADS_DDL,
    bare_text,
    current_text,
    legacy_text,
    make_db,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreError
from txcript.harnesses.codex import store
from txcript.harnesses.codex.native import CodexSession

H = harnesses.get("codex")
T0 = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
ID = "11111111-2222-4333-8444-555555555555"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence the fixtures' deliberate malformed-line warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        yield


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "codex-home"


def put(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


FIXTURES = {
    "current": (
        f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{SESSION_ID}.jsonl",
        current_text,
        SESSION_ID,
    ),
    "bare": (
        f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{BARE_ID}.jsonl",
        bare_text,
        BARE_ID,
    ),
    "legacy": (f"sessions/rollout-2025-04-16-{LEGACY_ID}.json", legacy_text, LEGACY_ID),
}


def sample(session_id: str = ID, title: str | None = None) -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(
            id=session_id,
            timestamp=T0,
            cwd="/repo",
            git_branch="main",
            title=title,
            cli_version="0.146.0",
            model="gpt-5.1-codex",
        ),
        messages=(
            m.Message(role="user", content=(m.Text(text="hello there"),), timestamp=T0),
            m.Message(
                role="assistant",
                content=(m.Text(text="hi"),),
                timestamp=T0 + timedelta(seconds=1),
                model="gpt-5.1-codex",
                stop_reason="end_turn",
                usage=m.Usage(input_tokens=10, output_tokens=3),
            ),
        ),
    )


# ------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_store_round_trip_is_byte_lossless(root: Path, name: str) -> None:
    relative, text, session_id = FIXTURES[name]
    source = put(root, relative, text())
    codex = H.store(root)
    with quiet():
        first = codex.load(str(source))
        saved = codex.save(first)
        second = codex.load(saved.reference)
    assert second == first
    assert Path(saved.reference).read_bytes() == source.read_bytes()
    assert saved.id == session_id and saved.location == saved.reference
    parts = Path(saved.reference).relative_to(root).parts
    if name == "legacy":
        assert parts == (
            "sessions",
            "2025",
            "04",
            "16",
            f"rollout-2025-04-16T17-20-05-{LEGACY_ID}.json",
        )
    else:
        assert parts == ("sessions", *relative.split("/")[1:])


def test_save_path_is_dated_by_the_start_time_in_utc(root: Path) -> None:
    saved = H.store(root).save(H.from_common(sample()))
    parts = Path(saved.reference).relative_to(root).parts
    assert parts == ("sessions", "2026", "03", "04", f"rollout-2026-03-04T05-06-07-{ID}.jsonl")
    assert H.to_common(H.store(root).load(saved.reference)) == sample(title="hello there")


def test_malformed_line_is_skipped_with_a_warning_naming_file_and_line(root: Path) -> None:
    relative, text, _ = FIXTURES["current"]
    path = put(root, relative, text())
    with pytest.warns(TranscriptWarning) as caught:
        transcript = H.to_common(H.store(root).load(str(path)))
    assert any(
        str(path) in str(w.message) and f"line {BROKEN_LINE}" in str(w.message) for w in caught
    )
    assert len(transcript.messages) == 10


# ------------------------------------------------------------------------------ discovery


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_discovery_lists_each_rollout_by_its_path_and_mtime(root: Path, name: str) -> None:
    """(That its metadata is what a load gives is the conformance suite's contract.)"""
    relative, text, session_id = FIXTURES[name]
    path = put(root, relative, text())
    with quiet():
        (found,) = H.store(root).discover()
    assert found.reference == str(path) and found.harness == "codex"
    assert found.meta_id == session_id
    assert found.updated_at == datetime.fromtimestamp(path.stat().st_mtime_ns / 1e9, UTC)


def test_discovery_extracts_metadata(root: Path) -> None:
    relative, text, _ = FIXTURES["current"]
    put(root, relative, text())
    (found,) = H.store(root).discover()
    assert found.meta_id == SESSION_ID
    assert found.timestamp == datetime(2026, 8, 20, 10, 0, tzinfo=UTC)
    assert found.cwd == "/home/dev/proj"
    assert found.git_branch == "fix/parser"
    assert found.model == "gpt-5.1-codex"
    assert found.title == "Fix the failing parser test"


def test_titles_come_from_the_session_index_last_line_wins(root: Path) -> None:
    relative, text, _ = FIXTURES["current"]
    path = put(root, relative, text())
    index = [
        {"id": SESSION_ID, "thread_name": "first name", "updated_at": "2026-08-20T11:00:00Z"},
        {"id": "other", "thread_name": "x", "updated_at": "2026-08-20T11:00:00Z"},
        {"id": SESSION_ID, "thread_name": "Parser fix", "updated_at": "2026-08-20T12:00:00Z"},
    ]
    put(root, "session_index.jsonl", "".join(json.dumps(e) + "\n" for e in index) + "garbage\n")
    (found,) = H.store(root).discover()
    assert found.title == "Parser fix"
    with quiet():
        assert H.to_common(H.store(root).load(str(path))).meta.title == "Parser fix"


def test_save_with_a_title_appends_to_the_index_once(root: Path) -> None:
    codex = H.store(root)
    native = H.from_common(sample(title="Named thread"))
    saved = codex.save(native)
    codex.save(native)
    entries = [json.loads(x) for x in (root / "session_index.jsonl").read_text().splitlines()]
    assert [(e["id"], e["thread_name"]) for e in entries] == [(ID, "Named thread")]
    (found,) = codex.discover()
    assert found.title == "Named thread"
    assert H.to_common(codex.load(saved.reference)) == sample(title="Named thread")


def test_archived_sessions_are_listed_and_other_files_skipped(root: Path) -> None:
    put(root, f"archived_sessions/rollout-2025-06-01T08-30-00-{BARE_ID}.jsonl", bare_text())
    put(root, "sessions/2026/01/01/notes.jsonl", '{"hello": "world"}\n')
    put(root, "sessions/2026/01/01/readme.txt", "not a session")
    put(root, "sessions/2026/01/01/rollout-x.json", '{"session": 1}')
    (found,) = H.store(root).discover()
    assert found.meta_id == BARE_ID and "archived_sessions" in found.reference


def test_missing_root_is_empty(root: Path) -> None:
    assert H.store(root).discover() == []


def test_directory_symlinks_are_not_followed(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    put(outside, f"rollout-2026-01-01T00-00-00-{ID}.jsonl", H.to_text(H.from_common(sample())))
    (root / "sessions").mkdir(parents=True)
    os.symlink(root, root / "sessions" / "loop")
    os.symlink(outside, root / "sessions" / "linked")
    assert H.store(root).discover() == []
    target = outside / f"rollout-2026-01-01T00-00-00-{ID}.jsonl"
    os.symlink(target, root / "sessions" / target.name)
    (found,) = H.store(root).discover()
    assert found.meta_id == ID


def test_fingerprints_are_mtime_and_size_of_the_rollout_and_the_index(root: Path) -> None:
    saved = H.store(root).save(H.from_common(sample()))
    st = os.stat(saved.reference)
    prints = H.store(root).fingerprints([saved.reference, str(root / "gone.jsonl")])
    assert prints == {  # (no title: nothing written to the index yet)
        saved.reference: f"{st.st_mtime_ns}:{st.st_size}+-",
        str(root / "gone.jsonl"): "",
    }
    H.store(root).save(H.from_common(sample(title="named")), force=True)
    st, index = os.stat(saved.reference), os.stat(root / "session_index.jsonl")
    assert H.store(root).fingerprints([saved.reference]) == {
        saved.reference: f"{st.st_mtime_ns}:{st.st_size}+{index.st_mtime_ns}:{index.st_size}"
    }


# ------------------------------------------------------------------------------ zstd


class _FakeZstd:
    """Stands in for a zstd module: the ".zst" files of these tests hold plain text."""

    @staticmethod
    def open(source: Any, mode: str) -> Any:
        return source  # the store hands over the regular file it opened (a real decoder wraps it)


def test_plain_rollout_wins_over_compressed_twin(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "_zstd_module", lambda: _FakeZstd)
    relative = f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{BARE_ID}.jsonl"
    put(root, relative, bare_text())
    put(root, relative + ".zst", bare_text())
    zst_only = put(
        root,
        f"sessions/2025/06/02/rollout-2025-06-02T00-00-00-{ID}.jsonl.zst",
        H.to_text(H.from_common(sample())),
    )
    found = H.store(root).discover()
    assert sorted(f.reference for f in found) == sorted([str(root / relative), str(zst_only)])
    assert H.to_common(H.store(root).load(str(zst_only))).meta.id == ID


def test_compressed_rollouts_without_a_decoder(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "_zstd_module", lambda: None)
    path = put(root, f"sessions/2026/01/01/rollout-2026-01-01T00-00-00-{ID}.jsonl.zst", "x")
    with pytest.warns(TranscriptWarning, match="skipped 1 compressed Codex rollout"):
        assert H.store(root).discover() == []
    with pytest.raises(StoreError, match="zstandard") as caught:
        H.store(root).load(str(path))
    assert "\n" not in str(caught.value)


# ------------------------------------------------------------------------------ state database


def rows(db: Path) -> list[dict[str, Any]]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in connection.execute("SELECT * FROM threads ORDER BY id")]
    finally:
        connection.close()


def test_save_registers_the_thread_in_the_state_database(root: Path) -> None:
    make_db(root, name="state.sqlite")
    db = make_db(root)  # the highest version is the live one
    saved = H.store(root).save(H.from_common(sample(title="Named")))
    (row,) = rows(db)
    assert row["id"] == ID
    assert row["rollout_path"] == str(Path(saved.reference).resolve())
    assert row["created_at"] == int(T0.timestamp())
    assert row["updated_at"] == int((T0 + timedelta(seconds=1)).timestamp())
    assert (row["source"], row["model_provider"], row["cwd"]) == ("cli", "openai", "/repo")
    assert (row["title"], row["first_user_message"], row["git_branch"]) == (
        "Named",
        "hello there",
        "main",
    )
    assert (row["tokens_used"], row["has_user_event"], row["archived"]) == (13, 1, 0)
    assert row["cli_version"] == "0.146.0" and row["memory_mode"] == "enabled"
    assert rows(root / "state.sqlite") == []
    # Saving again updates the row in place.
    H.store(root).save(H.from_common(sample(title="Renamed")))
    assert [r["title"] for r in rows(db)] == ["Renamed"]


def test_millisecond_and_text_time_columns_follow_the_database(root: Path) -> None:
    ddl = THREADS_DDL.replace("updated_at INTEGER NOT NULL", "updated_at TEXT NOT NULL")
    db = make_db(root, ddl)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO threads (id, rollout_path, created_at, updated_at, source, model_provider,"
            " cwd, title, sandbox_policy, approval_mode) VALUES ('old', '/x', 1760000000000, 'x',"
            " 'cli', 'openai', '/', '', '', '')"
        )
    connection.close()
    H.store(root).save(H.from_common(sample()))
    row = next(r for r in rows(db) if r["id"] == ID)
    assert row["created_at"] == int(T0.timestamp() * 1000)
    assert row["updated_at"] == "2026-03-04T05:06:08.890Z"


@pytest.mark.parametrize(
    "ddl",
    [
        THREADS_DDL.replace("agent_nickname TEXT,", "shard_key TEXT NOT NULL,"),
        "CREATE TABLE conversations (id TEXT);",
        "CREATE TABLE threads (id TEXT PRIMARY KEY, path TEXT);",
    ],
)
def test_unknown_state_schema_refuses_and_writes_nothing(root: Path, ddl: str) -> None:
    db = make_db(root, ddl)
    before = db.read_bytes()
    with pytest.raises(StoreError, match="unknown schema") as caught:
        H.store(root).save(H.from_common(sample(title="Named")))
    assert "\n" not in str(caught.value)
    assert not (root / "sessions").exists()
    assert not (root / "session_index.jsonl").exists()
    assert db.read_bytes() == before


def test_a_failed_registration_undoes_the_rollout(root: Path) -> None:
    db = make_db(root)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "CREATE TRIGGER no_inserts BEFORE INSERT ON threads "
            "BEGIN SELECT RAISE(ABORT, 'nope'); END"
        )
    connection.close()
    with pytest.raises(StoreError, match="nope"):
        H.store(root).save(H.from_common(sample()))
    assert list((root / "sessions").rglob("*.jsonl")) == []


def test_delete_removes_the_thread_row_too(root: Path) -> None:
    db = make_db(root)
    saved = H.store(root).save(H.from_common(sample()))
    assert len(rows(db)) == 1
    H.store(root).delete(saved.reference)
    assert rows(db) == [] and not Path(saved.reference).exists()


# ------------------------------------------------------------------------------ path safety


@pytest.mark.parametrize(
    "hostile", ["../../pwned", "/tmp/abs-pwned", "a/b", "..", "", "a\\b", "c:d", "x\ny"]
)
def test_hostile_ids_are_refused_before_writing(root: Path, tmp_path: Path, hostile: str) -> None:
    make_db(root)
    with pytest.raises(BadInput, match="not a valid Codex id"):
        H.store(root).save(H.from_common(sample(session_id=hostile, title="t")))
    assert not (root / "sessions").exists()
    assert not (root / "session_index.jsonl").exists()
    assert rows(root / "state_5.sqlite") == []
    assert not (tmp_path / "pwned").exists()


def test_delete_round_trip(root: Path) -> None:
    codex = H.store(root)
    saved = codex.save(H.from_common(sample()))
    assert len(codex.discover()) == 1
    codex.delete(saved.reference)
    assert codex.discover() == []
    with pytest.raises(BadInput):
        codex.delete(saved.reference)


def test_delete_is_confined_to_the_store(root: Path, tmp_path: Path) -> None:
    codex = H.store(root)
    text = H.to_text(H.from_common(sample()))
    outside = put(tmp_path, f"outside/rollout-2026-01-01T00-00-00-{ID}.jsonl", text)
    with pytest.raises(BadInput, match="not inside"):
        codex.delete(str(outside))
    link = root / "sessions" / "2026" / outside.name
    link.parent.mkdir(parents=True)
    os.symlink(outside, link)
    with pytest.raises(BadInput, match="not inside"):
        codex.delete(str(link))
    with pytest.raises(BadInput, match="not inside"):
        codex.delete(str(root / "sessions" / ".." / ".." / "outside" / outside.name))
    assert outside.exists() and link.is_symlink()
    stray = put(root, "sessions/2026/notes.jsonl", '{"not": "a rollout"}\n')
    with pytest.raises(BadInput, match="not a Codex rollout"):
        codex.delete(str(stray))
    with pytest.raises(BadInput, match="no Codex session"):
        codex.delete(str(root / "sessions" / "missing.jsonl"))
    assert stray.exists()


# ------------------------------------------------------------------------------ harness


def test_registry_root_and_resume(monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> None:
    harness = harnesses.get("codex")
    assert harness.has_store and harness.can_write
    assert harness.default_root() == isolated_home / ".codex"
    monkeypatch.setenv("CODEX_HOME", "")
    assert harness.default_root() == isolated_home / ".codex"
    monkeypatch.setenv("CODEX_HOME", "/opt/codex")
    assert harness.default_root() == Path("/opt/codex")
    assert harness.store().root == Path("/opt/codex")
    assert harness.resume_command(ID) == ["codex", "resume", ID]


def test_load_fills_an_empty_id_from_the_file_name(root: Path) -> None:
    text = H.to_text(H.from_common(sample(session_id="")))
    path = put(root, f"sessions/2026/03/04/rollout-2026-03-04T05-06-07-{ID}.jsonl", text)
    loaded: CodexSession = H.store(root).load(str(path))
    assert H.to_common(loaded).meta.id == ID
    (found,) = H.store(root).discover()
    assert found.meta_id == ID


# ------------------------------------------------------------------ delete keeps a backup


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Backups (every delete takes one) go under the test's own directory."""
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` except state databases (relative path → bytes)."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".sqlite" not in p.name
    }


def tree(root: Path) -> set[str]:
    """Every file and directory under ``root`` (relative paths), ``root`` itself included."""
    if not root.exists():
        return set()
    return {".", *(p.relative_to(root).as_posix() for p in root.rglob("*"))}


def test_cli_delete_backs_the_rollout_up_and_restore_brings_it_back_byte_identical(
    run_cli: RunCli, root: Path, data_dir: Path
) -> None:
    """Regression: ``delete`` removed a Codex rollout with no backup, although cli.md says a
    delete happens "after writing a backup". It now copies the rollout into a ``files`` backup
    before removing anything; ``txcript restore <id>`` puts it back byte for byte, and the
    session is listed again under its name (delete leaves the append-only
    ``session_index.jsonl`` alone). The state database row is not part of the backup: Codex
    re-registers a thread from its rollout, so after the restore the row is still absent."""
    relative, text, session_id = FIXTURES["current"]
    source = put(root, relative, text())
    put(root, "session_index.jsonl", json.dumps({"id": session_id, "thread_name": "Kept"}) + "\n")
    db = make_db(root)
    with quiet():
        H.store(root).save(H.store(root).load(str(source)))
    assert [r["id"] for r in rows(db)] == [session_id]
    before = snapshot(root)
    env = {"CODEX_HOME": str(root)}
    deleted = run_cli("delete", session_id, "--from", "codex", "--yes", env=env)
    assert deleted.code == 0, deleted.stderr
    assert not source.exists() and rows(db) == []
    assert snapshot(root) == {"session_index.jsonl": before["session_index.jsonl"]}
    shown = json.loads(run_cli("restore", "--json").stdout)
    assert [(b["operation"], b["session"], b["kind"], b["files"]) for b in shown] == [
        ("delete", session_id, "files", [str(source)])
    ]
    assert Path(shown[0]["path"]).is_relative_to(data_dir)
    restored = run_cli("restore", shown[0]["id"], "--yes", env=env)
    assert restored.code == 0, restored.stderr
    assert snapshot(root) == before
    listed = json.loads(run_cli("list", "--from", "codex", "--json", env=env).stdout)
    assert [(row["id"], row["title"]) for row in listed] == [(session_id, "Kept")]
    assert rows(db) == []


def test_a_codex_delete_whose_backup_fails_removes_nothing(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (same finding): when the backup cannot be written (the data directory is a
    regular file), the delete is refused with one line; the rollout and its database row stay."""
    db = make_db(root)
    saved = H.store(root).save(H.from_common(sample()))
    before = snapshot(root)
    blocker = tmp_path / "data-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(blocker))
    with pytest.raises(StoreError, match=r"backing up .*nothing was written") as caught:
        H.store(root).delete(saved.reference)
    assert "\n" not in str(caught.value)
    assert snapshot(root) == before and [r["id"] for r in rows(db)] == [ID]


def test_a_delete_whose_database_transaction_fails_puts_the_rollout_back(
    root: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rollout is renamed aside inside the database transaction; when the transaction then
    fails (a COMMIT error, simulated after the rename), the rollout is renamed back, the row is
    rolled back, and the backup that guarded nothing is discarded."""
    db = make_db(root)
    saved = H.store(root).save(H.from_common(sample()))
    before = snapshot(root)
    real_unregister = store.statedb.unregister

    def failing(db: Path, thread_id: str, remove: Any) -> None:
        def remove_then_fail() -> None:
            remove()
            raise StoreError("simulated COMMIT failure")

        real_unregister(db, thread_id, remove_then_fail)

    monkeypatch.setattr(store.statedb, "unregister", failing)
    with pytest.raises(StoreError, match="simulated"):
        H.store(root).delete(saved.reference)
    assert snapshot(root) == before and [r["id"] for r in rows(db)] == [ID]
    assert not data_dir.exists() or list((data_dir / "backups").iterdir()) == []


# ---------------------------------------------------------------- all-or-nothing saves


def test_a_save_whose_index_append_fails_leaves_no_rollout(root: Path) -> None:
    """Regression: save wrote the rollout and registered the thread, and only then appended the
    name to ``session_index.jsonl``; when that append failed (here the index path is a
    directory) the command exited 1 but the rollout stayed in ``sessions/`` and the thread in
    the database. The append now comes first, and a failure leaves the store as it was."""
    db = make_db(root)
    (root / "session_index.jsonl").mkdir()
    before = tree(root)
    with pytest.raises(StoreError, match=r"session_index\.jsonl") as caught:
        H.store(root).save(H.from_common(sample(title="Named")))
    assert "\n" not in str(caught.value)
    assert tree(root) == before
    assert rows(db) == []


def test_a_save_whose_rollout_cannot_be_written_cuts_its_index_line_off_again(
    root: Path,
) -> None:
    """The index line is appended before the rollout is written; when the rollout then fails
    (a directory sits where it must go) the line is cut off and the index is byte-identical."""
    index = put(root, "session_index.jsonl", '{"id":"other","thread_name":"Other"}')  # no \n
    _, path = H.store(root).target(H.from_common(sample()))
    path.mkdir(parents=True)
    before = snapshot(root)
    with pytest.raises(StoreError):
        H.store(root).save(H.from_common(sample(title="Named")))
    assert snapshot(root) == before
    assert index.read_bytes() == b'{"id":"other","thread_name":"Other"}'


def test_a_save_whose_registration_fails_undoes_the_rollout_index_line_and_directories(
    root: Path,
) -> None:
    """Registration is the last step; when it fails, the rollout, the index line and the
    directories the save created are all undone."""
    db = make_db(root)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "CREATE TRIGGER no_inserts BEFORE INSERT ON threads "
            "BEGIN SELECT RAISE(ABORT, 'nope'); END"
        )
    connection.close()
    put(root, "session_index.jsonl", '{"id":"other","thread_name":"Other"}\n')
    before = tree(root), snapshot(root)
    with pytest.raises(StoreError, match="nope"):
        H.store(root).save(H.from_common(sample(title="Named")))
    assert (tree(root), snapshot(root)) == before


def test_a_failed_re_save_keeps_the_previous_rollout(root: Path) -> None:
    db = make_db(root)
    saved = H.store(root).save(H.from_common(sample(title="First")))
    before = snapshot(root)
    with sqlite3.connect(db) as connection:
        connection.execute(
            "CREATE TRIGGER no_updates BEFORE UPDATE ON threads "
            "BEGIN SELECT RAISE(ABORT, 'nope'); END"
        )
    connection.close()
    changed = sample(title="Second")
    changed = m.Transcript(meta=changed.meta, messages=changed.messages[:1])
    with pytest.raises(StoreError, match="nope"):
        H.store(root).save(H.from_common(changed))
    assert snapshot(root) == before
    assert Path(saved.reference).exists()


SAVE_WITH_A_FILE_SIZE_LIMIT = r"""
import resource, signal, sys
from pathlib import Path
from txcript import harnesses
from txcript.errors import StoreError

root, body, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
harness = harnesses.get("codex")
native = harness.from_text(Path(body).read_text())
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    harness.store(Path(root)).save(native)
except StoreError as exc:
    print(exc)
    sys.exit(1)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_save_that_runs_out_of_file_space_on_the_rollout_leaves_nothing(
    root: Path, tmp_path: Path
) -> None:
    """A real write failure: in a subprocess ``RLIMIT_FSIZE`` lets the small index line through
    but not the big rollout (``EFBIG``). The save fails with one line; the index is as it was and
    no rollout or directory is left."""
    index = put(root, "session_index.jsonl", '{"id":"other","thread_name":"Other"}\n')
    big = sample(title="Big")
    big = m.Transcript(
        meta=big.meta,
        messages=(m.Message(role="user", content=(m.Text(text="x" * 20_000),), timestamp=T0),),
    )
    body = tmp_path / "body.jsonl"
    body.write_text(H.to_text(H.from_common(big)))
    before = tree(root), index.read_bytes()
    done = subprocess.run(
        [sys.executable, "-c", SAVE_WITH_A_FILE_SIZE_LIMIT, str(root), str(body), "4096"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.splitlines()) == 1 and "rollout-" in done.stdout, done.stdout
    assert (tree(root), index.read_bytes()) == before
