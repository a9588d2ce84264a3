"""Grok's tools (the Cursor lineage's names) ↔ Common's typed tools.

Read side: ``Shell{command, cwd?, block_until_ms?}`` → Bash, ``Read{path, offset?, limit?}`` and
the older ``read_file{target_file}`` → Read, ``Write{path, contents}`` → Write,
``StrReplace{path, old_string, new_string, replace_all?}`` → Edit; each only on an exact fit.
Any other name goes through Common's own typing (so a canonical ``Bash``/``MultiEdit`` written by
txcript reads back typed) and is otherwise Raw with its input untouched. Arguments that are not
JSON stay a Raw string.

Write side: the inverse where the typed tool fits Grok's shape; otherwise the canonical name and
input, which read back the same.
"""

from __future__ import annotations

from typing import Any

from txcript import model as m
from txcript.shared.jsonutil import INVALID, dumps_compact, is_uint, try_loads

#: The ACP ``kind`` the display log files each native tool under.
KINDS = {"Shell": "execute", "Read": "read", "Write": "edit", "StrReplace": "edit"}
NATIVE = frozenset((*KINDS, "read_file"))


def _strings(data: dict[str, Any], *names: str) -> bool:
    return all(isinstance(data.get(n), str) for n in names)


def _keys(
    data: dict[str, Any], required: set[str], optional: frozenset[str] | set[str] = frozenset()
) -> bool:
    return required <= set(data) <= required | optional


def _uint(value: Any) -> int | bool | None:
    """A whole non-negative number (ints, and floats with no fraction) or None; False if not."""
    if value is None:
        return None
    if is_uint(value):
        return int(value)
    if isinstance(value, float) and value >= 0 and value.is_integer():
        return int(value)
    return False


def to_tool(name: str, arguments: Any) -> m.Tool:
    data = try_loads(arguments) if isinstance(arguments, str) else arguments
    if data is INVALID:
        return m.Raw(tool_name=name, input=arguments)
    if not isinstance(data, dict):
        return m.Raw(tool_name=name, input=data)
    if name == "Shell" and _keys(data, {"command"}, {"cwd", "block_until_ms"}):
        timeout = _uint(data.get("block_until_ms"))
        cwd = data.get("cwd")
        if (
            _strings(data, "command")
            and timeout is not False
            and (cwd is None or isinstance(cwd, str))
        ):
            whole = timeout if type(timeout) is int else None
            return m.Bash(command=data["command"], workdir=cwd, timeout_ms=whole)
    elif name == "Read" and _keys(data, {"path"}, {"offset", "limit"}) and _strings(data, "path"):
        offset, limit = data.get("offset"), data.get("limit")
        if all(v is None or is_uint(v) for v in (offset, limit)):
            return m.Read(file_path=data["path"], offset=offset, limit=limit)
    elif name == "read_file" and _keys(data, {"target_file"}) and _strings(data, "target_file"):
        return m.Read(file_path=data["target_file"])
    elif (
        name == "Write" and _keys(data, {"path", "contents"}) and _strings(data, "path", "contents")
    ):
        return m.Write(file_path=data["path"], content=data["contents"])
    elif (
        name == "StrReplace"
        and _keys(data, {"path", "old_string", "new_string"}, {"replace_all"})
        and _strings(data, "path", "old_string", "new_string")
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
    """The native name and input (a JSON value, or a Raw's string kept as it is)."""
    if isinstance(tool, m.Bash) and tool.description is None and not tool.run_in_background:
        data: dict[str, Any] = {"command": tool.command}
        if tool.workdir is not None:
            data["cwd"] = tool.workdir
        if tool.timeout_ms is not None:
            data["block_until_ms"] = tool.timeout_ms
        return "Shell", data
    if isinstance(tool, m.Read):
        data = {"path": tool.file_path}
        if tool.offset is not None:
            data["offset"] = tool.offset
        if tool.limit is not None:
            data["limit"] = tool.limit
        return "Read", data
    if isinstance(tool, m.Write):
        return "Write", {"path": tool.file_path, "contents": tool.content}
    if isinstance(tool, m.Edit):
        data = {
            "path": tool.file_path,
            "old_string": tool.old_string,
            "new_string": tool.new_string,
        }
        if tool.replace_all:
            data["replace_all"] = True
        return "StrReplace", data
    return m.tool_name(tool), m.tool_input(tool)


def arguments(value: Any) -> str:
    """A call's ``arguments`` string: the input as JSON, a Raw string as it is."""
    return value if isinstance(value, str) else dumps_compact(value)
