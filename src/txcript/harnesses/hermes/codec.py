"""Hermes session ↔ Common (OpenAI chat-completions rows).

**Reading.** Rows in order; rows rewound away (``active = 0``) and bookkeeping roles
(``session_meta``, ``system``) are not conversation. ``user`` rows give text and images
(``image_url`` data-URL parts); ``assistant`` rows give thinking (``reasoning_content``, else
``reasoning``; the opaque ``reasoning_details`` as its encrypted part), text and tool calls
(``finish_reason`` as the stop reason); consecutive ``tool`` rows give one user message of results
(see :mod:`.tools` for ``is_error``). A row of any other role is skipped and counted in one
warning. Times are the rows' ``timestamp`` (epoch seconds), read to the millisecond.

**Writing** (:func:`from_common`) gives a database session: the ``sessions`` row (source
``import``, the Meta's model, cwd, branch and title, counts) and one row per message (results
one row each). Pure: the rows carry no id of their own; the store adds them.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import Any

from txcript import model as m
from txcript.diagnostics import warn
from txcript.shared.jsonutil import dumps_compact
from txcript.shared.timeutil import EPOCH, from_epoch_ms, parse_rfc3339, to_epoch_ms

from . import tools
from .native import DB, JSON, HermesSession, decode_content, encode_content, json_cell

#: The source a copy written by txcript carries (what Hermes's own importer sets).
IMPORT_SOURCE = "import"
_BOOKKEEPING_ROLES = frozenset(("session_meta", "system"))
_STOP_IN: dict[str, m.StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    **{name: name for name in m.STOP_REASONS if name not in ("end_turn", "tool_use", "max_tokens")},  # type: ignore[misc]
}
_STOP_OUT = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}
#: The single-item ``reasoning_details`` txcript writes for opaque reasoning from elsewhere.
_OPAQUE = "reasoning.encrypted"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def seconds_time(value: Any) -> datetime | None:
    """An epoch-seconds cell (REAL) as a time, to the millisecond; None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return from_epoch_ms(round(value * 1000))
    except (OverflowError, ValueError):
        return None


def seconds(moment: datetime) -> float:
    return to_epoch_ms(moment) / 1000


def _log_start(session: dict[str, Any]) -> datetime | None:
    start = session.get("session_start")
    if not isinstance(start, str):
        return seconds_time(session.get("timestamp"))
    found = parse_rfc3339(start)
    if found is not None:
        return found
    try:  # Python's isoformat() of a naive local time, as the snapshots record it
        return datetime.fromisoformat(start).astimezone()
    except ValueError:
        return None


def kind_of(native: HermesSession) -> str | None:
    """The session's source (``cli``, ``telegram``, ``cron`` …; a log's ``platform``)."""
    return _str(native.session.get("source")) or _str(native.session.get("platform"))


def meta_of(native: HermesSession) -> m.Meta:
    session = native.session
    started = seconds_time(session.get("started_at")) if native.kind == DB else _log_start(session)
    if started is None:
        started = next(
            (t for row in native.messages if (t := seconds_time(row.get("timestamp")))), EPOCH
        )
    title = _str(session.get("title"))
    if title is None:
        first = next(
            (r for r in native.messages if r.get("role") == "user" and r.get("active", 1) != 0),
            None,
        )
        if first is not None:
            title = m.prompt_title(_user_blocks(decode_content(first.get("content"))))
    return m.Meta(
        id=native.id,
        timestamp=started,
        cwd=_str(session.get("cwd")),
        git_branch=_str(session.get("git_branch")),
        title=title,
        model=_str(session.get("model")),
    )


# ------------------------------------------------------------------------------- reading


def _image(part: dict[str, Any]) -> m.Image | None:
    url = part.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return None
    media, _, data = url[len("data:") :].partition(";base64,")
    return m.Image(m.ImageSource(type="base64", media_type=media, data=data))


def _user_blocks(content: Any) -> list[m.Block]:
    if isinstance(content, str):
        return [m.Text(content)] if content else []
    out: list[m.Block] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text" and isinstance(part.get("text"), str) and part["text"]:
            out.append(m.Text(part["text"]))
        elif part.get("type") == "image_url" and (image := _image(part)) is not None:
            out.append(image)
    return out


