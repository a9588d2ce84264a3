"""Cline, Roo and Kilo tasks ↔ Common.

**Reading.** The model-facing history (``api_conversation_history.json``, or a CLI session's
``messages``) is Anthropic messages with a ``ts`` (epoch ms) each: text, thinking (signed, or
redacted), images, tool calls and results map one to one. Calls come in two eras, told apart per
task: native ``tool_use``/``tool_result`` blocks, or (older tasks) markup in the assistant's
text answered by ``[tool for '…'] Result:`` user text (:mod:`.xmlera`). Tools map to Common's
typed tools where they fit (:mod:`.tools`). A block of a kind Common has no place for (a
``document``) is kept as its JSON text, with one warning that counts them.

**Metadata** (:func:`derive_meta`, which discovery uses too): the title is the index entry's
``task`` (the first prompt), the time the first chat-view message's, the working directory the
entry's (``cwdOnTaskInitialization``, Roo's ``workspace``), else the one the first prompt's
environment details name; the model the entry's ``modelId``, else the first reply's.

**Writing** gives a task in the native tool era: the history with every block, a chat view with
the task and one ``say: text`` per turn, ``task_metadata.json`` and the index entry (Roo and Kilo
also as the task's own ``history_item.json``). Pure: ids and times come from the transcript.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from txcript import model as m
from txcript.diagnostics import warn
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_compact, is_uint
from txcript.shared.timeutil import EPOCH, from_epoch_ms, parse_rfc3339, to_epoch_ms

from . import xmlera
from .flavours import CLINE, KILO, ROO, Flavour
from .native import API_HISTORY, HISTORY_ITEM, TASK, TASK_METADATA, UI_MESSAGES, ClineTask
from .tools import from_tool, to_tool

NAMESPACE = namespace_from_ascii(b"txcript-cline!!!")
_CWD = re.compile(r"# Current (?:Working Directory|Workspace Directory) \((.+?)\)")
#: The first prompt as the extensions (``<task>``) and the CLI (``<user_input …>``) wrap it.
_TASK = re.compile(r"^\s*<(task|user_input)(?: [^>]*)?>\s*(.*?)\s*</\1>", re.DOTALL)
_MAX_MS = 253402300799999  # the end of year 9999


def stringify(value: Any) -> bytes:
    """JSON the way the extensions write it (``JSON.stringify``): compact, key order kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8", "surrogatepass"
    )


def _ms(value: Any) -> datetime | None:
    if is_uint(value) and value <= _MAX_MS:
        return from_epoch_ms(int(value))
    return None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _title(text: str | None) -> str | None:
    if not text:
        return None
    for row in text.split("\n"):
        if row.strip():
            return row.strip()
    return None


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    return []


def _prompt(first_user: Any) -> str | None:
    """The first prompt's own words: the ``<task>`` of an XML-era prompt, else its first text."""
    texts = _texts(first_user.get("content") if isinstance(first_user, dict) else None)
    for text in texts:
        match = _TASK.match(text)
        if match:
            return match.group(2)
        if not text.lstrip().startswith("<environment_details>"):
            return text
    return None


def _cwd_of(first_user: Any) -> str | None:
    for text in _texts(first_user.get("content") if isinstance(first_user, dict) else None):
        match = _CWD.search(text)
        if match:
            return match.group(1)
    return None


def _model_of(message: Any) -> str | None:
    """A reply's model: ``modelInfo.modelId`` (the extensions), ``modelInfo.id`` (the CLI)."""
    info = message.get("modelInfo") if isinstance(message, dict) else None
    if not isinstance(info, dict):
        return None
    return _str(info.get("modelId")) or _str(info.get("id"))


