"""Common → Claude Code: lines ``claude --resume`` loads, synthesised deterministically.

Every message becomes one line (a user message holding slash commands becomes several), chained
by ``parentUuid``, each with the envelope Claude Code writes (``sessionId``, ``cwd``,
``version``, ``gitBranch``, ``isSidechain: false``, ``userType: "external"``, ``timestamp``).
Line uuids are UUIDv5 over the codec's namespace and ``"{session id}:{message}:{line}"``;
nothing reads the clock.

Only shapes Claude Code has been seen to write, and the Messages API accepts on resume:

* call ids are reduced to ``[A-Za-z0-9_-]`` (consistently for a call and its result);
* a result's output stays a block array only when every element is an API block (``text``,
  ``image``, ``document``, ``search_result``, ``browser_state``, ``tool_reference``); other JSON
  becomes compact JSON text;
* a user's ``/command`` is written as ``<command-name>`` markup and its output as
  ``<local-command-stdout>`` (``-stderr`` for an error), never as ``tool_use`` on a user line;
  a result answering no earlier call is written the same way, since an unmatched
  ``tool_result`` stops the session from loading;
* reasoning is written as a ``thinking`` block only with its Anthropic signature (or as
  ``redacted_thinking`` when it is only an encrypted blob); reasoning from other providers
  becomes plain text, because the API rejects thinking blocks it did not sign;
* shapes the API refuses in a role (images, results or thinking on the wrong side, artifacts)
  become readable text.

A title is written as a leading ``summary`` line whose ``leafUuid`` is the last line's uuid: a
leaf naming no line makes Claude Code report the session as missing. When the session's start
differs from its first message's time (a fresh copy is stamped "now"), a leading
``queue-operation`` record (``dequeue``, as Claude Code writes when it takes a prompt) carries
it, since the reader takes the start from the first timestamped record.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from txcript.model import (
    Artifact,
    Block,
    Command,
    Image,
    Message,
    OtherStop,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    artifact_fallback_text,
    render_tool,
)
from txcript.model import Text as TextBlock
from txcript.pairing import answer_open_calls
from txcript.shared.formats.claude_jsonl import envelope
from txcript.shared.formats.claude_jsonl.meta import SYNTHETIC_MODEL
from txcript.shared.formats.claude_jsonl.native import ClaudeSession, session_from_records
from txcript.shared.formats.claude_jsonl.reader import NAMESPACE
from txcript.shared.ids import uuid5
from txcript.shared.jsonutil import dumps_compact
from txcript.shared.timeutil import format_millis

_ID_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")
_NOT_ID = re.compile(r"[^A-Za-z0-9_-]")
#: Block types the Messages API accepts inside ``tool_result.content``.
RESULT_BLOCK_TYPES = frozenset(
    ("text", "image", "document", "search_result", "browser_state", "tool_reference")
)


def _is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value
    except ValueError:
        return False


def result_content(content: Any) -> Any:
    """A result's output as the API accepts it: text, or an array of API blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(item, dict) and item.get("type") in RESULT_BLOCK_TYPES for item in content
    ):
        return content
    return dumps_compact(content)


def _result_text(block: ToolResult) -> str:
    return block.content if isinstance(block.content, str) else dumps_compact(block.content)


def _usage(message: Message) -> dict[str, int]:
    usage = message.usage
    if usage is None:
        return {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens or 0,
        "cache_read_input_tokens": usage.cache_read_input_tokens or 0,
    }