def _thinking(row: dict[str, Any]) -> m.Thinking | None:
    text = row.get("reasoning_content")
    if not isinstance(text, str) or not text:
        text = row.get("reasoning") if isinstance(row.get("reasoning"), str) else ""
    details = row.get("reasoning_details")
    encrypted: str | None = None
    if isinstance(details, list | dict):  # a log holds it parsed
        details = json.dumps(details)
    if isinstance(details, str) and details:
        parsed = json_cell(details)
        single = parsed[0] if isinstance(parsed, list) and len(parsed) == 1 else None
        if (
            isinstance(single, dict)
            and set(single) == {"type", "data"}
            and single["type"] == _OPAQUE
        ):
            encrypted = single["data"] if isinstance(single["data"], str) else details
        else:
            encrypted = details
    if not text and encrypted is None:
        return None
    return m.Thinking(str(text), encrypted=encrypted)


def _calls(row: dict[str, Any], skipped: Counter[str]) -> list[m.ToolUse]:
    calls = row.get("tool_calls")
    if isinstance(calls, str):
        calls = json_cell(calls)
    out = []
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            function = {}
        name = function.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            skipped["malformed tool call"] += 1
            continue
        out.append(m.ToolUse(id=call_id, tool=tools.to_tool(name, function.get("arguments", "{}"))))
    return out


def to_common(native: HermesSession) -> m.Transcript:
    meta = meta_of(native)
    skipped: Counter[str] = Counter()
    messages: list[m.Message] = []
    results: list[m.ToolResult] = []
    results_time: datetime | None = None
    moment = meta.timestamp

    def flush() -> None:
        nonlocal results, results_time
        if results:
            messages.append(
                m.Message(role="user", content=tuple(results), timestamp=results_time or moment)
            )
            results, results_time = [], None

    for row in native.messages:
        if row.get("active", 1) == 0:
            continue
        role = row.get("role")
        moment = seconds_time(row.get("timestamp")) or moment
        if role == "tool":
            call_id = row.get("tool_call_id")
            if not isinstance(call_id, str):
                skipped["tool row without a call id"] += 1
                continue
            content, failed = tools.read_result(
                _str(row.get("tool_name")), decode_content(row.get("content"))
            )
            results.append(m.ToolResult(tool_use_id=call_id, content=content, is_error=failed))
            results_time = results_time or moment
            continue
        if role in _BOOKKEEPING_ROLES:
            continue
        flush()
        if role == "user":
            blocks = _user_blocks(decode_content(row.get("content")))
            if blocks:
                messages.append(m.Message(role="user", content=tuple(blocks), timestamp=moment))
        elif role == "assistant":
            out: list[m.Block] = []
            thinking = _thinking(row)
            if thinking is not None:
                out.append(thinking)
            content = decode_content(row.get("content"))
            if isinstance(content, str) and content:
                out.append(m.Text(content))
            elif isinstance(content, list):
                out += [b for b in _user_blocks(content) if isinstance(b, m.Text)]
            out += _calls(row, skipped)
            reason = _str(row.get("finish_reason"))
            stop = None if reason is None else _STOP_IN.get(reason, m.OtherStop(other=reason))
            if out:
                messages.append(
                    m.Message(
                        role="assistant", content=tuple(out), timestamp=moment, stop_reason=stop
                    )
                )
        else:
            skipped[f"role {role!r}" if isinstance(role, str) else "row without a role"] += 1
    flush()
    if skipped:
        what = ", ".join(f"{n} {name}" for name, n in sorted(skipped.items()))
        warn(f"Hermes session {meta.id}: skipped {what}")
    return m.Transcript(meta=meta, messages=tuple(messages))


# ------------------------------------------------------------------------------- writing


def _user_content(blocks: list[m.Block]) -> Any:
    texts = [b for b in blocks if isinstance(b, m.Text)]
    if len(texts) == 1 and len(blocks) == 1:
        return texts[0].text
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, m.Text):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, m.Image):
            source = block.source
            url = f"data:{source.media_type};base64,{source.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def command_calls(transcript: m.Transcript) -> set[str]:
    """The ids of the slash commands the user ran (user-side calls Hermes has no record for)."""
    return {
        block.id
        for message in transcript.messages
        for block in message.content
        if isinstance(block, m.ToolUse) and isinstance(block.tool, m.Command)
    }


def _as_prompt(block: m.ToolUse | m.ToolResult) -> m.Text:
    """A slash command as the prompt text that ran it, its output as the user's text."""
    if isinstance(block, m.ToolUse):
        tool = block.tool
        assert isinstance(tool, m.Command)
        return m.Text(tool.command if tool.args is None else f"{tool.command} {tool.args}")
    content = block.content
    return m.Text(content if isinstance(content, str) else dumps_compact(content))


