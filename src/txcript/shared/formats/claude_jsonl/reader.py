"""Claude Code → Common: follow the active branch of the ``parentUuid`` chain and map its turns.

* **Chain.** Every record with a ``uuid`` and a ``parentUuid`` key is a node (conversation lines,
  but also ``system``, ``attachment`` and ``progress`` records, which other lines may hang
  from). The active branch is the chain ending at the last turn record (a ``user``/``assistant``
  line, or a newer CLI's ``local_command`` record) that is not a sidechain; rewinds and edits
  leave other branches behind, and sidechains (subagent turns written into the main file by
  older CLIs) are never part of it. A compaction boundary (``parentUuid: null`` with
  ``logicalParentUuid``) continues into the history before it. A record with no ``parentUuid``
  key at all (hand-written files) hangs from the previous node.
* **Parallel calls.** One response is written one content block per line, chained A1 ← A2 ← A3
  under one ``message.id``; each result hangs from its call's line, in completion order, and
  the next turn from the last result written, so the walk back reaches one call of the batch.
  The branch is therefore closed under: an assistant line whose parent is on it and whose
  ``message.id`` is that of an assistant line on it, and a user line whose parent is on it that
  holds only results answering calls on it (repeated until nothing is added; file order kept).
* **Turns.** ``assistant`` lines of one streamed response share ``message.id`` and are merged into
  one message (model of the first, stop reason and usage of the last that has one), even when
  results of its earlier calls were written between them. Lines holding only results for the
  open response's calls are gathered into one user message after it (in call order when they
  came from several lines). Other ``user`` lines map one to one. A call with no result while
  the conversation goes on gets one warning per session naming it (:mod:`txcript.pairing`).
* **Slash commands.** A user line (or a ``system``/``local_command`` record) whose body is
  ``<command-name>`` markup becomes a user message holding a :class:`~txcript.model.Command`,
  under the record's uuid as call id; the ``<local-command-stdout>`` record, or the ``isMeta``
  prompt expansion, that immediately follows is its result. Output with no command before it is
  an orphan result under its own record's uuid. The ``<local-command-caveat>`` boilerplate is
  dropped.
* **Spilled output.** A result whose record points at ``tool-results/<file>`` (through
  ``toolUseResult.persistedOutputPath``, or a ``<persisted-output>`` notice naming the file) gets
  that file's full text when the body carries it (a stored session). Otherwise (the session file
  read on its own, as a document) a ``<persisted-output>`` preview gives way to the record's own
  ``toolUseResult.content`` when that holds longer text: the same full output by either path.

Lines that are not JSON objects, and blocks nothing here models (``document``, server tool
blocks, …), are left out with a warning naming the line; they stay in the native body.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

import msgspec

from txcript.diagnostics import warn
from txcript.model import (
    STOP_REASONS,
    Block,
    Command,
    Image,
    ImageSource,
    Message,
    Meta,
    OtherStop,
    StopReason,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    type_tool,
)
from txcript.pairing import describe_unanswered
from txcript.shared.formats.claude_jsonl import envelope
from txcript.shared.formats.claude_jsonl.meta import CONVERSATION, MetaScan, message_model
from txcript.shared.formats.claude_jsonl.native import ClaudeSession, SideFile, parse_lines
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import INVALID, is_uint
from txcript.shared.timeutil import parse_rfc3339

#: The UUIDv5 namespace of every id the Claude Code codec mints (16 ASCII bytes).
NAMESPACE = namespace_from_ascii(b"txcript-claude!!")

Numbered = tuple[int, dict[str, Any]]


@functools.cache
def _persisted() -> re.Pattern[str]:
    """The side file a ``<persisted-output>`` notice names (compiled when a notice is met)."""
    return re.compile(r"tool-results[\\/]([^\s\\/<>\"'`]+)")


# ------------------------------------------------------------------------------------ chain


def _is_turn(record: dict[str, Any]) -> bool:
    """Does the record carry a turn (a conversation line, or a newer CLI's command record)?"""
    kind = record.get("type")
    return kind in CONVERSATION or (kind == "system" and record.get("subtype") == "local_command")


def _is_node(record: dict[str, Any]) -> bool:
    if record.get("type") in CONVERSATION:
        return True
    return isinstance(record.get("uuid"), str) and "parentUuid" in record


def active_path(records: list[Numbered]) -> list[Numbered]:
    """The records of the active branch, root first."""
    nodes = [item for item in records if _is_node(item[1])]
    position: dict[str, int] = {}
    for index, (_, record) in enumerate(nodes):
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            position.setdefault(uuid, index)
    turns = [i for i, (_, record) in enumerate(nodes) if _is_turn(record)]
    if not turns:
        return []
    main = [i for i in turns if nodes[i][1].get("isSidechain") is not True]
    leaf = main[-1] if main else turns[-1]

    def parent(index: int) -> int | None:
        record = nodes[index][1]
        if "parentUuid" not in record:
            return index - 1 if index > 0 else None
        link = record["parentUuid"]
        if link is None:
            link = record.get("logicalParentUuid")
        return position.get(link) if isinstance(link, str) else None

    branch: set[int] = set()
    current: int | None = leaf
    while current is not None and current not in branch:
        branch.add(current)
        current = parent(current)
    _close_over_batches(nodes, branch, parent)
    return [nodes[index] for index in sorted(branch)]


def _response_id(record: dict[str, Any]) -> str | None:
    message = record.get("message")
    value = message.get("id") if isinstance(message, dict) else None
    return value if isinstance(value, str) and value else None


def _call_ids(record: dict[str, Any]) -> list[str]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [
        block["id"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("id"), str)
    ]


def _answers_only(record: dict[str, Any], calls: set[str]) -> bool:
    """Does this user line hold only ``tool_result`` blocks, each answering one of ``calls``?"""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not content:
        return False
    return all(
        isinstance(block, dict)
        and block.get("type") == "tool_result"
        and block.get("tool_use_id") in calls
        for block in content
    )


def _close_over_batches(
    nodes: list[Numbered], branch: set[int], parent: Callable[[int], int | None]
) -> None:
    """Add the parallel-call lines the ``parentUuid`` walk misses (in place).

    One response with several calls is written as a chain of assistant lines sharing
    ``message.id``, each result hanging from the line of its call, and the next turn from the
    last result written; the walk back from the leaf passes through one call of the batch only.
    The branch is closed under: an assistant line whose parent is on it and whose ``message.id``
    is that of an assistant line on it; a user line whose parent is on it and that holds only
    results answering calls on it. Sidechain lines never join; a rewind's abandoned turns do
    not qualify (another response id, or a prompt rather than results).
    """
    responses: set[str] = set()
    calls: set[str] = set()
    for index in branch:
        record = nodes[index][1]
        if record.get("type") == "assistant":
            response = _response_id(record)
            if response is not None:
                responses.add(response)
            calls.update(_call_ids(record))
    if not calls and not responses:
        return
    added = True
    while added:
        added = False
        for index, (_, record) in enumerate(nodes):
            if index in branch or record.get("isSidechain") is True:
                continue
            kind = record.get("type")
            if kind not in CONVERSATION:
                continue
            up = parent(index)
            if up is None or up not in branch:
                continue
            if kind == "assistant":
                if _response_id(record) not in responses:
                    continue
                calls.update(_call_ids(record))
            elif not _answers_only(record, calls):
                continue
            branch.add(index)
            added = True


# ----------------------------------------------------------------------------------- values


def _stop_reason(value: Any) -> StopReason | None:
    if not isinstance(value, str):
        return None
    if value in STOP_REASONS:
        return value  # type: ignore[return-value]
    return OtherStop(other=value)


def _cache(value: Any) -> int | None:
    return value if is_uint(value) and value > 0 else None


def _usage(value: Any) -> Usage | None:
    """Token counts; a zero cache count is absent, and an all-zero usage is no usage."""
    if not isinstance(value, dict):
        return None
    fresh, out = value.get("input_tokens"), value.get("output_tokens")
    if not (isinstance(fresh, int) and isinstance(out, int) and is_uint(fresh) and is_uint(out)):
        return None
    usage = Usage(
        input_tokens=fresh,
        output_tokens=out,
        cache_read_input_tokens=_cache(value.get("cache_read_input_tokens")),
        cache_creation_input_tokens=_cache(value.get("cache_creation_input_tokens")),
    )
    if usage == Usage(input_tokens=0, output_tokens=0):
        return None
    return usage


def _result_content(value: Any) -> Any:
    """A result's output: text as is, a lone text block as its text, other JSON untouched."""
    if isinstance(value, list) and len(value) == 1:
        only = value[0]
        if (
            isinstance(only, dict)
            and set(only) == {"type", "text"}
            and only["type"] == "text"
            and isinstance(only["text"], str)
        ):
            return only["text"]
    return value


def _declared_text(declared: Any) -> str | None:
    """The output text a record's ``toolUseResult`` holds: itself as a string, or its
    ``content`` as a string or as text blocks; None for anything else (a Write's payload, …)."""
    if isinstance(declared, dict):
        return _joined_text(declared.get("content"))
    return declared if isinstance(declared, str) else None


def _image(block: dict[str, Any]) -> Image | None:
    source = block.get("source")
    if not isinstance(source, dict):
        return None
    kind, media_type, data = source.get("type"), source.get("media_type"), source.get("data")
    if not isinstance(kind, str) or not isinstance(media_type, str) or not isinstance(data, str):
        return None
    return Image(source=ImageSource(type=kind, media_type=media_type, data=data))


def _joined_text(content: Any) -> str | None:
    """A body's text when it is a string or made only of text blocks, else None."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text":
            return None
        text = block.get("text")
        if not isinstance(text, str):
            return None
        parts.append(text)
    return "\n".join(parts)


# ---------------------------------------------------------------------------------- builder


class _Batch(msgspec.Struct):
    """The assistant response being built, and the result lines answering its calls so far."""

    response: str | None
    calls: list[str]
    results: list[tuple[datetime, list[Block]]] = msgspec.field(default_factory=list)

    def answered_by(self, blocks: list[Block]) -> bool:
        return bool(blocks) and all(
            isinstance(b, ToolResult) and b.tool_use_id in self.calls for b in blocks
        )


class _Builder:
    """One pass over the active branch, emitting Common messages."""

    def __init__(self, session: ClaudeSession, meta: Meta) -> None:
        self.messages: list[Message] = []
        self.last_timestamp: datetime = meta.timestamp
        #: The call id of a command whose output has not been seen, if it is the last message.
        self.pending: str | None = None
        #: The response the last message was built from, while its results are gathered.
        self.batch: _Batch | None = None
        self.spilled = {
            side.path[len("tool-results/") :]: side
            for side in session.side_files
            if side.path.startswith("tool-results/")
        }

    # -- helpers ----------------------------------------------------------------------------
    def stamp(self, record: dict[str, Any]) -> datetime:
        parsed = parse_rfc3339(record.get("timestamp"))
        if parsed is not None:
            self.last_timestamp = parsed
        return self.last_timestamp

    def record_id(self, number: int, record: dict[str, Any]) -> str:
        uuid = record.get("uuid")
        return uuid if isinstance(uuid, str) and uuid else uuid5(NAMESPACE, f"line:{number}")

    def emit(self, message: Message, response: str | None = None) -> None:
        self.flush()
        self.messages.append(message)
        self.pending = None
        if message.role == "assistant":
            calls = [b.id for b in message.content if isinstance(b, ToolUse)]
            self.batch = _Batch(response, calls)

    def flush(self) -> None:
        """Emit the gathered results of the open response as one user message.

        Results gathered from several lines (a parallel batch, written in completion order) are
        put in call order, the order the API expects them in.
        """
        batch, self.batch = self.batch, None
        if batch is None or not batch.results:
            return
        blocks = [block for _, line in batch.results for block in line]
        if len(batch.results) > 1:
            order = {call: i for i, call in enumerate(batch.calls)}
            blocks.sort(key=lambda b: order[b.tool_use_id] if isinstance(b, ToolResult) else 0)
        first = batch.results[0][0]
        self.messages.append(Message(role="user", content=tuple(blocks), timestamp=first))
        self.pending = None

    # -- records ----------------------------------------------------------------------------
    def build(self, path: list[Numbered]) -> list[Message]:
        for number, record in path:
            kind = record.get("type")
            if kind == "assistant":
                self.assistant(number, record)
            elif kind == "user":
                self.user(number, record)
            elif kind == "system" and record.get("subtype") == "local_command":
                body = record.get("content")
                markup = envelope.parse(body) if isinstance(body, str) else None
                if markup is not None:
                    self.markup(number, record, markup)
        self.flush()
        return self.messages

    def assistant(self, number: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            warn(f"claude_code line {number}: assistant record has no message object; skipped")
            return
        blocks = self.blocks(number, message.get("content"), "assistant")
        timestamp = self.stamp(record)
        # ``<synthetic>`` is Claude Code's "no model produced this"; Common says that with None
        # (and the writer says it back with ``<synthetic>``, so the two map one to one).
        model = message_model(record)
        stop = _stop_reason(message.get("stop_reason"))
        usage = _usage(message.get("usage"))
        response = message.get("id") if isinstance(message.get("id"), str) else None
        batch = self.batch
        if response and batch is not None and response == batch.response:
            # Another line of the same response, possibly after results of its earlier calls.
            previous = self.messages[-1]
            batch.calls.extend(b.id for b in blocks if isinstance(b, ToolUse))
            self.messages[-1] = Message(
                role="assistant",
                content=previous.content + tuple(blocks),
                timestamp=previous.timestamp,
                model=previous.model if previous.model is not None else model,
                stop_reason=stop if stop is not None else previous.stop_reason,
                usage=usage if usage is not None else previous.usage,
            )
            return
        self.emit(
            Message(
                role="assistant",
                content=tuple(blocks),
                timestamp=timestamp,
                model=model,
                stop_reason=stop,
                usage=usage,
            ),
            response or None,
        )

    def user(self, number: int, record: dict[str, Any]) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            warn(f"claude_code line {number}: user record has no message object; skipped")
            return
        content = message.get("content")
        if isinstance(content, str) and "<" in content:
            markup = envelope.parse(content)
            if markup is not None:
                self.markup(number, record, markup)
                return
        if record.get("isMeta") is True and self.pending is not None:
            expansion = _joined_text(content)
            if expansion is not None:
                self.result(record, self.pending, expansion, False)
                return
        if isinstance(content, str):
            blocks: list[Block] = [Text(text=content)]
        elif isinstance(content, list):
            blocks = self.blocks(number, content, "user")
            if content and not blocks:
                return
            blocks = self.inline_spilled(record, blocks)
            if self.batch is not None and self.batch.answered_by(blocks):
                self.batch.results.append((self.stamp(record), blocks))
                return
        else:
            warn(f"claude_code line {number}: user message content is not text or blocks; skipped")
            return
        self.emit(Message(role="user", content=tuple(blocks), timestamp=self.stamp(record)))

    def markup(self, number: int, record: dict[str, Any], markup: envelope.Envelope) -> None:
        if markup.caveat_only:
            return
        if markup.command is not None:
            call_id = self.record_id(number, record)
            use = ToolUse(id=call_id, tool=Command(command=markup.command, args=markup.args))
            self.emit(Message(role="user", content=(use,), timestamp=self.stamp(record)))
            self.pending = call_id
        if markup.output is not None:
            call_id = self.pending if self.pending is not None else self.record_id(number, record)
            self.result(record, call_id, markup.output, markup.is_error)

    def result(self, record: dict[str, Any], call_id: str, output: str, is_error: bool) -> None:
        block = ToolResult(tool_use_id=call_id, content=output, is_error=is_error)
        self.emit(Message(role="user", content=(block,), timestamp=self.stamp(record)))

    # -- blocks -----------------------------------------------------------------------------
    def blocks(self, number: int, content: Any, role: str) -> list[Block]:
        if isinstance(content, str):
            return [Text(text=content)]
        if not isinstance(content, list):
            if content is not None:
                warn(f"claude_code line {number}: {role} content is not text or blocks; left out")
            return []
        out: list[Block] = []
        skipped: list[str] = []
        for raw in content:
            block = self.block(raw)
            if block is None:
                kind = raw.get("type") if isinstance(raw, dict) else None
                skipped.append(str(kind) if isinstance(kind, str) else "malformed")
            else:
                out.append(block)
        if skipped:
            warn(
                f"claude_code line {number}: {role} content blocks not modelled, left out: "
                + ", ".join(skipped)
            )
        return out

    def block(self, raw: Any) -> Block | None:
        if not isinstance(raw, dict):
            return None
        kind = raw.get("type")
        if kind == "text":
            text = raw.get("text")
            return Text(text=text) if isinstance(text, str) else None
        if kind == "thinking":
            text, signature = raw.get("thinking"), raw.get("signature")
            return Thinking(
                text=text if isinstance(text, str) else "",
                signature=signature if isinstance(signature, str) else None,
            )
        if kind == "redacted_thinking":
            data = raw.get("data")
            return Thinking(text="", encrypted=data) if isinstance(data, str) else None
        if kind == "tool_use":
            name, call_id = raw.get("name"), raw.get("id")
            if not isinstance(name, str) or not isinstance(call_id, str):
                return None
            return ToolUse(id=call_id, tool=type_tool(name, raw.get("input", {})))
        if kind == "tool_result":
            call_id = raw.get("tool_use_id")
            if not isinstance(call_id, str):
                return None
            return ToolResult(
                tool_use_id=call_id,
                content=_result_content(raw.get("content", "")),
                is_error=raw.get("is_error") is True,
            )
        if kind == "image":
            return _image(raw)
        return None

    # -- spilled tool output ----------------------------------------------------------------
    def inline_spilled(self, record: dict[str, Any], blocks: list[Block]) -> list[Block]:
        results = [i for i, b in enumerate(blocks) if isinstance(b, ToolResult)]
        if not results:
            return blocks
        out = list(blocks)
        declared = record.get("toolUseResult")
        path = declared.get("persistedOutputPath") if isinstance(declared, dict) else None
        spilled_here: set[int] = set()
        if isinstance(path, str):
            side = self.spilled.get(re.split(r"[\\/]", path)[-1])
            if side is None:
                spilled_here.update(results if len(results) == 1 else ())
            else:
                target = self._target(out, results, side)
                if target is not None:
                    out[target] = self._with_text(out[target], side)
        for i in results:
            block = out[i]
            assert isinstance(block, ToolResult)
            if isinstance(block.content, str) and block.content.lstrip().startswith(
                "<persisted-output>"
            ):
                found = _persisted().search(block.content)
                side = self.spilled.get(found.group(1)) if found else None
                if side is not None:
                    out[i] = self._with_text(block, side)
                else:
                    spilled_here.add(i)
        # Without the side file (a session file read as a document), the record's own copy of
        # the full output, when it holds one: the same text as through the store.
        full = _declared_text(declared) if len(results) == 1 else None
        for i in spilled_here:
            block = out[i]
            assert isinstance(block, ToolResult)
            shown = block.content if isinstance(block.content, str) else ""
            if full is not None and len(full) > len(shown):
                out[i] = ToolResult(
                    tool_use_id=block.tool_use_id, content=full, is_error=block.is_error
                )
        return out

    @staticmethod
    def _target(blocks: list[Block], results: list[int], side: SideFile) -> int | None:
        if len(results) == 1:
            return results[0]
        stem = side.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for i in results:
            block = blocks[i]
            if isinstance(block, ToolResult) and block.tool_use_id == stem:
                return i
        return None

    @staticmethod
    def _with_text(block: Block, side: SideFile) -> Block:
        assert isinstance(block, ToolResult)
        text = side.data.decode("utf-8", errors="replace")
        return ToolResult(tool_use_id=block.tool_use_id, content=text, is_error=block.is_error)


# --------------------------------------------------------------------------------- entry point


def scan(session: ClaudeSession, *, warn_lines: bool = False) -> tuple[MetaScan, list[Numbered]]:
    """Every JSON-object record in file order, and the metadata they give."""
    meta_scan = MetaScan(session.session_id)
    records: list[Numbered] = []
    for number, line in enumerate(session.lines, start=1):
        value = line.value
        if not isinstance(value, dict):
            if warn_lines and line.text.strip():
                what = "not valid JSON" if value is INVALID else "not a JSON object"
                warn(f"claude_code line {number}: {what}; skipped")
            continue
        meta_scan.feed(value)
        records.append((number, value))
    return meta_scan, records


@without_gc
def to_common(session: ClaudeSession) -> Transcript:
    meta_scan, records = scan(session, warn_lines=True)
    meta = meta_scan.meta()
    messages = _Builder(session, meta).build(active_path(records))
    unanswered = describe_unanswered("claude_code", meta.id, messages)
    if unanswered is not None:
        warn(unanswered)
    return Transcript(meta=meta, messages=tuple(messages))


def subagents(session: ClaudeSession) -> dict[str, Transcript]:
    """Each subagent transcript carried in the body (``subagents/*.jsonl``), by file name stem.

    Subagent turns are not part of the main conversation (the parent sees only the final report,
    as the Task call's result); this gives them to callers that want to show them.
    """
    out: dict[str, Transcript] = {}
    for side in session.side_files:
        if side.path.startswith("subagents/") and side.path.endswith(".jsonl"):
            lines, final = parse_lines(side.data.decode("utf-8", errors="surrogateescape"))
            stem = side.path.rsplit("/", 1)[-1][: -len(".jsonl")]
            out[stem] = to_common(ClaudeSession("", lines, final))
    return out
