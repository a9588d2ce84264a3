"""Grok session ↔ Common.

**Reading.** The conversation is the model log's, in its order: each user prompt, each assistant
turn (its text, the reasoning items before it as thinking, its tool calls) and each run of tool
results. The display log adds what only it has (see :mod:`.display`): a prompt's time and images
come from its turn's user chunks; an assistant message's time from the first agent update it
matches (its reasoning and reply chunks by their text, its calls by id); a result's time and
``is_error`` from its call's final ``tool_call_update``; a turn's ``turn_completed`` gives the
stop reason and usage of its last assistant message. ``system`` lines, the synthetic
environment preamble and ``backend_tool_call`` bookkeeping are not conversation; a model-log line
of any other unknown kind is skipped and counted in one warning.

**Writing** (:func:`from_common`) emits all three files: the model log, a display log with one
update per block carrying the message's time (so Grok lists, shows and resumes the copy), and
the summary. Pure: ids are the session's own, call ids the transcript's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from txcript import model as m
from txcript.diagnostics import warn
from txcript.shared.ids import UUID_IDS
from txcript.shared.jsonutil import INVALID, dumps_compact, is_uint, try_loads
from txcript.shared.timeutil import EPOCH, format_millis, from_epoch_ms, parse_rfc3339, to_epoch_ms

from . import display, tools
from .native import GrokSession, cwd_of, project_dir

_OPEN, _CLOSE = "<user_query>\n", "\n</user_query>"
#: Model-log kinds that are bookkeeping, never conversation.
_BOOKKEEPING = frozenset(("system", "backend_tool_call"))
#: ACP stop reasons that are not Common's own names.
_STOP_IN = {"cancelled": "aborted", "max_turn_requests": None, "refusal": None}
_STOP_OUT = {"aborted": "cancelled"}


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _lines(text: str | None) -> list[Any]:
    return [try_loads(raw) for raw in (text or "").split("\n") if raw.strip()]


# ---------------------------------------------------------------------------------- meta


def _when(value: Any) -> datetime | None:
    if isinstance(value, str):
        return parse_rfc3339(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        try:
            return from_epoch_ms(round(value * 1000))
        except (OverflowError, ValueError):
            return None
    return None


def meta_from(
    summary_text: str | None,
    session_id: str,
    project: str,
    first_time: Callable[[], datetime | None],
) -> m.Meta:
    """A session's Meta from its summary, then its directory names and ``first_time()`` (the
    display log's first timed line), asked only when the summary has no start time."""
    summary = _obj(try_loads(summary_text)) if summary_text is not None else {}
    info = _obj(summary.get("info"))
    started = _when(summary.get("created_at"))
    if started is None:
        started = first_time() or EPOCH
    return m.Meta(
        id=_str(info.get("id")) or session_id,
        timestamp=started,
        cwd=_str(info.get("cwd")) or cwd_of(project),
        git_branch=_str(summary.get("head_branch")),
        title=_str(summary.get("generated_title")),
        model=_str(summary.get("current_model_id")),
    )


def meta_of(native: GrokSession) -> m.Meta:
    """The session's Meta (what discovery lists, from the same parts)."""
    return meta_from(
        native.summary, native.id, native.project, lambda: display.first_time(native.updates)
    )


# ------------------------------------------------------------------------------- reading


def _prompt_texts(content: Any) -> list[m.Block]:
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    out: list[m.Block] = []
    for part in parts if isinstance(parts, list) else ():
        text = _obj(part).get("text")
        if _obj(part).get("type", "text") == "text" and isinstance(text, str):
            if text.startswith(_OPEN) and text.endswith(_CLOSE):
                text = text[len(_OPEN) : -len(_CLOSE)]
            if text:
                out.append(m.Text(text))
    return out


def _thinking(entry: dict[str, Any]) -> m.Thinking:
    summary = entry.get("summary")
    texts = [
        s["text"]
        for s in (summary if isinstance(summary, list) else ())
        if isinstance(_obj(s).get("text"), str)
    ]
    return m.Thinking("\n\n".join(texts), encrypted=_str(entry.get("encrypted_content")))


