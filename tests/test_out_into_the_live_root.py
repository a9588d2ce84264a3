"""``continue --out <the live store root>`` said that the app reads only that root and that the
copy is "for moving by hand", although DIR was the live store itself. It now says what is
true: the app finds the copy there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import prepare_store
from conftest import RunCli
from txcript import harnesses


@pytest.mark.parametrize("writer", harnesses.ids(write=True))
def test_out_into_the_live_root_says_the_app_finds_the_copy(
    run_cli: RunCli, tmp_path: Path, writer: str
) -> None:
    harness = harnesses.get(writer)
    root = harness.default_root()
    assert root is not None
    prepare_store(writer, root)
    document = tmp_path / "session.json"
    document.write_text(
        json.dumps(
            {
                "id": "sess-1",
                "cwd": str(tmp_path),
                "timestamp": "2026-08-21T09:30:00.000Z",
                "messages": [
                    {"role": "user", "content": "hello", "timestamp": "2026-08-21T09:30:01Z"},
                    {"role": "assistant", "content": "hi", "timestamp": "2026-08-21T09:30:02Z"},
                ],
            }
        )
    )
    # (--force: another test may be running a stand-in named `cursor` meanwhile.)
    result = run_cli("continue", str(document), "--with", writer, "--out", str(root), "--force")
    assert result.code == 0, result
    assert "reads only" not in result.stdout and "moving by hand" not in result.stdout
    assert f"note: {root} is {harness.name}'s own store: {harness.name} finds the copy there" in (
        result.stdout
    )
