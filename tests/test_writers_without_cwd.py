"""A session with no recorded working directory, continued into every writer.

With ``--out`` the copy keeps its cwd exactly as recorded, absent included; a store that files
sessions by directory (Claude Code, the Cursor CLI, Gemini) files it under the directory txcript
runs in, and says so. Without ``--out`` the live copy is re-homed to the current directory, with
a note. The Cursor CLI and Gemini writers used to refuse such a session, even with ``--out``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import prepare_store
from conftest import RunCli
from txcript import harnesses
from txcript.sessions import is_under

WRITERS = harnesses.ids(write=True)


def cwdless_document(directory: Path) -> Path:
    document = {
        "id": "8d7c6b5a-4f3e-4d2c-9b1a-0f9e8d7c6b5a",
        "title": "No cwd",
        "timestamp": "2026-08-21T09:30:00.000Z",
        "messages": [
            {"role": "user", "content": "hello there", "timestamp": "2026-08-21T09:30:01Z"},
            {"role": "assistant", "content": "hi back", "timestamp": "2026-08-21T09:30:02Z"},
        ],
    }
    path = directory / "no-cwd.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize("writer", WRITERS)
def test_out_keeps_an_absent_cwd_and_files_it_here(
    writer: str, run_cli: RunCli, tmp_path: Path, workspace: Path
) -> None:
    out = tmp_path / f"out-{writer}"
    prepare_store(writer, out)
    document = cwdless_document(tmp_path)
    result = run_cli("continue", str(document), "--with", writer, "--out", str(out))
    assert result.code == 0, result
    harness = harnesses.get(writer)
    if harness.resume_in_cwd:
        assert f"files it under the current directory, {workspace}" in result.stderr
        assert f"cd {workspace} && " in result.stdout  # the resume hint starts where it is filed
    store = harness.store(out)
    assert store is not None
    (found,) = store.discover()
    transcript = harness.to_common(store.load(found.reference))
    # Absent as recorded; a store that names its sessions' cwd by where they are filed (Gemini's
    # project, the Cursor CLI's bucket matched from here, the Crush project above here) reads
    # back that directory.
    cwd = transcript.meta.cwd
    assert cwd is None or is_under(str(workspace), cwd), cwd
    said = [block.text for message in transcript.messages for block in message.content]
    assert said[:2] == ["hello there", "hi back"]
