"""Crush tool calls ↔ Common tools.

Crush's built-in tools with a Common shape: ``bash`` → Bash (``working_dir`` the workdir),
``view`` → Read, ``edit`` → Edit, ``multiedit`` → MultiEdit, ``write`` → Write. A call is typed
only when every argument has a Common field of the right type; anything else (``glob``, ``grep``,
``ls``, ``fetch``, ``agent``, ``todos``, ``lsp_*``, MCP tools, or a built-in with an argument
Common lacks) stays Raw under its Crush name with its input untouched. Line offsets are copied
as they are.

Writing, a typed tool becomes its Crush tool; a Common field the Crush tool lacks (Bash
``timeout_ms``) is written under its Common name, which this reader types back. Tools Crush has no
counterpart for keep their Common name and input.
"""

from __future__ import annotations

from typing import Any

from txcript.model import Bash, Edit, MultiEdit, Raw, Read, Tool, Write, tool_input, type_tool

#: Crush tool → (Common tool, {Crush argument: Common field}).
_NATIVE: dict[str, tuple[str, dict[str, str]]] = {
    "bash": (
        "Bash",
        {
            "command": "command",
            "description": "description",
            "working_dir": "workdir",
            "run_in_background": "run_in_background",
            "timeout_ms": "timeout_ms",
        },
    ),
    "view": ("Read", {"file_path": "file_path", "offset": "offset", "limit": "limit"}),
    "edit": (
        "Edit",
        {
            "file_path": "file_path",
            "old_string": "old_string",
            "new_string": "new_string",
            "replace_all": "replace_all",
        },
    ),
    "multiedit": ("MultiEdit", {"file_path": "file_path", "edits": "edits"}),
    "write": ("Write", {"file_path": "file_path", "content": "content"}),
}
_BY_COMMON = {
    common: (name, {v: k for k, v in fields.items()}) for name, (common, fields) in _NATIVE.items()
}


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool of one Crush call, typed only on an exact fit."""
    native = _NATIVE.get(name)
    if native is None:
        if name in _BY_COMMON:  # a Common name Crush has no tool of: kept as written
            return Raw(tool_name=name, input=args)
        return type_tool(name, args)
    common, fields = native
    if not isinstance(args, dict) or not set(args) <= set(fields):
        return Raw(tool_name=name, input=args)
    typed = type_tool(common, {fields[key]: value for key, value in args.items()})
    return Raw(tool_name=name, input=args) if isinstance(typed, Raw) else typed


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The Crush ``(name, input)`` of a Common tool."""
    if isinstance(tool, Bash | Read | Edit | MultiEdit | Write):
        name, fields = _BY_COMMON[type(tool).__name__]
        return name, {fields[key]: value for key, value in tool_input(tool).items()}
    if isinstance(tool, Raw):
        return tool.tool_name, tool.input
    return tool.command, tool_input(tool)
