"""A Ctrl-C while txcript starts is "interrupted", exit 130, with no traceback (it was a
traceback from the entry point, as click loaded); and a progress line left open ends before an
error is printed, so the error is a line of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_a_ctrl_c_while_starting_is_interrupted_not_a_traceback(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    (shadow / "click").mkdir(parents=True)
    # What a Ctrl-C during start-up does: the import under way raises KeyboardInterrupt.
    (shadow / "click" / "__init__.py").write_text("raise KeyboardInterrupt\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow), *sys.path])}
    for entry in (["-m", "txcript", "list"], ["-c", "from txcript.cli import main; main()"]):
        done = subprocess.run([sys.executable, *entry], env=env, capture_output=True, timeout=60)
        assert (done.returncode, done.stderr) == (130, b"txcript: error: interrupted\n")


def test_an_open_progress_line_ends_before_the_error(capsys: pytest.CaptureFixture[str]) -> None:
    from txcript.cli.app import _fail
    from txcript.cli.output import progress_line

    progress_line("indexing… (3/10, 0 cached)")
    with pytest.raises(SystemExit):
        _fail("reading a store: it is locked", 1)
    # (click drops the erase-line code when stderr is not a terminal.)
    assert capsys.readouterr().err == (
        "\rindexing… (3/10, 0 cached)\ntxcript: error: reading a store: it is locked\n"
    )