class _CallIds:
    """Call ids reduced to the API's alphabet: stable per original, unique per transcript."""

    def __init__(self, session_id: str, originals: list[str]) -> None:
        self.session_id = session_id
        self.mapped: dict[str, str] = {}
        self.taken: set[str] = set()
        for original in originals:
            if _ID_ALPHABET.fullmatch(original):
                self.mapped[original] = original
                self.taken.add(original)

    def __call__(self, original: str) -> str:
        found = self.mapped.get(original)
        if found is not None:
            return found
        candidate = _NOT_ID.sub("_", original) or "toolu"
        salt = 0
        while candidate in self.taken:
            salt += 1
            digest = uuid5(NAMESPACE, f"{self.session_id}:call:{original}:{salt}")
            candidate = f"{_NOT_ID.sub('_', original) or 'toolu'}_{digest[:8]}"
        self.mapped[original] = candidate
        self.taken.add(candidate)
        return candidate


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        meta = transcript.meta
        self.session_id = meta.id
        self.envelope: dict[str, Any] = {
            "isSidechain": False,
            "userType": "external",
            "sessionId": meta.id,
            "gitBranch": meta.git_branch or "",
        }
        if meta.cwd:
            self.envelope["cwd"] = meta.cwd
        if meta.cli_version:
            self.envelope["version"] = meta.cli_version
        originals: list[str] = []
        #: Ids of the user's slash commands (written as markup; their results too).
        self.commands: set[str] = set()
        for message in transcript.messages:
            for block in message.content:
                if isinstance(block, ToolUse):
                    originals.append(block.id)
                    if message.role == "user" and isinstance(block.tool, Command):
                        self.commands.add(block.id)
                elif isinstance(block, ToolResult):
                    originals.append(block.tool_use_id)
        #: UUID-shaped call ids: a command's (or an orphan output's) line takes its id as uuid,
        #: so synthesised uuids avoid them all.
        self.reserved = {i for i in originals if _is_uuid(i)}
        self.call_id = _CallIds(meta.id, originals)
        #: Ids of calls already written as ``tool_use`` on an assistant line.
        self.calls: set[str] = set()
        self.records: list[dict[str, Any]] = []
        self.used: set[str] = set()
        self.parent: str | None = None

    # -- lines ------------------------------------------------------------------------------
    def line_uuid(self, i: int, j: int, wanted: str | None = None) -> str:
        if wanted is not None and wanted not in self.used:
            return wanted
        candidate = uuid5(NAMESPACE, f"{self.session_id}:{i}:{j}")
        salt = 0
        while candidate in self.used or candidate in self.reserved:
            salt += 1
            candidate = uuid5(NAMESPACE, f"{self.session_id}:{i}:{j}:{salt}")
        return candidate

    def add(self, kind: str, body: dict[str, Any], message: Message, line_id: str) -> None:
        record = {
            "parentUuid": self.parent,
            **self.envelope,
            "type": kind,
            "message": body,
            "uuid": line_id,
            "timestamp": format_millis(message.timestamp),
        }
        self.used.add(line_id)
        self.records.append(record)
        self.parent = line_id

    # -- messages ---------------------------------------------------------------------------
    def write(self) -> ClaudeSession:
        for i, message in enumerate(self.transcript.messages):
            if message.role == "assistant":
                self.assistant(i, message)
            else:
                self.user(i, message)
        meta = self.transcript.meta
        head: list[dict[str, Any]] = []
        if meta.title and self.records:
            head.append({"type": "summary", "summary": meta.title, "leafUuid": self.parent})
        start = format_millis(meta.timestamp)
        if not self.records or self.records[0]["timestamp"] != start:
            # The session started before (or, for a fresh copy, after) its first message: keep
            # that instant on the bookkeeping record Claude Code writes when a prompt is taken.
            head.append(
                {
                    "type": "queue-operation",
                    "operation": "dequeue",
                    "timestamp": start,
                    "sessionId": self.session_id,
                }
            )
        return session_from_records(self.session_id, [*head, *self.records])

    def assistant(self, i: int, message: Message) -> None:
        content = [b for b in (self.assistant_block(block) for block in message.content) if b]
        reason = message.stop_reason
        body: dict[str, Any] = {
            "id": "msg_" + uuid5(NAMESPACE, f"{self.session_id}:{i}:message").replace("-", ""),
            "type": "message",
            "role": "assistant",
        }
        # Claude Code needs a model on every assistant line (a resume without one hangs instead
        # of reporting that it is not logged in); ``<synthetic>`` is its own "no model" marker.
        body["model"] = message.model or SYNTHETIC_MODEL
        body["content"] = content
        body["stop_reason"] = reason.other if isinstance(reason, OtherStop) else reason
        body["stop_sequence"] = None
        body["usage"] = _usage(message)
        self.add("assistant", body, message, self.line_uuid(i, 0))
        for block in message.content:
            if isinstance(block, ToolUse):
                self.calls.add(block.id)

    def assistant_block(self, block: Block) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return {"type": "text", "text": block.text}
        if isinstance(block, Thinking):
            if block.signature is not None:
                return {"type": "thinking", "thinking": block.text, "signature": block.signature}
            if block.encrypted is not None and not block.text:
                return {"type": "redacted_thinking", "data": block.encrypted}
            return {"type": "text", "text": block.text} if block.text else None
        if isinstance(block, ToolUse):
            name, tool_input = render_tool(block.tool)
            return {
                "type": "tool_use",
                "id": self.call_id(block.id),
                "name": name,
                "input": tool_input,
            }
        return {"type": "text", "text": self.as_text(block)}

    def as_text(self, block: Block) -> str:
        """Readable text for a block the role cannot carry."""
        if isinstance(block, TextBlock | Thinking):
            return block.text
        if isinstance(block, ToolResult):
            return _result_text(block)
        if isinstance(block, Image):
            return f"[image {block.source.media_type} omitted]"
        if isinstance(block, Artifact):
            return artifact_fallback_text(block)
        name, tool_input = render_tool(block.tool)
        return f"[tool {name}] {dumps_compact(tool_input)}"

    def is_output(self, block: Block) -> bool:
        """Is this result written as command-output markup (a command's, or answering nothing)?"""
        if not isinstance(block, ToolResult):
            return False
        return block.tool_use_id in self.commands or block.tool_use_id not in self.calls

    def user(self, i: int, message: Message) -> None:
        segments: list[list[Block]] = []
        regular: list[Block] = []
        for block in message.content:
            command = isinstance(block, ToolUse) and isinstance(block.tool, Command)
            if command or self.is_output(block):
                if regular:
                    segments.append(regular)
                    regular = []
                segments.append([block])
            else:
                regular.append(block)
        if regular or not segments:
            segments.append(regular)
        for j, segment in enumerate(segments):
            self.user_line(i, j, message, segment)

    def user_line(self, i: int, j: int, message: Message, segment: list[Block]) -> None:
        only = segment[0] if len(segment) == 1 else None
        if isinstance(only, ToolUse) and isinstance(only.tool, Command):
            text = envelope.render_command(only.tool.command, only.tool.args)
            line_id = self.line_uuid(i, j, only.id if only.id in self.reserved else None)
            self.add("user", {"role": "user", "content": text}, message, line_id)
            return
        if only is not None and self.is_output(only):
            assert isinstance(only, ToolResult)
            text = envelope.render_output(_result_text(only), only.is_error)
            orphan = only.tool_use_id not in self.commands and _is_uuid(only.tool_use_id)
            line_id = self.line_uuid(i, j, only.tool_use_id if orphan else None)
            self.add("user", {"role": "user", "content": text}, message, line_id)
            return
        content: Any
        if isinstance(only, TextBlock) and envelope.sections(only.text) is None:
            # A prompt that would read back as markup is written as a block array instead.
            content = only.text
        else:
            content = [b for b in (self.user_block(block) for block in segment) if b]
        self.add("user", {"role": "user", "content": content}, message, self.line_uuid(i, j))

    def user_block(self, block: Block) -> dict[str, Any] | None:
        if isinstance(block, TextBlock):
            return {"type": "text", "text": block.text}
        if isinstance(block, Image):
            source = block.source
            return {
                "type": "image",
                "source": {
                    "type": source.type,
                    "media_type": source.media_type,
                    "data": source.data,
                },
            }
        if isinstance(block, ToolResult):
            out: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": self.call_id(block.tool_use_id),
                "content": result_content(block.content),
            }
            if block.is_error:
                out["is_error"] = True
            return out
        if isinstance(block, Thinking) and not block.text:
            return None
        return {"type": "text", "text": self.as_text(block)}


def from_common(transcript: Transcript) -> ClaudeSession:
    return _Writer(answer_open_calls(transcript)).write()
