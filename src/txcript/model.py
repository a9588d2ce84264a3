"""The Common (hub) model every harness maps to and from.

A :class:`Transcript` is session metadata plus an ordered tuple of messages; a message holds typed
blocks; a tool call holds a typed :data:`Tool`. The JSON wire shape (``{"meta": …, "messages":
[…]}``) follows the shared Common-model spec exactly: absent optionals are omitted, never
``null``; blocks are tagged by ``type``; tools are nested and tagged by ``name``; timestamps are
RFC 3339 UTC with ``Z`` and fractional seconds only when non-zero.

Everything is immutable (frozen msgspec structs, tuples), so a transcript can be shared freely.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeAlias

import msgspec
from msgspec.structs import force_setattr

from txcript.errors import Malformed
from txcript.shared.jsonutil import is_uint
from txcript.shared.timeutil import format_rfc3339

UInt = Annotated[int, msgspec.Meta(ge=0)]
UtcDateTime = Annotated[datetime, msgspec.Meta(tz=True)]


class _Frozen(msgspec.Struct, frozen=True, omit_defaults=True):
    pass


# --------------------------------------------------------------------------------------- meta


class Meta(_Frozen, frozen=True):
    """Session-level metadata. ``id`` is the id the originating harness knows (may be empty)."""

    id: str
    timestamp: UtcDateTime
    cwd: str | None = None
    git_branch: str | None = None
    title: str | None = None
    cli_version: str | None = None
    model: str | None = None

    def __post_init__(self) -> None:
        force_setattr(self, "timestamp", _utc(self.timestamp))


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is UTC:
        return moment
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError("timestamp is outside years 1-9999 in UTC") from None


# -------------------------------------------------------------------------------------- tools


class Command(_Frozen, frozen=True, tag_field="name", tag="Command", forbid_unknown_fields=True):
    """A user-typed slash command (``/release``); ``args`` is everything typed after it."""

    command: str
    args: str | None = None


class Read(_Frozen, frozen=True, tag_field="name", tag="Read", forbid_unknown_fields=True):
    file_path: str
    offset: UInt | None = None
    limit: UInt | None = None


class Write(_Frozen, frozen=True, tag_field="name", tag="Write", forbid_unknown_fields=True):
    file_path: str
    content: str


class Edit(_Frozen, frozen=True, tag_field="name", tag="Edit", forbid_unknown_fields=True):
    file_path: str
    old_string: str
    new_string: str
    replace_all: bool = False


class EditSpec(_Frozen, frozen=True, forbid_unknown_fields=True):
    """One edit of a :class:`MultiEdit`."""

    old_string: str
    new_string: str
    replace_all: bool = False


class MultiEdit(
    _Frozen, frozen=True, tag_field="name", tag="MultiEdit", forbid_unknown_fields=True
):
    file_path: str
    edits: tuple[EditSpec, ...]


class Bash(_Frozen, frozen=True, tag_field="name", tag="Bash", forbid_unknown_fields=True):
    command: str
    workdir: str | None = None
    timeout_ms: UInt | None = None
    description: str | None = None
    run_in_background: bool = False


class Raw(_Frozen, frozen=True, tag_field="name", tag="Raw"):
    """Any tool without a typed schema, or whose input did not fit one: name and input untouched."""

    tool_name: str
    input: Any


Tool: TypeAlias = Command | Read | Write | Edit | MultiEdit | Bash | Raw


# ------------------------------------------------------------------------------------- blocks


class Text(_Frozen, frozen=True, tag_field="type", tag="text"):
    text: str


class Thinking(_Frozen, frozen=True, tag_field="type", tag="thinking"):
    text: str
    signature: str | None = None
    encrypted: str | None = None


class ToolUse(_Frozen, frozen=True, tag_field="type", tag="tool_use"):
    id: str
    tool: Tool


class ToolResult(_Frozen, frozen=True, tag_field="type", tag="tool_result"):
    """A tool's answer. ``content`` is a ``str`` (text output) or any other JSON value."""

    tool_use_id: str
    content: Any
    is_error: bool = False

    @property
    def is_text(self) -> bool:
        return isinstance(self.content, str)


class ImageSource(_Frozen, frozen=True):
    type: str
    media_type: str
    data: str


class Image(_Frozen, frozen=True, tag_field="type", tag="image"):
    source: ImageSource


class TextSource(_Frozen, frozen=True, tag_field="type", tag="text"):
    text: str
    media_type: str | None = None


class Base64Source(_Frozen, frozen=True, tag_field="type", tag="base64"):
    data: str
    media_type: str | None = None


