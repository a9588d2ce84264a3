"""Items 2 and 3 of the hostile-store review, for every writer and for ``--out`` documents.

Every store writer (Claude Code, Codex, Cursor desktop, Cursor CLI, OpenCode, Gemini) checks
every path its write will touch, fallbacks and SQLite sidecars included, with
:func:`txcript.shared.files.preflight_write` before its first byte. So a name over 255 bytes, a
file where a directory must be, a read-only or full file system, an unsearchable directory or a
symlink planted in the target store is one ``txcript: error:`` line, exit 1, and nothing written
anywhere: the temp HOME, the target root and the data dir are snapshotted before and after.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_support import UUID_A, one_line_error, simple_doc, snapshot, write_json

from cli_helpers import empty_cursor_database
from conftest import RunCli
from txcript.harnesses.gemini import projects as gemini_projects

sys.path.insert(0, str(Path(__file__).parents[1] / "opencode"))
import opencode_fixtures as oc

AS_ROOT = os.geteuid() == 0
WRITERS = [
    "claude_code",
    "codex",
    "cursor_desktop",
    "cursor_cli",
    "opencode",
    "gemini",
    "qwen",
    "kimi_cli",
]
LONG = "n" * 300  # one path component over the 255-byte limit


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    return {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "live" / "claude"),
        "CODEX_HOME": str(tmp_path / "live" / "codex"),
        "CURSOR_DESKTOP_USER_DIR": str(tmp_path / "live" / "cursor"),
        "CURSOR_CHATS_DIR": str(tmp_path / "live" / "cursor-chats"),
        "OPENCODE_DB": str(tmp_path / "live" / "opencode" / "opencode.db"),
        "GEMINI_CLI_HOME": str(tmp_path / "live" / "gemini-home"),
        "QWEN_RUNTIME_DIR": str(tmp_path / "live" / "qwen"),
        "KIMI_SHARE_DIR": str(tmp_path / "live" / "kimi"),
        "TXCRIPT_DATA_DIR": str(tmp_path / "data"),
        "TXCRIPT_CACHE_DIR": str(tmp_path / "cache"),
    }


def _snap(tmp_path: Path, env: dict[str, str], home: Path) -> dict[str, tuple[object, ...]]:
    """The temp HOME, every store root and the data dir (the cache is txcript's to change)."""
    return snapshot(tmp_path, home, exclude=(Path(env["TXCRIPT_CACHE_DIR"]),))


def _opencode_db(path: Path) -> Path:
    """An empty OpenCode database of the current schema, built aside and copied to ``path``."""
    with tempfile.TemporaryDirectory() as build:
        built = oc.build_db(Path(build) / "opencode.db", oc.CURRENT_DDL, [])
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, path)
    return path


def _prepare_out(target: str, out: Path) -> None:
    """What the ``--out`` root of ``target`` must already hold (OpenCode: its database)."""
    if target == "opencode":
        _opencode_db(out / "opencode.db")


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "victim").write_text("precious\n")
    return outside


# ------------------------------------------------------------- names, files, modes, file systems


@pytest.mark.parametrize("target", WRITERS)
def test_an_out_root_with_a_name_over_255_bytes_is_refused_untouched(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path)))
    out = tmp_path / LONG / "store"
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
    line = one_line_error(result, 1)
    # Refused by the write preflight, or already by the look for a same-id session under it.
    assert "(file names are limited to 255)" in line or "File name too long" in line, line
    assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.parametrize("target", WRITERS)
def test_a_document_cwd_with_a_name_over_255_bytes_never_fails_after_writing(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    """A copy keeps the document's cwd; where it becomes a path component the preflight refuses
    before the first byte, anywhere else the copy is written whole."""
    out = tmp_path / "out"
    _prepare_out(target, out)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path / LONG)))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    if result.code != 0:
        one_line_error(result, 1, "(file names are limited to 255)")
        assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.parametrize("target", WRITERS)
def test_an_out_root_that_is_a_regular_file_is_refused_untouched(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path)))
    out = tmp_path / "a-file"
    out.write_text("not a directory\n")
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
    if target == "opencode":  # OpenCode's root may name its database file: this one is not one
        one_line_error(result, 2, "is not an SQLite database")
    else:
        one_line_error(result, 1, "not a directory")
    assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.skipif(AS_ROOT, reason="root searches every directory whatever its mode bits")
@pytest.mark.parametrize("target", WRITERS)
def test_an_out_root_under_an_unsearchable_directory_is_refused_untouched(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    locked = tmp_path / "locked"
    out = locked / "out"
    _prepare_out(target, out)
    out.mkdir(exist_ok=True)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path)))
    locked.chmod(0)
    try:
        before = _snap(tmp_path, env, isolated_home)
        result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
        one_line_error(result, 1, "ermission denied")
        assert _snap(tmp_path, env, isolated_home) == before
    finally:
        locked.chmod(0o700)


