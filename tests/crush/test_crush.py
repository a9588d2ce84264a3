"""Crush: the exact Common output of each schema generation, seconds as times, listing through
projects.json, the writer's rows and its refusals."""

from __future__ import annotations

import json
import os
import sqlite3
import warnings
from datetime import UTC, datetime
from pathlib import Path

import crush_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import StoreError

H = harnesses.get("crush")


def at(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def _store(root: Path):  # type: ignore[no-untyped-def]
    store = H.store(root)
    assert store is not None
    return store


def _quiet_load(root: Path, reference: str) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        return H.to_common(_store(root).load(reference))


def test_a_project_whose_times_are_seconds_reads_exactly(tmp_path: Path) -> None:
    database = f.build_current(tmp_path)
    project = str(tmp_path / "work" / f.PROJECT.lstrip("/"))
    with pytest.warns(TranscriptWarning) as said:
        transcript = H.to_common(_store(tmp_path).load(f"{database}#{f.MAIN_ID}"))
    assert [str(w.message) for w in said] == [
        f"Crush session {f.MAIN_ID}: kept in the database but left out of the conversation: "
        "1 hologram part"
    ]
    assert transcript == m.Transcript(
        meta=m.Meta(
            id=f.MAIN_ID, timestamp=at(f.T0), cwd=project, title="Checkout failure", model=f.MODEL
        ),
        messages=(
            m.Message(
                role="user", content=(m.Text("Why does checkout fail?"),), timestamp=at(f.T0)
            ),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking("Check the tests and the handler.", signature="sig-c"),
                    m.Text("Looking at both."),
                    m.ToolUse("call_1", m.Bash(command="go test ./...", description="Run tests")),
                    m.ToolUse(
                        "call_2",
                        m.Read(file_path=f"{f.PROJECT}/checkout.go", offset=10, limit=40),
                    ),
                    m.ToolUse("call_3", m.Raw(tool_name="grep", input={"pattern": "TODO"})),
                ),
                timestamp=at(f.T0 + 2),
                model=f.MODEL,
                stop_reason="tool_use",
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult("call_1", "FAIL checkout", is_error=True),
                    m.ToolResult("call_2", "func Checkout() {}"),
                    m.ToolResult("call_3", "no matches"),
                ),
                timestamp=at(f.T0 + 5),
            ),
            m.Message(
                role="assistant",
                content=(m.Text("The handler returns early."),),
                timestamp=at(f.T0 + 5),
                model=f.MODEL,
                stop_reason="end_turn",
            ),
            m.Message(role="user", content=(m.Text("Thanks"),), timestamp=at(f.T0 + 9)),
        ),
    )
    # Read as milliseconds (what the schema comments claim), this session would start in 1970.
    assert transcript.meta.timestamp.year == 2026


def test_the_first_schema_generation_reads_exactly(tmp_path: Path) -> None:
    database = f.build_initial(tmp_path)
    project = str(tmp_path / "work" / f.OLD_PROJECT.lstrip("/"))
    assert _quiet_load(tmp_path, f"{database}#{f.OLD_ID}") == m.Transcript(
        meta=m.Meta(
            id=f.OLD_ID, timestamp=at(f.T0 - 86_400), cwd=project, title="Rename", model="gpt-4.1"
        ),
        messages=(
            m.Message(
                role="user", content=(m.Text("Rename the package"),), timestamp=at(f.T0 - 86_400)
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        "call_9",
                        m.Edit(
                            file_path=f"{f.OLD_PROJECT}/go.mod",
                            old_string="module a",
                            new_string="module b",
                        ),
                    ),
                ),
                timestamp=at(f.T0 - 86_399),
                model="gpt-4.1",
                stop_reason="aborted",
            ),
        ),
    )


