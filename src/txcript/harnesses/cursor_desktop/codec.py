"""Cursor desktop codec: the native body (:class:`CursorSession`) ↔ Common.

Reading (:func:`to_common`) handles every storage generation seen so far, choosing by shape, not by
version number:

* **≈0.45** — messages inline in ``composerData.conversation[]`` (array order, no bubble rows, no
  ``createdAt``; assistant entries carry ``timingInfo``);
* **≈0.50** — ``bubbleId:`` rows with ``_v`` 2, where every non-tool bubble carries a placeholder
  ``toolFormerData`` without a ``name`` (not a call), ``params`` occasionally an object, older
  tool names (``run_terminal_cmd``, ``read_file`` …) and no ``createdAt``;
* **1.7.x** (``_v`` 3, ``createdAt``, ``modelInfo`` ``"default"``), **3.7.x** (heads in the
  ``ItemTable``) and **3.16+** (the ``composerHeaders`` table) — the shapes of the format note.

Bubbles are ordered by ``composerData.fullConversationHeadersOnly[].bubbleId`` (row order when
that list has no string ids); listed ids without a row and repeated ids are skipped; rows the list
does not name stay native only; when two rows share an id the later row's document wins. Rows
that are not JSON objects, bubbles of unknown ``type`` and keys of any shape never fail a read.

Folding: a user bubble (``type`` 1) closes the open assistant message and, when its ``text`` is
not blank, becomes a user message with one Text block. Consecutive assistant bubbles (``type`` 2)
fold into one message holding, per bubble, Thinking (non-blank ``thinking.text``), Text
(non-blank ``text``) and a ToolUse (``toolFormerData`` with a non-empty ``name``); a call closes
the message and its result follows as a user message. Model: the group's last ``modelInfo`` that
is not ``"default"``; usage: its last non-zero ``tokenCount`` (never summed). Ids are folded onto
``[A-Za-z0-9_-]`` (one ``_`` per other code point); a missing id becomes
``uuid5(NS, "<meta.id>:<messages emitted so far>:call")``.

Status policy (``toolFormerData.status``, matched exactly):

* ``completed`` → a result, ``is_error`` false — unless ``userDecision`` is ``"rejected"`` (≈0.50
  stores a user-rejected command as ``completed`` with result ``{"rejected":true}``), then true.
  Non-zero exit codes and ``additionalData.status`` do **not** make it an error: the exit code
  stays visible in the result, and ``additionalData.status`` is unreliable (a 1.7 background
  command that ran is ``completed`` with ``additionalData.status: "cancelled"``).
* ``error`` → a result with ``is_error`` true.
* ``cancelled`` (≈0.50), ``canceled``, ``rejected``, ``aborted``, or any status with
  ``userDecision: "rejected"`` → an error result, so the call/result pair stays closed when the
  conversation goes on (a dangling call mid-conversation breaks resume in Anthropic-style
  harnesses). Its content is the call's own output if it has one, else the text "The tool call
  was cancelled; it produced no result." (or "rejected").
* ``started``, a missing status, and every other value (``Completed``, ``pending`` …) → no
  result: the call is in flight, as in the reference implementation.

The result content is ``result`` (a string: its JSON value when it parses as strict JSON other
than ``null`` — NaN/Infinity are not JSON — else the text itself); when ``result`` is absent, the
``error`` string (≈0.50 error calls), else ``additionalData`` (3.7 searches), else ``""``.

Times: a bubble's ``createdAt`` (RFC 3339, any offset, to UTC); else
``timingInfo.clientRpcSendTime`` (ms epoch; ≈0.45/≈0.50); else the previous bubble's time; else
the session time. An assistant message takes its first bubble's time; a result message its call
bubble's time.

Dropped on read, on purpose: ``richText`` and ``context`` (the plain ``text`` is the prompt),
blank texts, signature-only thinking (no readable text), ``rawArgs`` once ``params`` parsed,
native params a typed tool has no field for (``charsLimit``, sandbox policies …), the ``tool``
number, ``capabilityType``, checkpoints and every aux row (they stay in the native body), and the
≈0.50 ``lastTerminalCwd`` (reading it would make discovery parse bubbles; see
:func:`derive_meta`).

Writing (:func:`from_common`) lives in :mod:`.write`; tool mapping in :mod:`.tools`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from txcript.harnesses.cursor_desktop import tools
from txcript.harnesses.cursor_desktop.meta import (
    COMPOSER_FIELD_PATHS,
    composer_fields,
    derive_meta,
)
from txcript.harnesses.cursor_desktop.meta import model_name as _model_name
from txcript.harnesses.cursor_desktop.meta import ms_time as _ms_time
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.harnesses.cursor_desktop.vocabulary import NAMESPACE
from txcript.harnesses.cursor_desktop.write import from_common
from txcript.model import (
    Block,
    Message,
    Meta,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
)
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import uuid5
from txcript.shared.jsonutil import is_uint, lookup, try_loads
from txcript.shared.timeutil import parse_rfc3339

__all__ = [
    "COMPOSER_FIELD_PATHS",
    "composer_fields",
    "derive_meta",
    "from_common",
    "to_common",
]


# -------------------------------------------------------------------------------- ordering


def _parsed_rows(session: CursorSession) -> list[tuple[str, dict[str, Any]]]:
    """``(identity, document)`` of every bubble row that is a JSON object, in row order."""
    rows = []
    for row in session.bubbles:
        document = try_loads(row.value)
        if isinstance(document, dict):
            bubble_id = document.get("bubbleId")
            rows.append((bubble_id if isinstance(bubble_id, str) else row.key, document))
    return rows


def _listed_ids(composer: Any) -> list[str]:
    headers = lookup(composer, ("fullConversationHeadersOnly",))
    return [
        entry["bubbleId"]
        for entry in (headers if isinstance(headers, list) else [])
        if isinstance(entry, dict) and isinstance(entry.get("bubbleId"), str)
    ]


def _ordered(rows: list[tuple[str, dict[str, Any]]], listed: list[str]) -> list[dict[str, Any]]:
    documents: dict[str, dict[str, Any]] = {}
    row_order: list[str] = []
    for identity, document in rows:
        if identity not in documents:
            row_order.append(identity)
        documents[identity] = document
    ordered, seen = [], set()
    for identity in listed or row_order:
        if identity in documents and identity not in seen:
            seen.add(identity)
            ordered.append(documents[identity])
    return ordered


class _BubbleIdentity(msgspec.Struct):
    """Only a bubble's ``bubbleId``; every other member is validated and skipped, unbuilt."""

    bubbleId: Any = msgspec.UNSET


