"""Human output as a user sees it: list fits the terminal, colour rules, help, pager, pipes."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from cli_helpers import claude_session, run_on_pty
from conftest import RunCli
from txcript import harnesses
from txcript.harnesses import REGISTRY

WORKING = ", ".join(i.id for i in REGISTRY if i.implemented)
UNBUILT = [i.id for i in REGISTRY if not i.implemented]
SGR = re.compile(r"\x1b\[[0-9;]*m")
CJK_TITLE = "修复日期解析器中的时区错误并补充测试用例和文档说明"  # 27 wide characters
IDS = (
    "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11",
    "3f1c2a4e-9c00-4e21-9a6b-0c5d2e7f9a11",
    "a9d0c3b2-1e4f-4a5b-8c6d-7e8f9a0b1c2d",
)


@pytest.fixture
def store(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "claude"
    claude_session(config, IDS[0], title=CJK_TITLE, clock="2026-08-21T09:30:00.000Z")
    claude_session(config, IDS[1], title="emoji 🎉 title 🚀", clock="2026-08-20T09:30:00.000Z")
    claude_session(config, IDS[2], cwd="/home/dev/no-title", clock="2026-08-19T09:30:00.000Z")
    return {"CLAUDE_CONFIG_DIR": str(config), "TERM": "xterm-256color"}


def _screen_lines(out: bytes) -> list[str]:
    return SGR.sub("", out.decode("utf-8")).replace("\r\n", "\n").splitlines()


@pytest.mark.parametrize("columns", [60, 200])
def test_list_fits_the_terminal_by_display_width(store: dict[str, str], columns: int) -> None:
    code, out = run_on_pty(["list"], store, columns=columns)
    assert code == 0, out
    header, *rows = _screen_lines(out)
    assert header.split() == ["HARNESS", "WHEN", "ID", "TITLE", "/", "CWD"]
    assert len(rows) == 3
    for row in rows:
        assert cell_len(row) <= columns, row
    # Ids are shortened to the shortest prefix that still tells them apart (8 at least).
    assert [row.split()[2] for row in rows] == ["3f1c2a4e-8", "3f1c2a4e-9", "a9d0c3b2"]
    if columns == 200:
        assert rows[0].endswith(CJK_TITLE)
        assert rows[1].endswith("emoji 🎉 title 🚀")
    else:
        assert rows[0].endswith("…") and CJK_TITLE not in rows[0]
        assert cell_len(rows[0]) in (columns - 1, columns)  # a wide char never straddles the edge
        assert rows[0].split()[-1].rstrip("…") == CJK_TITLE[: len(rows[0].split()[-1]) - 1]
    assert rows[2].endswith("/home/dev/no-title")


def test_a_short_id_from_the_list_opens_the_session(run_cli: RunCli, store: dict[str, str]) -> None:
    result = run_cli("view", "3f1c2a4e-9", env=store)
    assert result.code == 0 and "title=emoji 🎉 title 🚀" in result.stdout


def test_in_a_pipe_list_keeps_whole_ids_and_fixed_columns(
    run_cli: RunCli, store: dict[str, str]
) -> None:
    result = run_cli("list", env=store)
    assert result.code == 0
    rows = result.stdout.splitlines()[1:]
    assert [row.split()[2] for row in rows] == list(IDS)
    assert "\x1b" not in result.stdout


def test_colour_follows_the_flag_no_color_and_force_color(
    run_cli: RunCli, store: dict[str, str]
) -> None:
    assert "\x1b[" not in run_cli("list", env=store).stdout
    assert "\x1b[33mclaude_code" in run_cli("list", "--color", "always", env=store).stdout
    forced = run_cli("list", env={**store, "FORCE_COLOR": "1"}).stdout
    assert "\x1b[33mclaude_code" in forced
    _, on_tty = run_on_pty(["list"], store)
    assert b"\x1b[33mclaude_code" in on_tty
    _, no_color = run_on_pty(["list"], {**store, "NO_COLOR": "1"})
    assert b"\x1b" not in no_color
    _, never = run_on_pty(["list", "--color", "never"], {**store, "FORCE_COLOR": "1"})
    assert b"\x1b" not in never


def test_closing_stdout_early_exits_0_quietly(store: dict[str, str], tmp_path: Path) -> None:
    for index in range(300):
        claude_session(Path(store["CLAUDE_CONFIG_DIR"]), f"{index:08d}-0000-4000-8000-000000000000")
    env = {**os.environ, **store}
    for args in (["list"], ["list", "--json"], ["view", IDS[0]], ["--help"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "txcript", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader is gone before the first byte is written (`| head`)
        stderr = process.stderr.read()
        assert process.wait(timeout=60) == 0, stderr
        assert stderr == b"", stderr


def test_no_arguments_prints_a_short_usage_and_exits_2(run_cli: RunCli) -> None:
    result = run_cli()
    assert result.code == 2
    assert result.stdout == ""
    usage, commands, hint = result.stderr.splitlines()
    assert usage == "Usage: txcript COMMAND [ARGS]..."
    names = commands.removeprefix("Commands: ").split(", ")
    assert names[0] == "list" and {"view", "export", "continue", "demo"} <= set(names)
    assert hint == "Try `txcript --help` for details, or `txcript demo` to see it work."


@pytest.mark.parametrize(
    "command", ["list", "view", "export", "continue", "convert", "delete", "restore"]
)
def test_every_command_help_has_examples_and_the_harness_ids(run_cli: RunCli, command: str) -> None:
    result = run_cli(command, "--help", env={"COLUMNS": "200"})
    assert result.code == 0
    assert "Examples:" in result.stdout
    assert re.search(rf"^\s+txcript {command}\b", result.stdout, re.M)
    if command != "restore":
        assert "claude_code" in result.stdout and "codex" in result.stdout
    # Only harnesses that work are offered.
    for unbuilt in UNBUILT:
        assert not re.search(rf"\b{unbuilt}\b", result.stdout), unbuilt


def test_the_top_help_lists_commands_in_workflow_order(run_cli: RunCli) -> None:
    out = run_cli("--help").stdout
    order = [m.group(1) for m in re.finditer(r"^  (\w+)  ", out, re.M)]
    workflow = ["list", "view", "export", "continue", "convert", "delete"]
    assert [name for name in order if name in workflow] == workflow
    # (Harnesses with a store: simple and common are document formats.)
    assert " ".join(out.split()).endswith(f"harnesses: {', '.join(harnesses.ids(store=True))}")


def _recording_pager(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "paged.txt"
    pager = tmp_path / "pager"
    pager.write_text(f"#!/bin/sh\ncat > {log}\n")
    pager.chmod(pager.stat().st_mode | stat.S_IXUSR)
    return pager, log


def test_view_pages_output_taller_than_the_terminal(store: dict[str, str], tmp_path: Path) -> None:
    pager, log = _recording_pager(tmp_path)
    env = {**store, "PAGER": str(pager)}
    code, out = run_on_pty(["view", IDS[0]], env, rows=5)
    assert code == 0, out
    assert f"title={CJK_TITLE}" in log.read_text()
    assert b"[session]" not in out  # it went to the pager, not straight to the screen
    log.unlink()
    code, out = run_on_pty(["view", IDS[0], "--no-pager"], env, rows=5)
    assert code == 0 and not log.exists() and b"[session]" in out
    code, out = run_on_pty(["view", IDS[0]], env, rows=100)
    assert code == 0 and not log.exists() and b"[session]" in out  # it fits: no pager


def test_view_in_a_pipe_never_pages(run_cli: RunCli, store: dict[str, str], tmp_path: Path) -> None:
    pager, log = _recording_pager(tmp_path)
    result = run_cli("view", IDS[0], env={**store, "PAGER": str(pager), "LINES": "3"})
    assert result.code == 0 and "[session]" in result.stdout
    assert not log.exists()


def test_in_a_pipe_list_never_cuts_a_harness_name(run_cli: RunCli, isolated_home: Path) -> None:
    """Regression: the pipe layout gave the harness column 14 characters, so a listing of
    Cursor's agent transcripts read `cursor_transc…`. The column holds every registered id."""
    from txcript.harnesses import REGISTRY

    project = isolated_home / ".cursor" / "projects" / "p" / "agent-transcripts" / "a1"
    project.mkdir(parents=True)
    line = {"role": "user", "message": {"content": [{"type": "text", "text": "hi"}]}}
    (project / "a1.jsonl").write_text(json.dumps(line) + "\n")
    shown = run_cli("list").stdout.splitlines()
    assert shown[1].split()[0] == "cursor_transcripts"
    widest = max(len(info.id) for info in REGISTRY)
    assert shown[1][widest : widest + 2] == "  "


def test_the_harnesses_table_keeps_its_columns_apart(run_cli: RunCli) -> None:
    """Regression: "Cursor agent transcripts" ran into the access column (and a long id into
    the name)."""
    rows = [line.split("  ") for line in run_cli("harnesses").stdout.splitlines()]
    cells = [[cell.strip() for cell in row if cell.strip()] for row in rows]
    assert cells[2][:3] == ["cursor_transcripts", "Cursor agent transcripts", "read"]
    assert all(len(row) == 4 for row in cells), cells
