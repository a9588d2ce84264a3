"""Codex tool calls ↔ Common tools, ``apply_patch`` text ↔ edits, and tool-output envelopes.

**Reading.** Calls are ``function_call`` (JSON-string ``arguments``), ``custom_tool_call`` (raw
``input`` text) and ``local_shell_call`` (an ``exec`` action) items:

* the shell family — ``shell``/``container.exec`` (``command`` as an argv array or a string),
  ``shell_command`` (a string), ``exec_command`` (``cmd``), ``local_shell_call`` — becomes
  :class:`~txcript.model.Bash`. An argv ``[bash|sh|zsh…, -lc|-c, script]`` is the script; any
  other argv is joined with POSIX quoting. ``timeout`` becomes ``timeout_ms``; the scheduling hints
  ``yield_time_ms``, ``max_output_tokens`` and ``login`` are dropped. Anything else left over
  (``justification``, ``sandbox_permissions``, ``tty``…) keeps the call a Raw under its own name
  with its arguments untouched;
* ``apply_patch`` (freeform text, ``{"input": text}``, or a shell argv ``["apply_patch", text]``)
  becomes Edit (one update hunk), MultiEdit (several hunks of one file) or Write (an added file)
  when the patch touches exactly one file that way; otherwise a Raw;
* any other name goes through :func:`~txcript.model.type_tool` (so canonical names as txcript
  writes them are typed on an exact fit); arguments that are not JSON stay a Raw string.

**Outputs** of the shell family and ``apply_patch`` come wrapped: the JSON envelope
``{"output", "metadata": {"exit_code", "duration_seconds"}}``, the text form ``Exit code: N /
Wall time: … / Output:``, or the unified-exec form ``Chunk ID / Wall time / Process exited with
code N / … / Output:``. The result is the output text and ``is_error`` is a non-zero exit code.
Other outputs are taken as they are (a content-item array stays JSON).

**Writing** (:func:`native_call`): Bash → ``shell`` with ``["bash", "-lc", command]``; Edit,
MultiEdit and Write → a freeform ``apply_patch`` when the patch reads back to the very same tool,
else a ``function_call`` under the canonical name; Raw → a ``custom_tool_call`` when its input is
a string, else a ``function_call``; other typed tools → a ``function_call`` under their canonical
name. Outputs of calls written into the shell family are wrapped in the JSON envelope.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Any

from txcript.model import (
    Bash,
    Edit,
    EditSpec,
    MultiEdit,
    Raw,
    Tool,
    Write,
    render_tool,
    type_tool,
)
from txcript.shared.jsonutil import INVALID, try_loads

SHELL_ARGV_TOOLS = frozenset(("shell", "container.exec"))
#: Native names whose outputs carry an exit-code envelope.
EXEC_FAMILY = frozenset(
    (
        "shell",
        "container.exec",
        "shell_command",
        "exec_command",
        "write_stdin",
        "local_shell",
        "apply_patch",
    )
)
_SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh"))
_HINTS = ("yield_time_ms", "max_output_tokens", "login")
_BEGIN, _END = "*** Begin Patch", "*** End Patch"


def dumps(value: Any) -> str:
    """Compact JSON in insertion order with raw UTF-8 (the way Codex writes its lines)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# ------------------------------------------------------------------------------------ patches


@dataclass(frozen=True, slots=True)
class _FileOp:
    kind: str  # "add" | "delete" | "update"
    path: str
    content: str = ""
    hunks: tuple[tuple[str, str], ...] = ()
    moved: bool = False


def _parse_patch(text: str) -> list[_FileOp] | None:
    lines = text.strip().split("\n")
    if len(lines) < 2 or lines[0].strip() != _BEGIN or lines[-1].strip() != _END:
        return None
    ops: list[_FileOp] = []
    i, body = 0, lines[1:-1]
    while i < len(body):
        line = body[i]
        if line.startswith("*** Add File: "):
            path, added = line[len("*** Add File: ") :], []
            i += 1
            while i < len(body) and not body[i].startswith("*** "):
                if not body[i].startswith("+"):
                    return None
                added.append(body[i][1:] + "\n")
                i += 1
            ops.append(_FileOp("add", path, content="".join(added)))
        elif line.startswith("*** Delete File: "):
            ops.append(_FileOp("delete", line[len("*** Delete File: ") :]))
            i += 1
        elif line.startswith("*** Update File: "):
            path, moved = line[len("*** Update File: ") :], False
            i += 1
            if i < len(body) and body[i].startswith("*** Move to: "):
                moved, i = True, i + 1
            hunks: list[tuple[list[str], list[str], bool]] = []
            while i < len(body) and (
                not body[i].startswith("*** ") or body[i] == "*** End of File"
            ):
                row = body[i]
                i += 1
                if row == "*** End of File":
                    continue
                if row.startswith("@@"):
                    hunks.append(([], [], False))
                    continue
                if not hunks:
                    hunks.append(([], [], False))
                old, new, anchored = hunks[-1]
                mark, rest = (row[0], row[1:]) if row else (" ", "")
                if mark not in " -+":
                    return None
                if mark != "+":
                    old.append(rest)
                if mark != "-":
                    new.append(rest)
                hunks[-1] = (old, new, anchored or mark != "+")
            if not hunks or not all(anchored for _, _, anchored in hunks):
                return None
            pairs = tuple(("\n".join(old), "\n".join(new)) for old, new, _ in hunks)
            ops.append(_FileOp("update", path, hunks=pairs, moved=moved))
        else:
            return None
    return ops


