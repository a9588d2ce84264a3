"""Goose tool calls ↔ Common tools.

Goose names tools after their extension (``developer__shell``, ``developer__text_editor``). Two
have a Common shape: ``developer__shell`` with only ``command`` → Bash, and
``developer__text_editor`` by its ``command``: ``view`` → Read, ``write`` → Write,
``str_replace`` → Edit. Anything else, or one of these with an argument Common lacks, stays Raw
under its Goose name with its arguments untouched. Writing, a typed tool becomes its Goose tool,
a Common field Goose's tool lacks written under its Common name (typed back by this reader);
MultiEdit and any other tool keep their Common name and input.
"""

from __future__ import annotations

from typing import Any

from txcript.model import Bash, Edit, Raw, Read, Tool, Write, tool_input, tool_name, type_tool

SHELL = "developer__shell"
EDITOR = "developer__text_editor"
#: text editor command → (Common tool, {Goose argument: Common field}).
_EDITOR: dict[str, tuple[str, dict[str, str]]] = {
    "view": ("Read", {"path": "file_path", "offset": "offset", "limit": "limit"}),
    "write": ("Write", {"path": "file_path", "file_text": "content"}),
    "str_replace": (
        "Edit",
        {
            "path": "file_path",
            "old_str": "old_string",
            "new_str": "new_string",
            "replace_all": "replace_all",
        },
    ),
}
_SHELL_FIELDS = {
    "command": "command",
    "workdir": "workdir",
    "timeout_ms": "timeout_ms",
    "description": "description",
    "run_in_background": "run_in_background",
}


def to_tool(name: str, args: Any) -> Tool:
    if name == SHELL and isinstance(args, dict) and set(args) <= set(_SHELL_FIELDS):
        typed = type_tool("Bash", args)
        return typed if isinstance(typed, Bash) else Raw(tool_name=name, input=args)
    if name == EDITOR and isinstance(args, dict) and args.get("command") in _EDITOR:
        common, fields = _EDITOR[args["command"]]
        rest = {k: v for k, v in args.items() if k != "command"}
        if set(rest) <= set(fields):
            typed = type_tool(common, {fields[k]: v for k, v in rest.items()})
            if not isinstance(typed, Raw):
                return typed
        return Raw(tool_name=name, input=args)
    if name in ("Bash", "Read", "Write", "Edit"):  # Common names Goose has no tool of
        return Raw(tool_name=name, input=args)
    return type_tool(name, args)


def from_tool(tool: Tool) -> tuple[str, Any]:
    if isinstance(tool, Bash):
        return SHELL, tool_input(tool)
    for command, (common, fields) in _EDITOR.items():
        if type(tool).__name__ == common and isinstance(tool, Read | Write | Edit):
            back = {v: k for k, v in fields.items()}
            return EDITOR, {"command": command, **{back[k]: v for k, v in tool_input(tool).items()}}
    return tool_name(tool), tool_input(tool)
