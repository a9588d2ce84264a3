"""OpenCode native body ↔ Common (pure: no clock, no randomness, no I/O).

**Reading.** A user message becomes one user turn. An assistant message is a whole agent step
loop: its parts are split at ``step-start``/``step-finish`` into model turns, each followed by a
user turn holding the results of that step's tool calls (a ``tool`` part carries both the call
and its result: ``completed`` gives the output, ``error`` an ``is_error`` result, ``pending`` and
``running`` calls are in flight and have none). Each ``step-finish`` gives its turn's usage and
stop reason; a message without steps takes its own ``tokens`` and ``finish``. ``reasoning`` is
thinking (an Anthropic signature or OpenAI encrypted content in its ``metadata`` is kept),
``file`` parts are images by mime, other files artifacts. An assistant message that holds only an
``error`` becomes an assistant text saying so. Bookkeeping parts (``snapshot``, ``patch``,
``agent``, ``retry``, ``compaction``, ``subtask``) carry no conversation and are skipped; an
unknown part type, a part that is not a JSON object, or a part whose message is missing is
skipped with a warning.

**Writing** builds what OpenCode itself writes: consecutive assistant turns (with the tool
results between them) of one model become one assistant message with one step per turn; tool
results fold into their call's ``tool`` part; ids ascend in order (OpenCode orders parts by id).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import unquote_to_bytes

from txcript import model as m
from txcript.diagnostics import warn
from txcript.shared.fileuri import file_uri, path_from_file_uri
from txcript.shared.gcpause import without_gc
from txcript.shared.jsonutil import dumps_compact
from txcript.shared.timeutil import EPOCH, from_epoch_ms, to_epoch_ms

from .native import (
    NativeMessage,
    OpenCodeSession,
    Record,
    int_or_none,
    json_cell,
    obj,
)
from .tools import (
    IdMint,
    finish_of,
    from_tool,
    session_id_for,
    stop_reason,
    to_tool,
    tokens_of,
    usage_of,
)

_PLACEHOLDER_TITLE = re.compile(r"(?:New session|Child session) - \d{4}-\d{2}-\d{2}T")
_BOOKKEEPING = frozenset(("snapshot", "patch", "agent", "retry", "compaction", "subtask"))
_STEP_START, _STEP_FINISH = "step-start", "step-finish"


# ----------------------------------------------------------------------------------- reading


def _time(value: Any) -> datetime | None:
    millis = int_or_none(value)
    if millis is None:
        return None
    try:
        return from_epoch_ms(millis)
    except OverflowError:
        return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def is_placeholder_title(title: str) -> bool:
    return bool(_PLACEHOLDER_TITLE.match(title))


def first_assistant_model(data: Any) -> str | None:
    """The ``modelID`` of a message's data when it is an assistant message (else None)."""
    if isinstance(data, dict) and data.get("role") == "assistant":
        return _str(data.get("modelID")) or None
    return None


def meta_of(row: dict[str, Any], assistant_model: str | None) -> m.Meta:
    """Session metadata from the ``session`` row; ``assistant_model`` is the first assistant
    message's model, used when the row records none (older schemas have no ``model``)."""
    model: str | None = None
    if "model" in row:
        parsed = json_cell(row.get("model"))
        if isinstance(parsed, dict):
            model = _str(parsed.get("id")) or _str(parsed.get("modelID"))
    else:
        model = assistant_model
    title = _str(row.get("title"))
    directory = _str(row.get("directory"))
    version = _str(row.get("version"))
    return m.Meta(
        id=_str(row.get("id")) or "",
        timestamp=_time(row.get("time_created")) or EPOCH,
        cwd=directory or None,
        title=title if title and not is_placeholder_title(title) else None,
        cli_version=version or None,
        model=model or None,
    )


def _message_model(native: OpenCodeSession) -> str | None:
    for message in native.messages:
        model = first_assistant_model(message.record.data)
        if model is not None or (
            isinstance(message.record.data, dict) and message.record.data.get("role") == "assistant"
        ):
            return model
    return None


def session_meta(native: OpenCodeSession) -> m.Meta:
    return meta_of(native.session, _message_model(native))


def _data_url(url: str) -> tuple[str, bytes] | None:
    """``(mime, bytes)`` of a ``data:`` URL, or None when it is not one."""
    if not url.startswith("data:") or "," not in url:
        return None
    header, _, payload = url[5:].partition(",")
    mime, _, params = header.partition(";")
    try:
        if params.endswith("base64") or ";base64" in header:
            return mime, base64.b64decode(payload, validate=True)
        return mime, unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None


