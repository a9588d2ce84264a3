"""The command line as users run it: real subprocesses, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CliResult, RunCli
from test_simple import EXPORTED

GOOD = EXPORTED


def assert_one_line_error(result: CliResult, code: int, needle: str) -> None:
    assert result.code == code, result
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("txcript: error: "), lines[0]
    assert needle in lines[0]
    assert "Traceback" not in result.stderr


@pytest.fixture
def bad_inputs(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (path argument, text the error must contain)."""
    files = {
        "not json": (b"hello there", "not valid JSON"),
        "wrong types": (b'{"messages": 5}', "`messages` is not an array"),
        "top level array": (b"[1, 2]", "top level is not a JSON object"),
        "truncated": (GOOD.encode()[: len(GOOD) // 2], "not valid JSON"),
        "invalid utf-8": (b'{"messages": ["\xff\xfe"]}', "not valid UTF-8"),
        "empty": (b"", "the input is empty"),
        "common with a naive timestamp": (
            b'{"meta": {"id": "", "timestamp": "2026-01-01T00:00:00"}, "messages": []}',
            "$.meta.timestamp",
        ),
    }
    cases: dict[str, tuple[str, str]] = {}
    for index, (name, (data, needle)) in enumerate(files.items()):
        path = tmp_path / f"bad{index}.json"
        path.write_bytes(data)
        cases[name] = (str(path), needle)
    cases["a directory"] = (str(tmp_path), "is a directory")
    cases["a missing file"] = (str(tmp_path / "missing.json"), "no such file")
    return cases


CASES = [
    "not json",
    "wrong types",
    "top level array",
    "truncated",
    "invalid utf-8",
    "empty",
    "common with a naive timestamp",
    "a directory",
    "a missing file",
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["view", "export", "export-common", "convert"])
def test_bad_documents_give_one_line_exit_2_and_write_nothing(
    run_cli: RunCli, bad_inputs: dict[str, tuple[str, str]], tmp_path: Path, command: str, case: str
) -> None:
    path, needle = bad_inputs[case]
    out = tmp_path / "out" / "result.json"
    out.parent.mkdir()
    if command == "view":
        result = run_cli("view", path)
    elif command == "export":
        result = run_cli("export", path, "--out", str(out))
    elif command == "export-common":
        result = run_cli("export", path, "--format", "common", "--out", str(out))
    else:
        from_format = "common" if "common" in case else "simple"
        result = run_cli(
            "convert", "--from", from_format, "--to", "common", path, "--out", str(out)
        )
    assert_one_line_error(result, 2, needle)
    assert list(out.parent.iterdir()) == []


def test_bad_input_on_stdin_names_stdin(run_cli: RunCli) -> None:
    assert_one_line_error(run_cli("view", "-", stdin=b"{"), 2, "reading stdin: not valid JSON")


def test_view_prints_the_projection_of_a_document_and_a_range(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "session.json"
    path.write_text(GOOD)
    whole = run_cli("view", str(path))
    assert whole.code == 0 and whole.stderr == ""
    assert whole.stdout.startswith("[session]\nid=sess-1\nstarted=2026-08-21T09:30:00+00:00\n")
    part = run_cli("view", f"{path}#2-3")
    assert "fragment=#2-3\nof=4\n" in part.stdout


def test_export_refuses_a_range_that_cuts_a_tool_pair(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_text(GOOD)
    out = tmp_path / "cut.json"
    result = run_cli("export", f"{path}#1-2", "--out", str(out))
    assert_one_line_error(
        result, 2, "range #1-2 cuts a tool call away from its result — nearest valid range is #1-3"
    )
    assert not out.exists()
    ok = run_cli("export", f"{path}#1-3", "--out", str(out))
    assert ok.code == 0
    assert len(json.loads(out.read_text())["messages"]) == 3


def test_export_keeps_the_file_stem_as_id_when_the_document_has_none(
    run_cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "my-session.json"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}]}')
    result = run_cli("export", str(path), "--format", "common")
    assert json.loads(result.stdout)["meta"]["id"] == "my-session"


def test_a_filename_containing_a_hash_opens_as_a_file(run_cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "notes#5.json"
    path.write_text(GOOD)
    result = run_cli("view", str(path))
    assert result.code == 0 and "fragment=" not in result.stdout


def test_convert_simple_to_common_and_back_round_trips(run_cli: RunCli, tmp_path: Path) -> None:
    common = run_cli("convert", "--from", "simple", "--to", "common", stdin=GOOD.encode())
    assert common.code == 0, common.stderr
    assert json.loads(common.stdout)["meta"]["id"] == "sess-1"
    back = run_cli("convert", "--from", "common", "--to", "simple", stdin=common.stdout.encode())
    assert back.stdout == GOOD


def test_convert_simple_to_simple_keeps_unknown_keys(run_cli: RunCli) -> None:
    doc = {"generator": "agent-x", "messages": [{"role": "user", "content": "hi", "mood": 1}]}
    result = run_cli(
        "convert", "--from", "simple", "--to", "simple", stdin=json.dumps(doc).encode()
    )
    assert json.loads(result.stdout) == doc


def test_skipped_messages_are_reported_on_stderr(run_cli: RunCli) -> None:
    doc = {"messages": [{"role": "user", "content": "hi", "timestamp": "2026-01-01T00:00:00"}]}
    result = run_cli(
        "convert", "--from", "simple", "--to", "common", stdin=json.dumps(doc).encode()
    )
    assert result.code == 0
    assert result.stderr.startswith("txcript: warning: messages[0] skipped: timestamp")


def test_unknown_harness_and_unknown_command_are_usage_errors(run_cli: RunCli) -> None:
    assert_one_line_error(
        run_cli("convert", "--from", "nope", "--to", "simple"), 2, "unknown harness `nope`"
    )
    assert_one_line_error(run_cli("frobnicate"), 2, "No such command")


def test_harnesses_json_lists_the_implemented_ones(run_cli: RunCli) -> None:
    rows = json.loads(run_cli("harnesses", "--json").stdout)
    by_id = {row["id"]: row for row in rows}
    assert {"simple", "cursor_desktop"} <= set(by_id) and "common" not in by_id
    assert by_id["cursor_desktop"]["read"] is True
    assert set(rows[0]) == {"id", "name", "read", "write", "root"}
    assert by_id["simple"]["root"] is None
    assert by_id["simple"]["write"] is False


def test_help_lists_the_commands(run_cli: RunCli) -> None:
    result = run_cli("--help")
    assert result.code == 0
    for command in ("harnesses", "list", "view", "export", "convert"):
        assert command in result.stdout
