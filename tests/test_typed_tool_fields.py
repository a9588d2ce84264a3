"""Every field of a typed tool either maps into the target format or is carried: through every
writer's codec and back, a call comes back as the same typed tool, or as a Raw under the tool's
name holding every field. The Cursor desktop writer dropped ``run_in_background: true`` (and the
description) from a Bash call."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest

from txcript import harnesses
from txcript import model as m

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
#: Each typed tool with every field set away from its default.
TOOLS = [
    m.Bash(
        command="npm test",
        workdir="/repo/sub",
        timeout_ms=60_000,
        description="Run the tests",
        run_in_background=True,
    ),
    m.Read(file_path="/repo/a.py", offset=3, limit=20),
    m.Write(file_path="/repo/b.txt", content="x\n"),
    m.Edit(file_path="/repo/c.py", old_string="a", new_string="b", replace_all=True),
    m.MultiEdit(
        file_path="/repo/d.py",
        edits=(m.EditSpec(old_string="a", new_string="b", replace_all=True),),
    ),
]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: type(tool).__name__)
@pytest.mark.parametrize("writer", harnesses.ids(write=True))
def test_every_field_of_a_typed_tool_maps_or_is_carried(writer: str, tool: m.Tool) -> None:
    harness = harnesses.get(writer)
    transcript = m.Transcript(
        meta=m.Meta(id=harness.new_session_id(), timestamp=AT, cwd="/repo"),
        messages=(
            m.Message(role="user", content=(m.Text(text="go"),), timestamp=AT),
            m.Message(role="assistant", content=(m.ToolUse(id="call_1", tool=tool),), timestamp=AT),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="call_1", content="ok"),),
                timestamp=AT,
            ),
        ),
    )
    back = harness.to_common(harness.from_common(transcript))
    (got,) = [b.tool for msg in back.messages for b in msg.content if isinstance(b, m.ToolUse)]
    if isinstance(got, m.Raw):
        fields = msgspec.json.decode(msgspec.json.encode(tool))
        name = fields.pop("name")
        assert (got.tool_name, got.input) == (name, fields)
    elif isinstance(tool, m.MultiEdit) and len(tool.edits) == 1 and isinstance(got, m.Edit):
        # One edit of a file is an Edit: every field of it is there.
        (edit,) = tool.edits
        assert got == m.Edit(
            file_path=tool.file_path,
            old_string=edit.old_string,
            new_string=edit.new_string,
            replace_all=edit.replace_all,
        )
    else:
        assert got == tool