def _can_mount() -> bool:
    return AS_ROOT and sys.platform.startswith("linux")


@contextlib.contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at ``where`` (root only), unmounted again whatever happens."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
        capture_output=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _remount_read_only(where: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True, capture_output=True)


@pytest.mark.skipif(not _can_mount(), reason="needs root on Linux to mount a small tmpfs")
@pytest.mark.parametrize("target", WRITERS)
def test_a_full_file_system_is_one_line_and_leaves_nothing_behind(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    """ENOSPC half way through the write: every step taken is undone."""
    with _tmpfs(tmp_path / "small", "512k") as small:
        out = small / "out"
        _prepare_out(target, out)
        big = "x" * (2 << 20)
        doc = simple_doc(UUID_A, cwd=str(tmp_path))
        doc["messages"][0]["content"] = big
        doc_path = write_json(tmp_path / "doc.json", doc)
        before = _snap(tmp_path, env, isolated_home)
        result = run_cli("continue", str(doc_path), "--with", target, "--out", str(out), env=env)
        one_line_error(result, 1)
        assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.skipif(not _can_mount(), reason="needs root on Linux to mount a read-only tmpfs")
@pytest.mark.parametrize("target", WRITERS)
def test_a_read_only_file_system_is_refused_before_the_first_byte(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, target: str
) -> None:
    with _tmpfs(tmp_path / "ro", "4m") as mounted:
        out = mounted / "out"
        _prepare_out(target, out)
        out.mkdir(exist_ok=True)
        _remount_read_only(mounted)
        doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path)))
        before = _snap(tmp_path, env, isolated_home)
        result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
        line = one_line_error(result, 1)
        assert "read-only" in line.lower(), line
        assert _snap(tmp_path, env, isolated_home) == before


# ----------------------------------------------------------------- symlinks planted in the store


def _cursor_cli_bucket(cwd: Path) -> str:
    return hashlib.md5(str(cwd).encode()).hexdigest()


def _plant(target: str, planted: str, out: Path, outside: Path, cwd: Path) -> None:
    """A symlink at ``planted`` inside the ``target`` store under ``out``, leading ``outside``."""
    victim = outside / "victim"
    if target == "cursor_cli":
        bucket = out / "chats" / _cursor_cli_bucket(cwd)
        if planted == "bucket_dir":
            bucket.parent.mkdir(parents=True)
            bucket.symlink_to(outside, target_is_directory=True)
        else:  # the chat directory itself
            bucket.mkdir(parents=True)
            (bucket / UUID_A).symlink_to(outside, target_is_directory=True)
    elif target == "opencode":
        if planted == "database":
            out.mkdir()
            _opencode_db(outside / "opencode.db")
            (out / "opencode.db").symlink_to(outside / "opencode.db")
        else:  # the -wal beside a real database
            _opencode_db(out / "opencode.db")
            (out / "opencode.db-wal").symlink_to(victim)
    elif target == "gemini":
        # A project directory is claimed only when its marker names the cwd: the planted one
        # does, so the save would go through the link.
        slug = cwd.name
        if planted == "project_dir":
            (out / "tmp").mkdir(parents=True)
            (out / "tmp" / slug).symlink_to(outside, target_is_directory=True)
            (outside / gemini_projects.MARKER).write_text(str(cwd))
        elif planted == "chats_dir":
            (out / "tmp" / slug).mkdir(parents=True)
            (out / "tmp" / slug / gemini_projects.MARKER).write_text(str(cwd))
            (out / "tmp" / slug / "chats").symlink_to(outside, target_is_directory=True)
        else:  # the project registry
            out.mkdir()
            (out / "projects.json").symlink_to(victim)
    elif target == "cursor_desktop":
        storage = out / "globalStorage"
        if planted == "storage_dir":
            out.mkdir()
            storage.symlink_to(outside, target_is_directory=True)
        else:  # the -wal beside the database
            storage.mkdir(parents=True)
            (storage / "state.vscdb-wal").symlink_to(victim)
    elif target == "codex":  # the -wal of its state database
        out.mkdir()
        sqlite3.connect(out / "state_5.sqlite").close()
        (out / "state_5.sqlite-wal").symlink_to(victim)
    elif target == "qwen":  # the project directory of the cwd
        (out / "projects").mkdir(parents=True)
        (out / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))).symlink_to(
            outside, target_is_directory=True
        )
    elif target == "kimi_cli":
        out.mkdir()
        if planted == "index":
            (out / "kimi.json").symlink_to(victim)
        else:  # the work directory's sessions directory
            (out / "sessions").mkdir()
            (out / "sessions" / _cursor_cli_bucket(cwd)).symlink_to(
                outside, target_is_directory=True
            )


