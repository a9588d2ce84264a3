"""Antigravity conversation ↔ Common: the ``steps`` rows in ``idx`` order, one step at a time.

**Reading** (:mod:`.steps` decodes each row):

* ``USER_INPUT`` → a user message: its text items (or the query), the user's answer to a
  question of the agent, and its images. An input that is a model switch
  (``<USER_SETTINGS_CHANGE>``) is bookkeeping, not a prompt.
* ``PLANNER_RESPONSE`` → an assistant message: thinking (with its signature), text, the tool
  calls, the stop reason; the metadata gives its time, usage and model. Planner steps that
  follow one another at the very same instant are one message (how a writer keeps a message
  whose blocks come in an order one step cannot hold, such as text after calls).
* a tool step (``RUN_COMMAND``, ``VIEW_FILE``, ``GENERIC``, …) → the result of the call its
  metadata names: consecutive tool steps are one user message. Status ``7`` (error) and ``6``
  (canceled) are ``is_error``; ``1`` (pending) is a call still running, with no result yet. A
  tool step whose call the planner did not list gets that call first, so no result is without
  its call.
* checkpoints, the replayed history, system prompts and ephemeral notices are bookkeeping (the
  newest checkpoint's title is the session's title); a step of a type not known, or whose blobs
  are not protobuf, is left out with one warning that counts them.

Session metadata: the ``main`` metadata blob's start time, workspace (cwd) and git branch; the
title of the newest checkpoint, else the one txcript kept for a copy it wrote (:data:`TITLE_ROW`),
else the first prompt's first line; the model of the first planner step
(:func:`.steps.model_name`: the number is kept when no name is known).

**Writing** builds the same steps: one ``USER_INPUT`` per run of prompt blocks, one
``PLANNER_RESPONSE`` per run of thinking → text → calls of an assistant message, one tool step
per result (``RUN_COMMAND`` for Bash, ``VIEW_FILE`` for Read, ``GENERIC`` otherwise, each naming
its call), with the ``trajectory_meta`` row, the ``main`` blob, the title row and the brain
folder's display mirrors. Tool calls are written under their Common name and input. Everything
is derived from the transcript: ids are UUIDv5 over the codec's namespace, nothing reads the
clock.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.harnesses.antigravity import steps as st
from txcript.harnesses.antigravity.native import (
    MIRRORS,
    SCHEMA,
    STEP_COLUMNS,
    USER_VERSION,
    BrainFile,
    Cell,
    Conversation,
    Table,
)
from txcript.model import (
    STOP_REASONS,
    Artifact,
    Bash,
    Block,
    Command,
    Image,
    ImageSource,
    Message,
    Meta,
    OtherStop,
    Read,
    StopReason,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    artifact_fallback_text,
    prompt_title,
    render_tool,
    type_tool,
)
from txcript.pairing import answer_open_calls, describe_unanswered
from txcript.shared import protobuf as pb
from txcript.shared.fileuri import file_uri, path_from_file_uri
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import INVALID, dumps_compact, try_loads
from txcript.shared.timeutil import EPOCH, format_rfc3339

HARNESS = "antigravity"
#: The UUIDv5 namespace of every id this codec mints (16 ASCII bytes).
NAMESPACE = namespace_from_ascii(b"txcript-agy-cli!")
#: What the CLI writes in ``trajectory_meta`` for a conversation of its own.
TRAJECTORY_TYPE, TRAJECTORY_SOURCE = 4, 17
#: The ``trajectory_metadata_blob`` row txcript keeps a copy's title in: a row of its own (the CLI
#: reads the ``main`` row), since the only title slot of the format, a checkpoint step, is also
#: a summary of the history for the model.
TITLE_ROW = "txcript-title"
#: A user input that only says the model was switched.
SETTINGS_CHANGE = "<USER_SETTINGS_CHANGE>"


# ------------------------------------------------------------------------------------ reading


@dataclass
class _Decoded:
    steps: list[st.Step] = field(default_factory=list)
    broken: int = 0
    unknown: dict[int | None, int] = field(default_factory=dict)


def _label(conversation: Conversation) -> str:
    return f"antigravity conversation {conversation.conversation_id or '(unnamed)'}"


def _step_order(row: dict[str, Cell]) -> int:
    index = row.get("idx")
    return index if type(index) is int else 0


def _decode(conversation: Conversation, *, report: bool) -> _Decoded:
    out = _Decoded()
    table = conversation.table("steps")
    if table is None:
        return out
    for row in sorted(table.records(), key=_step_order):
        try:
            out.steps.append(st.decode_step(row))
        except pb.WireError:
            out.broken += 1
    if report and out.broken:
        warn(f"{_label(conversation)}: {out.broken} step(s) are not protobuf; left out")
    return out


def _metadata_row(conversation: Conversation, key: str) -> bytes | None:
    table = conversation.table("trajectory_metadata_blob")
    if table is None:
        return None
    for record in table.records():
        data = record.get("data")
        if record.get("id", "main") == key and isinstance(data, bytes):
            return data
    return None


def _main_blob(conversation: Conversation) -> list[pb.Field]:
    data = _metadata_row(conversation, "main")
    if data is None:
        return []
    try:
        return pb.decode(data)
    except pb.WireError:
        return []


def _written_title(conversation: Conversation) -> tuple[bool, str | None]:
    """The title txcript kept for a copy it wrote (its own :data:`TITLE_ROW`): ``(True, title)``
    when the row is there (an empty title is none), ``(False, None)`` when not."""
    data = _metadata_row(conversation, TITLE_ROW)
    if data is None:
        return False, None
    return True, data.decode("utf-8", "surrogateescape") or None


def _cascade_id(conversation: Conversation) -> str | None:
    table = conversation.table("trajectory_meta")
    if table is None:
        return None
    for record in table.records():
        cascade = record.get("cascade_id")
        if isinstance(cascade, str) and cascade:
            return cascade
    return None


def _cwd(blob: list[pb.Field]) -> str | None:
    """The workspace: the literal cwd field as written, else the workspace URI's path (a URI
    lower-cases a drive letter, so the literal one is preferred)."""
    literal = st.text(blob, st.BLOB_CWD)
    if literal:
        return literal
    workspace = st.message(blob, st.BLOB_WORKSPACE)
    uri = st.text(workspace, st.WORKSPACE_URI) if workspace is not None else None
    return path_from_file_uri(uri) if uri else None


def _is_settings_change(step: st.Step) -> bool:
    query = st.text(step.payload, st.INPUT_QUERY)
    return query is not None and query.lstrip().startswith(SETTINGS_CHANGE)


def _user_blocks(step: st.Step) -> list[Block]:
    payload = step.payload
    blocks: list[Block] = []
    items = [st.text(item, st.ITEM_TEXT) for item in st.messages(payload, st.INPUT_ITEMS)]
    if items:
        blocks.extend(Text(text=item) for item in items if item is not None)
    else:
        query = st.text(payload, st.INPUT_QUERY)
        if query is not None:
            blocks.append(Text(text=query))
    response = st.text(payload, st.INPUT_RESPONSE)
    if response is not None:
        blocks.append(Text(text=response))
    for image in st.messages(payload, st.INPUT_IMAGES):
        data = st.raw(image, st.IMAGE_DATA) or b""
        media_type = st.text(image, st.IMAGE_MIME) or "application/octet-stream"
        encoded = base64.b64encode(data).decode("ascii")
        blocks.append(Image(source=ImageSource(type="base64", media_type=media_type, data=encoded)))
    return blocks


def _title(conversation: Conversation, decoded: _Decoded) -> str | None:
    found = None
    for step in decoded.steps:
        if step.kind == st.CHECKPOINT:
            for number in st.CHECKPOINT_TITLES:
                title = st.text(step.payload, number)
                if title:
                    found = title
                    break
    if found is not None:
        return found
    kept, title = _written_title(conversation)
    if kept:
        return title
    for step in decoded.steps:
        if step.kind == st.USER_INPUT and not _is_settings_change(step):
            return prompt_title(_user_blocks(step))
    return None


def _meta(conversation: Conversation, decoded: _Decoded) -> Meta:
    blob = _main_blob(conversation)
    started = st.timestamp(st.message(blob, st.BLOB_CREATED))
    if started is None:
        started = next((s.timestamp for s in decoded.steps if s.timestamp is not None), None)
    workspace = st.message(blob, st.BLOB_WORKSPACE)
    branch = st.text(workspace, st.WORKSPACE_BRANCH) if workspace is not None else None
    model = next(
        (s.model for s in decoded.steps if s.kind == st.PLANNER_RESPONSE and s.model is not None),
        None,
    )
    return Meta(
        id=conversation.conversation_id
        or _cascade_id(conversation)
        or st.text(blob, st.BLOB_ID)
        or "",
        timestamp=started or EPOCH,
        cwd=_cwd(blob),
        git_branch=branch or None,
        title=_title(conversation, decoded),
        model=None if model is None else st.model_name(model),
    )


def meta_of(conversation: Conversation) -> Meta:
    return _meta(conversation, _decode(conversation, report=False))


def _stop_reason(payload: list[pb.Field], status: int | None) -> StopReason | None:
    stated = st.text(payload, st.PLAN_STOP)
    if stated is not None:
        return stated if stated in STOP_REASONS else OtherStop(other=stated)  # type: ignore[return-value]
    number = st.varint(payload, st.PLAN_STOP)
    if number is not None:
        return OtherStop(other=str(number))
    if status == st.CANCELED:
        return "aborted"
    if status == st.ERROR:
        return "error"
    return None


def _usage(counts: tuple[int, int, int, int] | None) -> Usage | None:
    if counts is None or not any(counts):
        return None
    fresh, out, cache_write, cache_read = counts
    return Usage(
        input_tokens=fresh,
        output_tokens=out,
        cache_read_input_tokens=cache_read or None,
        cache_creation_input_tokens=cache_write or None,
    )


def _arguments(text: str | None) -> Any:
    if text is None:
        return {}
    value = try_loads(text)
    return text if value is INVALID else value


def _only_text(payload: list[pb.Field], number: int) -> str | None:
    """The text of field ``number`` when the payload holds nothing else."""
    if len(payload) == 1 and payload[0][0] == number:
        return st.text(payload, number)
    return None


def _result_content(step: st.Step) -> Any:
    payload = step.payload
    output: Any = None
    if step.kind == st.RUN_COMMAND:
        combined = st.message(payload, st.RUN_COMBINED)
        output = st.text(combined, st.COMBINED_FULL) if combined is not None else None
        if output is None:
            output = st.text(payload, st.RUN_OUTPUT)
    elif step.kind == st.VIEW_FILE:
        output = st.text(payload, st.VIEW_CONTENT)
        if output is None:
            output = st.text(payload, st.VIEW_RAW)
    elif step.kind == st.GENERIC:
        output = _only_text(payload, st.GENERIC_OUTPUT)
    if output is None and payload:
        output = st.wire_json(step.payload_bytes)
    if (output is None or output == "") and step.error:
        output = step.error
    return "" if output is None else output


class _Builder:
    def __init__(self, conversation: Conversation, meta: Meta) -> None:
        self.session = meta.id
        self.messages: list[Message] = []
        self.results: list[ToolResult] = []
        self.results_at: datetime | None = None
        self.calls: set[str] = set()
        self.last = meta.timestamp
        self.skipped: dict[str, int] = {}
        #: The instant of the planner step the last message was built from, while nothing but
        #: planner steps followed it (a planner step of the same instant continues it).
        self.continues: datetime | None = None

    def stamp(self, step: st.Step) -> datetime:
        if step.timestamp is not None:
            self.last = step.timestamp
        return self.last

    def flush(self) -> None:
        if self.results:
            at = self.results_at or self.last
            self.messages.append(Message(role="user", content=tuple(self.results), timestamp=at))
        self.results, self.results_at = [], None

    def emit(self, message: Message) -> None:
        self.flush()
        self.messages.append(message)
        self.continues = None

    def build(self, decoded: _Decoded) -> list[Message]:
        for step in decoded.steps:
            if step.kind == st.USER_INPUT:
                if _is_settings_change(step):
                    continue
                self.emit(
                    Message(
                        role="user", content=tuple(_user_blocks(step)), timestamp=self.stamp(step)
                    )
                )
            elif step.kind == st.PLANNER_RESPONSE:
                self.planner(step)
            elif step.kind in st.TOOL_STEPS:
                self.tool(step)
            elif step.kind not in st.BOOKKEEPING:
                name = f"type {step.kind}" if step.kind is not None else "without a type"
                self.skipped[name] = self.skipped.get(name, 0) + 1
        self.flush()
        return self.messages

    def planner(self, step: st.Step) -> None:
        payload = step.payload
        blocks: list[Block] = []
        thinking = st.text(payload, st.PLAN_THINKING)
        signature = st.text(payload, st.PLAN_SIGNATURE)
        if thinking is not None or signature is not None:
            blocks.append(Thinking(text=thinking or "", signature=signature))
        said = st.text(payload, st.PLAN_TEXT)
        if said is not None:
            blocks.append(Text(text=said))
        for position, call_fields in enumerate(st.messages(payload, st.PLAN_CALLS)):
            call = st.call_of(call_fields)
            call_id = call.id or uuid5(NAMESPACE, f"{self.session}:{step.index}:{position}")
            self.calls.add(call_id)
            tool = type_tool(call.name or "", _arguments(call.arguments))
            blocks.append(ToolUse(id=call_id, tool=tool))
        message = Message(
            role="assistant",
            content=tuple(blocks),
            timestamp=self.stamp(step),
            model=None if step.model is None else st.model_name(step.model),
            stop_reason=_stop_reason(payload, step.status),
            usage=_usage(step.usage),
        )
        previous = self.messages[-1] if self.messages and not self.results else None
        if (
            previous is not None
            and self.continues is not None
            and step.timestamp is not None
            and step.timestamp == self.continues
        ):
            # The next part of the same response: one message whose blocks came in an order
            # one planner step cannot hold (text after calls) is written as adjacent steps of
            # one instant.
            self.messages[-1] = Message(
                role="assistant",
                content=previous.content + message.content,
                timestamp=previous.timestamp,
                model=previous.model if previous.model is not None else message.model,
                stop_reason=message.stop_reason or previous.stop_reason,
                usage=message.usage or previous.usage,
            )
        else:
            self.emit(message)
        self.continues = step.timestamp

    def tool(self, step: st.Step) -> None:
        self.continues = None
        call = step.call
        call_id = (call.id if call is not None else None) or uuid5(
            NAMESPACE, f"{self.session}:{step.index}:call"
        )
        at = self.stamp(step)
        if call_id not in self.calls and call is not None and call.name is not None:
            # The planner did not list this call: give it before its result.
            tool = type_tool(call.name, _arguments(call.arguments))
            self.emit(
                Message(role="assistant", content=(ToolUse(id=call_id, tool=tool),), timestamp=at)
            )
            self.calls.add(call_id)
        if step.status == st.PENDING:
            return  # still running: a call with no result yet
        result = ToolResult(
            tool_use_id=call_id,
            content=_result_content(step),
            is_error=step.status in (st.ERROR, st.CANCELED),
        )
        if not self.results:
            self.results_at = at
        self.results.append(result)


def to_common(conversation: Conversation) -> Transcript:
    decoded = _decode(conversation, report=True)
    meta = _meta(conversation, decoded)
    builder = _Builder(conversation, meta)
    messages = builder.build(decoded)
    if builder.skipped:
        counted = ", ".join(f"{count} of {name}" for name, count in sorted(builder.skipped.items()))
        warn(f"{_label(conversation)}: steps of a kind not read were left out ({counted})")
    unanswered = describe_unanswered(HARNESS, meta.id, messages)
    if unanswered is not None:
        warn(unanswered)
    return Transcript(meta=meta, messages=tuple(messages))


# ------------------------------------------------------------------------------------ writing


@dataclass
class _Planned:
    thinking: Thinking | None = None
    text: str | None = None
    calls: list[ToolUse] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.thinking is None and self.text is None and not self.calls


def _as_text(block: Block) -> str:
    """Readable text for a block the step it lands in cannot carry."""
    if isinstance(block, Text | Thinking):
        return block.text
    if isinstance(block, Image):
        return f"[image {block.source.media_type} omitted]"
    if isinstance(block, Artifact):
        return artifact_fallback_text(block)
    if isinstance(block, ToolResult):
        return block.content if isinstance(block.content, str) else dumps_compact(block.content)
    if isinstance(block.tool, Command):
        return block.tool.command + (f" {block.tool.args}" if block.tool.args else "")
    name, tool_input = render_tool(block.tool)
    return f"[tool {name}] {dumps_compact(tool_input)}"


def _image_bytes(image: Image) -> bytes | None:
    """The bytes of a base64 image whose text encodes back to exactly the same text."""
    if image.source.type != "base64":
        return None
    try:
        data = base64.b64decode(image.source.data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if base64.b64encode(data).decode("ascii") == image.source.data else None


class _Writer:
    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.session = transcript.meta.id
        self.rows: list[tuple[Cell, ...]] = []
        self.mirror: list[dict[str, Any]] = []
        self.tools: dict[str, ToolUse] = {}
        #: Ids of the slash commands users ran (written as prompt text, their output too).
        self.commands: set[str] = set()

    def add(
        self,
        kind: int,
        status: int,
        at: datetime,
        payload: bytes,
        *,
        call: bytes | None = None,
        usage: tuple[int, int, int, int] | None = None,
        model: int | None = None,
        shown: dict[str, Any] | None = None,
    ) -> None:
        index = len(self.rows)
        metadata = st.encode_metadata(at, call=call, usage=usage, model=model)
        body = st.encode_step(kind, status, metadata, payload)
        row: dict[str, Cell] = {
            "idx": index,
            "step_type": kind,
            "status": status,
            "has_subtrajectory": 0,
            "metadata": metadata,
            "step_payload": body,
        }
        self.rows.append(tuple(row.get(column) for column in STEP_COLUMNS))
        source = "USER_EXPLICIT" if kind == st.USER_INPUT else "MODEL"
        line: dict[str, Any] = {
            "step_index": index,
            "source": source,
            "type": st.STEP_NAMES[kind],
            "status": st.STATUS_NAMES[status],
            "created_at": format_rfc3339(at),
        }
        line.update(shown or {})
        self.mirror.append(line)

    # -- user ---------------------------------------------------------------------------
    def user(self, message: Message) -> None:
        """A user message: its results as tool steps, the rest as prompts. A slash command the
        user ran has no step of its own: it is the prompt text that ran it, and its output the
        user's text after it."""
        prompt: list[Block] = []
        for block in message.content:
            if isinstance(block, ToolUse) and isinstance(block.tool, Command):
                self.commands.add(block.id)
            if isinstance(block, ToolResult) and block.tool_use_id not in self.commands:
                if prompt:
                    self.prompt(message, prompt)
                    prompt = []
                self.result(message, block)
            else:
                prompt.append(block)
        if prompt or not message.content:
            self.prompt(message, prompt)

    def prompt(self, message: Message, blocks: list[Block]) -> None:
        said: list[str] = []
        images: list[bytes] = []
        for block in blocks:
            data = _image_bytes(block) if isinstance(block, Image) else None
            if isinstance(block, Image) and data is not None:
                images.append(
                    pb.join(
                        (
                            pb.bytes_field(st.IMAGE_DATA, data),
                            pb.text_field(st.IMAGE_MIME, block.source.media_type),
                        )
                    )
                )
            else:
                said.append(_as_text(block))
        parts: list[bytes] = []
        if said:
            parts.append(pb.text_field(st.INPUT_QUERY, "\n".join(said)))
        if len(said) > 1:
            parts.extend(
                pb.bytes_field(st.INPUT_ITEMS, pb.text_field(st.ITEM_TEXT, item)) for item in said
            )
        parts.extend(pb.bytes_field(st.INPUT_IMAGES, image) for image in images)
        shown = {"content": "<USER_REQUEST>\n" + "\n".join(said) + "\n</USER_REQUEST>"}
        self.add(st.USER_INPUT, st.DONE, message.timestamp, pb.join(parts), shown=shown)

    def result(self, message: Message, block: ToolResult) -> None:
        use = self.tools.get(block.tool_use_id)
        output = block.content if isinstance(block.content, str) else dumps_compact(block.content)
        if use is not None and isinstance(use.tool, Bash):
            kind = st.RUN_COMMAND
            payload = pb.join(
                (
                    pb.text_field(st.RUN_OUTPUT, output),
                    pb.bytes_field(st.RUN_COMBINED, pb.text_field(st.COMBINED_FULL, output)),
                )
            )
        elif use is not None and isinstance(use.tool, Read):
            kind, payload = st.VIEW_FILE, pb.text_field(st.VIEW_CONTENT, output)
        else:
            kind, payload = st.GENERIC, pb.text_field(st.GENERIC_OUTPUT, output)
        if use is not None:
            name, tool_input = render_tool(use.tool)
            call = st.encode_call(use.id, name, dumps_compact(tool_input))
        else:
            call = st.encode_call(block.tool_use_id, None, None)
        status = st.ERROR if block.is_error else st.DONE
        self.add(kind, status, message.timestamp, payload, call=call, shown={"content": output})

    # -- assistant ----------------------------------------------------------------------
    def assistant(self, message: Message) -> None:
        planned: list[_Planned] = [_Planned()]
        for block in message.content:
            current = planned[-1]
            if isinstance(block, ToolUse):
                current.calls.append(block)
                self.tools[block.id] = block
            elif isinstance(block, Thinking) and (block.text or block.signature is not None):
                if not current.empty:
                    planned.append(current := _Planned())
                current.thinking = block
            elif isinstance(block, Thinking):
                continue  # only an encrypted blob: no step field holds one
            else:
                if current.text is not None or current.calls:
                    planned.append(current := _Planned())
                current.text = _as_text(block)
        usage = message.usage
        counts = (
            None
            if usage is None
            else (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_creation_input_tokens or 0,
                usage.cache_read_input_tokens or 0,
            )
        )
        model = st.model_number(message.model)
        for position, plan in enumerate(planned):
            last = position == len(planned) - 1
            self.planner(message, plan, counts if last else None, model, last)

    def planner(
        self,
        message: Message,
        plan: _Planned,
        usage: tuple[int, int, int, int] | None,
        model: int | None,
        last: bool,
    ) -> None:
        parts: list[bytes] = []
        shown: dict[str, Any] = {}
        if plan.text is not None:
            parts.append(pb.text_field(st.PLAN_TEXT, plan.text))
            shown["content"] = plan.text
        if plan.thinking is not None:
            parts.append(pb.text_field(st.PLAN_THINKING, plan.thinking.text))
            if plan.thinking.signature is not None:
                parts.append(pb.text_field(st.PLAN_SIGNATURE, plan.thinking.signature))
            shown["thinking"] = plan.thinking.text
        calls = []
        for use in plan.calls:
            name, tool_input = render_tool(use.tool)
            arguments = dumps_compact(tool_input)
            parts.append(pb.bytes_field(st.PLAN_CALLS, st.encode_call(use.id, name, arguments)))
            calls.append({"name": name, "args": tool_input})
        if calls:
            shown["tool_calls"] = calls
        reason = message.stop_reason
        if last and reason is not None:
            stated = reason.other if isinstance(reason, OtherStop) else reason
            parts.append(pb.text_field(st.PLAN_STOP, stated))
        self.add(
            st.PLANNER_RESPONSE,
            st.DONE,
            message.timestamp,
            pb.join(parts),
            usage=usage,
            model=model,
            shown=shown,
        )

    # -- the conversation ---------------------------------------------------------------
    def write(self) -> Conversation:
        for message in self.transcript.messages:
            if message.role == "assistant":
                self.assistant(message)
            else:
                self.user(message)
        meta = self.transcript.meta
        trajectory = uuid5(NAMESPACE, f"{self.session}:trajectory")
        blob = _main_blob_bytes(meta)
        tables = (
            Table(
                "trajectory_meta",
                ("trajectory_id", "cascade_id", "trajectory_type", "source"),
                ((trajectory, self.session, TRAJECTORY_TYPE, TRAJECTORY_SOURCE),),
            ),
            Table("steps", STEP_COLUMNS, tuple(self.rows)),
            Table("gen_metadata", ("idx", "data", "size"), ()),
            Table("executor_metadata", ("id", "data"), ()),
            Table("parent_references", ("id", "data"), ()),
            Table("battle_mode_infos", ("id", "data"), ()),
            Table(
                "trajectory_metadata_blob",
                ("id", "data"),
                (("main", blob), (TITLE_ROW, (meta.title or "").encode("utf-8", "surrogatepass"))),
            ),
        )
        mirror = "".join(dumps_compact(line) + "\n" for line in self.mirror).encode(
            "utf-8", "surrogatepass"
        )
        brain = tuple(BrainFile(path, mirror) for path in MIRRORS)
        return Conversation(
            conversation_id=self.session,
            tables=tables,
            schema=SCHEMA,
            user_version=USER_VERSION,
            brain=brain,
        )


def _main_blob_bytes(meta: Meta) -> bytes:
    parts: list[bytes] = []
    workspace: list[bytes] = []
    if meta.cwd:
        workspace.append(pb.text_field(st.WORKSPACE_URI, file_uri(meta.cwd)))
    if meta.git_branch:
        workspace.append(pb.text_field(st.WORKSPACE_BRANCH, meta.git_branch))
    if workspace:
        parts.append(pb.bytes_field(st.BLOB_WORKSPACE, pb.join(workspace)))
    parts.append(pb.bytes_field(st.BLOB_CREATED, st.encode_timestamp(meta.timestamp)))
    parts.append(pb.text_field(st.BLOB_ID, meta.id))
    if meta.cwd:
        parts.append(pb.text_field(st.BLOB_CWD, meta.cwd))
    return pb.join(parts)


def from_common(transcript: Transcript) -> Conversation:
    return _Writer(answer_open_calls(transcript)).write()