def _file_block(part: dict[str, Any]) -> m.Block | None:
    url, mime = _str(part.get("url")) or "", _str(part.get("mime")) or ""
    name = _str(part.get("filename")) or ""
    if url.startswith("data:") and mime.startswith("image/"):
        _, _, payload = url.partition(",")
        if ";base64" in url.partition(",")[0]:
            return m.Image(source=m.ImageSource(type="base64", media_type=mime, data=payload))
    media = mime or None
    path = path_from_file_uri(url)
    if path is not None:
        source: m.ArtifactSource = m.PathSource(path=path, media_type=media)
    else:
        decoded = _data_url(url)
        if decoded is None:
            return m.Text(text=f"[file: {name or url}]")
        raw = decoded[1]
        text = None
        if mime.startswith("text/"):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        source = (
            m.TextSource(text=text, media_type=media)
            if text is not None
            else m.Base64Source(data=base64.b64encode(raw).decode("ascii"), media_type=media)
        )
    return m.Artifact(artifact=m.ArtifactRef(id="", name=name, source=source))


def _thinking(part: dict[str, Any]) -> m.Thinking:
    metadata = obj(part.get("metadata"))
    anthropic, openai = obj(metadata.get("anthropic")), obj(metadata.get("openai"))
    return m.Thinking(
        text=_str(part.get("text")) or "",
        signature=_str(anthropic.get("signature")),
        encrypted=_str(openai.get("reasoningEncryptedContent")),
    )


def _part_start(part: dict[str, Any]) -> datetime | None:
    holder = part.get("state") if part.get("type") == "tool" else part
    time = holder.get("time") if isinstance(holder, dict) else None
    return _time(time.get("start")) if isinstance(time, dict) else None


@dataclass
class _Step:
    parts: list[dict[str, Any]] = field(default_factory=list)
    finish: dict[str, Any] | None = None


def _steps(parts: list[dict[str, Any]]) -> tuple[list[_Step], bool]:
    """The parts grouped into steps; the flag says whether the message had step markers."""
    steps: list[_Step] = []
    current: _Step | None = None
    marked = False
    for part in parts:
        kind = part.get("type")
        if kind == _STEP_START:
            marked = True
            if current is not None:
                steps.append(current)
            current = _Step()
        elif kind == _STEP_FINISH:
            marked = True
            if current is None:
                current = _Step()
            current.finish = part
            steps.append(current)
            current = None
        elif kind not in _BOOKKEEPING:
            if current is None:
                current = _Step()
            current.parts.append(part)
    if current is not None:
        steps.append(current)
    return steps, marked


