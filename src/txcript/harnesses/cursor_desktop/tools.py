"""Cursor tool calls (``toolFormerData``) ↔ Common tools, and tool outcomes ↔ tool results.

Reading dispatches on the native ``name``, never on the ``tool`` number (numbers were reused across
Cursor versions: 15 was ``run_terminal_cmd`` before it was ``run_terminal_command_v2``, 38 was
``search_replace`` before ``edit_file_v2``). Arguments come from ``params`` (a JSON string, or on
≈0.50 sometimes an object); when that is missing or not JSON, from the snake-case ``rawArgs``;
else ``{}``.

* ``run_terminal_command_v2`` → Bash from ``command``, ``cwd`` (non-empty),
  ``options.timeout`` (non-negative integer), ``commandDescription`` (a string: ``description``)
  and ``isBackground`` (``true``: ``run_in_background``, which txcript writes there as the older
  ``run_terminal_cmd`` named it) only; without a string ``command``, a Raw named ``Bash`` holding
  that reduced input. ``read_file_v2`` → Read from ``targetFile``, ``offset``,
  ``limit``; without a string ``targetFile``, a Raw named ``Read``. Other params are dropped.
* Older names are typed only where their arguments fit, otherwise they stay Raw under their own
  name with their arguments untouched: ``run_terminal_cmd`` → Bash (``command``,
  ``isBackground`` → ``run_in_background``); ``read_file`` → Read (1.7 ``targetFile/offset/limit``
  or ≈0.50 ``relativeWorkspacePath/startLineOneIndexed/endLineOneIndexedInclusive``, the path
  taken as written, relative or not); ``search_replace`` → Edit when its ``rawArgs`` are exactly
  ``file_path/old_string/new_string[/replace_all]``. ``edit_file``, ``edit_file_v2``,
  ``list_dir``, ``todo_write``, ``web_search``, ``read_lints``, searches, MCP tools … carry no
  content a typed tool could hold and stay Raw.
* Any other name goes through :func:`txcript.model.type_tool`: canonical names (``Edit``,
  ``Write`` …, as txcript writes them) are typed on an exact schema fit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from txcript.harnesses.cursor_desktop.vocabulary import tool_number, vocabulary
from txcript.model import Bash, Raw, Read, Tool, render_tool, type_tool
from txcript.shared.jsonutil import INVALID, dumps_compact, is_uint, try_loads

_ABSENT: Any = object()
_UNSAFE_ID_CHAR = re.compile(r"[^A-Za-z0-9_-]")
_DIGITS = re.compile(r"[0-9]{1,18}\Z")


def sanitize_call_id(raw_id: str) -> str:
    """Fold a call id onto ``[A-Za-z0-9_-]``: each other code point becomes one ``_``."""
    return _UNSAFE_ID_CHAR.sub("_", raw_id)


# --------------------------------------------------------------------------------- reading


def is_call(tool_former: Any) -> bool:
    """Is this ``toolFormerData`` a real call? ≈0.50 puts a nameless placeholder on every bubble."""
    return (
        isinstance(tool_former, dict)
        and isinstance(tool_former.get("name"), str)
        and tool_former["name"] != ""
    )


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        parsed = try_loads(value)
        return _ABSENT if parsed is INVALID else parsed
    if isinstance(value, dict):
        return value
    return _ABSENT


def native_arguments(tool_former: dict[str, Any]) -> Any:
    """The call's arguments: parsed ``params``, else parsed ``rawArgs``, else ``{}``."""
    for key in ("params", "rawArgs"):
        value = _decoded(tool_former.get(key))
        if value is not _ABSENT:
            return value
    return {}


def read_tool(tool_former: dict[str, Any]) -> Tool:
    """The Common tool of a call (``is_call(tool_former)`` must hold)."""
    name: str = tool_former["name"]
    reader = _READERS.get(name)
    if reader is not None:
        return reader(name, tool_former)
    return type_tool(name, native_arguments(tool_former))


