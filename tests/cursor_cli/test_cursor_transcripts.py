"""Cursor's agent transcripts as a read-only source: exact Common output, never written."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cursor_cli_fixtures import LINES, MTIME_NS, OLD, UUID, write_transcripts

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.errors import Unconvertible
from txcript.harnesses.cursor_cli.transcripts import NO_RESULT, TranscriptStore
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.timeutil import from_epoch_ms

H = harnesses.get("cursor_transcripts")
NS = namespace_from_ascii(b"txcript-cursortr")


def test_jsonl_transcript_gives_exactly_the_expected_common(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "acme"
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    store = TranscriptStore(tmp_path / "dot-cursor")
    jsonl, _ = write_transcripts(store.root, str(workspace))
    before = jsonl.read_bytes()
    when = from_epoch_ms(MTIME_NS // 1_000_000)
    ids = [uuid5(NS, f"{UUID}:1:{j}") for j in (1, 2, 3)]
    transcript = H.to_common(store.load(str(jsonl)))
    assert transcript == m.Transcript(
        meta=m.Meta(id=UUID, timestamp=when, cwd=str(workspace), title="run the tests"),
        messages=(
            m.Message(role="user", content=(m.Text(text="run the tests"),), timestamp=when),
            m.Message(
                role="assistant",
                content=(
                    m.Text(text="Running them."),
                    m.ToolUse(
                        id=ids[0],
                        tool=m.Bash(command="npm test", workdir="/w", description="tests"),
                    ),
                    m.ToolUse(
                        id=ids[1],
                        tool=m.Raw(tool_name="ApplyPatch", input="*** Begin Patch\n*** End Patch"),
                    ),
                    m.ToolUse(id=ids[2], tool=m.Read(file_path="/w/a.ts", limit=20)),
                ),
                timestamp=when,
            ),
            m.Message(
                role="user",
                content=tuple(m.ToolResult(tool_use_id=i, content=NO_RESULT) for i in ids),
                timestamp=when,
            ),
            m.Message(role="assistant", content=(m.Text(text="All green."),), timestamp=when),
        ),
    )
    found = {d.meta_id: d for d in store.discover()}
    assert set(found) == {UUID, OLD}
    d = found[UUID]
    assert (d.timestamp, d.title, d.cwd) == (when, "run the tests", str(workspace))
    assert jsonl.read_bytes() == before


def test_text_transcript_keeps_its_blocks_as_text(tmp_path: Path) -> None:
    store = TranscriptStore(tmp_path)
    _, txt = write_transcripts(store.root, "/Users/dev/acme")
    transcript = H.to_common(store.load(str(txt)))
    assert [(msg.role, msg.content) for msg in transcript.messages] == [
        ("user", (m.Text(text="explain the config"),)),
        ("assistant", (m.Text(text="[Thinking] look at it\nIt sets the port."),)),
    ]
    assert transcript.meta.title == "explain the config"
    assert transcript.meta.cwd is None  # the slug matches no directory here


def test_transcripts_are_never_written(tmp_path: Path, run_cli: RunCli) -> None:
    store = TranscriptStore(tmp_path)
    jsonl, _ = write_transcripts(store.root, "/Users/dev/acme")
    with pytest.raises(Unconvertible):
        H.from_common(H.to_common(store.load(str(jsonl))))
    document = tmp_path / "s.json"
    document.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    result = run_cli("continue", str(document), "--with", "cursor_transcripts", "--no-resume")
    # A target that cannot be written is bad input (exit 2), like --with simple.
    assert result.code == 2
    assert result.stderr == (
        "txcript: error: cannot convert to cursor_transcripts: writing Cursor agent transcripts "
        "is not supported yet\n"
    )


def test_listing_and_exporting_through_the_cli(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    jsonl, _ = write_transcripts(isolated_home / ".cursor", "/Users/dev/acme")
    result = run_cli("list", "--from", "cursor_transcripts", "--json")
    assert result.code == 0, result.stderr
    assert sorted(e["id"] for e in json.loads(result.stdout)) == sorted([UUID, OLD])
    exported = run_cli("export", UUID, "--format", "common")
    assert exported.code == 0, exported.stderr
    assert len(json.loads(exported.stdout)["messages"]) == 4
    # A transcript file given as a document is recognised by its lines.
    copy = tmp_path / "transcript.jsonl"
    copy.write_bytes(jsonl.read_bytes())
    converted = run_cli("export", str(copy), "--format", "common")
    assert converted.code == 0, converted.stderr
    assert json.loads(converted.stdout)["messages"][0]["content"][0]["text"] == "run the tests"


def test_files_that_are_not_transcripts_are_skipped_with_a_warning(tmp_path: Path) -> None:
    store = TranscriptStore(tmp_path)
    project = tmp_path / "projects" / "x" / "agent-transcripts"
    project.mkdir(parents=True)
    (project / "junk.txt").write_text("no roles here\n")
    with pytest.warns(UserWarning, match="skipping the Cursor agent transcript"):
        assert store.discover() == []


def test_a_transcript_that_dates_its_lines_takes_its_times_from_them(
    tmp_path: Path, run_cli: RunCli, isolated_home: Path
) -> None:
    """The file's mtime is the time only when nothing in the file is dated: a line's own
    ``timestamp`` (RFC 3339) or ``createdAt`` (epoch ms) dates its message, an undated line takes
    the time before it, and the listing's start and update times are the records'."""
    dated = [
        {**LINES[0], "timestamp": "2026-03-04T05:06:07.000Z"},
        {**LINES[1], "message": {**LINES[1]["message"], "createdAt": 1772600827000}},
        LINES[2],
    ]
    folder = isolated_home / ".cursor" / "projects" / "p" / "agent-transcripts" / UUID
    folder.mkdir(parents=True)
    path = folder / f"{UUID}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in dated))
    os.utime(path, ns=(MTIME_NS, MTIME_NS))
    transcript = H.to_common(TranscriptStore(isolated_home / ".cursor").load(str(path)))
    first = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    second = from_epoch_ms(1772600827000)
    assert transcript.meta.timestamp == first
    assert [message.timestamp for message in transcript.messages] == [
        first,
        second,
        second,  # the results said to be missing, after their calls
        second,  # the undated last line
    ]
    listed = run_cli("list", "--from", "cursor_transcripts", "--json")
    assert listed.code == 0, listed
    (row,) = json.loads(listed.stdout)
    assert (row["timestamp"], row["updated_at"]) == (
        "2026-03-04T05:06:07Z",
        "2026-03-04T05:07:07Z",
    )


def test_continuing_a_transcript_without_with_suggests_with(
    run_cli: RunCli, isolated_home: Path
) -> None:
    write_transcripts(isolated_home / ".cursor", "/Users/dev/acme")
    result = run_cli("continue", UUID, "--no-resume")
    assert result.code == 2, result
    # (After the one warning that only the transcript holds the session.)
    warning, line = result.stderr.splitlines()
    assert warning.startswith("txcript: warning: ") and "without tool results" in warning
    assert line.startswith("txcript: error: ") and "--with <harness>" in line, line
    assert "claude_code" in line