class _Reader:
    def __init__(self, native: OpenCodeSession, meta: m.Meta) -> None:
        self.native = native
        self.label = f"OpenCode session {native.id}"
        self.last = meta.timestamp
        self.out: list[m.Message] = []

    def parts(self, message: NativeMessage) -> list[dict[str, Any]]:
        found = []
        for part in message.parts:
            if part.obj is None:
                warn(f"{self.label}: part {part.id} is not a JSON object; skipped")
                continue
            found.append(part.obj)
        return found

    def block(self, part: dict[str, Any], results: list[m.ToolResult]) -> m.Block | None:
        kind = part.get("type")
        if kind == "text":
            return m.Text(text=_str(part.get("text")) or "")
        if kind == "reasoning":
            return _thinking(part)
        if kind == "file":
            return _file_block(part)
        if kind == "tool":
            return self.tool(part, results)
        if kind not in _BOOKKEEPING:
            warn(f"{self.label}: a part of unknown type {kind!r} was skipped")
        return None

    def tool(self, part: dict[str, Any], results: list[m.ToolResult]) -> m.Block:
        call_id = _str(part.get("callID")) or _str(part.get("id")) or ""
        state = obj(part.get("state"))
        tool = to_tool(_str(part.get("tool")) or "", state.get("input", {}))
        status = state.get("status")
        if status == "completed":
            results.append(m.ToolResult(tool_use_id=call_id, content=state.get("output", "")))
        elif status == "error":
            error = state.get("error", "")
            results.append(m.ToolResult(tool_use_id=call_id, content=error, is_error=True))
        return m.ToolUse(id=call_id, tool=tool)

    def user(self, message: NativeMessage, data: dict[str, Any], when: datetime) -> None:
        blocks: list[m.Block] = []
        for part in self.parts(message):
            if part.get("type") == "tool":
                warn(f"{self.label}: a tool part on user message {message.record.id} was skipped")
                continue
            block = self.block(part, [])
            if block is not None:
                blocks.append(block)
        if blocks:
            self.out.append(m.Message(role="user", content=tuple(blocks), timestamp=when))

    def assistant(self, message: NativeMessage, data: dict[str, Any], when: datetime) -> None:
        model = _str(data.get("modelID")) or None
        parts = self.parts(message)
        if not parts:
            error = data.get("error")
            if isinstance(error, dict):
                self.out.append(
                    m.Message(
                        role="assistant",
                        content=(m.Text(text=_error_text(error)),),
                        timestamp=when,
                        model=model,
                        stop_reason="error",
                    )
                )
            return
        steps, marked = _steps(parts)
        for step in steps:
            blocks: list[m.Block] = []
            results: list[m.ToolResult] = []
            result_time: datetime | None = None
            start: datetime | None = None
            for part in step.parts:
                start = start or _part_start(part)
                block = self.block(part, results)
                if block is not None:
                    blocks.append(block)
                if part.get("type") == "tool" and result_time is None and results:
                    state = part.get("state")
                    time = state.get("time") if isinstance(state, dict) else None
                    result_time = _time(time.get("end")) if isinstance(time, dict) else None
            source = step.finish if marked else data
            stamp = start or when
            self.out.append(
                m.Message(
                    role="assistant",
                    content=tuple(blocks),
                    timestamp=stamp,
                    model=model,
                    stop_reason=stop_reason((source or {}).get("reason" if marked else "finish")),
                    usage=usage_of((source or {}).get("tokens")),
                )
            )
            if results:
                self.out.append(
                    m.Message(role="user", content=tuple(results), timestamp=result_time or stamp)
                )


def _error_text(error: dict[str, Any]) -> str:
    name = _str(error.get("name")) or "Error"
    detail = error.get("data")
    text = _str(detail.get("message")) if isinstance(detail, dict) else None
    return f"[error] {name}: {text}" if text else f"[error] {name}"


@without_gc
def to_common(native: OpenCodeSession) -> m.Transcript:
    meta = session_meta(native)
    reader = _Reader(native, meta)
    for message_id, _ in native.orphan_parts[:1]:
        warn(
            f"{reader.label}: {len(native.orphan_parts)} part(s) belong to a missing message "
            f"(first: {message_id}); skipped"
        )
    for message in native.messages:
        data = message.record.obj
        if data is None:
            warn(f"{reader.label}: message {message.record.id} is not a JSON object; skipped")
            continue
        time = data.get("time")
        when = (
            (_time(time.get("created")) if isinstance(time, dict) else None)
            or _time(message.record.time_created)
            or reader.last
        )
        reader.last = when
        role = data.get("role")
        if role == "user":
            reader.user(message, data, when)
        elif role == "assistant":
            reader.assistant(message, data, when)
        else:
            warn(f"{reader.label}: message {message.record.id} has unknown role {role!r}; skipped")
    return m.Transcript(meta=meta, messages=tuple(reader.out))


# ----------------------------------------------------------------------------------- writing


def provider_of(model: str | None) -> str:
    """A provider id for a model name (OpenCode records both); ``opencode`` when unknown."""
    name = (model or "").lower()
    if "claude" in name:
        return "anthropic"
    if name.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    if "gemini" in name:
        return "google"
    return "opencode"


def _ms(when: datetime) -> int:
    return to_epoch_ms(when)


def _content_part(block: m.Block, when: int) -> dict[str, Any]:
    if isinstance(block, m.Text):
        return {"type": "text", "text": block.text, "time": {"start": when, "end": when}}
    if isinstance(block, m.Thinking):
        part: dict[str, Any] = {"type": "reasoning", "text": block.text}
        metadata: dict[str, Any] = {}
        if block.signature is not None:
            metadata["anthropic"] = {"signature": block.signature}
        if block.encrypted is not None:
            metadata["openai"] = {"reasoningEncryptedContent": block.encrypted}
        if metadata:
            part["metadata"] = metadata
        part["time"] = {"start": when, "end": when}
        return part
    if isinstance(block, m.Image):
        source = block.source
        return {
            "type": "file",
            "mime": source.media_type,
            "url": f"data:{source.media_type};base64,{source.data}",
        }
    if isinstance(block, m.Artifact):
        return _artifact_part(block)
    if isinstance(block, m.ToolResult):  # a result whose call is not in this session
        output = block.content if isinstance(block.content, str) else dumps_compact(block.content)
        label = "error" if block.is_error else "result"
        return {"type": "text", "text": f"[{label} {block.tool_use_id}]\n{output}"}
    raise AssertionError(block)


