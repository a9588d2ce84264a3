"""Amp thread → Common (read only: Amp takes no copies, see ``docs/formats/amp.md``).

Messages map one to one (Anthropic-style blocks in camelCase). What the codec never reads as
conversation: ``usageLedger``, ``~debug`` (see :mod:`.native`) and ``role: "info"`` messages (the
AGENTS.md context newer threads carry). A tool result whose run is still going (``in-progress``,
``queued``, …) is a call in flight: the call keeps no result. Anything else unknown — a role or a
block type — is skipped and counted in one warning.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from txcript import model as m
from txcript.diagnostics import warn
from txcript.shared.fileuri import path_from_file_uri
from txcript.shared.jsonutil import is_uint
from txcript.shared.timeutil import EPOCH, from_epoch_ms, parse_rfc3339

from .native import AmpThread

#: Roles that hold context for the model, not conversation.
_CONTEXT_ROLES = frozenset(("info", "system"))
#: Run statuses of a finished call; any other status is a call still in flight.
_DONE = "done"
_FAILED = frozenset(("error", "cancelled", "rejected-by-user", "rejected"))
_STOPS = frozenset(m.STOP_REASONS) - {"aborted", "error"}


def _millis(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return from_epoch_ms(int(value))
    except (OverflowError, ValueError):
        return None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tree(document: dict[str, Any]) -> dict[str, Any]:
    trees = _obj(_obj(document.get("env")).get("initial")).get("trees")
    return _obj(trees[0]) if isinstance(trees, list) and trees else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def meta_of(native: AmpThread) -> m.Meta:
    """The thread's Meta, read from its header (the messages are not built)."""
    document = native.document
    tree = _tree(document)
    uri = _str(tree.get("uri"))
    ref = _str(_obj(tree.get("repository")).get("ref"))
    platform = _obj(_obj(_obj(document.get("env")).get("initial")).get("platform"))
    messages = document.get("messages")
    messages = messages if isinstance(messages, list) else []
    started = _millis(document.get("created"))
    if started is None:
        started = next(
            (
                t
                for msg in messages
                if (t := _millis(_obj(_obj(msg).get("meta")).get("sentAt"))) is not None
            ),
            EPOCH,
        )
    model = None
    for message in messages:
        message = _obj(message)
        if message.get("role") == "assistant":
            model = _str(_obj(message.get("usage")).get("model"))
            if model is not None:
                break
    title = _str(document.get("title"))
    if title is None:
        first_user = next((_obj(x) for x in messages if _obj(x).get("role") == "user"), {})
        title = m.prompt_title(_texts(first_user.get("content")))
    return m.Meta(
        id=native.id,
        timestamp=started,
        cwd=None if uri is None else path_from_file_uri(uri),
        git_branch=None if ref is None else ref.removeprefix("refs/heads/"),
        title=title,
        cli_version=_str(platform.get("clientVersion")),
        model=model,
    )


def _texts(content: Any) -> list[m.Block]:
    if isinstance(content, str):
        return [m.Text(content)]
    if not isinstance(content, list):
        return []
    return [m.Text(b["text"]) for b in content if _obj(b).get("type") == "text" and _str(b["text"])]


# ---------------------------------------------------------------------------------- tools


def _fits(data: dict[str, Any], required: set[str], optional: set[str]) -> bool:
    keys = set(data)
    return required <= keys <= required | optional


def _tool(name: str, data: Any) -> m.Tool:
    """Amp's tool names across its eras, typed where the input fits exactly; else Raw."""
    if not isinstance(data, dict):
        return m.Raw(tool_name=name, input=data)
    strings = all(isinstance(v, str) for k, v in data.items() if k != "read_range")
    if name == "Bash" and strings and _fits(data, {"cmd"}, {"cwd"}):
        return m.Bash(command=data["cmd"], workdir=data.get("cwd"))
    if name == "shell_command" and strings and _fits(data, {"command"}, {"workdir"}):
        return m.Bash(command=data["command"], workdir=data.get("workdir"))
    if name == "Read" and strings and _fits(data, {"path"}, {"read_range"}):
        span = data.get("read_range")
        if span is None:
            return m.Read(file_path=data["path"])
        if (
            isinstance(span, list)
            and len(span) == 2
            and all(is_uint(x) for x in span)
            and 1 <= span[0] <= span[1]
        ):
            return m.Read(file_path=data["path"], offset=span[0], limit=span[1] - span[0] + 1)
        return m.Raw(tool_name=name, input=data)
    if name == "create_file" and strings and _fits(data, {"path", "content"}, set()):
        return m.Write(file_path=data["path"], content=data["content"])
    if name == "edit_file" and strings and _fits(data, {"path", "old_str", "new_str"}, set()):
        return m.Edit(
            file_path=data["path"], old_string=data["old_str"], new_string=data["new_str"]
        )
    return m.type_tool(name, data)


