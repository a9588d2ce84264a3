"""Regressions found by the code review of 2026-11-30; each docstring tells the story."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from conftest import RunCli
from txcript import model as m
from txcript.errors import Malformed
from txcript.shared.files import write_atomic
from txcript.shared.timeutil import parse_rfc3339

#: A UUID, so faithful Claude Code copies keep it (other ids map to a UUIDv5).
DOC_ID = "0d0c0001-0000-4000-8000-000000000001"
DOC = {
    "id": DOC_ID,
    "timestamp": "2026-08-21T09:30:00Z",
    "cwd": "/tmp",
    "title": "Review",
    "generator": {"kept": True},
    "messages": [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
    ],
}


def one_line(result_stderr: str) -> str:
    lines = result_stderr.splitlines()
    assert len(lines) == 1, result_stderr
    assert lines[0].startswith("txcript: error: ")
    return lines[0]


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def test_continue_out_into_the_live_store_refuses_to_overwrite_the_source(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """``continue --out <live root>`` kept the source id, and the save replaced the source session
    itself, dropping every record Common has no slot for. A faithful copy now refuses to replace
    a session already in the target store unless ``--force``."""
    claude = tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    doc = write(tmp_path / "doc.json", DOC)
    first = run_cli("continue", str(doc), "--with", "claude_code", "--out", str(claude), env=env)
    assert first.code == 0, first.stderr
    (written,) = claude.glob(f"projects/*/{DOC_ID}.jsonl")
    with written.open("a") as handle:
        handle.write('{"type":"custom-record","precious":true}\n')
    before = written.read_bytes()
    again = run_cli("continue", DOC_ID, "--from", "claude_code", "--out", str(claude), env=env)
    assert again.code == 2
    assert f"already holds a session `{DOC_ID}`" in one_line(again.stderr)
    assert written.read_bytes() == before
    forced = run_cli(
        "continue", DOC_ID, "--from", "claude_code", "--out", str(claude), "--replace", env=env
    )
    assert forced.code == 0, forced.stderr


def test_timestamps_outside_the_calendar_are_unparseable_not_a_crash(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """``0001-01-01T00:00:00+01:00`` is year 0 in UTC: converting it raised OverflowError, which
    surfaced as an internal error (exit 1) from every command that read such a file."""
    assert parse_rfc3339("0001-01-01T00:00:00+01:00") is None
    assert parse_rfc3339("9999-12-31T23:59:59-01:00") is None
    with pytest.raises(Malformed, match="outside years 1-9999"):
        m.from_json('{"meta":{"id":"","timestamp":"0001-01-01T00:00:00+01:00"},"messages":[]}')
    bad = write(tmp_path / "bad.json", {**DOC, "timestamp": "0001-01-01T00:00:00+01:00"})
    result = run_cli("convert", "--from", "simple", "--to", "common", str(bad))
    assert result.code == 0, result.stderr  # the session start falls back to now, with a warning
    assert "is not RFC 3339" in result.stderr


def test_every_error_is_one_line_even_when_it_echoes_input(run_cli: RunCli) -> None:
    """Input echoed in an error (a path, a harness name) could carry a newline and forge a
    second line; the CLI now scrubs every error message."""
    result = run_cli("convert", "--from", "simple", "--to", "codex", "/tmp/no\nsuch")
    assert result.code == 2
    one_line(result.stderr)


def test_an_ambiguous_prefix_is_one_line(run_cli: RunCli, tmp_path: Path) -> None:
    """The ambiguity error listed candidates on several lines; the contract is one line."""
    claude = tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    for suffix in ("a", "b"):
        doc = write(
            tmp_path / f"d{suffix}.json",
            {**DOC, "id": f"5a3e0000-0000-4000-8000-00000000000{suffix}"},
        )
        assert (
            run_cli("continue", str(doc), "--with", "claude_code", "--out", str(claude)).code == 0
        )
    result = run_cli("view", "5a3e0000", env=env)
    assert result.code == 2
    line = one_line(result.stderr)
    assert "prefixes the ids of 2 sessions" in line
    assert "00000000000a" in line and "00000000000b" in line


def test_delete_refuses_a_title_several_sessions_share(run_cli: RunCli, tmp_path: Path) -> None:
    """An exact title silently named the newest of several sessions; for delete that guesses
    which session to destroy. A shared title is now ambiguous for delete."""
    claude = tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude), "TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    for suffix in ("a", "b"):
        doc = write(tmp_path / f"d{suffix}.json", {**DOC, "id": f"twin-{suffix}"})
        assert (
            run_cli("continue", str(doc), "--with", "claude_code", "--out", str(claude)).code == 0
        )
    result = run_cli("delete", "Review", "--from", "claude_code", "--yes", env=env)
    assert result.code == 2
    assert "is the title of 2 sessions" in one_line(result.stderr)
    assert len(list(claude.glob("projects/*/*.jsonl"))) == 2


def test_restore_with_an_empty_or_unknown_id_restores_nothing(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """An empty id prefix matched every backup, so ``restore '' --yes`` restored the only one;
    and an unknown id was only reported after the confirmation question."""
    env = {"TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    empty = run_cli("restore", "", "--yes", env=env)
    assert empty.code == 2 and "backup id is empty" in one_line(empty.stderr)
    unknown = run_cli("restore", "nope", env=env)
    assert unknown.code == 2 and "no backup matches `nope`" in one_line(unknown.stderr)


def test_a_device_is_not_read_as_a_document(run_cli: RunCli) -> None:
    """``view /dev/zero`` read forever; devices are refused (FIFOs and ``-`` still work)."""
    result = run_cli("view", "/dev/zero")
    assert result.code == 2 and "is a device" in one_line(result.stderr)


def test_export_of_a_simple_document_keeps_its_unknown_keys(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """Exporting a Simple document as Simple went through Common and dropped the keys Common
    has no slot for, while ``convert --from simple --to simple`` kept them."""
    doc = write(tmp_path / "doc.json", DOC)
    result = run_cli("export", str(doc))
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["generator"] == {"kept": True}


def test_continuing_an_empty_session_is_refused(run_cli: RunCli, tmp_path: Path) -> None:
    """A document with no readable message used to be written as an empty session."""
    doc = write(tmp_path / "empty.json", {"messages": []})
    result = run_cli(
        "continue",
        str(doc),
        "--with",
        "claude_code",
        "--no-resume",
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")},
    )
    assert result.code == 2 and "has no messages to continue" in one_line(result.stderr)
    assert not (tmp_path / "claude").exists()


def test_atomic_writes_keep_permissions_and_write_through_symlinks(tmp_path: Path) -> None:
    """``mkstemp`` made every rewritten file 0600 whatever the umask, and a symlinked path was
    replaced by a plain file."""
    target = tmp_path / "target.json"
    target.write_text("old")
    os.chmod(target, 0o644)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    fresh = tmp_path / "fresh.json"
    write_atomic(fresh, b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_delete_says_which_backup_undoes_it(run_cli: RunCli, tmp_path: Path) -> None:
    """The backup a delete takes was only discoverable through ``restore``'s list."""
    claude = tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude), "TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    doc = write(tmp_path / "d.json", DOC)
    assert run_cli("continue", str(doc), "--with", "claude_code", "--out", str(claude)).code == 0
    result = run_cli("delete", DOC_ID, "--from", "claude_code", "--yes", env=env)
    assert result.code == 0, result.stderr
    undo_line = result.stdout.splitlines()[1]
    assert undo_line.startswith("  undo with: txcript restore ")
    backup_id = undo_line.rsplit(" ", 1)[1]
    restored = run_cli("restore", backup_id, "--yes", env=env)
    assert restored.code == 0, restored.stderr
    assert "the replaced state" not in restored.stdout  # nothing was there to replace
    assert list(claude.glob(f"projects/*/{DOC_ID}.jsonl"))