def _artifact_part(block: m.Artifact) -> dict[str, Any]:
    artifact = block.artifact
    source = artifact.source
    part: dict[str, Any] = {"type": "file"}
    if isinstance(source, m.PathSource):
        part["mime"] = source.media_type or "application/octet-stream"
        part["url"] = file_uri(source.path)
    elif isinstance(source, m.TextSource):
        mime = source.media_type or "text/plain"
        encoded = base64.b64encode(source.text.encode("utf-8", "surrogatepass")).decode("ascii")
        part["mime"], part["url"] = mime, f"data:{mime};base64,{encoded}"
    else:
        mime = source.media_type or "application/octet-stream"
        part["mime"], part["url"] = mime, f"data:{mime};base64,{source.data}"
    if artifact.name:
        part["filename"] = artifact.name
    return part


def _command_text(tool: m.Tool) -> str:
    if isinstance(tool, m.Command):
        return tool.command + (f" {tool.args}" if tool.args else "")
    name, tool_input = from_tool(tool)
    return f"[tool {name}] {dumps_compact(tool_input)}"


@dataclass
class _Assistant:
    id: str
    data: dict[str, Any]
    parts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    model: str | None = None


class _Writer:
    def __init__(self, transcript: m.Transcript, session_id: str, agent: str) -> None:
        self.meta = transcript.meta
        self.agent = agent
        self.transcript = transcript
        self.session_id = session_id
        self.ids = IdMint(session_id)
        self.messages: list[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]] = []
        self.current: _Assistant | None = None
        self.calls: dict[str, dict[str, Any]] = {}
        self.last_user: str | None = None
        self.cwd = self.meta.cwd or ""

        #: Per message: the model of the next assistant turn with one (a user turn records the
        #: model that answers it), else the session's.
        self.next_model: list[str | None] = []
        following = self.meta.model
        for message in reversed(transcript.messages):
            if message.role == "assistant" and message.model:
                following = message.model
            self.next_model.append(following)
        self.next_model.reverse()

    def _model_near(self, index: int) -> str | None:
        return self.next_model[index]

    def close(self) -> None:
        if self.current is not None:
            self.messages.append((self.current.id, self.current.data, self.current.parts))
            self.current = None

    def user(self, index: int, message: m.Message) -> None:
        rest: list[m.Block] = []
        when = _ms(message.timestamp)
        for block in message.content:
            if isinstance(block, m.ToolResult) and block.tool_use_id in self.calls:
                state = self.calls.pop(block.tool_use_id)
                content = block.content
                output = content if isinstance(content, str) else dumps_compact(content)
                start, tool_input = state["time"]["start"], state["input"]
                state.clear()
                state.update(_finished(block, output, start, when, tool_input))
            else:
                rest.append(block)
        if not rest:
            return
        self.close()
        self.calls.clear()
        model = self._model_near(index)
        message_id = self.ids.next("msg", when)
        data: dict[str, Any] = {"role": "user", "time": {"created": when}, "agent": self.agent}
        if model is not None:
            # Without a known model the field is left out: OpenCode then answers on the user's
            # default model, where a made-up reference fails the resume ("Model not found").
            data["model"] = {"providerID": provider_of(model), "modelID": model}
        parts = []
        for block in rest:
            if isinstance(block, m.ToolUse):
                part = {"type": "text", "text": _command_text(block.tool)}
            else:
                part = _content_part(block, when)
            parts.append((self.ids.next("prt", when), part))
        self.messages.append((message_id, data, parts))
        self.last_user = message_id

    def assistant(self, message: m.Message) -> None:
        when = _ms(message.timestamp)
        if self.current is None or self.current.model != message.model:
            self.close()
            self.current = _Assistant(
                id=self.ids.next("msg", when), data=self._assistant_data(message, when)
            )
            self.current.model = message.model
        current = self.current
        current.parts.append((self.ids.next("prt", when), {"type": "step-start"}))
        for block in message.content:
            if isinstance(block, m.ToolUse):
                name, tool_input = from_tool(block.tool)
                state: dict[str, Any] = {
                    "status": "pending",
                    "input": tool_input,
                    "raw": "",
                    "time": {"start": when},
                }
                self.calls[block.id] = state
                part: dict[str, Any] = {
                    "type": "tool",
                    "callID": block.id,
                    "tool": name,
                    "state": state,
                }
            else:
                part = _content_part(block, when)
            current.parts.append((self.ids.next("prt", when), part))
        finish = {
            "type": "step-finish",
            "reason": finish_of(message.stop_reason),
            "cost": 0,
            "tokens": tokens_of(message.usage),
        }
        current.parts.append((self.ids.next("prt", when), finish))
        _accumulate(current.data, message, when)

    def _assistant_data(self, message: m.Message, when: int) -> dict[str, Any]:
        return {
            "role": "assistant",
            "time": {"created": when, "completed": when},
            "parentID": self.last_user or "",
            "modelID": message.model or "",
            "providerID": provider_of(message.model),
            "mode": self.agent,
            "agent": self.agent,
            "path": {"cwd": self.cwd, "root": self.cwd},
            "cost": 0,
            "tokens": tokens_of(None),
            "finish": finish_of(message.stop_reason),
        }


