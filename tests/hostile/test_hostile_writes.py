"""Items 2 and 3 of the hostile-store review: no write before a failure, no symlink escapes.

Every store writer runs :func:`txcript.shared.files.preflight_write` over every path it will
touch before its first byte, so a path it cannot write, a name over 255 bytes or a symlink planted
in the target store is a one-line error (exit 1) with nothing written anywhere.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from hostile_support import (
    UUID_A,
    codex_rollout_path,
    one_line_error,
    simple_doc,
    snapshot,
    write_json,
)

from conftest import RunCli
from txcript.errors import StoreError
from txcript.harnesses.claude_code.store import encode_project
from txcript.shared.files import PathRefused, preflight_write

AS_ROOT = os.geteuid() == 0


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    return {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "CURSOR_DESKTOP_USER_DIR": str(tmp_path / "cursor"),
        "TXCRIPT_DATA_DIR": str(tmp_path / "data"),
        "TXCRIPT_CACHE_DIR": str(tmp_path / "cache"),
    }


def _snap(tmp_path: Path, env: dict[str, str], home: Path) -> dict[str, tuple[object, ...]]:
    return snapshot(tmp_path, home, exclude=(Path(env["TXCRIPT_CACHE_DIR"]),))


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("precious\n")
    return outside


# ------------------------------------------------------------------------------ the preflight


def test_preflight_refuses_each_rule_and_accepts_a_clean_path(tmp_path: Path) -> None:
    root = tmp_path / "root"
    preflight_write(root, [root / "a" / "b.jsonl"], store="test")  # nothing exists yet: fine
    assert not root.exists()
    (root / "a").mkdir(parents=True)
    (root / "a" / "link").symlink_to(tmp_path)
    with pytest.raises(PathRefused, match="is a symbolic link"):
        preflight_write(root, [root / "a" / "link" / "x"], store="test")
    with pytest.raises(PathRefused, match="outside the test store"):
        preflight_write(root, [tmp_path / "elsewhere"], store="test")
    with pytest.raises(PathRefused, match="300 bytes"):
        preflight_write(root, [root / ("n" * 300)], store="test")
    os.mkfifo(root / "a" / "fifo")
    with pytest.raises(PathRefused, match="a FIFO"):
        preflight_write(root, [root / "a" / "fifo"], store="test")
    (root / "file").write_text("")
    with pytest.raises(PathRefused, match="is not a directory"):
        preflight_write(root, [root / "file" / "x"], store="test")
    assert issubclass(PathRefused, StoreError)  # exit 1
    linked_root = tmp_path / "linked-root"
    linked_root.symlink_to(root)  # the root itself may be a link (a linked ~/.claude)
    preflight_write(linked_root, [linked_root / "a" / "new.jsonl"], store="test")


# ---------------------------------------------------------- item 2: nothing written on failure


@pytest.mark.parametrize("target", ["claude_code", "codex", "cursor_desktop"])
def test_a_cwd_with_a_name_over_255_bytes_never_fails_after_writing(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    """``continue --out`` wrote the session, then probed the cwd and died with ``internal
    error: OSError`` (name too long). Probing a cwd never raises now; where the cwd becomes a
    path component (Claude Code's project directory) the preflight refuses before writing."""
    cwd = str(tmp_path / ("d" * 300))
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=cwd))
    out = tmp_path / "out"
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), "--force", env=env)
    if target == "claude_code":
        one_line_error(result, 1, "bytes (file names are limited to 255)")
        assert _snap(tmp_path, env, isolated_home) == before
    else:
        assert result.code == 0, result.stderr
    assert "internal error" not in result.stderr


def test_a_live_continue_with_an_unusable_cwd_falls_back_to_the_current_directory(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path
) -> None:
    cwd = str(tmp_path / ("d" * 300) / "x")
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=cwd))
    result = run_cli("continue", str(doc), "--with", "claude_code", "--no-resume", env=env)
    assert result.code == 0, result.stderr
    assert "does not exist here; using" in result.stderr
    (written,) = Path(env["CLAUDE_CONFIG_DIR"]).glob("projects/*/*.jsonl")
    assert written.parent.name == encode_project(os.getcwd())