PLANTED = [
    ("cursor_cli", "bucket_dir"),
    ("cursor_cli", "chat_dir"),
    ("opencode", "database"),
    ("opencode", "wal"),
    ("gemini", "project_dir"),
    ("gemini", "chats_dir"),
    ("gemini", "registry"),
    ("cursor_desktop", "storage_dir"),
    ("cursor_desktop", "wal"),
    ("codex", "state_wal"),
    ("qwen", "project_dir"),
    ("kimi_cli", "index"),
    ("kimi_cli", "work_dir_sessions"),
]


@pytest.mark.parametrize(("target", "planted"), PLANTED)
def test_no_writer_follows_a_symlink_planted_in_its_store(
    run_cli: RunCli,
    env: dict[str, str],
    tmp_path: Path,
    isolated_home: Path,
    target: str,
    planted: str,
) -> None:
    outside = _outside(tmp_path)
    cwd = tmp_path / "project"
    cwd.mkdir()
    out = tmp_path / "out"
    _plant(target, planted, out, outside, cwd)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(cwd)))
    before = _snap(tmp_path, env, isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), env=env)
    one_line_error(result, 1, "is a symbolic link")
    assert (outside / "victim").read_text() == "precious\n"
    assert _snap(tmp_path, env, isolated_home) == before


# ------------------------------------------------------------------- a live continue falls back


def _live_store(target: str, env: dict[str, str]) -> None:
    """The live database a database store's app made (txcript never creates it)."""
    if target == "opencode":
        _opencode_db(Path(env["OPENCODE_DB"]))
    elif target == "cursor_desktop":
        empty_cursor_database(Path(env["CURSOR_DESKTOP_USER_DIR"]))


@pytest.mark.parametrize("target", WRITERS)
@pytest.mark.parametrize("unusable", ["long_name", "under_a_file"])
def test_a_live_continue_with_an_unusable_cwd_falls_back_with_a_note(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, target: str, unusable: str
) -> None:
    if unusable == "long_name":
        cwd = str(tmp_path / LONG / "x")
    else:
        (tmp_path / "plain-file").write_text("")
        cwd = str(tmp_path / "plain-file" / "x")
    _live_store(target, env)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=cwd))
    result = run_cli("continue", str(doc), "--with", target, "--no-resume", "--force", env=env)
    assert result.code == 0, result.stderr
    assert "does not exist here; using" in result.stderr


# ---------------------------------------------------------------- export / convert --out files


def _export(run_cli: RunCli, env: dict[str, str], doc: Path, out: Path, how: str) -> object:
    if how == "export":
        return run_cli("export", str(doc), "--out", str(out), env=env)
    return run_cli(
        "convert", "--from", "simple", "--to", "claude_code", str(doc), "--out", str(out), env=env
    )


@pytest.mark.parametrize("how", ["export", "convert"])
@pytest.mark.parametrize("bad", ["long_name", "missing_dir", "under_a_file"])
def test_an_out_file_that_cannot_be_written_is_one_line_and_nothing_is_written(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, how: str, bad: str
) -> None:
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A))
    if bad == "long_name":
        out = tmp_path / (LONG + ".json")
    elif bad == "missing_dir":
        out = tmp_path / "no-such-dir" / "out.json"
    else:
        (tmp_path / "plain-file").write_text("")
        out = tmp_path / "plain-file" / "out.json"
    before = _snap(tmp_path, env, isolated_home)
    result = _export(run_cli, env, doc, out, how)
    one_line_error(result, 1)  # type: ignore[arg-type]
    assert _snap(tmp_path, env, isolated_home) == before


@pytest.mark.skipif(not _can_mount(), reason="needs root on Linux to mount a small tmpfs")
@pytest.mark.parametrize("how", ["export", "convert"])
@pytest.mark.parametrize("fs", ["full", "read_only"])
def test_an_out_file_on_a_full_or_read_only_file_system_leaves_nothing(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path, how: str, fs: str
) -> None:
    doc = simple_doc(UUID_A)
    doc["messages"][0]["content"] = "x" * (1 << 20)
    doc_path = write_json(tmp_path / "doc.json", doc)
    with _tmpfs(tmp_path / "small", "128k") as small:
        (small / "kept.json").write_text("{}\n")
        if fs == "read_only":
            _remount_read_only(small)
        before = _snap(tmp_path, env, isolated_home)
        result = _export(run_cli, env, doc_path, small / "kept.json", how)
        one_line_error(result, 1)  # type: ignore[arg-type]
        assert _snap(tmp_path, env, isolated_home) == before
