"""Antigravity's step protobuf (``gemini_coder.Step`` / ``exa.cortex_pb``), read and written by
field number over the schema-less wire decoder :mod:`txcript.shared.protobuf`.

A ``steps`` row's ``step_payload`` is one Step: ``1`` its type, ``4`` its status, ``5`` its
metadata (``1`` a Timestamp ``{1 seconds, 2 nanos}``, ``4`` the tool call it runs ``{1 id, 2
name, 3 arguments JSON}``, ``9`` usage ``{2 input, 3 output, 4 cache write, 5 cache read}``,
``11`` the model, a number), and one payload field whose number depends on the type
(:data:`PAYLOAD_FIELD`). The row also has the type and status as columns and the metadata as a
blob of its own; the reader takes each from the Step and falls back to the row's columns, and
reads a ``step_payload`` that is the payload message alone (no type field) too.

Only the fields the facts name are given meaning. A tool step whose payload layout is not
known (a directory listing, a search, an MCP call, …) keeps its result as :func:`wire_json`, a
JSON rendering of the payload's wire fields, so nothing it holds is lost.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from txcript.shared import protobuf as pb

# Step types and the Step field that holds each one's payload.
USER_INPUT, PLANNER_RESPONSE, RUN_COMMAND, VIEW_FILE = 14, 15, 21, 8
LIST_DIRECTORY, GREP_SEARCH, CODE_ACTION, MCP_TOOL, GENERIC = 9, 7, 5, 38, 132
CHECKPOINT, CONVERSATION_HISTORY, SYSTEM_MESSAGE, EPHEMERAL = 23, 98, 101, 90
PAYLOAD_FIELD: dict[int, int] = {
    USER_INPUT: 19,
    PLANNER_RESPONSE: 20,
    RUN_COMMAND: 28,
    VIEW_FILE: 14,
    LIST_DIRECTORY: 15,
    GREP_SEARCH: 13,
    CODE_ACTION: 10,
    MCP_TOOL: 47,
    GENERIC: 140,
    CHECKPOINT: 30,
    CONVERSATION_HISTORY: 111,
    SYSTEM_MESSAGE: 114,
    EPHEMERAL: 103,
}
STEP_NAMES: dict[int, str] = {
    USER_INPUT: "USER_INPUT",
    PLANNER_RESPONSE: "PLANNER_RESPONSE",
    RUN_COMMAND: "RUN_COMMAND",
    VIEW_FILE: "VIEW_FILE",
    LIST_DIRECTORY: "LIST_DIRECTORY",
    GREP_SEARCH: "GREP_SEARCH",
    CODE_ACTION: "CODE_ACTION",
    MCP_TOOL: "MCP_TOOL",
    GENERIC: "GENERIC",
    CHECKPOINT: "CHECKPOINT",
    CONVERSATION_HISTORY: "CONVERSATION_HISTORY",
    SYSTEM_MESSAGE: "SYSTEM_MESSAGE",
    EPHEMERAL: "EPHEMERAL",
}
#: Steps that run a tool call (the call is in their metadata, the result in their payload).
TOOL_STEPS = frozenset(
    (RUN_COMMAND, VIEW_FILE, LIST_DIRECTORY, GREP_SEARCH, CODE_ACTION, MCP_TOOL, GENERIC)
)
#: Steps that are the agent's bookkeeping, not conversation: checkpoints (whose title the
#: listing shows), the replayed history, system prompts and ephemeral notices.
BOOKKEEPING = frozenset((CHECKPOINT, CONVERSATION_HISTORY, SYSTEM_MESSAGE, EPHEMERAL))

# Step statuses.
PENDING, DONE, CANCELED, ERROR = 1, 3, 6, 7
STATUS_NAMES = {PENDING: "PENDING", DONE: "DONE", CANCELED: "CANCELED", ERROR: "ERROR"}

# Step and metadata fields.
STEP_TYPE, STEP_STATUS, STEP_METADATA = 1, 4, 5
META_TIME, META_CALL, META_USAGE, META_MODEL = 1, 4, 9, 11
CALL_ID, CALL_NAME, CALL_ARGUMENTS = 1, 2, 3
USAGE_INPUT, USAGE_OUTPUT, USAGE_CACHE_WRITE, USAGE_CACHE_READ = 2, 3, 4, 5
# USER_INPUT payload: the query, an answer to the agent's question, text items, images.
INPUT_QUERY, INPUT_RESPONSE, INPUT_ITEMS, INPUT_IMAGES = 1, 2, 3, 5
ITEM_TEXT, IMAGE_DATA, IMAGE_MIME = 1, 1, 2
# PLANNER_RESPONSE payload.
PLAN_TEXT, PLAN_THINKING, PLAN_SIGNATURE, PLAN_CALLS, PLAN_STOP = 1, 3, 4, 7, 12
# RUN_COMMAND payload: the combined output {1 full}, the output, the exit code.
RUN_COMBINED, RUN_OUTPUT, RUN_EXIT, COMBINED_FULL = 21, 4, 6, 1
# VIEW_FILE payload: the content, the raw bytes.
VIEW_CONTENT, VIEW_RAW = 4, 9
#: GENERIC payload: the output text. The facts name no field of this payload; txcript writes a
#: tool's output at field 1 and reads it back from there, and keeps any other layout whole.
GENERIC_OUTPUT = 1
# CHECKPOINT payload: the title, at 10 (newer) or 4.
CHECKPOINT_TITLES = (10, 4)
# The "main" trajectory metadata blob: workspace {1 file URI, 4 git branch}, created, id, cwd.
BLOB_WORKSPACE, BLOB_CREATED, BLOB_ID, BLOB_CWD = 1, 2, 6, 7
WORKSPACE_URI, WORKSPACE_BRANCH = 1, 4

#: Model numbers whose model is known. The stores keep the model only as a number, and no fact
#: at hand ties a number to a name, so this holds none yet: every number reads as
#: ``antigravity-model-<number>`` (:func:`model_name`), which the writer turns back into the
#: same number. A verified number goes here with its name.
MODEL_NAMES: dict[int, str] = {}
_MODEL_NUMBERS = {name: number for number, name in MODEL_NAMES.items()}
_CARRIED_MODEL = re.compile(r"antigravity-model-([0-9]{1,19})")
#: The largest usage count or model number carried (what Common's JSON can hold).
_MAX_COUNT = (1 << 63) - 1
#: The latest second a Timestamp may name and still be a date (9999-12-31T23:59:59Z).
_MAX_SECONDS = 253_402_300_799
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def model_name(number: int) -> str:
    """The Common model of a stored model number: its name when known, else the number kept."""
    return MODEL_NAMES.get(number, f"antigravity-model-{number}")


def model_number(name: str | None) -> int | None:
    """The number a Common model is stored as; None for a model Antigravity has no number for."""
    if name is None:
        return None
    known = _MODEL_NUMBERS.get(name)
    if known is not None:
        return known
    carried = _CARRIED_MODEL.fullmatch(name)
    if carried is None:
        return None
    number = int(carried.group(1))
    return number if number <= _MAX_COUNT else None


# ------------------------------------------------------------------------------------ reading


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call: its id, its name and its arguments as the JSON text stored."""

    id: str | None
    name: str | None
    arguments: str | None