def _stop(reason: str | None) -> m.StopReason | None:
    if reason is None:
        return None
    if reason in _STOP_IN:
        mapped = _STOP_IN[reason]
        return mapped if mapped is not None else m.OtherStop(other=reason)  # type: ignore[return-value]
    if reason in m.STOP_REASONS:
        return reason  # type: ignore[return-value]
    return m.OtherStop(other=reason)


def _usage(usage: dict[str, Any] | None) -> m.Usage | None:
    usage = _obj(usage)
    given, produced = _count(usage.get("inputTokens")), _count(usage.get("outputTokens"))
    if given is None or produced is None:
        return None
    return m.Usage(
        input_tokens=given,
        output_tokens=produced,
        cache_read_input_tokens=_count(usage.get("cachedReadTokens")),
    )


def _count(value: Any) -> int | None:
    return int(value) if is_uint(value) else None


@dataclass
class _Reader:
    shown: display.Display
    messages: list[m.Message] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    moment: datetime = EPOCH
    turn: display.Turn | None = None
    cursor: int = 0
    last_assistant: int | None = None
    results: list[m.ToolResult] = field(default_factory=list)
    results_time: datetime | None = None
    thinking: list[m.Thinking] = field(default_factory=list)
    prompts: int = 0

    def _agent(self) -> list[display.Agent]:
        return self.turn.agent if self.turn is not None else []

    def _take(self, wanted: str, target: str) -> datetime | bool | None:
        """Consume the agent chunks of kind ``wanted`` whose text makes up ``target``; the
        first one's time (None when untimed), or False when none matched."""
        agent = self._agent()
        taken: datetime | bool | None = False
        text = ""
        while self.cursor < len(agent) and text != target:
            update = agent[self.cursor]
            if update.kind != wanted or not target.startswith(text + update.text):
                break
            text += update.text
            if taken is False:
                taken = update.time
            self.cursor += 1
        return taken

    def _time_of(self, thinking: str, text: str, calls: list[str]) -> datetime:
        agent = self._agent()
        found: datetime | bool | None = False
        for _ in range(2):  # at the cursor, else from the first update that starts this entry
            start = self.cursor
            for wanted, target in (("thought", thinking), ("message", text)):
                if target:
                    got = self._take(wanted, target)
                    found = got if found is False else found
            for call_id in calls:
                if self.cursor < len(agent) and agent[self.cursor].call_id == call_id:
                    found = agent[self.cursor].time if found is False else found
                    self.cursor += 1
            if self.cursor != start:
                break
            self.cursor = self._resync(thinking, text, calls, start)
            if self.cursor == start:
                break
        if isinstance(found, datetime):
            return found
        for call_id in calls:
            started = self.shown.calls.get(call_id, display.Call()).started
            if started is not None:
                return started
        return self.moment

    def _resync(self, thinking: str, text: str, calls: list[str], start: int) -> int:
        for index, update in enumerate(self._agent()[start:], start):
            if (
                (update.kind == "call" and update.call_id in calls)
                or (
                    update.kind == "message"
                    and text
                    and update.text
                    and text.startswith(update.text)
                )
                or (
                    update.kind == "thought"
                    and thinking
                    and update.text
                    and thinking.startswith(update.text)
                )
            ):
                return index
        return start

    def _flush_results(self) -> None:
        if self.results:
            self._add(
                m.Message(
                    role="user",
                    content=tuple(self.results),
                    timestamp=self.results_time or self.moment,
                )
            )
            self.results = []
            self.results_time = None

    def _flush_thinking(self) -> None:
        if self.thinking:
            self._assistant(tuple(self.thinking), [], None)

    def _add(self, message: m.Message) -> None:
        self.messages.append(message)
        self.moment = message.timestamp

    def _close_turn(self) -> None:
        self._flush_results()
        self._flush_thinking()
        turn, index = self.turn, self.last_assistant
        if turn is not None and index is not None:
            stop, usage = _stop(turn.stop), _usage(turn.usage)
            if stop is not None or usage is not None:
                message = self.messages[index]
                self.messages[index] = m.Message(
                    role=message.role,
                    content=message.content,
                    timestamp=message.timestamp,
                    model=message.model,
                    stop_reason=stop if stop is not None else message.stop_reason,
                    usage=usage if usage is not None else message.usage,
                )
        self.last_assistant = None

    def _assistant(self, blocks: tuple[m.Block, ...], calls: list[str], model: str | None) -> None:
        thinking = "".join(b.text for b in blocks if isinstance(b, m.Thinking))
        text = "".join(b.text for b in blocks if isinstance(b, m.Text))
        when = self._time_of(thinking, text, calls)
        self.thinking = []
        if not blocks:
            return
        self._add(m.Message(role="assistant", content=blocks, timestamp=when, model=model))
        self.last_assistant = len(self.messages) - 1

    def user(self, entry: dict[str, Any]) -> None:
        if entry.get("synthetic_reason") is not None:
            return
        self._close_turn()
        key = display.prompt_index(entry.get("prompt_index"))
        self.turn = self.shown.turn_for(key, self.prompts)
        self.prompts += 1
        self.cursor = 0
        blocks: list[m.Block] = _prompt_texts(entry.get("content"))
        when = self.moment
        if self.turn is not None:
            when = self.turn.user_time or when
            blocks += [
                m.Image(m.ImageSource(type="base64", media_type=media, data=data))
                for media, data in self.turn.images
            ]
        if blocks:
            self._add(m.Message(role="user", content=tuple(blocks), timestamp=when))

    def assistant(self, entry: dict[str, Any]) -> None:
        self._flush_results()
        blocks: list[m.Block] = list(self.thinking)
        content = entry.get("content")
        if isinstance(content, str) and content:
            blocks.append(m.Text(content))
        calls = []
        raw_calls = entry.get("tool_calls")
        for raw in raw_calls if isinstance(raw_calls, list) else ():
            call = _obj(raw)
            function = _obj(call.get("function"))
            call_id = call.get("id")
            name = call.get("name", function.get("name"))
            if not isinstance(call_id, str) or not isinstance(name, str):
                self.skipped["malformed tool call"] += 1
                continue
            arguments = call.get("arguments", function.get("arguments", "{}"))
            blocks.append(m.ToolUse(id=call_id, tool=tools.to_tool(name, arguments)))
            calls.append(call_id)
        self._assistant(tuple(blocks), calls, _str(entry.get("model_id")))

    def result(self, entry: dict[str, Any]) -> None:
        self._flush_thinking()
        call_id = entry.get("tool_call_id")
        if not isinstance(call_id, str):
            self.skipped["malformed tool result"] += 1
            return
        call = self.shown.calls.get(call_id, display.Call())
        content = entry.get("content", "")
        self.results.append(
            m.ToolResult(
                tool_use_id=call_id,
                content="" if content is None else content,
                is_error=call.status == "failed",
            )
        )
        if self.results_time is None:
            self.results_time = call.finished or self.moment


