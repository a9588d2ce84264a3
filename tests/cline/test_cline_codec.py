"""What only the Cline family's codec does: the XML tool era's pairing rule, the tool vocabulary
in both directions, and the places a store finds under its root."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import cline_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.harnesses.cline.flavours import CLINE, ROO
from txcript.harnesses.cline.native import ClineTask
from txcript.harnesses.cline.tools import from_tool, to_tool

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def _task(history: list[dict[str, Any]]) -> ClineTask:
    return ClineTask(
        "1777593600000", (("api_conversation_history.json", f.dumps(history).encode()),)
    )


def test_markup_the_next_message_does_not_answer_stays_text_word_for_word() -> None:
    shown = "Call it like this: <read_file>\n<path>x.py</path>\n</read_file>"
    transcript = harnesses.get("cline").to_common(
        _task(
            [
                {"role": "user", "content": [{"type": "text", "text": "how do I read?"}]},
                {"role": "assistant", "content": [{"type": "text", "text": shown}]},
                {"role": "user", "content": [{"type": "text", "text": "thanks"}]},
            ]
        )
    )
    assert [b for msg in transcript.messages for b in msg.content] == [
        m.Text(text="how do I read?"),
        m.Text(text=shown),
        m.Text(text="thanks"),
    ]


def test_a_task_with_any_native_call_is_never_read_for_markup() -> None:
    markup = "<read_file><path>a</path></read_file>"
    transcript = harnesses.get("cline").to_common(
        _task(
            [
                {"role": "assistant", "content": [{"type": "text", "text": markup}]},
                {"role": "user", "content": [{"type": "text", "text": "[read_file] Result:"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}],
                },
            ]
        )
    )
    assert transcript.messages[0].content == (m.Text(text=markup),)
    assert transcript.messages[1].content == (m.Text(text="[read_file] Result:"),)


@pytest.mark.parametrize(
    ("name", "data", "tool"),
    [
        ("execute_command", {"command": "ls", "requires_approval": "false"}, m.Bash(command="ls")),
        (
            "execute_command",
            {"command": "rm -r x", "requires_approval": True},
            m.Raw(
                tool_name="execute_command", input={"command": "rm -r x", "requires_approval": True}
            ),
        ),
        (
            "replace_in_file",
            {
                "path": "a.py",
                "diff": "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n\n"
                "<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE",
            },
            m.MultiEdit(
                file_path="a.py",
                edits=(
                    m.EditSpec(old_string="a", new_string="b"),
                    m.EditSpec(old_string="c", new_string="d"),
                ),
            ),
        ),
        (
            "replace_in_file",
            {"path": "a.py", "diff": "not a diff"},
            m.Raw(tool_name="replace_in_file", input={"path": "a.py", "diff": "not a diff"}),
        ),
        ("Glob", {"pattern": "*.py"}, m.Raw(tool_name="Glob", input={"pattern": "*.py"})),
        ("Read", {"file_path": "a", "offset": 3}, m.Read(file_path="a", offset=3)),
    ],
)
def test_a_call_is_typed_only_when_its_input_fits(name: str, data: Any, tool: m.Tool) -> None:
    assert to_tool(name, data) == tool


@pytest.mark.parametrize(
    ("tool", "cline", "roo"),
    [
        (
            m.Bash(command="make"),
            ("execute_command", {"command": "make", "requires_approval": False}),
            ("execute_command", {"command": "make"}),
        ),
        (
            m.Bash(command="make", workdir="/w"),
            ("Bash", {"command": "make", "workdir": "/w"}),
            ("execute_command", {"command": "make", "cwd": "/w"}),
        ),
        (
            m.Edit(file_path="a", old_string="x", new_string="y"),
            (
                "replace_in_file",
                {"path": "a", "diff": "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"},
            ),
            ("Edit", {"file_path": "a", "old_string": "x", "new_string": "y"}),
        ),
        (
            m.Edit(file_path="a", old_string="x\n=======\nz", new_string="y"),
            ("Edit", {"file_path": "a", "old_string": "x\n=======\nz", "new_string": "y"}),
            ("Edit", {"file_path": "a", "old_string": "x\n=======\nz", "new_string": "y"}),
        ),
        (
            m.Read(file_path="a", limit=5),
            ("Read", {"file_path": "a", "limit": 5}),
            ("Read", {"file_path": "a", "limit": 5}),
        ),
    ],
)
def test_a_tool_is_written_in_the_extensions_words_only_where_it_reads_back_the_same(
    tool: m.Tool, cline: tuple[str, Any], roo: tuple[str, Any]
) -> None:
    assert from_tool(tool, CLINE) == cline
    assert from_tool(tool, ROO) == roo
    assert to_tool(*cline) == tool
    assert to_tool(*roo) == tool


# ----------------------------------------------------------------------------- locations


def test_every_editor_and_every_systems_layout_under_the_root_is_listed(tmp_path: Path) -> None:
    for base, editor, task_id in [
        (".config", "Code", "1000000000001"),
        ("Library/Application Support", "Cursor", "1000000000002"),
        ("AppData/Roaming", "VSCodium", "1000000000003"),
        (".config", "Code - Insiders", "1000000000004"),
    ]:
        task = tmp_path.joinpath(*base.split("/"), editor, "User", "globalStorage", f.CLINE_EXT)
        (task / "tasks" / task_id).mkdir(parents=True)
        history = [{"role": "user", "content": "hi", "ts": int(task_id)}]
        (task / "tasks" / task_id / "api_conversation_history.json").write_text(json.dumps(history))
    store = harnesses.get("cline").store(tmp_path)
    assert store is not None
    assert sorted(d.meta_id for d in store.discover()) == [
        "1000000000001",
        "1000000000002",
        "1000000000003",
        "1000000000004",
    ]


def test_the_apps_own_variables_move_the_stores_of_your_own_home_only(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "moved"
    f.cline_xml_task(moved)  # under moved/.config/Code/…
    f.cline_sdk_session(moved)  # under moved/.cline/data/sessions/…
    f.kilo_db(moved)  # under moved/.local/share/kilo/kilo.db
    monkeypatch.setenv("XDG_CONFIG_HOME", str(moved / ".config"))
    monkeypatch.setenv("CLINE_DIR", str(moved / ".cline"))
    monkeypatch.setenv("XDG_DATA_HOME", str(moved / ".local" / "share"))
    cline, kilo = harnesses.get("cline"), harnesses.get("kilo")
    own = cline.store()
    assert own is not None and own.root == isolated_home
    assert sorted(d.meta_id for d in own.discover()) == [f.XML_TASK, f.SDK_SESSION]
    own_kilo = kilo.store()
    assert own_kilo is not None
    assert [d.meta_id for d in own_kilo.discover()] == [f.KILO_SESSION]
    # Another root, or txcript's own variable naming one, is that root alone.
    other = cline.store(tmp_path / "empty")
    assert other is not None and other.discover() == []
    monkeypatch.setenv("TXCRIPT_CLINE_HOME", str(isolated_home))
    named = cline.store()
    assert named is not None and named.discover() == []


def test_a_new_task_goes_to_the_editor_last_used(tmp_path: Path) -> None:
    f.cline_xml_task(tmp_path)  # VS Code
    f.cline_native_task(tmp_path)  # VS Code Insiders, used after it
    older = f.storage(tmp_path, f.CLINE_EXT, "Code")
    os.utime(older, ns=(1, 1))
    os.utime(older / "tasks", ns=(1, 1))
    cline = harnesses.get("cline")
    store = cline.store(tmp_path)
    assert store is not None
    transcript = m.Transcript(
        meta=m.Meta(id="1777593600000", timestamp=T0, title="t"),
        messages=(m.Message(role="user", content=(m.Text(text="t"),), timestamp=T0),),
    )
    saved = store.save(cline.from_common(transcript))
    assert "Code - Insiders" in saved.location