@dataclass(frozen=True, slots=True)
class Step:
    """One decoded ``steps`` row."""

    index: int
    kind: int | None
    status: int | None
    timestamp: datetime | None
    call: Call | None
    #: ``(input, output, cache write, cache read)``; None without usage.
    usage: tuple[int, int, int, int] | None
    model: int | None
    #: The payload message's fields (empty when the step has none), and its bytes.
    payload: list[pb.Field]
    payload_bytes: bytes
    #: The text of ``error_details``, when it holds some.
    error: str | None


def texts(fields: list[pb.Field], number: int) -> list[str]:
    """Every length-delimited field ``number`` that is UTF-8 text, in order."""
    out = []
    for got, wire, value in fields:
        if got == number and wire == pb.LEN and isinstance(value, bytes):
            try:
                out.append(value.decode("utf-8"))
            except UnicodeDecodeError:
                continue
    return out


def text(fields: list[pb.Field], number: int) -> str | None:
    found = texts(fields, number)
    return found[0] if found else None


def messages(fields: list[pb.Field], number: int) -> list[list[pb.Field]]:
    """Every field ``number`` decoded as a message (one that is not well-formed is skipped)."""
    out = []
    for got, wire, value in fields:
        if got == number and wire == pb.LEN and isinstance(value, bytes):
            try:
                out.append(pb.decode(value))
            except pb.WireError:
                continue
    return out