_identity_decoder = msgspec.json.Decoder(_BubbleIdentity)


class _Disagree(Exception):
    """The cheap identity pass read a row differently from the full parse (a rare document
    msgspec skips but :func:`try_loads` refuses); the session is read the eager way instead."""


def _lazy_ordered(
    session: CursorSession, listed: list[str], session_id: str
) -> Iterator[dict[str, Any]] | None:
    """What ``_ordered(_parsed_rows(session), listed)`` gives, each document parsed only when
    the fold reaches it, so a long session never holds every parsed bubble at once.

    Each row's identity is first taken from its key (``bubbleId:<session id>:<bubble id>``, what
    the app writes); when a key is not of that form, a first pass reads only each row's
    identity (:class:`_BubbleIdentity`), and a row it declines (not an object, integers beyond
    64 bits …) is parsed fully there. None when two rows share an identity: the eager path
    handles that rare case. The generator raises :class:`_Disagree` when a full parse does not
    confirm an identity taken before, or (at its end) when a row it did not reach has another
    identity than its key says.
    """
    rows = _identities_from_keys(session, session_id)
    from_keys = rows is not None
    if rows is None:
        rows = _identities_read(session)
        if rows is None:
            return None
    bubbles = session.bubbles

    def documents() -> Iterator[dict[str, Any]]:
        for identity in listed or list(rows):
            entry = rows.pop(identity, None)
            if entry is None:
                continue
            if isinstance(entry, dict):
                yield entry
                continue
            row = bubbles[entry]
            document = try_loads(row.value)
            if not isinstance(document, dict):
                raise _Disagree
            found = document.get("bubbleId")
            if (found if isinstance(found, str) else row.key) != identity:
                raise _Disagree
            yield document
        if from_keys:
            for identity, entry in rows.items():  # rows no listed id reached: confirm them too
                assert isinstance(entry, int)
                if _identity_of(bubbles[entry]) not in (identity, None):
                    raise _Disagree

    return documents()