def _result(block: dict[str, Any]) -> m.ToolResult | None:
    """A finished call's result; None for a call still in flight."""
    call_id = block.get("toolUseID")
    if not isinstance(call_id, str):
        return None
    run = _obj(block.get("run"))
    status = run.get("status")
    if status != _DONE and status not in _FAILED:
        return None
    if "result" in run:
        content = run["result"]
    elif "error" in run:
        content = run["error"]
    else:
        content = f"[{status}]"
    if content is None:
        content = ""
    return m.ToolResult(tool_use_id=call_id, content=content, is_error=status != _DONE)


# ------------------------------------------------------------------------------- messages


def _stop(state: dict[str, Any]) -> m.StopReason | None:
    kind = state.get("type")
    if kind == "cancelled":
        return "aborted"
    if kind == "error":
        return "error"
    if kind != "complete":
        return None  # streaming: the turn has not ended
    reason = state.get("stopReason")
    if not isinstance(reason, str) or not reason:
        return None
    return reason if reason in _STOPS else m.OtherStop(other=reason)  # type: ignore[return-value]


def _usage(usage: dict[str, Any]) -> m.Usage | None:
    given, produced = _count(usage.get("inputTokens")), _count(usage.get("outputTokens"))
    if given is None or produced is None:
        return None
    return m.Usage(
        input_tokens=given,
        output_tokens=produced,
        cache_read_input_tokens=_count(usage.get("cacheReadInputTokens")),
        cache_creation_input_tokens=_count(usage.get("cacheCreationInputTokens")),
    )


def _count(value: Any) -> int | None:
    return int(value) if is_uint(value) else None


def _image(block: dict[str, Any]) -> m.Image | None:
    source = _obj(block.get("source"))
    data, media = source.get("data"), source.get("mediaType") or source.get("media_type")
    if not isinstance(data, str) or not isinstance(media, str):
        return None
    return m.Image(
        m.ImageSource(type=str(source.get("type") or "base64"), media_type=media, data=data)
    )


def _blocks(content: Any, skipped: Counter[str]) -> list[m.Block]:
    if isinstance(content, str):
        return [m.Text(content)] if content else []
    out: list[m.Block] = []
    for raw in content if isinstance(content, list) else ():
        block = _obj(raw)
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if block["text"]:
                out.append(m.Text(block["text"]))
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            out.append(m.Thinking(block["thinking"], signature=_str(block.get("signature"))))
        elif kind == "redacted_thinking" and isinstance(block.get("data"), str):
            out.append(m.Thinking("", encrypted=block["data"]))
        elif kind == "tool_use" and isinstance(block.get("id"), str):
            name = block.get("name")
            out.append(
                m.ToolUse(id=block["id"], tool=_tool(str(name or ""), block.get("input", {})))
            )
        elif kind == "tool_result":
            result = _result(block)
            if result is not None:
                out.append(result)
        elif kind == "image" and (image := _image(block)) is not None:
            out.append(image)
        else:
            skipped[f"block {kind!r}" if isinstance(kind, str) else "malformed block"] += 1
    return out


def to_common(native: AmpThread) -> m.Transcript:
    meta = meta_of(native)
    raw_messages = native.document.get("messages")
    skipped: Counter[str] = Counter()
    messages: list[m.Message] = []
    moment = meta.timestamp
    for raw in raw_messages if isinstance(raw_messages, list) else ():
        message = _obj(raw)
        role = message.get("role")
        if role in _CONTEXT_ROLES:
            continue
        if role not in ("user", "assistant"):
            skipped[f"role {role!r}" if isinstance(role, str) else "malformed message"] += 1
            continue
        usage = _obj(message.get("usage"))
        if role == "user":
            stamp = _millis(_obj(message.get("meta")).get("sentAt"))
        else:
            stamp = parse_rfc3339(usage.get("timestamp")) or _millis(usage.get("timestamp"))
        moment = stamp or moment
        blocks = _blocks(message.get("content"), skipped)
        if not blocks:
            continue
        assistant = role == "assistant"
        messages.append(
            m.Message(
                role=role,
                content=tuple(blocks),
                timestamp=moment,
                model=_str(usage.get("model")) if assistant else None,
                stop_reason=_stop(_obj(message.get("state"))) if assistant else None,
                usage=_usage(usage) if assistant else None,
            )
        )
    if skipped:
        what = ", ".join(f"{count} {name}" for name, count in sorted(skipped.items()))
        warn(f"Amp thread {meta.id}: skipped what is not conversation txcript knows ({what})")
    return m.Transcript(meta=meta, messages=tuple(messages))
