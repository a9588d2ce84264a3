"""Damaged Goose, Crush and droid stores: one warning or one error line, never a traceback, and
nothing written."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

import crush_fixtures as crush
import pytest

from conftest import RunCli

TESTS = Path(__file__).parents[1]
for _sibling in ("goose", "droid"):
    if str(TESTS / _sibling) not in sys.path:
        sys.path.append(str(TESTS / _sibling))

import droid_fixtures as droid  # noqa: E402
import goose_fixtures as goose  # noqa: E402


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".cache" not in p.parts and "txcript" not in p.parts
    }


def _listed(run_cli: RunCli, harness: str) -> tuple[int, list[str], str]:
    done = run_cli("list", "--from", harness, "--json")
    assert "Traceback" not in done.stderr, done.stderr
    ids = [row["id"] for row in json.loads(done.stdout)] if done.code == 0 else []
    return done.code, ids, done.stderr


def test_a_truncated_crush_database_is_one_warning(run_cli: RunCli, isolated_home: Path) -> None:
    database = crush.build_current(isolated_home / ".local/share/crush")
    database.write_bytes(database.read_bytes()[:150])
    before = _tree(isolated_home)
    code, ids, stderr = _listed(run_cli, "crush")
    assert (code, ids) == (0, [])
    assert stderr.count("warning:") == 1 and "truncated" in stderr
    assert _tree(isolated_home) == before


def test_a_projects_json_that_is_not_json_is_one_error(
    run_cli: RunCli, isolated_home: Path
) -> None:
    root = isolated_home / ".local/share/crush"
    root.mkdir(parents=True)
    (root / "projects.json").write_text("{not json")
    done = run_cli("list", "--from", "crush")
    assert done.code == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "projects.json" in done.stderr


def test_wrong_json_types_in_projects_json_are_counted_once(
    run_cli: RunCli, isolated_home: Path
) -> None:
    root = isolated_home / ".local/share/crush"
    crush.build_current(root)
    entries = json.loads((root / "projects.json").read_text())["projects"]
    entries += [{"path": 7}, "text", {"data_dir": "/x"}]
    (root / "projects.json").write_text(json.dumps({"projects": entries}))
    code, ids, stderr = _listed(run_cli, "crush")
    assert code == 0 and crush.MAIN_ID in ids
    assert stderr.count("warning:") == 1 and "3 project entries" in stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_where_a_database_or_session_file_should_be_is_refused(
    run_cli: RunCli, isolated_home: Path
) -> None:
    root = isolated_home / ".local/share/crush"
    project = isolated_home / "proj"
    (project / ".crush").mkdir(parents=True)
    os.mkfifo(project / ".crush" / "crush.db")
    crush.write_projects(root, [{"path": str(project), "data_dir": str(project / ".crush")}])
    code, ids, stderr = _listed(run_cli, "crush")
    assert (code, ids) == (0, []) and stderr.count("warning:") == 1
    sessions = isolated_home / ".factory" / "sessions" / "-p"
    sessions.mkdir(parents=True)
    os.mkfifo(sessions / f"{droid.MAIN_ID}.jsonl")
    code, ids, stderr = _listed(run_cli, "droid")
    assert (code, ids) == (0, []) and stderr.count("warning:") == 1
    legacy = isolated_home / ".local/share/goose/sessions"
    legacy.mkdir(parents=True)
    os.mkfifo(legacy / "fifo.jsonl")
    code, ids, stderr = _listed(run_cli, "goose")
    assert (code, ids) == (0, []) and stderr.count("warning:") == 1


def test_droid_files_that_are_not_sessions_are_skipped_with_a_warning_each(
    run_cli: RunCli, isolated_home: Path
) -> None:
    factory = isolated_home / ".factory"
    droid.build_project(factory)
    directory = factory / "sessions" / droid.PROJECT_KEY
    (directory / "notes.jsonl").write_text("just text\n")
    (directory / "dir.jsonl").mkdir()
    code, ids, stderr = _listed(run_cli, "droid")
    assert code == 0 and set(ids) == {droid.MAIN_ID, droid.SUB_ID}
    assert stderr.count("warning:") == 1 and "notes.jsonl" in stderr


def test_a_corrupt_goose_database_is_one_warning_and_its_jsonl_still_lists(
    run_cli: RunCli, isolated_home: Path
) -> None:
    data = isolated_home / ".local/share/goose"
    database = goose.build_current(data)
    goose.build_legacy(data)
    database.write_bytes(b"SQLite format 3\x00" + b"\x00" * 84 + b"\xff" * 4000)
    code, ids, stderr = _listed(run_cli, "goose")
    assert code == 0 and goose.LEGACY_NAME in ids
    assert stderr.count("warning:") == 1 and "Goose database" in stderr


def test_a_locked_crush_database_refuses_the_write_in_one_line(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    root = isolated_home / ".local/share/crush"
    project = isolated_home / "proj"
    database = crush.build_empty(root, project)
    document = tmp_path / "doc.json"
    document.write_text(
        json.dumps(
            {
                "id": "s1",
                "cwd": str(project),
                "messages": [{"role": "user", "content": "hi"}],
            }
        )
    )
    rows = _rows(database)
    # (no file of the database may be read while the lock is held: closing any descriptor of
    # it would drop this process's SQLite locks)
    holder = sqlite3.connect(database, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        done = run_cli("continue", str(document), "--with", "crush", "--no-resume")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.code == 1 and "Traceback" not in done.stderr
    assert "locked" in done.stderr and done.stderr.strip().count("\n") == 0
    assert _rows(database) == rows
    assert not (isolated_home / ".local/share/txcript/backups").exists()


def _rows(database: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(database)
    try:
        return [
            *conn.execute("SELECT * FROM sessions ORDER BY rowid"),
            *conn.execute("SELECT * FROM messages ORDER BY rowid"),
        ]
    finally:
        conn.close()