def to_common(native: GrokSession) -> m.Transcript:
    meta = meta_of(native)
    reader = _Reader(display.read(native.updates), moment=meta.timestamp)
    for entry in _lines(native.chat):
        if not isinstance(entry, dict):
            reader.skipped["line that is not a JSON object"] += 1
            continue
        kind = entry.get("type", entry.get("role"))
        if kind == "user":
            reader.user(entry)
        elif kind == "assistant":
            reader.assistant(entry)
        elif kind == "reasoning":
            reader._flush_results()
            reader.thinking.append(_thinking(entry))
        elif kind == "tool_result":
            reader.result(entry)
        elif kind not in _BOOKKEEPING:
            reader.skipped[f"entry {kind!r}" if isinstance(kind, str) else "untyped entry"] += 1
    reader._close_turn()
    if reader.skipped:
        what = ", ".join(f"{n} {name}" for name, n in sorted(reader.skipped.items()))
        warn(f"Grok session {meta.id}: skipped {what} in {native.id}/chat_history.jsonl")
    return m.Transcript(meta=meta, messages=tuple(reader.messages))


# ------------------------------------------------------------------------------- writing


class _Writer:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.chat: list[str] = []
        self.updates: list[str] = []
        self.event = 0
        self.prompt = -1
        self.reasoning = 0

    def entry(self, value: dict[str, Any]) -> None:
        self.chat.append(dumps_compact(value))

    def update(
        self, when: datetime, update: dict[str, Any], *, method: str = "session/update"
    ) -> None:
        """One display-log line as Grok writes it: whole seconds beside the millisecond time,
        an event id of the session's, a user chunk naming its prompt in its own ``_meta``."""
        millis = to_epoch_ms(when)
        self.event += 1
        if update.get("sessionUpdate") == "user_message_chunk":
            update = {**update, "_meta": {"promptIndex": self.prompt}}
        meta = {"eventId": f"{self.session_id}-{self.event}", "agentTimestampMs": millis}
        line = {
            "timestamp": millis // 1000,
            "method": method,
            "params": {"sessionId": self.session_id, "update": update, "_meta": meta},
        }
        self.updates.append(dumps_compact(line))

    def close_turn(self, last: m.Message | None, when: datetime) -> None:
        if self.prompt < 0:
            return
        completed: dict[str, Any] = {"sessionUpdate": "turn_completed"}
        if last is not None and last.stop_reason is not None:
            reason = last.stop_reason
            name = reason.other if isinstance(reason, m.OtherStop) else reason
            completed["stop_reason"] = _STOP_OUT.get(name, name)
        if last is not None and last.usage is not None:
            usage = last.usage
            completed["usage"] = {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "totalTokens": usage.input_tokens + usage.output_tokens,
                **(
                    {"cachedReadTokens": usage.cache_read_input_tokens}
                    if usage.cache_read_input_tokens is not None
                    else {}
                ),
            }
        self.update(when, completed, method="_x.ai/session/update")