def patch_tool(text: str) -> Tool | None:
    """The typed tool an ``apply_patch`` text amounts to, or None (several files, a delete…)."""
    ops = _parse_patch(text)
    if not ops or len(ops) != 1:
        return None
    op = ops[0]
    if op.kind == "add":
        return Write(file_path=op.path, content=op.content)
    if op.kind != "update" or op.moved:
        return None
    if len(op.hunks) == 1:
        old, new = op.hunks[0]
        return Edit(file_path=op.path, old_string=old, new_string=new)
    return MultiEdit(
        file_path=op.path,
        edits=tuple(EditSpec(old_string=old, new_string=new) for old, new in op.hunks),
    )


def _patch_text(tool: Edit | MultiEdit | Write) -> str:
    out = [_BEGIN]
    if isinstance(tool, Write):
        out.append(f"*** Add File: {tool.file_path}")
        body = tool.content[:-1] if tool.content.endswith("\n") else tool.content
        if tool.content:
            out.extend("+" + row for row in body.split("\n"))
    else:
        out.append(f"*** Update File: {tool.file_path}")
        edits = (
            [(tool.old_string, tool.new_string)]
            if isinstance(tool, Edit)
            else [(e.old_string, e.new_string) for e in tool.edits]
        )
        for old, new in edits:
            out.append("@@")
            out.extend("-" + row for row in old.split("\n"))
            out.extend("+" + row for row in new.split("\n"))
    out.append(_END)
    return "\n".join(out) + "\n"


def patch_for(tool: Edit | MultiEdit | Write) -> str | None:
    """The ``apply_patch`` text for an edit, or None when it would not read back identically."""
    text = _patch_text(tool)
    return text if patch_tool(text) == tool else None


# ------------------------------------------------------------------------------------ reading


def _argv_command(argv: list[Any]) -> str | None:
    if not argv or not all(isinstance(part, str) for part in argv):
        return None
    if len(argv) == 3 and posixpath.basename(argv[0]) in _SHELLS and argv[1] in ("-lc", "-c"):
        return str(argv[2])
    return shlex.join(argv)


def _bash(native_name: str, original: Any, mapped: dict[str, Any]) -> Tool:
    """Bash from renamed arguments when they fit exactly, else Raw with the original input."""
    tool = type_tool("Bash", mapped)
    return tool if isinstance(tool, Bash) else Raw(tool_name=native_name, input=original)


def _shell_tool(name: str, args: Any) -> Tool:
    if not isinstance(args, dict):
        return Raw(tool_name=name, input=args)
    mapped = {k: v for k, v in args.items() if k not in _HINTS}
    if name == "exec_command":
        if "cmd" not in mapped or "command" in mapped:
            return Raw(tool_name=name, input=args)
        mapped["command"] = mapped.pop("cmd")
    command = mapped.get("command")
    if isinstance(command, list):
        if (
            len(command) == 2
            and command[0] == "apply_patch"
            and isinstance(command[1], str)
            and (patched := patch_tool(command[1])) is not None
            and set(mapped) == {"command"}
        ):
            return patched
        joined = _argv_command(command)
        if joined is None:
            return Raw(tool_name=name, input=args)
        mapped["command"] = joined
    if "timeout" in mapped and "timeout_ms" not in mapped:
        mapped["timeout_ms"] = mapped.pop("timeout")
    return _bash(name, args, mapped)


def call_tool(name: str, arguments: Any) -> Tool:
    """The Common tool of a ``function_call`` (``arguments`` is its raw JSON string)."""
    args = try_loads(arguments) if isinstance(arguments, str) else arguments
    if args is INVALID:
        return Raw(tool_name=name, input=arguments)
    if name in SHELL_ARGV_TOOLS or name in ("shell_command", "exec_command"):
        return _shell_tool(name, args)
    if name == "apply_patch":
        if isinstance(args, dict) and set(args) == {"input"} and isinstance(args["input"], str):
            patched = patch_tool(args["input"])
            if patched is not None:
                return patched
        return Raw(tool_name=name, input=args)
    return type_tool(name, args)


def custom_tool(name: str, text: Any) -> Tool:
    """The Common tool of a ``custom_tool_call`` (freeform ``input`` text)."""
    if name == "apply_patch" and isinstance(text, str):
        patched = patch_tool(text)
        if patched is not None:
            return patched
    return Raw(tool_name=name, input=text)


