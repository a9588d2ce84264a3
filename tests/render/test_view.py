"""The ``view`` text projection, exactly as reference-cli.md §5 specifies it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import RunCli
from strategies import transcripts
from txcript import model as m
from txcript.fragment import Span
from txcript.model import to_json
from txcript.render import view
from txcript.render.view import render

T = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def msg(role: str, *blocks: m.Block) -> m.Message:
    return m.Message(role=role, content=blocks, timestamp=T, usage=m.Usage(1, 2))  # type: ignore[arg-type]


WORKED = m.Transcript(
    meta=m.Meta(id="abc", timestamp=T, title="Fix", cwd="/repo", model="m", cli_version="9"),
    messages=(
        msg("user", m.Text("fix the bug")),
        msg(
            "assistant",
            m.Thinking("hmm", signature="secret-sig"),
            m.ToolUse("toolu_X", m.Bash(command="cargo test")),
        ),
        msg("user", m.ToolResult("toolu_X", "ok")),
        msg("assistant", m.Text("done")),
    ),
)

WORKED_TEXT = """[session]
id=abc
started=2026-01-02T03:04:05+00:00
title=Fix
cwd=/repo
model=m

── #1 ──
[user]
fix the bug

── #2 ──
[thinking]
hmm

[tool 1 Bash]
{"command":"cargo test"}

── #3 ──
[result 1]
ok

── #4 ──
[assistant]
done
"""


def test_the_worked_example_renders_exactly() -> None:
    assert render(WORKED) == WORKED_TEXT


def test_a_range_adds_fragment_lines_and_keeps_full_session_numbering() -> None:
    text = render(WORKED, Span(1, 3))
    assert text.startswith("[session]\nid=abc\nstarted=2026-01-02T03:04:05+00:00\ntitle=Fix\n")
    assert "fragment=#2-3\nof=4\n" in text
    assert "── #2 ──" in text and "── #3 ──" in text
    assert "#1 " not in text and "#4" not in text
    assert "fragment=#2\n" in render(WORKED, Span(1, 2))


def test_replay_only_data_is_absent() -> None:
    text = render(WORKED)
    for hidden in ("secret-sig", "toolu_X", "cli_version", "9\n"):
        assert hidden not in text


def test_labels_for_every_block_kind() -> None:
    transcript = m.Transcript(
        meta=m.Meta(id="  spaced\n id ", timestamp=T, title="a\n b"),
        messages=(
            msg(
                "assistant",
                m.ToolUse("r1", m.Read(file_path="src/lib.rs", limit=20)),
                m.ToolUse("c1", m.Command(command="/clear")),
                m.ToolUse("c2", m.Command(command="/release", args="patch")),
                m.Image(m.ImageSource("base64", "image/png", "AAAA")),
                m.Artifact(m.ArtifactRef("a", "plan.md", m.PathSource("/tmp/plan.md"))),
                m.Artifact(m.ArtifactRef("b", "blob", m.Base64Source("AAAA"))),
            ),
            msg(
                "user",
                m.ToolResult("r1", {"z": 1, "a": [1, "é"]}),
                m.ToolResult("ghost", "lost", is_error=True),
            ),
            msg("assistant"),
        ),
    )
    assert render(transcript) == (
        "[session]\nid=spaced id\nstarted=2026-01-02T03:04:05+00:00\ntitle=a b\n"
        "\n── #1 ──\n"
        '[tool 1 Read]\n{"file_path":"src/lib.rs","limit":20}\n'
        "\n[tool 2 /clear]\n\n"
        '[tool 3 /release]\n{"args":"patch"}\n'
        "\n[image image/png omitted]\n\n"
        "[artifact plan.md]\n/tmp/plan.md\n"
        "\n[artifact blob]\nbinary data omitted\n"
        "\n── #2 ──\n"
        '[result 1]\n{"a":[1,"é"],"z":1}\n'
        "\n[result 4 error]\nlost\n"
        "\n── #3 ──"
    )


def test_an_empty_session_prints_only_the_header() -> None:
    empty = m.Transcript(meta=m.Meta(id="", timestamp=T))
    assert render(empty) == "[session]\nid=\nstarted=2026-01-02T03:04:05+00:00\n"


@settings(max_examples=150, deadline=None)
@given(transcripts, st.sampled_from([1, 50, 1 << 18]))
def test_the_pieces_are_the_whole_text_at_any_size(
    transcript: m.Transcript, piece_chars: int
) -> None:
    """A piece per message, a few messages per piece, or one piece: the same text."""
    whole = render(transcript)
    saved = view._PIECE_CHARS
    view._PIECE_CHARS = piece_chars
    try:
        pieces = list(view.iter_render(transcript))
    finally:
        view._PIECE_CHARS = saved
    assert "".join(pieces) == whole
    if piece_chars == 1 and sum(bool(message.content) for message in transcript.messages) > 1:
        assert len(pieces) > 1  # the text really was cut


def test_view_in_a_pipe_prints_exactly_the_library_text(run_cli: RunCli, tmp_path: Path) -> None:
    """The CLI writes the text a piece at a time; the bytes are view_session's."""
    from txcript.operations import view_session

    path = tmp_path / "session.json"
    path.write_text(to_json(WORKED, indent=2))
    result = run_cli("view", str(path))
    assert result.code == 0
    assert result.stdout == view_session(str(path))