def message(fields: list[pb.Field], number: int) -> list[pb.Field] | None:
    found = messages(fields, number)
    return found[0] if found else None


def raw(fields: list[pb.Field], number: int) -> bytes | None:
    for got, wire, value in fields:
        if got == number and wire == pb.LEN and isinstance(value, bytes):
            return value
    return None


def varint(fields: list[pb.Field], number: int) -> int | None:
    """The last varint field ``number`` (protobuf's rule for a repeated scalar)."""
    found = None
    for got, wire, value in fields:
        if got == number and wire == pb.VARINT and isinstance(value, int):
            found = value
    return found


def has(fields: list[pb.Field], number: int) -> bool:
    return any(got == number for got, _, _ in fields)


def timestamp(fields: list[pb.Field] | None) -> datetime | None:
    """A ``google.protobuf.Timestamp`` (truncated to microseconds); None when out of range."""
    if fields is None:
        return None
    seconds = varint(fields, 1) or 0
    nanos = varint(fields, 2) or 0
    if not 0 <= seconds <= _MAX_SECONDS or not 0 <= nanos < 1_000_000_000:
        return None
    return _EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)


def call_of(fields: list[pb.Field]) -> Call:
    return Call(text(fields, CALL_ID), text(fields, CALL_NAME), text(fields, CALL_ARGUMENTS))


def _usage(fields: list[pb.Field] | None) -> tuple[int, int, int, int] | None:
    if fields is None:
        return None
    counts = tuple(
        varint(fields, number) or 0
        for number in (USAGE_INPUT, USAGE_OUTPUT, USAGE_CACHE_WRITE, USAGE_CACHE_READ)
    )
    if any(count > _MAX_COUNT for count in counts):
        return None
    return counts  # type: ignore[return-value]


def _error_text(cell: object) -> str | None:
    """``error_details`` as text: a UTF-8 string cell, or the first text of a protobuf blob."""
    if isinstance(cell, str):
        return cell or None
    if not isinstance(cell, bytes) or not cell:
        return None
    try:
        fields = pb.decode(cell)
    except pb.WireError:
        fields = []
    for _, wire, value in fields:
        if wire == pb.LEN and isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                continue
    try:
        return cell.decode("utf-8") or None
    except UnicodeDecodeError:
        return None


def _blob(cell: object) -> bytes | None:
    if isinstance(cell, bytes):
        return cell
    if isinstance(cell, str):
        return cell.encode("utf-8", "surrogateescape")
    return None


def decode_step(row: dict[str, Any]) -> Step:
    """One ``steps`` row; :class:`~txcript.shared.protobuf.WireError` when its blobs are not
    protobuf."""
    index = row.get("idx")
    column_kind = row.get("step_type")
    column_status = row.get("status")
    kind = column_kind if type(column_kind) is int else None
    status = column_status if type(column_status) is int else None
    body = _blob(row.get("step_payload")) or b""
    fields = pb.decode(body)
    stored_kind = varint(fields, STEP_TYPE)
    whole = stored_kind is not None and (kind is None or stored_kind == kind)
    metadata: list[pb.Field] | None = None
    if whole:
        kind = stored_kind
        status = varint(fields, STEP_STATUS) if has(fields, STEP_STATUS) else status
        metadata = message(fields, STEP_METADATA)
        number = PAYLOAD_FIELD.get(kind) if kind is not None else None
        payload_bytes = (raw(fields, number) if number is not None else None) or b""
        payload = pb.decode(payload_bytes)
    else:
        payload, payload_bytes = fields, body
    if metadata is None:
        column = _blob(row.get("metadata"))
        metadata = pb.decode(column) if column else None
    call_fields = message(metadata, META_CALL) if metadata is not None else None
    model = varint(metadata, META_MODEL) if metadata is not None else None
    return Step(
        index=index if type(index) is int else 0,
        kind=kind,
        status=status,
        timestamp=timestamp(message(metadata, META_TIME)) if metadata is not None else None,
        call=call_of(call_fields) if call_fields is not None else None,
        usage=_usage(message(metadata, META_USAGE)) if metadata is not None else None,
        model=model if model is not None and model <= _MAX_COUNT else None,
        payload=payload,
        payload_bytes=payload_bytes,
        error=_error_text(row.get("error_details")),
    )