def assistant_groups(blocks: tuple[m.Block, ...]) -> list[list[m.Block]]:
    """An assistant message as the rows it takes, each ``[thinking?, text?, calls…]``. A row
    shows its reasoning and text before its calls, so a text or thinking after a call stays in
    the call's row (it reads back before the calls); a second text or thinking, or thinking after
    a text, starts a new row, so nothing is joined."""
    groups: list[list[m.Block]] = []
    for block in blocks:
        kinds = {type(b) for b in groups[-1]} if groups else set()
        fresh = (
            not groups
            or (isinstance(block, m.Text) and m.Text in kinds)
            or (
                isinstance(block, m.Thinking)
                and (m.Thinking in kinds or (m.Text in kinds and m.ToolUse not in kinds))
            )
        )
        if fresh:
            groups.append([block])
        else:
            groups[-1].append(block)
    return groups


def _assistant_row(blocks: list[m.Block], when: float, stop: m.StopReason | None) -> dict[str, Any]:
    texts = [b.text for b in blocks if isinstance(b, m.Text)]
    thoughts = [b for b in blocks if isinstance(b, m.Thinking)]
    calls = []
    for block in blocks:
        if isinstance(block, m.ToolUse):
            name, data = tools.from_tool(block.tool)
            calls.append(
                {
                    "id": block.id,
                    "type": "function",
                    "function": {"name": name, "arguments": tools.arguments(data)},
                }
            )
    row: dict[str, Any] = {"role": "assistant", "content": "".join(texts), "timestamp": when}
    if calls:
        row["tool_calls"] = json.dumps(calls)
    if stop is not None:
        name = stop.other if isinstance(stop, m.OtherStop) else stop
        row["finish_reason"] = _STOP_OUT.get(name, name)
    if thoughts:
        text = "".join(t.text for t in thoughts)
        if text:
            row["reasoning_content"] = text
        encrypted = next((t.encrypted for t in thoughts if t.encrypted is not None), None)
        if encrypted is not None:
            parsed = json_cell(encrypted)
            opaque = [{"type": _OPAQUE, "data": encrypted}]
            row["reasoning_details"] = encrypted if isinstance(parsed, list) else json.dumps(opaque)
    return row


def from_common(transcript: m.Transcript) -> HermesSession:
    meta = transcript.meta
    commands = command_calls(transcript)
    rows: list[dict[str, Any]] = []
    calls = 0
    for message in transcript.messages:
        when = seconds(message.timestamp)
        if message.role == "assistant":
            groups = assistant_groups(message.content)
            for index, group in enumerate(groups):
                last = index == len(groups) - 1
                rows.append(_assistant_row(group, when, message.stop_reason if last else None))
            calls += sum(isinstance(b, m.ToolUse) for b in message.content)
            continue
        prompt: list[m.Block] = []

        def flush(prompt: list[m.Block] = prompt, when: float = when) -> None:
            if prompt:
                content = encode_content(_user_content(prompt))
                rows.append({"role": "user", "content": content, "timestamp": when})
                prompt.clear()

        for block in message.content:
            if (
                isinstance(block, m.ToolUse | m.ToolResult)
                and (block.id if isinstance(block, m.ToolUse) else block.tool_use_id) in commands
            ):
                prompt.append(_as_prompt(block))
            elif isinstance(block, m.Text | m.Image):
                prompt.append(block)
            elif isinstance(block, m.ToolResult):
                flush()
                rows.append(
                    {
                        "role": "tool",
                        "content": tools.write_result(block.content, block.is_error),
                        "tool_call_id": block.tool_use_id,
                        "timestamp": when,
                    }
                )
        flush()
    for row in rows:
        row.setdefault("active", 1)
    session: dict[str, Any] = {
        "id": meta.id,
        "source": IMPORT_SOURCE,
        "model": meta.model,
        "started_at": seconds(meta.timestamp),
        "message_count": len(rows),
        "tool_call_count": calls,
        "cwd": meta.cwd,
        "git_branch": meta.git_branch,
        "title": meta.title,
    }
    return HermesSession(
        session={k: v for k, v in session.items() if v is not None}, messages=tuple(rows)
    )


__all__ = ["DB", "JSON", "from_common", "kind_of", "meta_of", "to_common"]
