"""Every write prints its undo, and the undo printed works: OpenCode's row backup (the save took
one and never said so), ``txcript delete`` for a live copy in a file store (said for Cursor
desktop only), and for a copy under ``--out`` the same, pointed at that root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import prepare_store
from conftest import RunCli
from txcript import harnesses

WRITERS = harnesses.ids(write=True)


def document(directory: Path) -> Path:
    path = directory / "session.json"
    path.write_text(
        json.dumps(
            {
                "id": "sess-1",
                "cwd": str(directory),
                "title": "Undo me",
                "timestamp": "2026-08-21T09:30:00.000Z",
                "messages": [
                    {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
                    {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
                ],
            }
        )
    )
    return path


def run_undo(line: str, env: dict[str, str], cwd: Path) -> None:
    command = line.split("undo with: ", 1)[1]
    if " txcript " in f" {command}":  # the real txcript, answering its confirmation
        command = command.replace("txcript ", f"{sys.executable} -m txcript ", 1)
        if " restore " in command:  # (--force: another test may be running a fake `cursor`)
            command += " --yes" + ("" if command.endswith(" --force") else " --force")
    done = subprocess.run(["sh", "-c", command], env=env, cwd=cwd, capture_output=True)
    assert done.returncode == 0, (command, done.stderr)


def ids_in(writer: str, root: Path | None) -> list[str]:
    store = harnesses.get(writer).store(root)
    assert store is not None
    return [found.meta_id for found in store.discover()]


@pytest.mark.parametrize("where", ["live", "out"])
@pytest.mark.parametrize("writer", WRITERS)
def test_every_write_prints_an_undo_that_undoes_it(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path, writer: str, where: str
) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "TXCRIPT_DATA_DIR": str(data)}
    args = ["continue", str(document(tmp_path)), "--with", writer]
    out = tmp_path / "exported"
    if where == "live":
        root = harnesses.get(writer).default_root()
        assert root is not None
        prepare_store(writer, root)
        # (--force: another test may be running a stand-in named `cursor` meanwhile.)
        args += ["--no-resume", "--force"]
    else:
        prepare_store(writer, out)
        args += ["--out", str(out)]
    written = run_cli(*args, env={"TXCRIPT_DATA_DIR": str(data)})
    assert written.code == 0, written
    (undo,) = [line for line in written.stdout.splitlines() if "undo with: " in line]
    root = None if where == "live" else out
    (copy,) = ids_in(writer, root)
    run_undo(undo, env, tmp_path)
    assert copy not in ids_in(writer, root)