class PathSource(_Frozen, frozen=True, tag_field="type", tag="path"):
    path: str
    media_type: str | None = None


ArtifactSource: TypeAlias = TextSource | Base64Source | PathSource


class ArtifactRef(_Frozen, frozen=True):
    id: str
    name: str
    source: ArtifactSource


class Artifact(_Frozen, frozen=True, tag_field="type", tag="artifact"):
    artifact: ArtifactRef


Block: TypeAlias = Text | Thinking | ToolUse | ToolResult | Image | Artifact


def prompt_title(blocks: Iterable[Block]) -> str | None:
    """The first non-empty line of a prompt's text blocks, stripped: the title harnesses without
    a stored one show."""
    for block in blocks:
        if isinstance(block, Text):
            for row in block.text.split("\n"):
                if row.strip():
                    return row.strip()
    return None


def artifact_fallback_text(block: Artifact) -> str:
    """The readable stand-in for an artifact in harnesses that cannot carry one."""
    artifact = block.artifact
    source = artifact.source
    if isinstance(source, TextSource):
        return f"[artifact: {artifact.name}]\n{source.text}"
    if isinstance(source, Base64Source):
        return f"[artifact: {artifact.name}]"
    return f"[artifact: {artifact.name}] {source.path}"


# ----------------------------------------------------------------------------------- messages


class OtherStop(_Frozen, frozen=True):
    """A stop reason outside the fixed six, kept word for word (``{"other": "…"}``)."""

    other: str


StopReason: TypeAlias = (
    Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "aborted", "error"] | OtherStop
)
STOP_REASONS: frozenset[str] = frozenset(
    ("end_turn", "tool_use", "max_tokens", "stop_sequence", "aborted", "error")
)


class Usage(_Frozen, frozen=True):
    input_tokens: UInt
    output_tokens: UInt
    cache_read_input_tokens: UInt | None = None
    cache_creation_input_tokens: UInt | None = None


Role: TypeAlias = Literal["user", "assistant"]


class Message(_Frozen, frozen=True):
    role: Role
    content: tuple[Block, ...]
    timestamp: UtcDateTime
    model: str | None = None
    stop_reason: StopReason | None = None
    usage: Usage | None = None

    def __post_init__(self) -> None:
        force_setattr(self, "timestamp", _utc(self.timestamp))


class Transcript(_Frozen, frozen=True, omit_defaults=False):
    """A session: metadata plus ordered messages (``messages`` is always written)."""

    meta: Meta
    messages: tuple[Message, ...] = ()


# ------------------------------------------------------------------------------ tool typing

_TYPED_TOOLS: dict[str, type[Read | Write | Edit | MultiEdit | Bash]] = {
    "Read": Read,
    "Write": Write,
    "Edit": Edit,
    "MultiEdit": MultiEdit,
    "Bash": Bash,
}
_OPTIONAL_STR = ("workdir", "description")
_OPTIONAL_UINT = ("offset", "limit", "timeout_ms")


#: ``(all field names, required field names)`` per typed-tool class, filled on first use:
#: ``msgspec.structs.fields`` re-evaluates the class's annotations on every call.
_SCHEMAS: dict[type[msgspec.Struct], tuple[frozenset[str], frozenset[str]]] = {}


def _schema(cls: type[msgspec.Struct]) -> tuple[frozenset[str], frozenset[str]]:
    schema = _SCHEMAS.get(cls)
    if schema is None:
        schema = (
            frozenset(cls.__struct_fields__),
            frozenset(f.name for f in msgspec.structs.fields(cls) if f.required),
        )
        _SCHEMAS[cls] = schema
    return schema


def _fits(cls: type[msgspec.Struct], data: Any) -> bool:
    """Does ``data`` match ``cls``'s schema exactly (no unknown keys, right JSON types)?"""
    if not isinstance(data, dict):
        return False
    fields, required = _schema(cls)
    if not required.issubset(data) or not fields.issuperset(data):
        return False
    for key, value in data.items():
        if key in _OPTIONAL_UINT:
            if value is not None and not is_uint(value):
                return False
        elif key in _OPTIONAL_STR:
            if value is not None and not isinstance(value, str):
                return False
        elif key in ("replace_all", "run_in_background"):
            if not isinstance(value, bool):
                return False
        elif key == "edits":
            if not isinstance(value, list) or not all(_fits(EditSpec, e) for e in value):
                return False
        elif not isinstance(value, str):
            return False
    return True


