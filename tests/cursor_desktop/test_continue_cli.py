"""``txcript continue`` into Cursor desktop, as users run it: real subprocesses, real databases."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import dbfixtures as fx
import pytest
from test_save_roundtrip import backup_count, db_path, dump, split

from cli_helpers import empty_cursor_database
from conftest import CliResult, RunCli
from txcript.harnesses.cursor_desktop import codec
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def document(tmp_path: Path, cwd: str = "/home/dev/repo") -> Path:
    """A Simple document: a tool call in message 2 whose result is message 3."""
    doc = {
        "id": "sess-1",
        "title": "Demo",
        "cwd": cwd,
        "model": "m",
        "timestamp": "2026-08-21T09:30:00.000Z",
        "messages": [
            {"role": "user", "content": "run the tests", "timestamp": "2026-08-21T09:30:01Z"},
            {
                "role": "assistant",
                "timestamp": "2026-08-21T09:30:02Z",
                "content": [
                    {"type": "tool_use", "id": "tu-1", "name": "Bash", "input": {"command": "t"}}
                ],
            },
            {
                "role": "user",
                "timestamp": "2026-08-21T09:30:03Z",
                "content": [{"type": "tool_result", "tool_use_id": "tu-1", "content": "ok"}],
            },
            {"role": "assistant", "content": "All green.", "timestamp": "2026-08-21T09:30:04Z"},
        ],
    }
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc))
    return path


def one_line_error(result: CliResult, code: int, needle: str) -> None:
    assert result.code == code, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("txcript: error: "), result.stderr
    assert needle in lines[0], result.stderr


def common_of(root: Path, cid: str) -> Any:
    return codec.to_common(CursorDesktopStore(root).load(cid))


def test_continue_a_document_into_cursor_desktop(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user path: a fresh id and start time, a cwd that exists here (the recorded one does
    not), the ``--json`` shape, and ``cursor`` to resume. (``--force`` only because another
    test may be running a stand-in named ``cursor`` meanwhile: the live database exists.)"""
    root = tmp_path / "User"
    empty_cursor_database(root)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    before = datetime.now().astimezone()
    result = run_cli(
        "continue", str(document(tmp_path)), "--with", "cursor_desktop", "--no-resume", "--json",
        "--force", env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    out = json.loads(result.stdout)
    assert list(out) == ["harness", "id", "location", "resume_command", "cwd", "env"]
    assert (out["cwd"], out["env"]) == (None, {})  # (Cursor opens on its sidebar, anywhere)
    assert out["harness"] == "cursor_desktop" and out["id"] != "sess-1"
    assert out["location"] == str(db_path(root))
    assert out["resume_command"] == ["cursor"]
    assert result.stderr == (
        f"txcript: note: session cwd `/home/dev/repo` does not exist here; using {here}\n"
    )
    transcript = common_of(root, out["id"])
    assert transcript.meta.cwd == str(here)
    assert transcript.meta.timestamp >= before.replace(microsecond=0)
    assert [m.role for m in transcript.messages] == ["user", "assistant", "user", "assistant"]
    assert [d.reference for d in CursorDesktopStore(root).discover()] == [out["id"]]
    assert backup_count() == 1  # the row backup that undoes the save


def test_the_human_output_and_the_resume_override(run_cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "User"
    empty_cursor_database(root)
    env = {
        "CURSOR_DESKTOP_USER_DIR": str(root),
        "TRANSCRIPT_CURSOR_DESKTOP_RESUME_CMD": "mycursor --open {id}",
    }
    doc = str(document(tmp_path, cwd=str(tmp_path)))
    args = ("continue", doc, "--with", "cursor-desktop", "--no-resume", "--force")
    as_json = run_cli(*args, "--json", env=env)
    assert as_json.code == 0, as_json.stderr
    cid = json.loads(as_json.stdout)["id"]
    assert json.loads(as_json.stdout)["resume_command"] == ["mycursor", "--open", cid]
    human = run_cli(*args, env=env)
    assert human.code == 0, human.stderr
    first, ident, sidebar, resume, undo = human.stdout.splitlines()
    assert first.startswith("simple → cursor_desktop  ") and first.endswith(str(db_path(root)))
    new_id = ident.removeprefix("  id: ")
    assert sidebar == "  in the sidebar as: Demo"
    assert undo.startswith("  undo with: txcript restore ")  # a row backup of this one save
    assert resume == f"  resume with: mycursor --open {new_id}"
    assert len(CursorDesktopStore(root).discover()) == 2  # every continue is a new copy


def test_continue_launches_the_resume_command_in_the_sessions_folder(
    run_cli: RunCli, tmp_path: Path
) -> None:
    root = tmp_path / "User"
    empty_cursor_database(root)
    project = tmp_path / "project"
    project.mkdir()
    record = tmp_path / "launched.json"
    script = tmp_path / "fake_cursor.py"
    script.write_text(
        "import json, os, sys\n"
        f"open({str(record)!r}, 'w').write(json.dumps([sys.argv[1:], os.getcwd()]))\n"
    )
    env = {
        "CURSOR_DESKTOP_USER_DIR": str(root),
        "TRANSCRIPT_CURSOR_DESKTOP_RESUME_CMD": f"{sys.executable} {script} {{id}}",
    }
    result = run_cli(
        "continue", str(document(tmp_path, cwd=str(project))), "--with", "cursor_desktop",
        "--force", env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    argv, cwd = json.loads(record.read_text())
    (found,) = CursorDesktopStore(root).discover()
    assert argv == [found.reference] and cwd == str(project)
    assert f"resuming: {sys.executable} {script} {found.reference} (in {project})" in result.stderr


def test_out_writes_a_faithful_copy_under_another_root(run_cli: RunCli, tmp_path: Path) -> None:
    """``--out DIR`` keeps the source's id, start time and cwd, and implies --no-resume."""
    out_dir = tmp_path / "Exported"
    env = {"TRANSCRIPT_CURSOR_DESKTOP_RESUME_CMD": "false"}  # would fail if it were launched
    result = run_cli(
        "continue", str(document(tmp_path)), "--with", "cursor_desktop", "--out", str(out_dir),
        "--force", env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    resume, undo = result.stdout.splitlines()[-2:]
    assert resume == "  resume with: false"
    assert undo.startswith("  undo with: txcript delete sess-1 --from cursor_desktop --root ")
    meta = common_of(out_dir, "sess-1").meta
    assert (meta.id, meta.cwd, meta.title, meta.model) == ("sess-1", "/home/dev/repo", "Demo", "m")
    assert meta.timestamp.isoformat() == "2026-08-21T09:30:00+00:00"
    again = run_cli(
        "continue", str(document(tmp_path)), "--with", "cursor_desktop", "--out", str(out_dir),
        "--replace", "--json",
    )  # fmt: skip
    assert again.code == 0 and json.loads(again.stdout)["id"] == "sess-1"
    assert [d.reference for d in CursorDesktopStore(out_dir).discover()] == ["sess-1"]


@pytest.mark.parametrize("out", [True, False])
def test_a_range_cutting_a_tool_pair_is_refused_before_anything_is_written(
    run_cli: RunCli, tmp_path: Path, out: bool
) -> None:
    root = tmp_path / "User"
    where = ["--out", str(root)] if out else []
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    result = run_cli(
        "continue", f"{document(tmp_path)}#1-2", "--with", "cursor_desktop", "--no-resume",
        "--force", *where, env=env,
    )  # fmt: skip
    one_line_error(result, 2, "range #1-2 cuts a tool call away from its result")
    assert "nearest valid range is #1-3" in result.stderr
    assert not root.exists()
    assert not (tmp_path / "txcript-data").exists()


def test_cursor_to_cursor_with_a_range_writes_a_new_session_and_keeps_the_source(
    run_cli: RunCli, tmp_path: Path
) -> None:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    before = dump(db_path(root))
    # Without a range (and no --out/--cwd) a session continues in place: nothing is written.
    in_place = run_cli("continue", fx.CID_A, "--no-resume", "--json", env=env)
    assert in_place.code == 0, in_place.stderr
    assert json.loads(in_place.stdout)["id"] == fx.CID_A
    assert dump(db_path(root)) == before
    result = run_cli(
        "continue", f"{fx.CID_A[:8]}#1", "--from", "cursor_desktop", "--no-resume", "--json",
        "--force", "--cwd", str(tmp_path), env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["harness"] == "cursor_desktop" and out["id"] != fx.CID_A
    after = dump(db_path(root))
    # The source (and every other session) is byte-identical; only the copy and the sidebar
    # registration of its folder were added.
    assert split(after, out["id"])[1] == split(before, out["id"])[1]
    copy = common_of(root, out["id"])
    assert [m.role for m in copy.messages] == ["user"]
    assert copy.meta.cwd == str(tmp_path) and copy.meta.title == "Run the tests"
    assert backup_count() == 1
    listed = json.loads(run_cli("list", "--json", env=env).stdout)
    assert listed[0]["id"] == out["id"] and len(listed) == 5
    assert os.path.samefile(out["location"], db_path(root))


def test_out_may_be_a_relative_directory(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the backup taken before writing into an existing database opened it by
    ``Path.as_uri()``, which refuses a relative path, so ``continue --out rel/dir`` into a
    database that already held a session died with an internal ``ValueError``."""
    monkeypatch.chdir(tmp_path)
    first = run_cli("continue", str(document(tmp_path)), "--with", "cursor_desktop", "--out", "rel")
    assert first.code == 0, first.stderr
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"id": "sess-2", "messages": [{"role": "user", "content": "hi"}]}))
    second = run_cli("continue", str(other), "--with", "cursor_desktop", "--out", "rel")
    assert second.code == 0, second.stderr
    (backup,) = json.loads(run_cli("restore", "--json").stdout)
    assert backup["database"] == str((tmp_path / "rel/globalStorage/state.vscdb").resolve())
    refs = {d.reference for d in CursorDesktopStore(tmp_path / "rel").discover()}
    assert refs == {"sess-1", "sess-2"}