def _identities_from_keys(session: CursorSession, session_id: str) -> dict[str, Any] | None:
    """Bubble id → row index, read from the keys alone; None when a key is not
    ``bubbleId:<session_id>:<bubble id>`` (then the documents must be read for it)."""
    prefix = f"bubbleId:{session_id}:"
    start = len(prefix)
    rows: dict[str, Any] = {}
    for index, row in enumerate(session.bubbles):
        key = row.key
        identity = key[start:]
        if not key.startswith(prefix) or identity in rows:  # a body from text may repeat keys
            return None
        rows[identity] = index
    return rows


def _identity_of(row: KVRow) -> str | None:
    """A row's identity as the full parse reads it; None when the row is no JSON object."""
    try:
        identity = _identity_decoder.decode(row.value).bubbleId
    except (msgspec.DecodeError, RecursionError):
        document = try_loads(row.value)
        if not isinstance(document, dict):
            return None
        identity = document.get("bubbleId")
    return identity if isinstance(identity, str) else row.key


def _identities_read(session: CursorSession) -> dict[str, Any] | None:
    """Identity → row index (or its parsed document, when the cheap pass declined the row),
    from each row's ``bubbleId``; None when two rows share an identity."""
    rows: dict[str, Any] = {}
    for index, row in enumerate(session.bubbles):
        identity: Any
        entry: int | dict[str, Any] = index
        try:
            identity = _identity_decoder.decode(row.value).bubbleId
        except (msgspec.DecodeError, RecursionError):
            document = try_loads(row.value)
            if not isinstance(document, dict):
                continue
            identity, entry = document.get("bubbleId"), document
        key = identity if isinstance(identity, str) else row.key
        if key in rows:
            return None
        rows[key] = entry
    return rows


def _inline_conversation(composer: Any) -> list[dict[str, Any]] | None:
    """The ≈0.45 inline ``conversation[]`` entries, or None when the session uses bubble rows."""
    conversation = lookup(composer, ("conversation",))
    if isinstance(conversation, list) and conversation:
        return [entry for entry in conversation if isinstance(entry, dict)]
    return None


# --------------------------------------------------------------------------------- folding


@dataclass
class _Open:
    """The assistant message being folded."""

    timestamp: datetime
    blocks: list[Block] = field(default_factory=list)
    model: str | None = None
    usage: Usage | None = None


def _usage(bubble: dict[str, Any]) -> Usage | None:
    counts = bubble.get("tokenCount")
    if not isinstance(counts, dict):
        return None
    read: Any = counts.get("inputTokens")
    written: Any = counts.get("outputTokens")
    read_tokens: int = read if is_uint(read) else 0
    written_tokens: int = written if is_uint(written) else 0
    if read_tokens or written_tokens:
        return Usage(read_tokens, written_tokens)
    return None


