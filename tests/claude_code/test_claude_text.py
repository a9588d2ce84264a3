"""The JSONL text form, and the harness as the command line uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_fixtures import SID, jsonl, put, realistic_records, user

from conftest import RunCli
from txcript.errors import Malformed
from txcript.harnesses.claude_code.text import from_text, looks_like_session, to_text


@pytest.mark.parametrize(
    "body",
    [
        jsonl(realistic_records()),
        jsonl(realistic_records()).rstrip("\n"),
        "\n\n" + jsonl([user("u", None, "09:00:00", "x")]) + "\r\n   \n",
    ],
)
def test_text_form_is_the_file_text_exactly(body: str) -> None:
    native = from_text(body)
    assert to_text(native) == body
    assert native.session_id == ""


@pytest.mark.parametrize(("body", "needle"), [("", "empty"), ("nope\n[1]\n", "no line")])
def test_text_without_records_is_malformed(body: str, needle: str) -> None:
    with pytest.raises(Malformed, match=needle):
        from_text(body)


@pytest.mark.parametrize(
    "body",
    [
        '{"x":1}\n',
        '{"type":"session_meta","payload":{"id":"a"}}\n',
        '{"type":"message","role":"user","content":[]}\n{"record_type":"state"}\n',
    ],
)
def test_json_objects_that_are_not_claude_code_records_are_malformed(body: str) -> None:
    """Regression: any JSON object was accepted as a Claude Code session, so ``continue x.json
    --from claude_code`` of ``{"x":1}`` (or of a Codex rollout) wrote an empty session, while
    ``[1]`` was refused. Now at least one line must be a record type Claude Code writes."""
    with pytest.raises(Malformed, match="no line is a Claude Code record"):
        from_text(body)


def test_unknown_records_beside_known_ones_are_kept_exactly() -> None:
    body = '{"type":"brand-new","x":1}\n' + jsonl(realistic_records()) + '{"y":2}\n'
    assert to_text(from_text(body)) == body
    assert to_text(from_text('{"type":"queue-operation","operation":"dequeue"}\n'))


def test_cli_refuses_a_stray_json_object_as_a_claude_code_session(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    """The same regression end to end: ``convert`` and ``continue`` exit 2 with one line and
    write nothing."""
    converted = run_cli("convert", "--from", "claude_code", "--to", "codex", stdin=b'{"x":1}\n')
    assert converted.code == 2 and converted.stdout == ""
    assert converted.stderr.splitlines() == [
        "txcript: error: malformed claude_code transcript: no line is a Claude Code record "
        "(expected JSON lines whose `type` is `user`, `assistant`, `summary`, …)"
    ]
    document = tmp_path / "x.json"
    document.write_text('{"x":1}')
    continued = run_cli(
        "continue", str(document), "--from", "claude_code", "--with", "codex", "--no-resume"
    )
    assert continued.code == 2, continued.stdout
    assert len(continued.stderr.splitlines()) == 1
    assert not (isolated_home / ".codex").exists()


def test_looks_like_session_recognises_conversation_lines_only() -> None:
    assert looks_like_session(jsonl(realistic_records()))
    assert not looks_like_session('{"messages": []}')
    assert not looks_like_session(jsonl([{"type": "summary", "summary": "s"}]))


@pytest.mark.filterwarnings("ignore")
def test_list_view_and_native_export_through_the_cli(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    path = put(isolated_home / ".claude", realistic_records())
    listed = run_cli("list", "--from", "claude", "--json")
    assert listed.code == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["harness"], r["id"], r["title"]) for r in rows] == [
        ("claude_code", SID, "off-by-one")
    ]
    viewed = run_cli("view", SID[:8])
    assert viewed.code == 0, viewed.stderr
    assert "fix the off-by-one" in viewed.stdout
    exported = run_cli("export", SID, "--format", "native")
    assert exported.code == 0, exported.stderr
    assert exported.stdout.encode() == path.read_bytes()


def test_convert_to_claude_code_and_back(run_cli: RunCli, tmp_path: Path) -> None:
    simple = tmp_path / "s.json"
    simple.write_text(
        json.dumps(
            {
                "id": "conv-1",
                "timestamp": "2026-01-02T03:04:05Z",
                "cwd": "/repo",
                "title": "Converted",
                "messages": [
                    {"role": "user", "content": "hi", "timestamp": "2026-01-02T03:04:05Z"},
                    {"role": "assistant", "content": "hello", "timestamp": "2026-01-02T03:04:06Z"},
                ],
            }
        )
    )
    native = run_cli("convert", "--from", "simple", "--to", "claude_code", str(simple))
    assert native.code == 0, native.stderr
    lines = [json.loads(x) for x in native.stdout.splitlines()]
    assert lines[0]["type"] == "summary" and lines[0]["leafUuid"] == lines[-1]["uuid"]
    jsonl_path = tmp_path / "conv-1.jsonl"
    jsonl_path.write_text(native.stdout)
    back = run_cli("convert", "--from", "claude_code", "--to", "common", str(jsonl_path))
    assert back.code == 0, back.stderr
    document = json.loads(back.stdout)
    assert document["meta"]["title"] == "Converted"
    assert [msg["content"][0]["text"] for msg in document["messages"]] == ["hi", "hello"]