def _finished(
    block: m.ToolResult, output: str, start: int, end: int, tool_input: Any
) -> dict[str, Any]:
    if block.is_error:
        return {
            "status": "error",
            "input": tool_input,
            "error": output,
            "time": {"start": start, "end": end},
        }
    return {
        "status": "completed",
        "input": tool_input,
        "output": output,
        "title": "",
        "metadata": {},
        "time": {"start": start, "end": end},
    }


def _accumulate(data: dict[str, Any], message: m.Message, when: int) -> None:
    tokens = data["tokens"]
    usage = message.usage
    if usage is not None:
        tokens["input"] += usage.input_tokens
        tokens["output"] += usage.output_tokens
        tokens["cache"]["read"] += usage.cache_read_input_tokens or 0
        tokens["cache"]["write"] += usage.cache_creation_input_tokens or 0
    data["time"]["completed"] = max(data["time"]["completed"], when)
    data["finish"] = finish_of(message.stop_reason)


def _session_row(transcript: m.Transcript, session_id: str) -> dict[str, Any]:
    meta = transcript.meta
    created = _ms(meta.timestamp)
    updated = max([created, *(_ms(msg.timestamp) for msg in transcript.messages)])
    title = meta.title
    if title is None:
        title = f"New session - {meta.timestamp.strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3]}Z"
    model = None
    if meta.model is not None:
        model = {"id": meta.model, "providerID": provider_of(meta.model)}
    return {
        "id": session_id,
        "project_id": None,  # the store files it under the cwd's project
        "parent_id": None,
        "slug": session_id[4:].lower(),
        "directory": meta.cwd or "",
        "title": title,
        "version": meta.cli_version or "",
        "share_url": None,
        "summary_additions": None,
        "summary_deletions": None,
        "summary_files": None,
        "summary_diffs": None,
        "revert": None,
        "permission": None,
        "time_created": created,
        "time_updated": updated,
        "time_compacting": None,
        "time_archived": None,
        "workspace_id": None,
        "path": None,
        "agent": None,
        "model": None if model is None else dumps_compact(model),
        "cost": 0,
        "tokens_input": 0,
        "tokens_output": 0,
        "tokens_reasoning": 0,
        "tokens_cache_read": 0,
        "tokens_cache_write": 0,
        "metadata": None,
    }


def _records(
    messages: list[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]],
) -> Iterator[NativeMessage]:
    for message_id, data, parts in messages:
        created = data["time"]["created"]
        updated = data["time"].get("completed", created)
        yield NativeMessage(
            Record.of(message_id, data, created, updated),
            tuple(Record.of(part_id, part, created, updated) for part_id, part in parts),
        )


@without_gc
def from_common(transcript: m.Transcript, *, agent: str = "build") -> OpenCodeSession:
    """The session as OpenCode writes it; ``agent`` is the agent its turns are filed under
    (OpenCode's default is ``build``; a fork may name its own, such as Kilo's ``code``)."""
    session_id = session_id_for(transcript.meta.id, _ms(transcript.meta.timestamp))
    writer = _Writer(transcript, session_id, agent)
    for index, message in enumerate(transcript.messages):
        if message.role == "assistant":
            writer.assistant(message)
        else:
            writer.user(index, message)
    writer.close()
    return OpenCodeSession(
        session=_session_row(transcript, session_id), messages=tuple(_records(writer.messages))
    )