def type_tool(name: str, tool_input: Any) -> Tool:
    """Type a ``(name, input)`` call: a typed tool only on an exact schema fit, else :class:`Raw`.

    The input is never modified; whatever does not fit stays Raw with the input as given.
    """
    if name.startswith("/"):
        if (
            isinstance(tool_input, dict)
            and set(tool_input) <= {"args"}
            and isinstance(tool_input.get("args", ""), str | None)
        ):
            return Command(command=name, args=tool_input.get("args"))
        return Raw(tool_name=name, input=tool_input)
    cls = _TYPED_TOOLS.get(name)
    if cls is not None and _fits(cls, tool_input):
        if cls is MultiEdit:
            edits = tuple(msgspec.convert(e, EditSpec) for e in tool_input["edits"])
            return MultiEdit(file_path=tool_input["file_path"], edits=edits)
        return msgspec.convert(tool_input, cls)
    return Raw(tool_name=name, input=tool_input)


def tool_name(tool: Tool) -> str:
    """The canonical name the tool renders under (``Bash``, ``/release``, a Raw's own name)."""
    if isinstance(tool, Raw):
        return tool.tool_name
    if isinstance(tool, Command):
        return tool.command
    return type(tool).__name__


def tool_input(tool: Tool) -> Any:
    """The canonical input: only the present fields of a typed tool; a Raw's input as stored."""
    if isinstance(tool, Raw):
        return tool.input
    if isinstance(tool, Command):
        return {} if tool.args is None else {"args": tool.args}
    data: dict[str, Any] = msgspec.to_builtins(tool)
    data.pop("name", None)
    if isinstance(tool, MultiEdit):
        data["edits"] = [msgspec.to_builtins(edit) for edit in tool.edits]
    return data


def render_tool(tool: Tool) -> tuple[str, Any]:
    return tool_name(tool), tool_input(tool)


# ------------------------------------------------------------------------------- JSON wire

_encoder = msgspec.json.Encoder()


# The typed decoder and the wire types are built on first use: building them costs ~2-3 ms,
# which a command that never reads or writes a Common document need not pay at start-up.
@functools.cache
def _transcript_decoder() -> msgspec.json.Decoder[Transcript]:
    return msgspec.json.Decoder(Transcript)


def _wire(transcript: Transcript) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(transcript, builtin_types=(datetime,))
    data["meta"]["timestamp"] = format_rfc3339(transcript.meta.timestamp)
    for wire_message, message in zip(data["messages"], transcript.messages, strict=True):
        wire_message["timestamp"] = format_rfc3339(message.timestamp)
    return data


@functools.cache
def _wire_type(cls: type[msgspec.Struct]) -> Any:
    """A struct with ``cls``'s fields, defaults and ``omit_defaults``, but untyped: it encodes a
    ``cls`` whose ``timestamp`` was replaced by its text, in exactly the bytes
    ``msgspec.to_builtins`` + encode give (the same field order, the same omissions), without
    building a dict of every value first."""
    fields = msgspec.structs.fields(cls)
    return msgspec.defstruct(
        f"_Wire{cls.__name__}",
        [
            (f.name, Any) if f.default is msgspec.NODEFAULT else (f.name, Any, f.default)
            for f in fields
        ],
        omit_defaults=cls.__struct_config__.omit_defaults,
    )


_META_TIME = Meta.__struct_fields__.index("timestamp")
_MESSAGE_TIME = Message.__struct_fields__.index("timestamp")


def _wire_meta(meta: Meta) -> Any:
    values = list(msgspec.structs.astuple(meta))
    values[_META_TIME] = format_rfc3339(meta.timestamp)
    return _wire_type(Meta)(*values)


def _wire_message(message: Message) -> Any:
    values = list(msgspec.structs.astuple(message))
    values[_MESSAGE_TIME] = format_rfc3339(message.timestamp)
    return _wire_type(Message)(*values)


def to_json(transcript: Transcript, *, indent: int = 0) -> str:
    """The Common JSON document ``{"meta": …, "messages": […]}``."""
    encoded = _encoder.encode(
        {
            "meta": _wire_meta(transcript.meta),
            "messages": [_wire_message(message) for message in transcript.messages],
        }
    )
    if indent:
        encoded = msgspec.json.format(encoded, indent=indent)
    return encoded.decode("utf-8")


#: How many bytes of compact messages :func:`iter_json` lays out at once: few enough calls for
#: a long session, and a bounded piece however long it is.
_BATCH_BYTES = 1 << 18