class _Folder:
    def __init__(self, meta: Meta) -> None:
        self.meta = meta
        self.messages: list[Message] = []
        self.open: _Open | None = None
        self.last_time: datetime | None = None

    def time_of(self, bubble: dict[str, Any]) -> datetime:
        created = bubble.get("createdAt")
        found = parse_rfc3339(created) if isinstance(created, str) else _ms_time(created)
        if found is None:
            timing = bubble.get("timingInfo")
            if isinstance(timing, dict):
                found = _ms_time(timing.get("clientRpcSendTime"))
        if found is None:
            found = self.last_time or self.meta.timestamp
        self.last_time = found
        return found

    def close(self) -> None:
        if self.open is not None and self.open.blocks:
            self.messages.append(
                Message(
                    role="assistant",
                    content=tuple(self.open.blocks),
                    timestamp=self.open.timestamp,
                    model=self.open.model,
                    usage=self.open.usage,
                )
            )
        self.open = None

    def user(self, bubble: dict[str, Any], timestamp: datetime) -> None:
        self.close()
        text = bubble.get("text")
        if isinstance(text, str) and text.strip():
            self.messages.append(Message(role="user", content=(Text(text),), timestamp=timestamp))

    def assistant(self, bubble: dict[str, Any], timestamp: datetime) -> None:
        if self.open is None:
            self.open = _Open(timestamp=timestamp)
        group = self.open
        # The members are read with ``get`` and type checks (not ``lookup``): this runs once per
        # bubble of a long session.
        info = bubble.get("modelInfo")
        if isinstance(info, dict):
            group.model = _model_name(info.get("modelName")) or group.model
        group.usage = _usage(bubble) or group.usage
        thinking = bubble.get("thinking")
        if isinstance(thinking, dict):
            thought = thinking.get("text")
            if isinstance(thought, str) and thought.strip():
                signature = thinking.get("signature")
                group.blocks.append(
                    Thinking(
                        thought, signature if isinstance(signature, str) and signature else None
                    )
                )
        text = bubble.get("text")
        if isinstance(text, str) and text.strip():
            group.blocks.append(Text(text))
        tool_former = bubble.get("toolFormerData")
        if isinstance(tool_former, dict) and tools.is_call(tool_former):
            self.call(tool_former, timestamp)

    def call(self, tool_former: dict[str, Any], timestamp: datetime) -> None:
        assert self.open is not None
        raw_id = tool_former.get("toolCallId")
        if isinstance(raw_id, str) and raw_id:
            call_id = tools.sanitize_call_id(raw_id)
        else:
            call_id = uuid5(NAMESPACE, f"{self.meta.id}:{len(self.messages)}:call")
        self.open.blocks.append(ToolUse(call_id, tools.read_tool(tool_former)))
        self.close()
        outcome = tools.read_outcome(tool_former)
        if outcome is not None:
            result = ToolResult(tool_use_id=call_id, content=outcome[0], is_error=outcome[1])
            self.messages.append(Message(role="user", content=(result,), timestamp=timestamp))

    def fold(self, bubbles: Iterable[dict[str, Any]]) -> tuple[Message, ...]:
        for bubble in bubbles:
            kind = bubble.get("type")
            if type(kind) is not int or kind not in (1, 2):
                continue
            timestamp = self.time_of(bubble)
            if kind == 1:
                self.user(bubble, timestamp)
            else:
                self.assistant(bubble, timestamp)
        self.close()
        return tuple(self.messages)


def _session_id(session: CursorSession, head: Any) -> str:
    if session.reference:
        return session.reference
    composer_id = lookup(head, ("composerId",))
    return composer_id if isinstance(composer_id, str) else ""


def _meta(session: CursorSession, head: Any, composer: Any) -> Meta:
    return derive_meta(
        _session_id(session, head), session.created_at, head, composer_fields(composer)
    )


def meta_of(session: CursorSession) -> Meta:
    """``to_common(session).meta``, from the head and composerData only (no bubble is read)."""
    head = try_loads(session.header)
    composer = None if session.composer_data is None else try_loads(session.composer_data)
    return _meta(session, head, composer)


@without_gc
def to_common(session: CursorSession) -> Transcript:
    """Read a native session as Common. Never fails; see the module docstring for the rules."""
    head = try_loads(session.header)
    composer = None if session.composer_data is None else try_loads(session.composer_data)
    meta = _meta(session, head, composer)
    inline = _inline_conversation(composer)
    if inline is not None:
        return Transcript(meta=meta, messages=_Folder(meta).fold(inline))
    listed = _listed_ids(composer)
    del composer  # a long session's header list is megabytes of objects; only the ids are kept
    lazy = _lazy_ordered(session, listed, meta.id)
    if lazy is not None:
        try:
            return Transcript(meta=meta, messages=_Folder(meta).fold(lazy))
        except _Disagree:
            pass
    bubbles = _ordered(_parsed_rows(session), listed)
    return Transcript(meta=meta, messages=_Folder(meta).fold(bubbles))