def local_shell_tool(action: Any) -> Tool:
    """The Common tool of a ``local_shell_call`` item's ``action``."""
    if not isinstance(action, dict) or action.get("type") != "exec":
        return Raw(tool_name="local_shell", input=action)
    mapped: dict[str, Any] = {}
    for key, value in action.items():
        if key == "type" or (key in ("env", "user") and value is None):
            continue
        mapped["workdir" if key == "working_directory" else key] = value
    command = mapped.get("command")
    joined = _argv_command(command) if isinstance(command, list) else None
    if joined is None:
        return Raw(tool_name="local_shell", input=action)
    mapped["command"] = joined
    return _bash("local_shell", action, mapped)


_TEXT_ENVELOPE = re.compile(
    r"Exit code: (-?\d+)\nWall time: [^\n]*\n(?:Total output lines: \d+\n)?Output:\n", re.DOTALL
)
_EXITED = re.compile(r"Process exited with code (-?\d+)\Z")


_UNIFIED_HEADER = re.compile(
    r"(Chunk ID|Wall time|Process exited with code|Process running with session ID"
    r"|Original token count|Total output lines)\b"
)


_HEADER_AFTER_COMMAND = re.compile(
    r"\n(?=(?:Chunk ID|Wall time|Process exited with code|Process running with session ID"
    r"|Original token count|Total output lines)\b)"
)


def _unified_exec(text: str) -> tuple[str, bool] | None:
    """The unified-exec envelope: header rows (``Command:`` first or absent, the others in any
    order), then ``Output:`` and the output. ``(output, non-zero exit)`` or None."""
    if text.startswith("Command:"):
        # The command itself may span lines; it runs until the first known header row.
        found = _HEADER_AFTER_COMMAND.search(text)
        if found is None:
            return None
        text = text[found.end() :]
    head, sep, rest = text.partition("\nOutput:\n")
    if not sep:
        if not text.endswith("\nOutput:"):
            return None
        head, rest = text[: -len("\nOutput:")], ""
    failed = False
    for row in head.split("\n"):
        if not _UNIFIED_HEADER.match(row):
            return None
        match = _EXITED.match(row)
        if match:
            failed = int(match.group(1)) != 0
    return rest, failed


def json_envelope(output: str) -> tuple[str, bool] | None:
    """``(text, is_error)`` of an output in the JSON envelope ``{"output", "metadata":
    {"exit_code", …}}``, or None when it is not one."""
    value = try_loads(output) if output.startswith("{") else INVALID
    if (
        isinstance(value, dict)
        and set(value) == {"output", "metadata"}
        and isinstance(value["output"], str)
        and isinstance(value["metadata"], dict)
        and type(value["metadata"].get("exit_code")) is int
    ):
        return value["output"], value["metadata"]["exit_code"] != 0
    return None


def exec_unwrap(output: str) -> tuple[str, bool] | None:
    """``(text, is_error)`` of an exec-family output in any known envelope, else None."""
    enveloped = json_envelope(output)
    if enveloped is not None:
        return enveloped
    match = _TEXT_ENVELOPE.match(output)
    if match:
        return output[match.end() :], int(match.group(1)) != 0
    return _unified_exec(output)


def exec_output(output: str) -> tuple[str, bool]:
    """Unwrap an exec-family output: ``(text, is_error)``; unknown shapes are kept whole."""
    unwrapped = exec_unwrap(output)
    return unwrapped if unwrapped is not None else (output, False)


def exec_envelope(text: str, is_error: bool) -> str:
    """The JSON envelope shell outputs are written in (exit code 1 stands for any failure)."""
    return dumps(
        {"output": text, "metadata": {"exit_code": 1 if is_error else 0, "duration_seconds": 0.0}}
    )


# ------------------------------------------------------------------------------------ writing


def native_call(tool: Tool, call_id: str) -> tuple[str, dict[str, Any]]:
    """``(native name, response item)`` for a Common tool call (see the module doc)."""
    if isinstance(tool, Bash):
        args: dict[str, Any] = {"command": ["bash", "-lc", tool.command]}
        for key in ("workdir", "timeout_ms", "description"):
            if getattr(tool, key) is not None:
                args[key] = getattr(tool, key)
        if tool.run_in_background:
            args["run_in_background"] = True
        return "shell", _function_call("shell", args, call_id)
    if isinstance(tool, Edit | MultiEdit | Write):
        patch = patch_for(tool)
        if patch is not None:
            item = {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            }
            return "apply_patch", item
    if isinstance(tool, Raw) and isinstance(tool.input, str):
        item = {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": tool.tool_name,
            "input": tool.input,
        }
        return tool.tool_name, item
    name, tool_input = render_tool(tool)
    return name, _function_call(name, tool_input, call_id)


def _function_call(name: str, args: Any, call_id: str) -> dict[str, Any]:
    return {"type": "function_call", "name": name, "arguments": dumps(args), "call_id": call_id}
