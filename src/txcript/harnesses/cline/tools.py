"""Cline's tool vocabulary, and how its calls map to Common's typed tools and back.

Cline (and its forks) name tools in snake case with their own parameters: ``execute_command
{command, requires_approval}``, ``read_file {path}``, ``write_to_file {path, content}``,
``replace_in_file {path, diff}`` whose ``diff`` is SEARCH/REPLACE blocks. A call becomes a typed
Common tool only when its input fits exactly (nothing would be lost); any other call is
:class:`~txcript.model.Raw` with its name and input untouched. A name outside the vocabulary (a
call another harness made, written back under its Common name) is typed by Common's own rules.

Writing goes the other way: a typed tool that fits Cline's schema is written in Cline's words;
one that does not (a ``Bash`` with a timeout, a ``Read`` of a range) is written under its Common
name and input, which reads back as the same tool.
"""

from __future__ import annotations

from typing import Any

from txcript import model as m

from .flavours import Flavour

#: Tool names of the XML era, recognised as tags in assistant text (Cline's, and the ones Roo
#: and Kilo added).
XML_TOOLS = frozenset(
    (
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "codebase_search",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "attempt_completion",
        "plan_mode_respond",
        "act_mode_respond",
        "new_task",
        "switch_mode",
        "update_todo_list",
        "fetch_instructions",
        "load_mcp_documentation",
        "web_fetch",
        "condense",
        "new_rule",
        "report_bug",
    )
)

_SEARCH = "<<<<<<< SEARCH"
_DIVIDER = "======="
_REPLACE = ">>>>>>> REPLACE"
_NO_APPROVAL = (False, "false")


def parse_diff(diff: str) -> list[tuple[str, str]] | None:
    """The (search, replace) pairs of a SEARCH/REPLACE diff, or None when it is not only such
    blocks (blank lines may separate them)."""
    blocks: list[tuple[str, str]] = []
    lines = diff.split("\n")
    index = 0
    while index < len(lines):
        if lines[index] == "":
            index += 1
            continue
        if lines[index] != _SEARCH:
            return None
        index += 1
        search: list[str] = []
        while index < len(lines) and lines[index] != _DIVIDER:
            search.append(lines[index])
            index += 1
        if index >= len(lines):
            return None
        index += 1
        replace: list[str] = []
        while index < len(lines) and lines[index] != _REPLACE:
            replace.append(lines[index])
            index += 1
        if index >= len(lines):
            return None
        index += 1
        blocks.append(("\n".join(search), "\n".join(replace)))
    return blocks or None


def render_diff(blocks: list[tuple[str, str]]) -> str:
    return (
        "\n\n".join(
            f"{_SEARCH}\n{search}\n{_DIVIDER}\n{replace}\n{_REPLACE}" for search, replace in blocks
        )
        + "\n"
    )


def _edit(path: str, diff: str) -> m.Tool | None:
    blocks = parse_diff(diff)
    if blocks is None:
        return None
    if len(blocks) == 1:
        return m.Edit(file_path=path, old_string=blocks[0][0], new_string=blocks[0][1])
    return m.MultiEdit(
        file_path=path,
        edits=tuple(m.EditSpec(old_string=old, new_string=new) for old, new in blocks),
    )


def _strings(data: dict[str, Any]) -> bool:
    return all(isinstance(v, str) for v in data.values())


def to_tool(name: str, data: Any) -> m.Tool:
    """A call as Cline stored it (native ``input``, or the parameters of an XML tag)."""
    if not isinstance(data, dict):
        return m.Raw(tool_name=name, input=data)
    keys = set(data)
    if name == "execute_command" and isinstance(data.get("command"), str):
        if (
            keys <= {"command", "requires_approval", "cwd"}
            and data.get("requires_approval", False) in _NO_APPROVAL
        ):
            cwd = data.get("cwd")
            if cwd is None or (isinstance(cwd, str) and cwd):
                return m.Bash(command=data["command"], workdir=cwd)
    elif name == "read_file" and keys == {"path"} and _strings(data):
        return m.Read(file_path=data["path"])
    elif name == "write_to_file" and keys == {"path", "content"} and _strings(data):
        return m.Write(file_path=data["path"], content=data["content"])
    elif name == "replace_in_file" and keys == {"path", "diff"} and _strings(data):
        typed = _edit(data["path"], data["diff"])
        if typed is not None:
            return typed
    elif name not in XML_TOOLS:
        return m.type_tool(name, data)
    return m.Raw(tool_name=name, input=data)


def from_tool(tool: m.Tool, flavour: Flavour) -> tuple[str, Any]:
    """The name and input a call is written under: Cline's words where the tool fits them."""
    if isinstance(tool, m.Bash):
        plain = tool.timeout_ms is None and tool.description is None and not tool.run_in_background
        if plain and (tool.workdir is None or (not flavour.approval and tool.workdir)):
            data: dict[str, Any] = {"command": tool.command}
            if tool.workdir is not None:
                data["cwd"] = tool.workdir
            if flavour.approval:
                data["requires_approval"] = False
            return "execute_command", data
    elif isinstance(tool, m.Read):
        if tool.offset is None and tool.limit is None:
            return "read_file", {"path": tool.file_path}
    elif isinstance(tool, m.Write):
        return "write_to_file", {"path": tool.file_path, "content": tool.content}
    elif (
        isinstance(tool, m.Edit) or (isinstance(tool, m.MultiEdit) and len(tool.edits) > 1)
    ) and flavour.harness == "cline":  # one block reads back as an Edit, none as no diff
        edits = (
            [(tool.old_string, tool.new_string, tool.replace_all)]
            if isinstance(tool, m.Edit)
            else [(e.old_string, e.new_string, e.replace_all) for e in tool.edits]
        )
        if not any(replace_all for _, _, replace_all in edits):
            blocks = [(old, new) for old, new, _ in edits]
            diff = render_diff(blocks)
            if parse_diff(diff) == blocks:
                return "replace_in_file", {"path": tool.file_path, "diff": diff}
    return m.render_tool(tool)