def derive_meta(
    task_id: str,
    entry: dict[str, Any],
    manifest: dict[str, Any],
    first_ui: Any,
    head: list[Any],
) -> m.Meta:
    """The task's Meta from its index entry, CLI manifest, first chat-view message and first
    history messages (``head``: at least the first user and first assistant message)."""
    first_user = next((x for x in head if isinstance(x, dict) and x.get("role") == "user"), None)
    first_reply = next(
        (x for x in head if isinstance(x, dict) and x.get("role") == "assistant"), None
    )
    started = (
        _ms(first_ui.get("ts") if isinstance(first_ui, dict) else None)
        or _ms(first_user.get("ts") if isinstance(first_user, dict) else None)
        or _ms(head[0].get("ts") if head and isinstance(head[0], dict) else None)
        or parse_rfc3339(manifest.get("started_at"))
        or _ms(entry.get("ts"))
        or (from_epoch_ms(int(task_id)) if task_id.isdigit() and int(task_id) <= _MAX_MS else None)
        or EPOCH
    )
    metadata = manifest.get("metadata")
    title = (
        _title(_str(entry.get("task")))
        or _title(_str(metadata.get("title")) if isinstance(metadata, dict) else None)
        or _title(_str(manifest.get("prompt")))
        or _title(_prompt(first_user))
    )
    cwd = (
        _str(entry.get("cwdOnTaskInitialization"))
        or _str(entry.get("workspace"))
        or _str(manifest.get("cwd"))
        or _str(manifest.get("workspace_root"))
        or _cwd_of(first_user)
    )
    model = _str(entry.get("modelId")) or _str(manifest.get("model")) or _model_of(first_reply)
    return m.Meta(id=task_id, timestamp=started, cwd=cwd, title=title, model=model)


def meta_of(task: ClineTask) -> m.Meta:
    ui = task.ui_messages()
    return derive_meta(
        task.id, task.index_entry(), task.manifest(), ui[0] if ui else None, task.api_messages()
    )


# ----------------------------------------------------------------------------------- reading


class _Reader:
    def __init__(self, task: ClineTask, meta: m.Meta) -> None:
        self.task = task
        self.meta = meta
        self.kept_as_text = 0
        self.out: list[m.Message] = []

    def block(self, block: Any) -> m.Block | None:
        if isinstance(block, str):
            return m.Text(text=block)
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            return m.Text(text=block["text"])
        if kind == "thinking" and isinstance(block.get("thinking"), str):
            return m.Thinking(text=block["thinking"], signature=_str(block.get("signature")))
        if kind == "redacted_thinking" and isinstance(block.get("data"), str):
            return m.Thinking(text="", encrypted=block["data"])
        if kind == "image":
            source = block.get("source")
            if (
                isinstance(source, dict)
                and isinstance(source.get("type"), str)
                and isinstance(source.get("media_type"), str)
                and isinstance(source.get("data"), str)
            ):
                return m.Image(
                    source=m.ImageSource(
                        type=source["type"], media_type=source["media_type"], data=source["data"]
                    )
                )
        if (
            kind == "tool_use"
            and isinstance(block.get("id"), str)
            and isinstance(block.get("name"), str)
        ):
            return m.ToolUse(id=block["id"], tool=to_tool(block["name"], block.get("input", {})))
        if kind == "tool_result" and isinstance(block.get("tool_use_id"), str):
            return m.ToolResult(
                tool_use_id=block["tool_use_id"],
                content=_result_content(block.get("content", "")),
                is_error=block.get("is_error") is True,
            )
        self.kept_as_text += 1
        return m.Text(text=dumps_compact(block))

    def blocks(self, content: Any) -> list[m.Block]:
        if isinstance(content, str):
            return [m.Text(text=content)]
        if not isinstance(content, list):
            if content is not None:
                self.kept_as_text += 1
                return [m.Text(text=dumps_compact(content))]
            return []
        return [b for b in (self.block(x) for x in content) if b is not None]


def _result_content(content: Any) -> Any:
    """A result's content as Common holds it: one text block is its text; anything else (several
    blocks, images) stays the JSON value it was."""
    if isinstance(content, list) and len(content) == 1:
        only = content[0]
        if (
            isinstance(only, dict)
            and set(only) == {"type", "text"}
            and only["type"] == "text"
            and isinstance(only["text"], str)
        ):
            return only["text"]
    return content


def _role(message: Any) -> str | None:
    role = message.get("role") if isinstance(message, dict) else None
    return role if role in ("user", "assistant") else None


def _call_id(task_id: str, index: int, position: int) -> str:
    return "call_" + uuid5(NAMESPACE, f"{task_id}/{index}/{position}").replace("-", "")[:24]


def _xml_calls(task: ClineTask, messages: list[Any]) -> dict[int, list[tuple[xmlera.Call, str]]]:
    """Per assistant message index: its markup calls that the next user message answers, each
    with the id it gets."""
    paired: dict[int, list[tuple[xmlera.Call, str]]] = {}
    for index, message in enumerate(messages):
        if _role(message) != "assistant" or index + 1 >= len(messages):
            continue
        following = messages[index + 1]
        if _role(following) != "user":
            continue
        answered = [h[0] for h in (xmlera.header(t) for t in _texts(following.get("content"))) if h]
        calls: list[tuple[xmlera.Call, str]] = []
        for text in _texts(message.get("content")):
            for call in xmlera.calls_in(text):
                if call.name in answered:
                    answered.remove(call.name)
                    calls.append((call, _call_id(task.id, index, len(calls))))
        if calls:
            paired[index] = calls
    return paired


