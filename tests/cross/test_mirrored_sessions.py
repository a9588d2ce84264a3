"""One session, listed once: Cursor writes a readable transcript of every desktop chat under the
same id (``~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl``). The transcript has no
tool results, no cwd and no times, so the session is the desktop's: listed once from there,
opened from there by its full id or a prefix, and the transcript is used only when nothing else
holds the session, with a warning that says so."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conftest import RunCli
from txcript import harnesses, sessions
from txcript import model as m
from txcript.harnesses.cursor_cli.transcripts import slug_of

BOTH = "5c6d7e8f-1a2b-4c3d-9e8f-0a1b2c3d4e5f"
ONLY_TRANSCRIPT = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def transcript_file(home: Path, session_id: str, workspace: str = "/repo") -> Path:
    folder = home / ".cursor" / "projects" / slug_of(workspace) / "agent-transcripts" / session_id
    folder.mkdir(parents=True)
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": "run the tests"}]}},
        {
            "role": "assistant",
            "message": {
                "content": [{"type": "tool_use", "name": "Shell", "input": {"command": "npm t"}}]
            },
        },
    ]
    path = folder / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture
def mirrored(isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Cursor desktop chat with its transcript, and a transcript whose chat is gone."""
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(tmp_path / "User"))
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    desktop = harnesses.get("cursor_desktop")
    transcript = m.Transcript(
        meta=m.Meta(id=BOTH, timestamp=AT, cwd="/repo", title="Run the tests"),
        messages=(
            m.Message(role="user", content=(m.Text(text="run the tests"),), timestamp=AT),
            m.Message(
                role="assistant",
                content=(m.ToolUse(id="c1", tool=m.Bash(command="npm t")),),
                timestamp=AT,
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="c1", content="23 passing"),),
                timestamp=AT,
            ),
        ),
    )
    store = desktop.store()
    assert store is not None
    store.save(desktop.from_common(transcript))
    transcript_file(isolated_home, BOTH)
    transcript_file(isolated_home, ONLY_TRANSCRIPT)
    return isolated_home


@pytest.mark.usefixtures("mirrored")
def test_a_mirrored_session_is_listed_once_from_the_richer_store(run_cli: RunCli) -> None:
    listed = run_cli("list", "--json")
    assert listed.code == 0, listed
    rows = json.loads(listed.stdout)
    by_id = {}
    for row in rows:
        assert row["id"] not in by_id, f"{row['id']} is listed twice"
        by_id[row["id"]] = row
    assert by_id[BOTH]["harness"] == "cursor_desktop"
    assert by_id[BOTH]["also_in"] == ["cursor_transcripts"]
    assert by_id[BOTH]["cwd"] == "/repo"
    assert by_id[ONLY_TRANSCRIPT]["harness"] == "cursor_transcripts"
    assert "also_in" not in by_id[ONLY_TRANSCRIPT]
    human = run_cli("list")
    line = next(line for line in human.stdout.splitlines() if BOTH in line)
    assert "also in cursor_transcripts" in line
    assert sum(BOTH in line for line in human.stdout.splitlines()) == 1


@pytest.mark.usefixtures("mirrored")
def test_the_full_id_and_a_prefix_open_the_desktop_session(run_cli: RunCli) -> None:
    for reference in (BOTH, BOTH[:8]):
        viewed = run_cli("view", reference)
        assert viewed.code == 0, viewed
        assert "23 passing" in viewed.stdout  # the tool result only the desktop holds
        assert "warning" not in viewed.stderr, viewed.stderr
    assert sessions.open_reference(BOTH, documents=False).harness.id == "cursor_desktop"
    explicit = run_cli("view", BOTH, "--from", "cursor_transcripts")
    assert explicit.code == 0 and "23 passing" not in explicit.stdout


@pytest.mark.usefixtures("mirrored")
def test_a_session_only_the_transcript_holds_says_so(run_cli: RunCli) -> None:
    viewed = run_cli("view", ONLY_TRANSCRIPT)
    assert viewed.code == 0, viewed
    warning = [line for line in viewed.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1, viewed.stderr
    assert "Cursor agent transcripts" in warning[0] and "without tool results" in warning[0]


@pytest.mark.usefixtures("mirrored")
def test_query_and_mcp_list_show_the_session_once(run_cli: RunCli) -> None:
    found = run_cli("query", "run the tests", "--json")
    assert found.code == 0, found
    ids = [row["id"] for row in json.loads(found.stdout)]
    assert ids.count(BOTH) == 1
    assert next(r for r in json.loads(found.stdout) if r["id"] == BOTH)["harness"] == (
        "cursor_desktop"
    )
    from txcript.mcp_server import ListArgs, list_sessions

    listed = list_sessions(ListArgs())
    assert [s["id"] for s in listed["sessions"]].count(BOTH) == 1


@pytest.mark.usefixtures("mirrored")
def test_delete_of_the_full_id_is_not_ambiguous() -> None:
    from txcript.operations import resolve_for_delete

    assert resolve_for_delete(BOTH).harness == "cursor_desktop"