def test_a_compacted_session_starts_at_its_summary_as_the_users_turn(tmp_path: Path) -> None:
    database = f.build_current(tmp_path)
    transcript = _quiet_load(tmp_path, f"{database}#{f.SUMMARY_ID}")
    assert [(msg.role, msg.content) for msg in transcript.messages] == [
        ("user", (m.Text("Summary: asked and answered."),)),
        ("user", (m.Text("next question"),)),
    ]


def test_times_written_as_milliseconds_still_land_on_their_day() -> None:
    from txcript.harnesses.crush.codec import moment

    assert moment(f.T0) == moment(f.T0 * 1000) == at(f.T0)


def test_listing_goes_through_projects_json_and_skips_title_sessions(tmp_path: Path) -> None:
    database = f.build_current(tmp_path)
    store = _store(tmp_path)
    found = {d.meta_id: d for d in store.discover()}
    assert set(found) == {f.MAIN_ID, f.SUB_ID, f.SUMMARY_ID}
    assert found[f.SUB_ID].parent == f.MAIN_ID
    assert found[f.MAIN_ID].message_count == 5
    assert [d.meta_id for d in store.lookup(f.MAIN_ID[:6])] == [f.MAIN_ID]
    assert found[f.MAIN_ID].reference == f"{database}#{f.MAIN_ID}"


def test_a_relative_data_dir_is_its_projects(tmp_path: Path) -> None:
    database = f.build_initial(tmp_path)
    (found,) = _store(tmp_path).discover()
    assert found.reference == f"{database}#{f.OLD_ID}"


def _copy_source(tmp_path: Path) -> m.Transcript:
    database = f.build_current(tmp_path / "src")
    return _quiet_load(tmp_path / "src", f"{database}#{f.MAIN_ID}")


def test_a_copy_lands_in_the_project_of_its_cwd_and_reads_back_exactly(tmp_path: Path) -> None:
    source = _copy_source(tmp_path)
    root = tmp_path / "global"
    project = tmp_path / "proj"
    database = f.build_empty(root, project)
    copy = m.Transcript(
        meta=m.Meta(
            id="0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d",
            timestamp=source.meta.timestamp,
            cwd=str(project),
            title=source.meta.title,
            model=source.meta.model,
        ),
        messages=source.messages,
    )
    saved = _store(root).save(H.from_common(copy))
    assert saved.reference == f"{database}#{copy.meta.id}"
    assert saved.backup is not None
    assert _quiet_load(root, saved.reference) == copy
    conn = sqlite3.connect(database)
    count, created, updated = conn.execute(
        "SELECT message_count, created_at, updated_at FROM sessions WHERE id = ?", (copy.meta.id,)
    ).fetchone()
    roles = [r for (r,) in conn.execute("SELECT role FROM messages ORDER BY rowid")]
    finishes = [
        json.loads(p)[-1]["type"]
        for (p,) in conn.execute("SELECT parts FROM messages WHERE role = 'assistant'")
    ]
    conn.close()
    # The triggers did not touch the session row: it holds what was written, in seconds.
    assert (count, created, updated) == (5, f.T0, f.T0 + 9)
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    assert finishes == ["finish", "finish"]


def test_a_project_crush_never_ran_in_is_refused(tmp_path: Path) -> None:
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(f.T0), cwd=str(tmp_path / "nowhere")),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    with pytest.raises(StoreError, match="run `crush` there once"):
        _store(tmp_path).save(H.from_common(transcript))
    assert not (tmp_path / "nowhere").exists()


def test_an_unmigrated_database_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    database = f.build_empty(tmp_path / "g", project)
    conn = sqlite3.connect(database)
    conn.execute("DROP TABLE goose_db_version")
    conn.commit()
    conn.close()
    before = database.read_bytes()
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(f.T0), cwd=str(project)),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    with pytest.raises(StoreError, match="has not migrated it"):
        _store(tmp_path / "g").save(H.from_common(transcript))
    assert database.read_bytes() == before