@pytest.mark.skipif(AS_ROOT, reason="root can search and write every directory")
@pytest.mark.parametrize("target", ["claude_code", "codex", "cursor_desktop"])
def test_a_root_under_a_directory_the_user_cannot_write_is_refused_untouched(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(locked / "cwd")))
    locked.chmod(0o500)
    try:
        before = _snap(tmp_path, env, isolated_home)
        out = locked / "out"
        result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
        one_line_error(result, 1, "permission denied")
        assert _snap(tmp_path, env, isolated_home) == before
    finally:
        locked.chmod(0o700)


# ----------------------------------------------------------------- item 3: symlinks in the store


def _claude_project(root: Path, cwd: str) -> Path:
    return root / "projects" / encode_project(cwd)


def test_a_symlink_at_the_claude_session_file_is_refused(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    outside = _outside(tmp_path)
    out = tmp_path / "out"
    project = _claude_project(out, "/tmp")
    project.mkdir(parents=True)
    (project / f"{UUID_A}.jsonl").symlink_to(outside / "victim")
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd="/tmp"))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", "claude_code", "--out", str(out), env=env)
    one_line_error(result, 1, "is a symbolic link")
    assert (outside / "victim").read_text() == "precious\n"
    assert _snap(tmp_path, env, isolated_home) == before


def test_a_symlinked_claude_project_directory_takes_no_live_copy_outside(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    outside = _outside(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    project = _claude_project(Path(env["CLAUDE_CONFIG_DIR"]), str(work))
    project.parent.mkdir(parents=True)
    project.symlink_to(outside, target_is_directory=True)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(work)))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", "claude_code", "--no-resume", env=env)
    one_line_error(result, 1, "is a symbolic link")
    assert sorted(p.name for p in outside.iterdir()) == ["victim"]
    assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.parametrize("planted", ["day_dir", "rollout", "index", "state_db"])
def test_codex_writes_never_follow_a_planted_symlink(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, planted: str
) -> None:
    outside = _outside(tmp_path)
    out = tmp_path / "out"
    rollout = codex_rollout_path(out, UUID_A)
    out.mkdir()
    if planted == "day_dir":
        (out / "sessions").mkdir()
        (out / "sessions" / "2026").symlink_to(outside, target_is_directory=True)
    elif planted == "rollout":
        rollout.parent.mkdir(parents=True)
        rollout.symlink_to(outside / "victim")
    elif planted == "index":
        (out / "session_index.jsonl").symlink_to(outside / "victim")
    else:
        sqlite3.connect(outside / "state.db").close()
        (out / "state_5.sqlite").symlink_to(outside / "state.db")
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, title="named"))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", "codex", "--out", str(out), env=env)
    one_line_error(result, 1, "is a symbolic link")
    assert (outside / "victim").read_text() == "precious\n"
    assert _snap(tmp_path, env, isolated_home) == before


def test_a_symlinked_cursor_database_is_not_written_through(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    outside = _outside(tmp_path)
    out = tmp_path / "out"
    (out / "globalStorage").mkdir(parents=True)
    (out / "globalStorage" / "state.vscdb").symlink_to(outside / "victim")
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli(
        "continue", str(doc), "--with", "cursor_desktop", "--out", str(out), "--force", env=env
    )
    assert result.code in (1, 2), result.stderr
    one_line_error(result, result.code)
    assert (outside / "victim").read_text() == "precious\n"
    assert _snap(tmp_path, env, isolated_home) == before


def test_a_store_root_that_is_a_symlink_is_the_users_choice(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path
) -> None:
    real = tmp_path / "dotfiles-claude"
    real.mkdir()
    linked = tmp_path / "claude-link"
    linked.symlink_to(real, target_is_directory=True)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd="/tmp"))
    result = run_cli("continue", str(doc), "--with", "claude_code", "--out", str(linked), env=env)
    assert result.code == 0, result.stderr
    assert json.loads((next(real.glob("projects/*/*.jsonl"))).read_text().splitlines()[0])
