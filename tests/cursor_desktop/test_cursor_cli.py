"""The CLI over a real Cursor desktop store: list, view, export, convert."""

from __future__ import annotations

import json
from pathlib import Path

import dbfixtures as fx
import pytest

from conftest import RunCli


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    root = tmp_path / "User"
    (root / "globalStorage").mkdir(parents=True)
    fx.app_3_16(root / "globalStorage" / "state.vscdb")
    return root


def test_list_json_gives_the_contract_shape_newest_first(run_cli: RunCli, user_dir: Path) -> None:
    result = run_cli("list", "--json", env={"CURSOR_DESKTOP_USER_DIR": str(user_dir)})
    assert result.code == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows][:2] == [fx.CID_A, fx.CID_C]
    assert rows[0] == {
        "harness": "cursor_desktop",
        "id": fx.CID_A,
        "title": "Run the tests",
        "cwd": "/Users/dev/acme",
        "model": "claude-fable-5",
        "timestamp": "2026-08-17T06:30:36.174Z",
        "updated_at": "2026-08-17T06:30:41.174Z",  # its header lastUpdatedAt
        "messages": None,
    }
    stamps = [row["timestamp"] for row in rows]
    assert stamps == sorted(stamps, reverse=True)


def test_list_filters_by_cwd_and_limit(run_cli: RunCli, user_dir: Path) -> None:
    env = {"CURSOR_DESKTOP_USER_DIR": str(user_dir)}
    rows = json.loads(run_cli("list", "--json", "--cwd", "/Users/dev/acme", env=env).stdout)
    assert [row["id"] for row in rows] == [fx.CID_A]
    assert len(json.loads(run_cli("list", "--json", "-n", "1", env=env).stdout)) == 1
    human = run_cli("list", "--from", "cursor-desktop", env=env)
    assert human.stdout.splitlines()[0].startswith("HARNESS")
    assert fx.CID_A in human.stdout


def test_view_and_export_find_a_session_by_unique_prefix_and_by_title(
    run_cli: RunCli, user_dir: Path
) -> None:
    env = {"CURSOR_DESKTOP_USER_DIR": str(user_dir)}
    view = run_cli("view", fx.CID_A[:8], env=env)
    assert view.code == 0, view.stderr
    assert view.stdout.startswith(f"[session]\nid={fx.CID_A}\n")
    by_title = run_cli("export", "Run the tests", "--format", "common", env=env)
    assert json.loads(by_title.stdout)["meta"]["id"] == fx.CID_A
    native = run_cli("export", fx.CID_A, "--format", "native", env=env)
    assert json.loads(native.stdout)["bubbles"]
    converted = run_cli(
        "convert", "--from", "cursor_desktop", "--to", "simple", stdin=native.stdout.encode()
    )
    assert converted.code == 0, converted.stderr
    assert json.loads(converted.stdout)["id"] == fx.CID_A


def test_an_unknown_or_ambiguous_reference_is_exit_2(run_cli: RunCli, user_dir: Path) -> None:
    env = {"CURSOR_DESKTOP_USER_DIR": str(user_dir)}
    missing = run_cli("view", "nope", env=env)
    assert missing.code == 2
    assert (
        missing.stderr == "txcript: error: no local session matches `nope` (try `txcript list`)\n"
    )
    scoped = run_cli("view", "nope", "--from", "cursor_desktop", env=env)
    assert "no local cursor_desktop session matches `nope`" in scoped.stderr


def test_a_database_that_is_not_sqlite_is_a_one_line_error(run_cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "User"
    (root / "globalStorage").mkdir(parents=True)
    (root / "globalStorage" / "state.vscdb").write_bytes(b"this is not a database" * 100)
    result = run_cli("list", "--from", "cursor_desktop", env={"CURSOR_DESKTOP_USER_DIR": str(root)})
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and "state.vscdb" in result.stderr
    assert "Traceback" not in result.stderr
