"""Qwen Code tool calls ↔ Common tools.

Qwen Code 0.24's built-in tools that have a Common shape: ``run_shell_command {command,
description?, directory?, is_background?, timeout? (ms)}`` → Bash, ``read_file {file_path,
offset?, limit?}`` → Read, ``write_file {file_path, content}`` → Write, ``edit {file_path,
old_string, new_string, replace_all?}`` → Edit. A call is typed only when every argument it
carries has a Common field and the values have the Common types; anything else stays Raw under
its Qwen name with its arguments untouched.

Writing, a typed tool becomes its Qwen tool; MultiEdit, Command and Raw keep their Common name
and input (a name Qwen does not know is still replayed to the model as a call and its result),
and the reader types Common names back with :func:`txcript.model.type_tool`.
"""

from __future__ import annotations

from typing import Any

from txcript.model import Bash, Edit, Raw, Read, Tool, Write, tool_input, tool_name, type_tool

#: Qwen tool name → (Common name, {Qwen argument: Common field}).
_NATIVE: dict[str, tuple[str, dict[str, str]]] = {
    "run_shell_command": (
        "Bash",
        {
            "command": "command",
            "description": "description",
            "directory": "workdir",
            "is_background": "run_in_background",
            "timeout": "timeout_ms",
        },
    ),
    "read_file": ("Read", {"file_path": "file_path", "offset": "offset", "limit": "limit"}),
    "write_file": ("Write", {"file_path": "file_path", "content": "content"}),
    "edit": (
        "Edit",
        {
            "file_path": "file_path",
            "old_string": "old_string",
            "new_string": "new_string",
            "replace_all": "replace_all",
        },
    ),
}


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool for one Qwen call (``name``, ``args``), typed only on an exact fit."""
    mapping = _NATIVE.get(name)
    if mapping is None:
        return type_tool(name, args)
    common_name, keys = mapping
    if not isinstance(args, dict):
        return Raw(tool_name=name, input=args)
    common: dict[str, Any] = {}
    for key, value in args.items():
        field = keys.get(key)
        if field is None or field in common:
            return Raw(tool_name=name, input=args)
        common[field] = value
    tool = type_tool(common_name, common)
    return Raw(tool_name=name, input=args) if isinstance(tool, Raw) else tool


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The Qwen ``(name, args)`` a Common tool is written as."""
    if isinstance(tool, Bash):
        args: dict[str, Any] = {"command": tool.command}
        if tool.description is not None:
            args["description"] = tool.description
        if tool.workdir is not None:
            args["directory"] = tool.workdir
        if tool.run_in_background:
            args["is_background"] = True
        if tool.timeout_ms is not None:
            args["timeout"] = tool.timeout_ms
        return "run_shell_command", args
    if isinstance(tool, Read):
        args = {"file_path": tool.file_path}
        if tool.offset is not None:
            args["offset"] = tool.offset
        if tool.limit is not None:
            args["limit"] = tool.limit
        return "read_file", args
    if isinstance(tool, Write):
        return "write_file", {"file_path": tool.file_path, "content": tool.content}
    if isinstance(tool, Edit):
        args = {
            "file_path": tool.file_path,
            "old_string": tool.old_string,
            "new_string": tool.new_string,
        }
        if tool.replace_all:
            args["replace_all"] = True
        return "edit", args
    return tool_name(tool), tool_input(tool)
