"""pi tool calls ↔ Common tools.

pi's built-in tools with a Common shape: ``read{path, offset?, limit?}`` → Read (both count lines
from 1), ``bash{command, timeout?}`` → Bash (pi's timeout is in seconds, Common's in
milliseconds), ``write{path, content}`` → Write, and ``edit`` → Edit for one replacement or
MultiEdit for several (``edit{path, edits: [{oldText, newText}]}``; older builds wrote one pair,
``edit{path, oldText, newText}``). A call is typed only when every argument has a Common field
and the right type; anything else stays Raw under its pi name, arguments untouched. ``grep``,
``find`` and ``ls`` have no Common shape and stay Raw.

Writing, a typed tool becomes its pi tool. Common fields pi's tool lacks (Bash ``workdir``,
``description``, ``run_in_background``; an edit's ``replace_all``) are written as extra arguments
under their Common names, which the model sees in the replayed history and this reader types
back. Other tools keep their Common name and input (typed back by
:func:`txcript.model.type_tool`).
"""

from __future__ import annotations

import math
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

_BASH_EXTRAS = ("workdir", "description", "run_in_background")


def _milliseconds(seconds: Any) -> int | None:
    """pi's timeout (seconds, any JSON number) as whole milliseconds, or None when it is not a
    non-negative number of whole milliseconds."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    if isinstance(seconds, int):
        return seconds * 1000
    scaled = seconds * 1000
    whole = round(scaled)
    return whole if abs(scaled - whole) < 1e-6 and whole < 2**63 else None


def _seconds(milliseconds: int) -> int | float:
    return milliseconds // 1000 if milliseconds % 1000 == 0 else milliseconds / 1000


def _edit_spec(item: Any) -> dict[str, Any] | None:
    """One pi replacement as Common edit fields, or None when it does not fit."""
    if not isinstance(item, dict) or not {"oldText", "newText"} <= set(item):
        return None
    if not set(item) <= {"oldText", "newText", "replace_all"}:
        return None
    spec = {"old_string": item["oldText"], "new_string": item["newText"]}
    if "replace_all" in item:
        spec["replace_all"] = item["replace_all"]
    return spec


def _typed(name: str, args: dict[str, Any]) -> Tool | None:
    if name == "read":
        if "path" not in args or not set(args) <= {"path", "offset", "limit"}:
            return None
        fields = {"file_path": args["path"]}
        fields.update({k: args[k] for k in ("offset", "limit") if k in args})
        return type_tool("Read", fields)
    if name == "write":
        if set(args) != {"path", "content"}:
            return None
        return type_tool("Write", {"file_path": args["path"], "content": args["content"]})
    if name == "bash":
        if "command" not in args or not set(args) <= {"command", "timeout", *_BASH_EXTRAS}:
            return None
        fields = {k: v for k, v in args.items() if k != "timeout"}
        if "timeout" in args:
            milliseconds = _milliseconds(args["timeout"])
            if milliseconds is None:
                return None
            fields["timeout_ms"] = milliseconds
        return type_tool("Bash", fields)
    if name == "edit":
        if "path" not in args:
            return None
        if "edits" in args:
            if set(args) != {"path", "edits"} or not isinstance(args["edits"], list):
                return None
            specs = [_edit_spec(item) for item in args["edits"]]
            if any(spec is None for spec in specs):
                return None
            if len(specs) == 1:
                return type_tool("Edit", {"file_path": args["path"], **(specs[0] or {})})
            return type_tool("MultiEdit", {"file_path": args["path"], "edits": specs})
        rest = {k: v for k, v in args.items() if k != "path"}
        spec = _edit_spec(rest)
        if spec is None:
            return None
        return type_tool("Edit", {"file_path": args["path"], **spec})
    return None


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool for one pi call (``name``, ``arguments``), typed only on an exact fit."""
    if name in ("read", "write", "bash", "edit"):
        if isinstance(args, dict):
            tool = _typed(name, args)
            if tool is not None and not isinstance(tool, Raw):
                return tool
        return Raw(tool_name=name, input=args)
    return type_tool(name, args)


def _pi_edit(spec: Edit | EditSpec) -> dict[str, Any]:
    edit: dict[str, Any] = {"oldText": spec.old_string, "newText": spec.new_string}
    if spec.replace_all:
        edit["replace_all"] = True
    return edit


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The pi ``(name, arguments)`` a Common tool is written as."""
    if isinstance(tool, Read):
        args: dict[str, Any] = {"path": tool.file_path}
        if tool.offset is not None:
            args["offset"] = tool.offset
        if tool.limit is not None:
            args["limit"] = tool.limit
        return "read", args
    if isinstance(tool, Bash):
        args = {"command": tool.command}
        if tool.timeout_ms is not None:
            args["timeout"] = _seconds(tool.timeout_ms)
        if tool.workdir is not None:
            args["workdir"] = tool.workdir
        if tool.description is not None:
            args["description"] = tool.description
        if tool.run_in_background:
            args["run_in_background"] = True
        return "bash", args
    if isinstance(tool, Write):
        return "write", {"path": tool.file_path, "content": tool.content}
    if isinstance(tool, Edit):
        return "edit", {"path": tool.file_path, "edits": [_pi_edit(tool)]}
    if isinstance(tool, MultiEdit):
        return "edit", {"path": tool.file_path, "edits": [_pi_edit(e) for e in tool.edits]}
    return tool_name(tool), tool_input(tool)