def _shell_v2(_name: str, tool_former: dict[str, Any]) -> Tool:
    params = native_arguments(tool_former)
    reduced: dict[str, Any] = {}
    if isinstance(params, dict):
        if "command" in params:
            reduced["command"] = params["command"]
        cwd = params.get("cwd")
        if isinstance(cwd, str) and cwd:
            reduced["workdir"] = cwd
        options = params.get("options")
        if isinstance(options, dict) and is_uint(options.get("timeout")):
            reduced["timeout_ms"] = options["timeout"]
        description = params.get("commandDescription")
        if isinstance(description, str):
            reduced["description"] = description
        if params.get("isBackground") is True:
            reduced["run_in_background"] = True
    return type_tool("Bash", reduced)


def _read_v2(_name: str, tool_former: dict[str, Any]) -> Tool:
    params = native_arguments(tool_former)
    reduced: dict[str, Any] = {}
    if isinstance(params, dict):
        if "targetFile" in params:
            reduced["file_path"] = params["targetFile"]
        for key in ("offset", "limit"):
            if is_uint(params.get(key)):
                reduced[key] = params[key]
    return type_tool("Read", reduced)


def _loose_uint(value: Any) -> int | None:
    """A non-negative integer, also spelled as a decimal string (≈0.50 ``rawArgs`` drift)."""
    if is_uint(value):
        return int(value)
    if isinstance(value, str) and _DIGITS.match(value):
        return int(value)
    return None