def _result_text(content: Any) -> str:
    return content if isinstance(content, str) else dumps_compact(content)


def _command_calls(transcript: m.Transcript) -> set[str]:
    """The ids of the slash commands the user ran (user-side calls Grok has no record for)."""
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
    return m.Text(_result_text(block.content))


def _groups(blocks: tuple[m.Block, ...]) -> list[list[m.Block]]:
    """An assistant message as the model-log entries it takes, each its reasoning items, then
    ``assistant{content, tool_calls}``. An entry shows its reasoning and text before its calls,
    so a text or thinking after a call stays with the call (it reads back before the calls); a
    second text, or thinking after a text, starts a new entry, so nothing is joined."""
    groups: list[list[m.Block]] = []
    for block in blocks:
        kinds = {type(b) for b in groups[-1]} if groups else set()
        fresh = (
            not groups
            or (isinstance(block, m.Text) and m.Text in kinds)
            or (isinstance(block, m.Thinking) and m.Text in kinds and m.ToolUse not in kinds)
        )
        if fresh:
            groups.append([block])
        else:
            groups[-1].append(block)
    return groups


def _prompt(out: _Writer, blocks: list[m.Block], when: datetime) -> None:
    out.prompt += 1
    texts = [b.text for b in blocks if isinstance(b, m.Text)]
    out.entry(
        {
            "type": "user",
            "content": [{"type": "text", "text": f"{_OPEN}{t}{_CLOSE}"} for t in texts],
            "prompt_index": out.prompt,
        }
    )
    for block in blocks:
        if isinstance(block, m.Text):
            content: dict[str, Any] = {"type": "text", "text": block.text}
        elif isinstance(block, m.Image):
            source = block.source
            content = {"type": "image", "data": source.data, "mimeType": source.media_type}
        else:
            continue
        out.update(when, {"sessionUpdate": "user_message_chunk", "content": content})


def _result(out: _Writer, block: m.ToolResult, when: datetime) -> None:
    text = _result_text(block.content)
    out.entry({"type": "tool_result", "tool_call_id": block.tool_use_id, "content": text})
    out.update(
        when,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": block.tool_use_id,
            "status": "failed" if block.is_error else "completed",
            "rawOutput": text,
            "content": [{"type": "content", "content": {"type": "text", "text": text}}],
        },
    )