@pytest.mark.skipif(os.name == "nt", reason="flock")
def test_a_save_is_refused_while_crush_holds_its_lock(tmp_path: Path) -> None:
    import fcntl

    project = tmp_path / "proj"
    f.build_empty(tmp_path / "g", project)
    lock = project / ".crush" / "crush.lock"
    lock.write_text("")
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(f.T0), cwd=str(project)),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    with open(lock) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(StoreError, match="Crush is running"):
            _store(tmp_path / "g").save(H.from_common(transcript))
    saved = _store(tmp_path / "g").save(H.from_common(transcript))
    assert saved.id == f.MAIN_ID


def test_restore_undoes_a_save_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from txcript import restoring

    root = tmp_path / "g"
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(root))
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    project = tmp_path / "proj"
    database = f.build_empty(root, project)
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(f.T0), cwd=str(project)),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    saved = _store(root).save(H.from_common(transcript))
    plan = restoring.plan(saved.backup or "")
    assert plan.trusted
    restoring.restore(plan)
    conn = sqlite3.connect(database)
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone() == (0,)
    assert conn.execute("SELECT COUNT(*) FROM messages").fetchone() == (0,)
    conn.close()


def test_a_copy_from_a_subdirectory_goes_to_the_nearest_project_above_it(tmp_path: Path) -> None:
    """Crush opens the nearest ``.crush`` upward from where it starts, so a session whose cwd
    is inside a project is written into that project's database (the nearest listed one)."""
    root = tmp_path / "g"
    outer = tmp_path / "repo"
    inner = outer / "services" / "api"
    f.build_empty(root, outer)
    database = f.build_empty(root, inner)
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(f.T0), cwd=str(inner / "src")),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=at(f.T0)),),
    )
    saved = _store(root).save(H.from_common(transcript))
    assert saved.reference == f"{database}#{f.MAIN_ID}"
    assert _quiet_load(root, saved.reference).meta.cwd == str(inner)


def test_an_agent_sub_session_id_is_a_crush_id() -> None:
    """Crush names an agent tool's sub-session after the tool call (``toolu_…``), not a UUID."""
    assert H.check_id(f.SUB_ID) == f.SUB_ID


def _age(root: Path, written: Path | None = None, seconds: int = 0) -> None:
    """Every file settled long ago (a token is only taken of settled files); ``written`` (a
    file just written) ``seconds`` later than the rest, as a write moves its mtime."""
    old = 1_700_000_000_000_000_000
    for path in root.rglob("*"):
        when = old + seconds * 10**9 if path == written else old
        os.utime(path, ns=(when, when))


def test_the_change_token_moves_with_projects_json_and_every_project_database(
    tmp_path: Path,
) -> None:
    from txcript.harnesses.crush.store import change_token

    root = tmp_path / "g"
    database = f.build_current(root)
    _age(tmp_path)
    token = change_token(root)
    assert token and change_token(root) == token
    conn = sqlite3.connect(database)
    conn.execute("UPDATE sessions SET title = 'renamed' WHERE id = ?", (f.MAIN_ID,))
    conn.commit()
    conn.close()
    _age(tmp_path, database, 5)
    moved = change_token(root)
    assert moved and moved != token
    f.build_empty(root, tmp_path / "another")
    _age(tmp_path, database, 5)
    assert change_token(root) not in ("", moved)


def test_delete_removes_the_rows_and_restore_brings_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript import restoring
    from txcript.shared import backups

    root = tmp_path / "g"
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(root))
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    database = f.build_current(root)
    reference = f"{database}#{f.MAIN_ID}"
    before = _store(root).load(reference)
    _store(root).delete(reference)
    assert f.MAIN_ID not in {d.meta_id for d in _store(root).discover()}
    (backup,) = [b for b in backups.list_backups() if b.operation == "delete"]
    restoring.restore(restoring.plan(backup.id))
    assert _store(root).load(reference) == before