def _loose_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _candidates(shape: str, tool_former: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(source, arguments)`` pairs to try, camel-case ``params`` first, whose keys are known."""
    keys = vocabulary()["legacy_tool_keys"][shape]
    found = []
    for source in ("params", "rawArgs"):
        value = _decoded(tool_former.get(source))
        if isinstance(value, dict) and value and set(value) <= set(keys[source]):
            found.append((source, value))
    return found


def _legacy_shell(name: str, tool_former: dict[str, Any]) -> Tool:
    for source, args in _candidates("run_terminal_cmd", tool_former):
        command = args.get("command")
        flag_key = "isBackground" if source == "params" else "is_background"
        background = _loose_bool(args.get(flag_key, False))
        if isinstance(command, str) and background is not None:
            return Bash(command=command, run_in_background=background)
    return Raw(tool_name=name, input=native_arguments(tool_former))


def _line_range(start: Any, end: Any) -> tuple[int | None, int | None] | None:
    """``(offset, limit)`` from a 1-based inclusive line range; None when a bound is unusable."""
    first = None if start is None else _loose_uint(start)
    last = None if end is None else _loose_uint(end)
    if (start is not None and first is None) or (end is not None and last is None):
        return None
    if first is not None and last is not None:
        return (first, last - first + 1) if last >= first else None
    return first, None


def _legacy_read(name: str, tool_former: dict[str, Any]) -> Tool:
    for source, args in _candidates("read_file_targeted", tool_former):
        path = args.get("targetFile") if source == "params" else args.get("target_file")
        if source == "rawArgs" and path is None:
            path = args.get("path")
        offset, limit = args.get("offset"), args.get("limit")
        fits = all(v is None or _loose_uint(v) is not None for v in (offset, limit))
        if isinstance(path, str) and fits:
            return Read(
                file_path=path,
                offset=None if offset is None else _loose_uint(offset),
                limit=None if limit is None else _loose_uint(limit),
            )
    for source, args in _candidates("read_file_ranged", tool_former):
        if source == "params":
            path = args.get("relativeWorkspacePath")
            whole: bool | None = False
            start, end = args.get("startLineOneIndexed"), args.get("endLineOneIndexedInclusive")
        else:
            path = args.get("target_file")
            whole = _loose_bool(args.get("should_read_entire_file", False))
            start = args.get("start_line_one_indexed")
            end = args.get("end_line_one_indexed_inclusive")
        window = (None, None) if whole else _line_range(start, end)
        if isinstance(path, str) and whole is not None and window is not None:
            return Read(file_path=path, offset=window[0], limit=window[1])
    return Raw(tool_name=name, input=native_arguments(tool_former))


def _legacy_edit(name: str, tool_former: dict[str, Any]) -> Tool:
    for source in ("params", "rawArgs"):
        args = _decoded(tool_former.get(source))
        if isinstance(args, dict) and {"file_path", "old_string", "new_string"} <= set(args):
            typed = type_tool("Edit", args)
            if not isinstance(typed, Raw):
                return typed
    return Raw(tool_name=name, input=native_arguments(tool_former))


_LEGACY_READERS: dict[str, Callable[[str, dict[str, Any]], Tool]] = {
    "Bash": _legacy_shell,
    "Read": _legacy_read,
    "Edit": _legacy_edit,
}
_READERS: dict[str, Callable[[str, dict[str, Any]], Tool]] = {
    "run_terminal_command_v2": _shell_v2,
    "read_file_v2": _read_v2,
    **{
        native: _LEGACY_READERS[canonical]
        for native, canonical in vocabulary()["legacy_tools"].items()
    },
}


# ---------------------------------------------------------------------------------- outcome


def result_content(text: str) -> Any:
    """A stored result string as Common content: its JSON value unless that is null, else text."""
    parsed = try_loads(text)
    return text if parsed is INVALID or parsed is None else parsed


def _native_output(tool_former: dict[str, Any]) -> Any:
    """What the call produced: ``result``, else ``error``, else ``additionalData``, else _ABSENT."""
    result = tool_former.get("result")
    if isinstance(result, str):
        return result_content(result)
    if result is not None and "result" in tool_former:
        return result
    error = tool_former.get("error")
    if isinstance(error, str) and error:
        return result_content(error)
    extra = tool_former.get("additionalData")
    if isinstance(extra, dict) and extra:
        return extra
    return _ABSENT


def read_outcome(tool_former: dict[str, Any]) -> tuple[Any, bool] | None:
    """``(content, is_error)`` of the call's result, or None while the call is in flight.

    See the status policy in :mod:`txcript.harnesses.cursor_desktop.codec`.
    """
    status = tool_former.get("status")
    kind = vocabulary()["closing_statuses"].get(status) if isinstance(status, str) else None
    rejected = tool_former.get("userDecision") == "rejected"
    if kind is None and not rejected:
        return None
    output = _native_output(tool_former)
    if kind in ("ok", "error"):
        return ("" if output is _ABSENT else output), kind == "error" or rejected
    if output is _ABSENT or output == "":
        what = "rejected" if rejected or kind == "rejected" else "cancelled"
        output = f"The tool call was {what}; it produced no result."
    return output, True


# --------------------------------------------------------------------------------- writing


def write_call(tool: Tool) -> tuple[str, str, int | None]:
    """``(name, params JSON text, tool number or None)`` of a Common tool, as the app stores it."""
    if isinstance(tool, Bash):
        params: dict[str, Any] = {"command": tool.command, "cwd": tool.workdir or ""}
        if tool.timeout_ms is not None:
            params["options"] = {"timeout": tool.timeout_ms}
        # Every field maps or is carried: the description where the app keeps its own, and
        # background under the name the app gave it before v2 (the v2 tool has no such option).
        if tool.description is not None:
            params["commandDescription"] = tool.description
        if tool.run_in_background:
            params["isBackground"] = True
        name = vocabulary()["native_names"]["Bash"]
        return name, dumps_compact(params), tool_number(name)
    if isinstance(tool, Read):
        params = {"targetFile": tool.file_path}
        if tool.offset is not None:
            params["offset"] = tool.offset
        if tool.limit is not None:
            params["limit"] = tool.limit
        name = vocabulary()["native_names"]["Read"]
        return name, dumps_compact(params), tool_number(name)
    name, tool_input = render_tool(tool)
    return name, dumps_compact(tool_input), tool_number(name)


def write_result(content: Any) -> str:
    """A Common result as the stored string: text verbatim, JSON compact with sorted keys."""
    return content if isinstance(content, str) else dumps_compact(content)
