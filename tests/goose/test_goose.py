"""Goose: the exact Common output of its database (two schema generations) and of its older JSONL
files, listing both without duplicates, the writer's rows and its refusals."""

from __future__ import annotations

import json
import sqlite3
import warnings
from datetime import UTC, datetime
from pathlib import Path

import goose_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import StoreError

H = harnesses.get("goose")


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _store(root: Path):  # type: ignore[no-untyped-def]
    store = H.store(root)
    assert store is not None
    return store


def _quiet(root: Path, reference: str) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return H.to_common(_store(root).load(reference))


def test_the_database_session_reads_exactly(tmp_path: Path) -> None:
    database = f.build_current(tmp_path)
    with pytest.warns(TranscriptWarning) as said:
        transcript = H.to_common(_store(tmp_path).load(f"{database}#{f.MAIN_ID}"))
    assert [str(w.message) for w in said] == [
        f"Goose session {f.MAIN_ID}: kept in the store but left out of the conversation: "
        "1 hologram content"
    ]
    assert transcript == m.Transcript(
        meta=m.Meta(
            id=f.MAIN_ID, timestamp=at(f.T0), cwd=f.CWD, title="Health endpoint", model="gpt-4o"
        ),
        messages=(
            m.Message(
                role="user", content=(m.Text("Add a health endpoint"),), timestamp=at(f.T0 + 10)
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking("Look at the router first.", signature="sig-g"),
                    m.Text("Checking the routes."),
                    m.ToolUse("call_a", m.Bash(command="rg -n route src")),
                    m.ToolUse("call_b", m.Read(file_path=f"{f.CWD}/src/app.py")),
                ),
                timestamp=at(f.T0 + 12),
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult("call_a", "rg: src: No such file", is_error=True),
                    m.ToolResult("call_b", "-32603: file not found", is_error=True),
                ),
                timestamp=at(f.T0 + 14),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse("call_c", m.Write(file_path=f"{f.CWD}/app.py", content="app = 1\n")),
                ),
                timestamp=at(f.T0 + 16),
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult(
                        "call_c",
                        [
                            {"type": "text", "text": "wrote app.py"},
                            {"type": "resource", "resource": {"uri": "file:///x"}},
                        ],
                    ),
                ),
                timestamp=at(f.T0 + 18),
            ),
            m.Message(role="assistant", content=(m.Text("Added."),), timestamp=at(f.T0 + 20)),
        ),
    )


def test_the_early_schema_reads_exactly(tmp_path: Path) -> None:
    database = f.build_early(tmp_path)
    t = 1_760_943_600
    assert _quiet(tmp_path, f"{database}#{f.EARLY_ID}") == m.Transcript(
        meta=m.Meta(id=f.EARLY_ID, timestamp=at(t), cwd=f.CWD, title="Bump deps"),
        messages=(
            m.Message(role="user", content=(m.Text("bump the deps"),), timestamp=at(t)),
            m.Message(
                role="assistant",
                content=(m.ToolUse("c1", m.Bash(command="uv lock --upgrade")),),
                timestamp=at(t + 5),
            ),
            m.Message(
                role="user",
                content=(m.ToolResult("c1", "Resolved 40 packages"),),
                timestamp=at(t + 9),
            ),
        ),
    )


def test_the_older_jsonl_file_reads_exactly(tmp_path: Path) -> None:
    path = f.build_legacy(tmp_path)
    assert _quiet(tmp_path, str(path)) == m.Transcript(
        meta=m.Meta(
            id=f.LEGACY_NAME,
            timestamp=at(1_740_000_000),
            cwd="/home/dev/old",
            title="Refactor notes",
        ),
        messages=(
            m.Message(
                role="user", content=(m.Text("Split utils.py"),), timestamp=at(1_740_000_000)
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        "t1",
                        m.Edit(
                            file_path="/home/dev/old/utils.py",
                            old_string="def a",
                            new_string="def b",
                        ),
                    ),
                ),
                timestamp=at(1_740_000_004),
            ),
            m.Message(
                role="user", content=(m.ToolResult("t1", "ok"),), timestamp=at(1_740_000_006)
            ),
        ),
    )