def _assistant_xml(
    reader: _Reader, content: Any, calls: list[tuple[xmlera.Call, str]]
) -> list[m.Block]:
    out: list[m.Block] = []
    pending = list(calls)
    items = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    for item in items:
        text = (
            item
            if isinstance(item, str)
            else item.get("text")
            if isinstance(item, dict) and item.get("type") == "text"
            else None
        )
        if not isinstance(text, str) or not pending:
            block = reader.block(item)
            if block is not None:
                out.append(block)
            continue
        cursor = 0
        for call in xmlera.calls_in(text):
            match = next((p for p in pending if p[0] == call), None)
            if match is None:
                continue
            pending.remove(match)
            before = text[cursor : call.start].strip()
            if before:
                out.append(m.Text(text=before))
            out.append(m.ToolUse(id=match[1], tool=to_tool(call.name, dict(call.params))))
            cursor = call.end
        rest = text[cursor:].strip() if cursor else text
        if rest:
            out.append(m.Text(text=rest))
    return out


def _user_xml(reader: _Reader, content: Any, calls: list[tuple[xmlera.Call, str]]) -> list[m.Block]:
    out: list[m.Block] = []
    waiting = list(calls)
    items = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    result: list[str] | None = None
    result_for: str = ""

    def close() -> None:
        nonlocal result
        if result is not None:
            text = "\n".join(result)
            out.append(
                m.ToolResult(tool_use_id=result_for, content=text, is_error=xmlera.failed(text))
            )
            result = None

    for item in items:
        text = (
            item
            if isinstance(item, str)
            else item.get("text")
            if isinstance(item, dict) and item.get("type") == "text"
            else None
        )
        opened = xmlera.header(text) if isinstance(text, str) else None
        if opened is not None:
            owner = next((w for w in waiting if w[0].name == opened[0]), None)
            if owner is not None:
                close()
                waiting.remove(owner)
                result, result_for = ([opened[1]] if opened[1] else []), owner[1]
                continue
        if (
            result is not None
            and isinstance(text, str)
            and not text.lstrip().startswith("<environment_details>")
        ):
            result.append(text)
            continue
        close()
        block = reader.block(item)
        if block is not None:
            out.append(block)
    close()
    return out


def to_common(task: ClineTask) -> m.Transcript:
    meta = meta_of(task)
    messages = task.api_messages()
    if task.damaged(task.messages_file):
        warn(
            f"{task.id}: {task.messages_file} is damaged (not whole JSON); read the "
            f"{len(messages)} message{'' if len(messages) == 1 else 's'} before the damage"
        )
    elif task.raw(task.messages_file) is not None and not messages:
        raw = task.json(task.messages_file)
        if not (isinstance(raw, list) or (isinstance(raw, dict) and raw.get("messages") == [])):
            warn(f"{task.id}: {task.messages_file} is not a JSON list of messages; read as empty")
    reader = _Reader(task, meta)
    calls = _xml_calls(task, messages) if xmlera.is_xml_era(messages) else {}
    when = meta.timestamp
    skipped = 0
    for index, message in enumerate(messages):
        role = _role(message)
        if role is None:
            skipped += 1
            continue
        when = _ms(message.get("ts")) or when
        content = message.get("content")
        if index in calls:
            blocks = _assistant_xml(reader, content, calls[index])
        elif index - 1 in calls and role == "user":
            blocks = _user_xml(reader, content, calls[index - 1])
        else:
            blocks = reader.blocks(content)
        model = _model_of(message) if role == "assistant" else None
        reader.out.append(
            m.Message(role=role, content=tuple(blocks), timestamp=when, model=model)  # type: ignore[arg-type]
        )
    if skipped:
        warn(
            f"{task.id}: skipped {skipped} history "
            f"{'entry that is not a' if skipped == 1 else 'entries that are not'} user or "
            f"assistant message{'' if skipped == 1 else 's'}"
        )
    if reader.kept_as_text:
        warn(
            f"{task.id}: {reader.kept_as_text} block{'s' if reader.kept_as_text != 1 else ''} "
            "of a kind Common has no place for kept as JSON text"
        )
    return m.Transcript(meta=meta, messages=tuple(reader.out))


# ----------------------------------------------------------------------------------- writing


