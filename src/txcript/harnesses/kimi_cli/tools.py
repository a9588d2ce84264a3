"""Kimi CLI tool calls ↔ Common tools.

Kimi CLI 1.52's built-in tools with a Common shape: ``Shell {command, timeout? (seconds),
run_in_background?, description?}`` → Bash, ``ReadFile {path, line_offset?, n_lines?}`` → Read
(both count lines from 1), ``WriteFile {path, content, mode?: "overwrite"}`` → Write, and
``StrReplaceFile {path, edit: {old, new, replace_all?}}`` → Edit (a list of edits → MultiEdit).
A call is typed only when every argument has a Common field of the right type; anything else
(``WriteFile`` appending, a timeout Common cannot say in whole seconds…) stays Raw under its Kimi
name, arguments untouched.

Writing, a typed tool becomes its Kimi tool when Kimi can say it exactly; otherwise (a Bash
timeout that is not whole seconds, MultiEdit with nothing to edit, Raw, Command) the call keeps
its Common name and input, which the reader types back.
"""

from __future__ import annotations

from typing import Any

from txcript.model import (
    Bash,
    Edit,
    EditSpec,
    MultiEdit,
    Raw,
    Read,
    Tool,
    Write,
    tool_input,
    tool_name,
    type_tool,
)
from txcript.shared.jsonutil import is_uint


def _edit(value: Any) -> EditSpec | None:
    if not isinstance(value, dict) or not {"old", "new"} <= set(value) <= {
        "old",
        "new",
        "replace_all",
    }:
        return None
    old, new, every = value.get("old"), value.get("new"), value.get("replace_all", False)
    if not isinstance(old, str) or not isinstance(new, str) or not isinstance(every, bool):
        return None
    return EditSpec(old_string=old, new_string=new, replace_all=every)


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool for one Kimi CLI call, typed only on an exact fit."""
    raw = Raw(tool_name=name, input=args)
    if not isinstance(args, dict):
        return (
            raw
            if name in ("Shell", "ReadFile", "WriteFile", "StrReplaceFile")
            else type_tool(name, args)
        )
    if name == "Shell":
        if not set(args) <= {"command", "timeout", "run_in_background", "description"}:
            return raw
        common: dict[str, Any] = {}
        for key, value in args.items():
            if key == "timeout":
                if not is_uint(value):
                    return raw
                common["timeout_ms"] = value * 1000
            else:
                common[key] = value
        tool = type_tool("Bash", common)
    elif name == "ReadFile":
        keys = {"path": "file_path", "line_offset": "offset", "n_lines": "limit"}
        if not set(args) <= set(keys):
            return raw
        tool = type_tool("Read", {keys[k]: v for k, v in args.items()})
    elif name == "WriteFile":
        if args.get("mode", "overwrite") != "overwrite" or not set(args) <= {
            "path",
            "content",
            "mode",
        }:
            return raw
        tool = type_tool("Write", {"file_path": args.get("path"), "content": args.get("content")})
        if not isinstance(tool, Raw) and "mode" in args:
            return raw  # typed, the explicit mode would be lost
    elif name == "StrReplaceFile":
        if set(args) != {"path", "edit"} or not isinstance(args["path"], str):
            return raw
        edit = args["edit"]
        if isinstance(edit, list):
            edits = [_edit(e) for e in edit]
            if not edits or any(e is None for e in edits):
                return raw
            return MultiEdit(file_path=args["path"], edits=tuple(e for e in edits if e is not None))
        one = _edit(edit)
        if one is None:
            return raw
        return Edit(
            file_path=args["path"],
            old_string=one.old_string,
            new_string=one.new_string,
            replace_all=one.replace_all,
        )
    else:
        return type_tool(name, args)
    return raw if isinstance(tool, Raw) else tool


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The Kimi CLI ``(name, arguments)`` a Common tool is written as."""
    if (
        isinstance(tool, Bash)
        and tool.workdir is None
        and (tool.timeout_ms is None or tool.timeout_ms % 1000 == 0)
    ):
        args: dict[str, Any] = {"command": tool.command}
        if tool.timeout_ms is not None:
            args["timeout"] = tool.timeout_ms // 1000
        if tool.run_in_background:
            args["run_in_background"] = True
        if tool.description is not None:
            args["description"] = tool.description
        return "Shell", args
    if isinstance(tool, Read):
        args = {"path": tool.file_path}
        if tool.offset is not None:
            args["line_offset"] = tool.offset
        if tool.limit is not None:
            args["n_lines"] = tool.limit
        return "ReadFile", args
    if isinstance(tool, Write):
        return "WriteFile", {"path": tool.file_path, "content": tool.content}
    if isinstance(tool, Edit):
        edit: dict[str, Any] = {"old": tool.old_string, "new": tool.new_string}
        if tool.replace_all:
            edit["replace_all"] = True
        return "StrReplaceFile", {"path": tool.file_path, "edit": edit}
    if isinstance(tool, MultiEdit) and tool.edits:
        edits = []
        for spec in tool.edits:
            one: dict[str, Any] = {"old": spec.old_string, "new": spec.new_string}
            if spec.replace_all:
                one["replace_all"] = True
            edits.append(one)
        return "StrReplaceFile", {"path": tool.file_path, "edit": edits}
    return tool_name(tool), tool_input(tool)
