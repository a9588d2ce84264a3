"""Factory droid tool calls ↔ Common tools.

Droid's own tools that have a Common shape: ``Execute`` → Bash (``timeout`` in whole seconds,
``summary`` the description) and ``Create`` → Write. ``Read``, ``Edit`` and ``MultiEdit`` share
Common's names and are typed by :func:`txcript.model.type_tool`. A call is typed only when every
argument it carries has a Common field with the right type (an ``Execute`` with its
``riskLevel`` stays Raw, untouched); ``LS``, ``Grep``, ``Glob``, ``TodoWrite``, ``Task`` and
anything else stay Raw under their own name.

Writing, Bash becomes ``Execute`` and Write ``Create``; a Bash field droid's tool lacks
(``workdir``, ``run_in_background``) is written under its Common name, which the model sees in
the replayed history and this reader types back.
"""

from __future__ import annotations

from typing import Any

from txcript.model import Bash, Raw, Tool, Write, tool_input, tool_name, type_tool

_EXECUTE_FIELDS = {
    "command": "command",
    "timeout": "timeout_ms",
    "timeout_ms": "timeout_ms",
    "summary": "description",
    "workdir": "workdir",
    "run_in_background": "run_in_background",
}


def _seconds_to_ms(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    millis = value * 1000
    return int(millis) if float(millis).is_integer() else None


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool for one droid call, typed only on an exact fit."""
    if name == "Execute" and isinstance(args, dict) and set(args) <= set(_EXECUTE_FIELDS):
        renamed = {_EXECUTE_FIELDS[key]: value for key, value in args.items()}
        if "timeout" in args:
            millis = _seconds_to_ms(args["timeout"])
            if millis is None or "timeout_ms" in args:
                return Raw(tool_name=name, input=args)
            renamed["timeout_ms"] = millis
        typed = type_tool("Bash", renamed)
        return typed if isinstance(typed, Bash) else Raw(tool_name=name, input=args)
    if name == "Create":
        typed = type_tool("Write", args)
        return typed if isinstance(typed, Write) else Raw(tool_name=name, input=args)
    if name in ("Bash", "Write"):  # Common names droid has no tool of: kept as written
        return Raw(tool_name=name, input=args)
    return type_tool(name, args)


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The droid ``(name, input)`` of a Common tool."""
    if isinstance(tool, Bash):
        args: dict[str, Any] = {"command": tool.command}
        if tool.timeout_ms is not None:
            # droid's timeout is in whole seconds; any other length keeps Common's milliseconds
            if tool.timeout_ms % 1000 == 0:
                args["timeout"] = tool.timeout_ms // 1000
            else:
                args["timeout_ms"] = tool.timeout_ms
        if tool.description is not None:
            args["summary"] = tool.description
        if tool.workdir is not None:
            args["workdir"] = tool.workdir
        if tool.run_in_background:
            args["run_in_background"] = True
        return "Execute", args
    if isinstance(tool, Write):
        return "Create", {"file_path": tool.file_path, "content": tool.content}
    return tool_name(tool), tool_input(tool)
