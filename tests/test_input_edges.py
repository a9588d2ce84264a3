"""Input as users hand it over: a BOM, `-#RANGE` on stdin, the wrong format, a broken file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import claude_session, run_on_pty
from conftest import RunCli
from test_simple import EXPORTED


def test_a_document_starting_with_a_utf8_bom_is_read(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXPORTED.encode())
    result = run_cli("view", str(path))
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("[session]\nid=sess-1\n")
    piped = run_cli("export", "-", "--format", "common", stdin=path.read_bytes())
    assert piped.code == 0 and json.loads(piped.stdout)["meta"]["id"] == "sess-1"


def test_stdin_with_a_range_is_written_dash_hash(run_cli: RunCli) -> None:
    result = run_cli("view", "-#2", stdin=EXPORTED.encode())
    assert result.code == 0, result.stderr
    assert "fragment=#2\nof=4\n" in result.stdout
    assert "── #1 ──" not in result.stdout and "── #2 ──" in result.stdout
    exported = run_cli("export", "-#1-3", "--format", "common", stdin=EXPORTED.encode())
    assert exported.code == 0, exported.stderr
    assert len(json.loads(exported.stdout)["messages"]) == 3
    # A real unknown option is still an error.
    assert run_cli("view", "-x").code == 2


def test_a_reader_fed_the_wrong_format_says_so_once(run_cli: RunCli, tmp_path: Path) -> None:
    lines = tmp_path / "notes.jsonl"
    lines.write_text(
        '{"type": "session_meta", "payload": {"id": "s", "timestamp": "2026-01-01T00:00:00Z"}}\n'
        + "".join(f"this is not json {n}\n" for n in range(40))
    )
    result = run_cli("convert", "--from", "codex", "--to", "common", str(lines))
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "txcript: warning: 40 lines of the Codex rollout are not valid JSON "
        "(lines 2, 3, 4, 5, 6, …); skipped"
    ]
    simple = tmp_path / "doc.json"
    simple.write_text(EXPORTED)
    wrong = run_cli("convert", "--from", "codex", "--to", "common", str(simple))
    assert wrong.code == 2
    assert wrong.stderr == (
        "txcript: error: malformed codex transcript: the input holds no Codex rollout records\n"
    )


def test_an_unreadable_session_file_gives_one_warning_naming_it(
    run_cli: RunCli, tmp_path: Path
) -> None:
    config = tmp_path / "claude"
    good = claude_session(config, "1f2e3d4c-5b6a-4789-8abc-def012345678", title="fine")
    broken = good.parent / "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl"
    broken.write_bytes(b"\xff\xfe\x00garbage that is not JSON lines\n")
    result = run_cli("list", env={"CLAUDE_CONFIG_DIR": str(config)})
    assert result.code == 0
    assert result.stderr == (
        f"txcript: warning: skipping {broken}: not a Claude Code session file (no JSON records)\n"
    )
    assert "fine" in result.stdout


def test_progress_shows_on_a_terminal_and_never_in_a_pipe(run_cli: RunCli, tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(EXPORTED)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    args = ["continue", str(doc), "--with", "claude_code", "--no-resume"]
    code, out = run_on_pty(args, env)
    assert code == 0 and "writing the copy…".encode() in out
    piped = run_cli(*args, env=env)
    assert piped.code == 0 and "writing the copy" not in piped.stderr + piped.stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args", [("--version",), ("list", "--help"), ("query", "anything", "--json")]
)
def test_output_to_a_full_disk_is_a_one_line_failure(
    args: tuple[str, ...], isolated_home: Path
) -> None:
    """Every command writing to a full disk (stdout redirected to /dev/full here) said
    "internal error: OSError: [Errno 28] …": a failed operation taken for a bug. It is now one
    line naming what could not be written, exit 1, and nothing more at exit."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "txcript", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            env={**os.environ, "TXCRIPT_CACHE_DIR": str(isolated_home / "cache")},
            timeout=60,
            check=False,
        )
    stderr = done.stderr.decode()
    assert done.returncode == 1, stderr
    assert stderr == "txcript: error: cannot write the output: No space left on device\n"


def test_a_usage_error_listing_choices_is_one_evenly_spaced_line(run_cli: RunCli) -> None:
    """click indents the choices it lists on a line of their own; joining its lines kept the
    indent ("Choose from:  bash,  zsh,  fish")."""
    done = run_cli("completion")
    assert done.code == 2 and done.stdout == ""
    assert done.stderr == (
        "txcript: error: Missing argument '{bash|zsh|fish}'. Choose from: bash, zsh, fish\n"
    )