def _content_block(block: m.Block, flavour: Flavour) -> dict[str, Any]:
    if isinstance(block, m.Text):
        return {"type": "text", "text": block.text}
    if isinstance(block, m.Thinking):
        if block.encrypted is not None and not block.text:
            return {"type": "redacted_thinking", "data": block.encrypted}
        out: dict[str, Any] = {"type": "thinking", "thinking": block.text}
        if block.signature is not None:
            out["signature"] = block.signature
        return out
    if isinstance(block, m.Image):
        source = block.source
        return {
            "type": "image",
            "source": {"type": source.type, "media_type": source.media_type, "data": source.data},
        }
    if isinstance(block, m.ToolUse):
        name, data = from_tool(block.tool, flavour)
        return {"type": "tool_use", "id": block.id, "name": name, "input": data}
    if isinstance(block, m.ToolResult):
        out = {"type": "tool_result", "tool_use_id": block.tool_use_id}
        out["content"] = _write_result(block.content)
        if block.is_error:
            out["is_error"] = True
        return out
    if isinstance(block, m.Artifact):
        return {"type": "text", "text": m.artifact_fallback_text(block)}
    raise AssertionError(f"unknown block {block!r}")


def _write_result(content: Any) -> Any:
    """Text as one text block; Anthropic blocks as they are; any other value as its JSON text
    (a result holds only text and images)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if (
        isinstance(content, list)
        and len(content) != 1
        and all(isinstance(b, dict) and b.get("type") in ("text", "image") for b in content)
    ):
        return content
    return [{"type": "text", "text": dumps_compact(content)}]


def _entry(transcript: m.Transcript, flavour: Flavour, title: str, last_ms: int) -> dict[str, Any]:
    meta = transcript.meta
    tokens_in = sum(x.usage.input_tokens for x in transcript.messages if x.usage is not None)
    tokens_out = sum(x.usage.output_tokens for x in transcript.messages if x.usage is not None)
    entry: dict[str, Any] = {"id": meta.id, "ts": last_ms, "task": title}
    entry |= {"tokensIn": tokens_in, "tokensOut": tokens_out, "totalCost": 0}
    if flavour is CLINE:
        if meta.cwd:
            entry["cwdOnTaskInitialization"] = meta.cwd
    else:
        if meta.cwd:
            entry["workspace"] = meta.cwd
        entry["mode"] = "code"
    if meta.model:
        entry["modelId"] = meta.model
    return entry


def from_common_as(transcript: m.Transcript, flavour: Flavour) -> ClineTask:
    meta = transcript.meta
    started = to_epoch_ms(meta.timestamp)
    history: list[dict[str, Any]] = []
    ui: list[dict[str, Any]] = []
    first_user = next((x for x in transcript.messages if x.role == "user"), None)
    title = meta.title or (m.prompt_title(first_user.content) if first_user else None) or ""
    prompt = (
        "\n\n".join(b.text for b in first_user.content if isinstance(b, m.Text))
        if first_user
        else ""
    )
    ui.append({"ts": started, "type": "say", "say": "task", "text": prompt or title})
    last = started
    for message in transcript.messages:
        when = to_epoch_ms(message.timestamp)
        last = max(last, when)
        record: dict[str, Any] = {
            "role": message.role,
            "content": [_content_block(b, flavour) for b in message.content],
            "ts": when,
        }
        if message.role == "assistant" and message.model:
            record["modelInfo"] = {"modelId": message.model}
        history.append(record)
        text = "\n\n".join(b.text for b in message.content if isinstance(b, m.Text))
        if text and message is not first_user:
            say = "text" if message.role == "assistant" else "user_feedback"
            ui.append({"ts": when, "type": "say", "say": say, "text": text})
    entry = _entry(transcript, flavour, title, last)
    files = {
        API_HISTORY: stringify(history),
        UI_MESSAGES: stringify(ui),
        TASK_METADATA: stringify(
            {"files_in_context": [], "model_usage": [], "environment_history": []}
        ),
    }
    if flavour is not CLINE:
        # Roo's own index; the entry goes into an older release's globalState index too.
        files[HISTORY_ITEM] = stringify(entry)
    return ClineTask(meta.id, tuple(sorted(files.items())), entry, TASK)


def from_common(transcript: m.Transcript) -> ClineTask:
    return from_common_as(transcript, CLINE)


def roo_from_common(transcript: m.Transcript) -> ClineTask:
    return from_common_as(transcript, ROO)


def kilo_task_from_common(transcript: m.Transcript) -> ClineTask:
    return from_common_as(transcript, KILO)
