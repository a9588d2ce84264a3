"""Hermes's tools ↔ Common's typed tools, and how a tool result says it failed.

Read side, each only on an exact fit: ``terminal{command, workdir?, background?, timeout? (s)}``
→ Bash, ``read_file{path, offset?, limit?}`` → Read, ``write_file{path, content}`` → Write,
``patch{mode: "replace"?, path, old_string, new_string, replace_all?}`` → Edit. Other names go
through Common's own typing (a canonical ``Bash``/``MultiEdit`` written by txcript reads back
typed), else Raw; arguments that are not JSON stay a Raw string.

**Failures.** Hermes keeps no error flag on a result: a tool that fails returns
``{"error": …}`` (its ``tool_error`` helper), a terminal command a non-zero ``exit_code``, a call
that never ran ``Error executing tool …``. The reader takes those as ``is_error``; a result of
exactly ``{"error": <text>}`` reads as that text. The writer stores a failed result the same way,
so Hermes itself (and the model) sees it failed, and it reads back as it was.
"""

from __future__ import annotations

import json
from typing import Any

from txcript import model as m
from txcript.shared.jsonutil import INVALID, dumps_compact, is_uint, try_loads

NATIVE = frozenset(("terminal", "read_file", "write_file", "patch"))
_FAILED_PREFIXES = ("Error executing tool", "[Tool execution cancelled")


def _keys(data: dict[str, Any], required: set[str], optional: set[str]) -> bool:
    return required <= set(data) <= required | optional


def _text(data: dict[str, Any], *names: str) -> bool:
    return all(isinstance(data.get(name), str) for name in names)


def to_tool(name: str, arguments: Any) -> m.Tool:
    data = try_loads(arguments) if isinstance(arguments, str) else arguments
    if data is INVALID:
        return m.Raw(tool_name=name, input=arguments)
    if not isinstance(data, dict):
        return m.Raw(tool_name=name, input=data)
    if (
        name == "terminal"
        and _keys(data, {"command"}, {"workdir", "background", "timeout"})
        and _text(data, "command")
        and isinstance(data.get("workdir", ""), str)
        and isinstance(data.get("background", False), bool)
        and (data.get("timeout") is None or is_uint(data["timeout"]))
    ):
        timeout = data.get("timeout")
        return m.Bash(
            command=data["command"],
            workdir=data.get("workdir"),
            timeout_ms=None if timeout is None else int(timeout) * 1000,
            run_in_background=data.get("background", False),
        )
    if (
        name == "read_file"
        and _keys(data, {"path"}, {"offset", "limit"})
        and _text(data, "path")
        and all(data.get(k) is None or is_uint(data[k]) for k in ("offset", "limit"))
    ):
        return m.Read(file_path=data["path"], offset=data.get("offset"), limit=data.get("limit"))
    if (
        name == "write_file"
        and _keys(data, {"path", "content"}, set())
        and _text(data, "path", "content")
    ):
        return m.Write(file_path=data["path"], content=data["content"])
    if (
        name == "patch"
        and _keys(data, {"path", "old_string", "new_string"}, {"mode", "replace_all"})
        and _text(data, "path", "old_string", "new_string")
        and data.get("mode", "replace") == "replace"
        and isinstance(data.get("replace_all", False), bool)
    ):
        return m.Edit(
            file_path=data["path"],
            old_string=data["old_string"],
            new_string=data["new_string"],
            replace_all=data.get("replace_all", False),
        )
    if name in NATIVE:
        return m.Raw(tool_name=name, input=data)
    return m.type_tool(name, data)


def from_tool(tool: m.Tool) -> tuple[str, Any]:
    """The native name and input (a Raw's string input kept as it is)."""
    if (
        isinstance(tool, m.Bash)
        and tool.description is None
        and (tool.timeout_ms is None or tool.timeout_ms % 1000 == 0)
    ):
        data: dict[str, Any] = {"command": tool.command}
        if tool.workdir is not None:
            data["workdir"] = tool.workdir
        if tool.run_in_background:
            data["background"] = True
        if tool.timeout_ms is not None:
            data["timeout"] = tool.timeout_ms // 1000
        return "terminal", data
    if isinstance(tool, m.Read):
        data = {"path": tool.file_path}
        if tool.offset is not None:
            data["offset"] = tool.offset
        if tool.limit is not None:
            data["limit"] = tool.limit
        return "read_file", data
    if isinstance(tool, m.Write):
        return "write_file", {"path": tool.file_path, "content": tool.content}
    if isinstance(tool, m.Edit):
        data = {
            "mode": "replace",
            "path": tool.file_path,
            "old_string": tool.old_string,
            "new_string": tool.new_string,
        }
        if tool.replace_all:
            data["replace_all"] = True
        return "patch", data
    return m.tool_name(tool), m.tool_input(tool)


def arguments(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def read_result(tool_name: str | None, content: Any) -> tuple[Any, bool]:
    """A result cell as Common's ``(content, is_error)``."""
    data = try_loads(content) if isinstance(content, str) else INVALID
    if isinstance(data, dict):
        error = data.get("error")
        if set(data) == {"error"} and isinstance(error, str):
            return error, True
        if error:
            return content, True
        code = data.get("exit_code")
        if tool_name == "terminal" and isinstance(code, int) and code != 0:
            return content, True
    if isinstance(content, str) and content.startswith(_FAILED_PREFIXES):
        return content, True
    return ("" if content is None else content), False


def write_result(content: Any, is_error: bool) -> str:
    """A result as Hermes stores it: text (structured output as its compact JSON text), a
    failure as ``{"error": <text>}``."""
    text = content if isinstance(content, str) else dumps_compact(content)
    return json.dumps({"error": text}) if is_error else text