def test_the_database_and_its_older_jsonl_are_listed_once_each(tmp_path: Path) -> None:
    database = f.build_current(tmp_path)
    legacy = f.build_legacy(tmp_path)
    store = _store(tmp_path)
    found = {d.meta_id: d for d in store.discover()}
    # hidden sessions are not listed; the JSONL file Goose imported is listed from the database.
    assert set(found) == {f.MAIN_ID, f.MIGRATED_NAME, f.LEGACY_NAME}
    assert found[f.MIGRATED_NAME].reference == f"{database}#{f.MIGRATED_NAME}"
    assert found[f.LEGACY_NAME].reference == str(legacy)
    assert [d.meta_id for d in store.lookup("2026")] == [f.MAIN_ID]


def test_a_copy_is_written_into_the_database_and_reads_back_exactly(tmp_path: Path) -> None:
    source = _quiet(tmp_path / "src", f"{f.build_current(tmp_path / 'src')}#{f.MAIN_ID}")
    root = tmp_path / "dst"
    database = f.build_empty(root)
    copy = m.Transcript(
        meta=m.Meta(
            id="6f1e2d3c-4b5a-4968-8776-5a4b3c2d1e0f",
            timestamp=source.meta.timestamp,
            cwd=source.meta.cwd,
            title=source.meta.title,
        ),
        messages=source.messages,
    )
    saved = _store(root).save(H.from_common(copy))
    assert saved.backup is not None
    assert _quiet(root, saved.reference) == copy
    conn = sqlite3.connect(database)
    row = conn.execute(
        "SELECT name, session_type, working_dir, created_at FROM sessions WHERE id = ?",
        (copy.meta.id,),
    ).fetchone()
    first = json.loads(conn.execute("SELECT content_json FROM messages ORDER BY id").fetchone()[0])
    conn.close()
    assert row == ("Health endpoint", "user", f.CWD, "2026-11-03 10:00:00")
    assert first == [{"type": "text", "text": "Add a health endpoint"}]


def test_without_a_database_goose_created_nothing_is_written(tmp_path: Path) -> None:
    transcript = m.Transcript(
        meta=m.Meta(id="20261103_9", timestamp=at(f.T0), cwd="/w"),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    with pytest.raises(StoreError, match="run `goose` once"):
        _store(tmp_path).save(H.from_common(transcript))
    assert not (tmp_path / "sessions").exists()


def test_restore_undoes_a_save_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from txcript import restoring

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    root = tmp_path / "goose"
    database = f.build_current(root)
    before = sqlite3.connect(database).execute("SELECT COUNT(*) FROM messages").fetchone()
    transcript = m.Transcript(
        meta=m.Meta(id="20261103_9", timestamp=at(f.T0), cwd="/w"),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    saved = _store(root).save(H.from_common(transcript))
    plan = restoring.plan(saved.backup or "")
    assert plan.trusted
    restoring.restore(plan)
    conn = sqlite3.connect(database)
    assert conn.execute("SELECT COUNT(*) FROM sessions WHERE id = '20261103_9'").fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM messages").fetchone() == before
    conn.close()


def test_the_change_token_moves_when_the_database_or_the_jsonl_directory_does(
    tmp_path: Path,
) -> None:
    import os

    from txcript.harnesses.goose.store import change_token

    database = f.build_current(tmp_path)
    f.build_legacy(tmp_path)
    old = 1_700_000_000_000_000_000

    def settle(offset: int = 0) -> None:
        for path in [tmp_path / "sessions", *(tmp_path / "sessions").iterdir()]:
            when = old + offset * 10**9 if path == database else old
            os.utime(path, ns=(when, when))

    settle()
    token = change_token(tmp_path)
    assert token and change_token(tmp_path) == token
    settle(5)  # the database written
    moved = change_token(tmp_path)
    assert moved not in ("", token)
    (tmp_path / "sessions" / "new.jsonl").write_text("{}\n")
    settle(5)
    os.utime(tmp_path / "sessions", ns=(old + 9 * 10**9,) * 2)  # a file added: its directory moves
    assert change_token(tmp_path) not in ("", moved)
