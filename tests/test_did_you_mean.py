"""Typos get "did you mean": a command from another tool (``ls``) or mistyped (``viwe``), a
harness id (``--from cursr``), and a harness that does not hold the id (``--from cursor`` for a
Cursor desktop session)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from conftest import RunCli
from txcript import harnesses
from txcript import model as m


def only_error(result: object, code: int = 2) -> str:
    assert result.code == code, result  # type: ignore[attr-defined]
    (line,) = result.stderr.splitlines()  # type: ignore[attr-defined]
    assert line.startswith("txcript: error: ")
    return line


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("ls", "list"), ("viwe", "view"), ("contineu", "continue"), ("search", "query")],
)
def test_a_mistyped_command_says_which_was_meant(run_cli: RunCli, typed: str, meant: str) -> None:
    line = only_error(run_cli(typed, "x"))
    assert line == f"txcript: error: No such command '{typed}'. Did you mean `txcript {meant}`?"


def test_a_command_nothing_resembles_gets_no_guess(run_cli: RunCli) -> None:
    assert only_error(run_cli("zzzz")) == "txcript: error: No such command 'zzzz'."


def test_a_mistyped_harness_says_which_was_meant(run_cli: RunCli) -> None:
    line = only_error(run_cli("list", "--from", "cursr"))
    assert "unknown harness `cursr`; did you mean cursor?" in line
    assert "did you mean" not in only_error(run_cli("list", "--from", "nope"))


def test_the_wrong_harness_for_an_id_names_the_right_one(
    run_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_id = "3f0c9a52-6d1e-4b8a-9c47-1e2d3f4a5b6c"
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(tmp_path / "User"))
    desktop = harnesses.get("cursor_desktop")
    at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    store = desktop.store()
    assert store is not None
    store.save(
        desktop.from_common(
            m.Transcript(
                meta=m.Meta(id=session_id, timestamp=at, cwd="/repo", title="Fix it"),
                messages=(m.Message(role="user", content=(m.Text(text="go"),), timestamp=at),),
            )
        )
    )
    line = only_error(run_cli("view", session_id, "--from", "cursor"))
    assert line == (
        f"txcript: error: no local cursor session matches `{session_id}`; a cursor_desktop "
        "session has that id (did you mean --from cursor_desktop?)"
    )
    assert run_cli("view", session_id, "--from", "cursor_desktop").code == 0
    # The short id `list` shows on a terminal gets the same hint.
    prefix = session_id[:8]
    assert only_error(run_cli("view", prefix, "--from", "cursor")).endswith(
        "(did you mean --from cursor_desktop?)"
    )
