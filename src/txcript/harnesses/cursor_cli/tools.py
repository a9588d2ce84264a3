"""Cursor CLI tool calls ↔ Common tools.

The agent uses Cursor's own vocabulary. Four names are typed, each only when its arguments fit
exactly (one unknown key or wrongly typed value keeps the call Raw with its arguments untouched):

* ``Shell{command, cwd?, timeout?, description?, is_background?}`` → Bash (``cwd``, or
  ``working_directory`` as the agent transcripts name it, → ``workdir``; the timeout in ms, under
  ``timeout``, ``timeout_ms`` or ``block_until_ms`` (one of them) → ``timeout_ms``);
* ``Read{path, offset?, limit?}`` (``ReadFile`` in the agent transcripts) → Read;
* ``Write{path, contents}`` → Write;
* ``StrReplace{path, old_string, new_string, replace_all?}`` → Edit.

``ApplyPatch`` (whose input may be a plain string), ``LS``, ``Glob``, ``Grep``, MCP tools and any
other Cursor name stay Raw. Names outside the Cursor vocabulary (``MultiEdit`` or ``/command``,
as txcript writes them) go through :func:`txcript.model.type_tool`.
"""

from __future__ import annotations

from typing import Any

from txcript.model import Bash, Edit, Raw, Read, Tool, Write, render_tool, type_tool
from txcript.shared.jsonutil import is_uint

CURSOR_NAMES = frozenset(("Shell", "Read", "ReadFile", "Write", "StrReplace"))
_TIMEOUT_KEYS = ("timeout", "timeout_ms", "block_until_ms")
_DIR_KEYS = ("cwd", "working_directory")
_SHELL_KEYS = frozenset(("command", "description", "is_background", *_DIR_KEYS, *_TIMEOUT_KEYS))


def _optional(args: dict[str, Any], key: str, kind: type) -> bool:
    return key not in args or isinstance(args[key], kind)


def _shell(args: dict[str, Any]) -> Tool | None:
    if not _SHELL_KEYS.issuperset(args) or not isinstance(args.get("command"), str):
        return None
    timeouts = [key for key in _TIMEOUT_KEYS if key in args]
    if len(timeouts) > 1 or not all(is_uint(args[key]) for key in timeouts):
        return None
    dirs = [key for key in _DIR_KEYS if key in args]
    if len(dirs) > 1 or not all(isinstance(args[key], str) for key in dirs):
        return None
    if not (_optional(args, "description", str) and _optional(args, "is_background", bool)):
        return None
    return Bash(
        command=args["command"],
        workdir=args[dirs[0]] if dirs else None,
        timeout_ms=args[timeouts[0]] if timeouts else None,
        description=args.get("description"),
        run_in_background=bool(args.get("is_background", False)),
    )


def _read(args: dict[str, Any]) -> Tool | None:
    if not {"path", "offset", "limit"}.issuperset(args) or not isinstance(args.get("path"), str):
        return None
    for key in ("offset", "limit"):
        if key in args and args[key] is not None and not is_uint(args[key]):
            return None
    return Read(file_path=args["path"], offset=args.get("offset"), limit=args.get("limit"))


def _write(args: dict[str, Any]) -> Tool | None:
    if set(args) != {"path", "contents"}:
        return None
    if not (isinstance(args["path"], str) and isinstance(args["contents"], str)):
        return None
    return Write(file_path=args["path"], content=args["contents"])


def _str_replace(args: dict[str, Any]) -> Tool | None:
    required = {"path", "old_string", "new_string"}
    if not required.issubset(args) or not (required | {"replace_all"}).issuperset(args):
        return None
    if not all(isinstance(args[key], str) for key in required):
        return None
    if not _optional(args, "replace_all", bool):
        return None
    return Edit(
        file_path=args["path"],
        old_string=args["old_string"],
        new_string=args["new_string"],
        replace_all=bool(args.get("replace_all", False)),
    )


_READERS = {
    "Shell": _shell,
    "Read": _read,
    "ReadFile": _read,
    "Write": _write,
    "StrReplace": _str_replace,
}


def to_tool(name: str, args: Any) -> Tool:
    """The Common tool for a Cursor ``tool-call`` (``toolName``, ``args``)."""
    reader = _READERS.get(name)
    if reader is None:
        return type_tool(name, args)
    typed = reader(args) if isinstance(args, dict) else None
    return typed if typed is not None else Raw(tool_name=name, input=args)


def from_tool(tool: Tool) -> tuple[str, Any]:
    """The Cursor ``(toolName, args)`` a Common tool is written as."""
    if isinstance(tool, Bash):
        args: dict[str, Any] = {"command": tool.command}
        if tool.workdir is not None:
            args["cwd"] = tool.workdir
        if tool.timeout_ms is not None:
            args["timeout"] = tool.timeout_ms
        if tool.description is not None:
            args["description"] = tool.description
        if tool.run_in_background:
            args["is_background"] = True
        return "Shell", args
    if isinstance(tool, Read):
        args = {"path": tool.file_path}
        if tool.offset is not None:
            args["offset"] = tool.offset
        if tool.limit is not None:
            args["limit"] = tool.limit
        return "Read", args
    if isinstance(tool, Write):
        return "Write", {"path": tool.file_path, "contents": tool.content}
    if isinstance(tool, Edit):
        args = {"path": tool.file_path, "old_string": tool.old_string}
        args["new_string"] = tool.new_string
        if tool.replace_all:
            args["replace_all"] = True
        return "StrReplace", args
    return render_tool(tool)