def from_common(transcript: m.Transcript) -> GrokSession:
    meta = transcript.meta
    session_id = UUID_IDS.adopt(meta.id) if meta.id else UUID_IDS.derive("")
    commands = _command_calls(transcript)
    out = _Writer(session_id)
    last_assistant: m.Message | None = None
    moment = meta.timestamp
    for message in transcript.messages:
        moment = message.timestamp
        if message.role == "assistant":
            last_assistant = message
            for group in _groups(message.content):
                _assistant(out, group, message)
            continue
        prompt: list[m.Block] = []
        for block in [*message.content, None]:
            is_command = (
                isinstance(block, m.ToolUse | m.ToolResult)
                and (block.id if isinstance(block, m.ToolUse) else block.tool_use_id) in commands
            )
            if is_command:
                assert isinstance(block, m.ToolUse | m.ToolResult)
                prompt.append(_as_prompt(block))
            elif isinstance(block, m.Text | m.Image):
                prompt.append(block)
            elif block is None or isinstance(block, m.ToolResult):
                if prompt:  # a prompt starts a turn
                    out.close_turn(last_assistant, moment)
                    last_assistant = None
                    _prompt(out, prompt, moment)
                    prompt = []
                if block is not None:
                    _result(out, block, moment)
    out.close_turn(last_assistant, moment)
    # Grok refuses to resume a session whose summary lacks ``session_summary`` or
    # ``current_model_id`` ("Session does not exist"), so both are always written;
    # ``session_summary`` empty, as Grok's own are before it summarises.
    summary: dict[str, Any] = {"info": {"id": session_id}, "session_summary": ""}
    if meta.cwd:
        summary["info"]["cwd"] = meta.cwd
    if meta.title:
        summary["generated_title"] = meta.title
    summary["created_at"] = format_millis(meta.timestamp)
    summary["updated_at"] = summary["last_active_at"] = format_millis(moment)
    summary["num_messages"] = len(transcript.messages)
    summary["num_chat_messages"] = len(out.chat)
    # Required too: without a model id Grok reads no session. An empty one makes Grok use its
    # configured default model.
    summary["current_model_id"] = meta.model or ""
    summary["chat_format_version"] = 1
    if meta.git_branch:
        summary["head_branch"] = meta.git_branch
    return GrokSession(
        id=session_id,
        project=project_dir(meta.cwd) if meta.cwd else "",
        chat="".join(line + "\n" for line in out.chat),
        updates="".join(line + "\n" for line in out.updates),
        summary=dumps_compact(summary) + "\n",
    )


def _assistant(out: _Writer, blocks: list[m.Block], message: m.Message) -> None:
    when = message.timestamp
    text = ""
    calls: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, m.Thinking):
            out.reasoning += 1
            item: dict[str, Any] = {
                "type": "reasoning",
                "id": f"rs_{out.session_id.replace('-', '')[:12]}_{out.reasoning}",
                "summary": [{"type": "summary_text", "text": block.text}] if block.text else [],
                "status": "completed",
            }
            if block.encrypted is not None:
                item["encrypted_content"] = block.encrypted
            out.entry(item)
            if block.text:
                chunk = {"type": "text", "text": block.text}
                out.update(when, {"sessionUpdate": "agent_thought_chunk", "content": chunk})
        elif isinstance(block, m.Text):
            text += block.text
            chunk = {"type": "text", "text": block.text}
            out.update(when, {"sessionUpdate": "agent_message_chunk", "content": chunk})
        elif isinstance(block, m.ToolUse):
            name, data = tools.from_tool(block.tool)
            calls.append({"id": block.id, "name": name, "arguments": tools.arguments(data)})
            out.update(
                when,
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": block.id,
                    "title": name,
                    "kind": tools.KINDS.get(name, "other"),
                    "status": "pending",
                    "rawInput": data,
                },
            )
    entry: dict[str, Any] = {"type": "assistant", "content": text}
    if calls:
        entry["tool_calls"] = calls
    if message.model:
        entry["model_id"] = message.model
    out.entry(entry)


__all__ = ["INVALID", "from_common", "meta_of", "to_common"]