def iter_json(transcript: Transcript, *, indent: int = 2) -> Iterator[bytes]:
    """``to_json(transcript, indent=indent).encode() + b"\n"``, a batch of messages at a time.

    Each batch is encoded as a JSON array, indented on its own, and shifted one level deeper
    (into the document) without its brackets. JSON text holds no raw newline inside a string,
    so shifting every line is exact. Peak memory is one batch's encoding (about
    :data:`_BATCH_BYTES`, or one message when a message is larger), not the document's.
    """
    if indent <= 0:
        raise ValueError("iter_json streams indented documents only; use to_json")
    pad = b" " * indent
    head = msgspec.json.format(_encoder.encode(_wire_meta(transcript.meta)), indent=indent)
    head = head.replace(b"\n", b"\n" + pad)
    if not transcript.messages:
        yield b"{\n" + pad + b'"meta": ' + head + b",\n" + pad + b'"messages": []\n}\n'
        return
    yield b"{\n" + pad + b'"meta": ' + head + b",\n" + pad + b'"messages": ['
    batch: list[bytes] = []
    size = 0
    separator = b""
    encode = _encoder.encode
    for message in transcript.messages:
        encoded = encode(_wire_message(message))
        batch.append(encoded)
        size += len(encoded)
        if size >= _BATCH_BYTES:
            yield separator + _shifted(batch, pad, indent)
            separator = b","
            batch, size = [], 0
    if batch:
        yield separator + _shifted(batch, pad, indent)
    yield b"\n" + pad + b"]\n}\n"


def _shifted(batch: list[bytes], pad: bytes, indent: int) -> bytes:
    """Compact messages as indented array elements one level inside the document, each line
    starting with a newline: ``format([…])`` minus its ``[\n`` and ``\n]``, shifted by ``pad``."""
    laid_out = msgspec.json.format(b"[" + b",".join(batch) + b"]", indent=indent)
    return b"\n" + pad + laid_out[2:-2].replace(b"\n", b"\n" + pad)


@functools.cache
def _overprecise() -> re.Pattern[bytes]:
    """A ``"timestamp"`` value with more than six fractional digits (checked on the raw text);
    compiled when a Common document is first parsed."""
    return re.compile(rb'"timestamp"\s*:\s*"[^"]*\.\d{7}')


@functools.cache
def _extra_digits() -> re.Pattern[str]:
    return re.compile(r"(\.\d{6})\d+")


def _truncated(value: Any) -> Any:
    return _extra_digits().sub(r"\1", value, count=1) if isinstance(value, str) else value


def _truncate_times(data: Any) -> Any:
    """Cut every Common timestamp to microseconds: **truncated, never rounded**.

    Python datetimes hold microseconds; rounding ``…05.9999995Z`` up would move a time past a
    later event, or across a second, day or year boundary. Truncation keeps every instant at or
    before the one written, so order within a session never changes (the native readers'
    ``parse_rfc3339`` truncates the same way).
    """
    if not isinstance(data, dict):
        return data
    meta = data.get("meta")
    if isinstance(meta, dict) and "timestamp" in meta:
        meta["timestamp"] = _truncated(meta["timestamp"])
    messages = data.get("messages")
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict) and "timestamp" in message:
                message["timestamp"] = _truncated(message["timestamp"])
    return data


def from_json(text: str | bytes) -> Transcript:
    """Parse a Common JSON document; raise :class:`Malformed` naming what is wrong and where.

    Timestamps with more than six fractional digits are truncated to microseconds (see
    :func:`_truncate_times`); such documents take a slower generic-decode path.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    try:
        if _overprecise().search(raw) is None:
            return _transcript_decoder().decode(raw)
        return msgspec.convert(_truncate_times(msgspec.json.decode(raw)), Transcript)
    except msgspec.ValidationError as exc:
        raise Malformed("common", str(exc)) from None
    except msgspec.DecodeError as exc:
        raise Malformed("common", f"not valid JSON: {exc}") from None


def to_builtins(transcript: Transcript) -> dict[str, Any]:
    """The Common document as plain Python values (what :func:`to_json` serialises)."""
    return _wire(transcript)


def from_builtins(data: Any) -> Transcript:
    """A Common document given as Python values (timestamps truncated as in :func:`from_json`)."""
    if isinstance(data, dict):
        data = _truncate_times(
            {
                **data,
                "meta": dict(data["meta"])
                if isinstance(data.get("meta"), dict)
                else data.get("meta"),
                "messages": [dict(x) if isinstance(x, dict) else x for x in data["messages"]]
                if isinstance(data.get("messages"), list)
                else data.get("messages"),
            }
        )
    try:
        return msgspec.convert(data, Transcript)
    except msgspec.ValidationError as exc:
        raise Malformed("common", str(exc)) from None
