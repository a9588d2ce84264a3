"""Line extraction: which text of each block and tool kind is searchable, under which origin."""

from __future__ import annotations

from datetime import UTC, datetime

from txcript import model as m
from txcript.search.lines import Line, extract

T = datetime(2026, 11, 1, tzinfo=UTC)


def _one(role: str, *blocks: m.Block) -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(id="s", timestamp=T),
        messages=(m.Message(role=role, content=blocks, timestamp=T),),  # type: ignore[arg-type]
    )


def test_meta_lines_are_title_cwd_and_branch_in_that_order() -> None:
    item = m.Transcript(
        meta=m.Meta(id="s", timestamp=T, title="Fix auth", cwd="/src/acme", git_branch="main")
    )
    assert extract(item) == [
        Line("meta", "Fix auth", None, 0),
        Line("meta", "/src/acme", None, 0),
        Line("meta", "main", None, 0),
    ]


def test_text_is_split_into_trimmed_non_blank_lines_by_role() -> None:
    assert extract(_one("user", m.Text("first  \n\n   \nsecond"))) == [
        Line("user", "first", 0, 0),
        Line("user", "second", 0, 0),
    ]
    assert extract(_one("assistant", m.Text("done"))) == [Line("assistant", "done", 0, 0)]


def test_thinking_results_and_images() -> None:
    image = m.Image(source=m.ImageSource(type="base64", media_type="image/png", data="AAAA"))
    item = _one(
        "assistant",
        m.Thinking("hmm", signature="sig"),
        image,
        m.ToolResult(tool_use_id="a", content="42 passed"),
        m.ToolResult(tool_use_id="b", content=[{"type": "text", "text": "x"}]),
    )
    assert extract(item) == [
        Line("thinking", "hmm", 0, 0),
        Line("tool_result", "42 passed", 0, 2),
        Line("tool_result", '[{"text":"x","type":"text"}]', 0, 3),
    ]


def test_every_typed_tool_is_searched_by_what_a_person_remembers() -> None:
    tools: list[tuple[m.Tool, list[str]]] = [
        (m.Command(command="release", args="patch"), ["/release", "patch"]),
        (m.Read(file_path="/a.py", offset=3), ["/a.py"]),
        (m.Write(file_path="/b.py", content="x = 1"), ["/b.py", "x = 1"]),
        (m.Edit(file_path="/c.py", old_string="old", new_string="new"), ["/c.py", "old", "new"]),
        (
            m.MultiEdit(
                file_path="/d.py",
                edits=(
                    m.EditSpec(old_string="a1", new_string="b1"),
                    m.EditSpec(old_string="a2", new_string="b2"),
                ),
            ),
            ["/d.py", "a1", "b1", "a2", "b2"],
        ),
        (m.Bash(command="pytest -q", description="run tests"), ["pytest -q", "run tests"]),
        (m.Raw(tool_name="grep", input={"q": "auth", "a": 1}), ["grep", '{"a":1,"q":"auth"}']),
        (m.Raw(tool_name="noop", input=None), ["noop"]),
    ]
    for tool, expected in tools:
        lines = extract(_one("assistant", m.ToolUse(id="1", tool=tool)))
        assert [line.text for line in lines] == expected, tool
        assert {line.origin for line in lines} == {"tool_use"}


def test_artifacts_count_as_assistant_whatever_the_role() -> None:
    art = m.Artifact(
        artifact=m.ArtifactRef(id="a", name="notes.md", source=m.TextSource(text="body"))
    )
    path = m.Artifact(
        artifact=m.ArtifactRef(id="b", name="out.bin", source=m.PathSource(path="/tmp/out.bin"))
    )
    assert [(x.origin, x.text) for x in extract(_one("user", art, path))] == [
        ("assistant", "notes.md"),
        ("assistant", "body"),
        ("assistant", "out.bin"),
        ("assistant", "/tmp/out.bin"),
    ]
