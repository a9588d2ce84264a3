"""A Ctrl-C that lands after a write committed used to end ``continue`` with "interrupted" and no
id, so a retry made a second copy. Now the copy stands and the report is finished: its location,
id and undo line are printed, nothing is launched, and the exit is 0. A Ctrl-C before the commit
still interrupts with nothing written."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from txcript.cli.app import main
from txcript.harnesses.base import Harness
from txcript.harnesses.claude_code.store import ClaudeCodeStore
from txcript.harnesses.opencode.store import OpenCodeStore


def document(directory: Path) -> Path:
    path = directory / "session.json"
    path.write_text(
        json.dumps(
            {
                "id": "sess-1",
                "title": "Interrupted",
                "cwd": str(directory),
                "timestamp": "2026-08-21T09:30:00.000Z",
                "messages": [
                    {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
                    {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
                ],
            }
        )
    )
    return path


def run(*args: str) -> int:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    code = exited.value.code
    return code if isinstance(code, int) else 0


@pytest.fixture
def launcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``claude`` on PATH that records being launched."""
    record = tmp_path / "launched"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "claude"
    stand_in.write_text(f"#!/bin/sh\ntouch {record}\n")
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    return record


def copies(home: Path) -> list[Path]:
    return sorted((home / ".claude" / "projects").rglob("*.jsonl"))


def test_a_ctrl_c_held_over_the_commit_finishes_the_report(
    tmp_path: Path,
    isolated_home: Path,
    launcher: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The store delivers the Ctrl-C it held back over its commit as the save returns."""
    original = ClaudeCodeStore.save

    def save_then_interrupted(self: ClaudeCodeStore, native: Any, *, force: bool = False) -> Any:
        original(self, native, force=force)
        raise KeyboardInterrupt

    monkeypatch.setattr(ClaudeCodeStore, "save", save_then_interrupted)
    assert run("continue", str(document(tmp_path)), "--with", "claude_code") == 0
    out, err = capsys.readouterr()
    (written,) = copies(isolated_home)
    assert f"simple → claude_code  {written}" in out
    assert f"claude --resume={written.stem}" in out  # the id to resume it by
    assert "interrupted after the copy was written" in err and "error" not in err
    assert not launcher.exists()


def test_a_ctrl_c_after_the_save_returned_waits_for_the_report(
    tmp_path: Path,
    isolated_home: Path,
    launcher: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    original = Harness.meta_of

    def interrupted_meanwhile(self: Harness[Any], native: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)  # a real signal, in the window after the commit
        return original(self, native)

    monkeypatch.setattr(Harness, "meta_of", interrupted_meanwhile)
    assert run("continue", str(document(tmp_path)), "--with", "claude_code", "--json") == 0
    out, err = capsys.readouterr()
    (written,) = copies(isolated_home)
    assert json.loads(out)["id"] == written.stem
    assert "interrupted after the copy was written" in err
    assert not launcher.exists()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


def test_a_database_write_interrupted_after_commit_prints_its_restore(
    tmp_path: Path,
    isolated_home: Path,
    launcher: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    original = OpenCodeStore.save

    def save_then_interrupted(self: OpenCodeStore, native: Any, *, force: bool = False) -> Any:
        original(self, native, force=force)
        raise KeyboardInterrupt

    monkeypatch.setattr(OpenCodeStore, "save", save_then_interrupted)
    out_dir = tmp_path / "out"
    code = run("continue", str(document(tmp_path)), "--with", "opencode", "--out", str(out_dir))
    assert code == 0
    out, _ = capsys.readouterr()
    assert "  undo with: txcript restore " in out


def test_a_ctrl_c_before_the_commit_still_interrupts_with_nothing_written(
    tmp_path: Path,
    isolated_home: Path,
    launcher: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted(self: ClaudeCodeStore, native: Any, *, force: bool = False) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(ClaudeCodeStore, "save", interrupted)
    assert run("continue", str(document(tmp_path)), "--with", "claude_code") == 130
    assert capsys.readouterr().err == "txcript: error: interrupted\n"
    assert copies(isolated_home) == []