def _printable(value: str) -> bool:
    return all(ch in "\n\r\t" or unicodedata.category(ch) != "Cc" for ch in value)


def wire_json(data: bytes, depth: int = 0) -> Any:
    """A message's wire fields as JSON: ``{"<field number>": value}``, a list for a repeated
    field. A length-delimited value is text when it is printable UTF-8, else a message when it
    decodes as one (at most 16 levels down), else ``{"hex": …}``."""
    try:
        fields = pb.decode(data)
    except pb.WireError:
        return {"hex": data.hex()}
    out: dict[str, Any] = {}
    for number, _wire, value in fields:
        shown: Any = value
        if isinstance(value, bytes):
            shown = _wire_value(value, depth)
        key = str(number)
        if key in out:
            previous = out[key]
            out[key] = [*previous, shown] if isinstance(previous, list) else [previous, shown]
        else:
            out[key] = shown
    return out


def _wire_value(value: bytes, depth: int) -> Any:
    try:
        decoded = value.decode("utf-8")
    except UnicodeDecodeError:
        decoded = None
    if decoded is not None and _printable(decoded):
        return decoded
    if depth < 16:
        try:
            pb.decode(value)
        except pb.WireError:
            pass
        else:
            return wire_json(value, depth + 1)
    return {"hex": value.hex()}


# ------------------------------------------------------------------------------------ writing


def encode_timestamp(moment: datetime) -> bytes:
    delta = moment.astimezone(UTC) - _EPOCH
    seconds = delta.days * 86_400 + delta.seconds
    parts = [pb.varint_field(1, seconds)] if seconds else []
    if delta.microseconds:
        parts.append(pb.varint_field(2, delta.microseconds * 1000))
    return pb.join(parts)


def encode_call(call_id: str, name: str | None, arguments: str | None) -> bytes:
    parts = [pb.text_field(CALL_ID, call_id)]
    if name is not None:
        parts.append(pb.text_field(CALL_NAME, name))
    if arguments is not None:
        parts.append(pb.text_field(CALL_ARGUMENTS, arguments))
    return pb.join(parts)


def encode_metadata(
    moment: datetime,
    *,
    call: bytes | None = None,
    usage: tuple[int, int, int, int] | None = None,
    model: int | None = None,
) -> bytes:
    parts = [pb.bytes_field(META_TIME, encode_timestamp(moment))]
    if call is not None:
        parts.append(pb.bytes_field(META_CALL, call))
    if usage is not None:
        numbers = (USAGE_INPUT, USAGE_OUTPUT, USAGE_CACHE_WRITE, USAGE_CACHE_READ)
        parts.append(
            pb.bytes_field(
                META_USAGE,
                pb.join(pb.varint_field(n, v) for n, v in zip(numbers, usage, strict=True) if v),
            )
        )
    if model is not None:
        parts.append(pb.varint_field(META_MODEL, model))
    return pb.join(parts)


def encode_step(kind: int, status: int, metadata: bytes, payload: bytes) -> bytes:
    return pb.join(
        (
            pb.varint_field(STEP_TYPE, kind),
            pb.varint_field(STEP_STATUS, status),
            pb.bytes_field(STEP_METADATA, metadata),
            pb.bytes_field(PAYLOAD_FIELD[kind], payload),
        )
    )
