"""A chat's metadata: the ``meta`` row ``"0"`` and ``meta.json``, and the rules that make Meta.

* id: ``agentId``, else the chat directory's name;
* title: ``meta.json`` ``title``, else the ``meta`` row's ``name``, else the first prompt's first
  line (empty strings count as absent);
* cwd: ``workspacePath``, else the ``Workspace Path:`` line of the injected ``<user_info>``
  context, else the workspace the bucket's md5 was matched to;
* start: ``createdAt`` (ms), else ``meta.json`` ``createdAtMs``, else the first message's
  ``createdAt``, else the store's mtime;
* model: ``lastUsedModel``, else the model of the last assistant message that names one.

The ``meta`` value is hex-encoded JSON in current builds and plain JSON in others; anything else
is reported with a warning and the other sources are used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.model import Meta
from txcript.shared.jsonutil import INVALID, is_uint, try_loads
from txcript.shared.timeutil import EPOCH, from_epoch_ms

from .native import CursorChat, MetaRow

META_KEY = "0"
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+\Z")
_TITLE_CHARS = 100


@dataclass(frozen=True, slots=True)
class Head:
    """What the ``meta`` row and ``meta.json`` say, each value None when absent or unusable."""

    agent_id: str | None = None
    root_id: str | None = None
    name: str | None = None
    created_ms: int | None = None
    workspace_path: str | None = None
    last_model: str | None = None
    title: str | None = None
    file_created_ms: int | None = None


def decode_meta_value(value: object) -> Any:
    """The JSON a ``meta`` value holds (hex-encoded or plain), or INVALID."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return INVALID
    if not isinstance(value, str):
        return INVALID
    text = value.strip()
    if _HEX.match(text):
        try:
            return try_loads(bytes.fromhex(text).decode("utf-8"))
        except UnicodeDecodeError:
            return INVALID
    return try_loads(text)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def millis(value: object) -> int | None:
    if is_uint(value) and isinstance(value, int) and value < 253_402_300_800_000:
        return value
    return None


def read_head(meta: tuple[MetaRow, ...], meta_json: bytes | None, label: str) -> Head:
    row: Any = None
    for entry in meta:
        if entry.key == META_KEY:
            row = decode_meta_value(entry.value)
            if not isinstance(row, dict):
                warn(f"{label}: the meta row is not JSON; its metadata is not used")
                row = None
            break
    document: Any = None
    if meta_json is not None:
        document = try_loads(meta_json)
        if not isinstance(document, dict):
            warn(f"{label}: meta.json is not a JSON object; it is not used")
            document = None
    row = row or {}
    document = document or {}
    return Head(
        agent_id=_text(row.get("agentId")),
        root_id=_text(row.get("latestRootBlobId")),
        name=_text(row.get("name")),
        created_ms=millis(row.get("createdAt")),
        workspace_path=_text(row.get("workspacePath")),
        last_model=_text(row.get("lastUsedModel")),
        title=_text(document.get("title")),
        file_created_ms=millis(document.get("createdAtMs")),
    )


def derived_title(prompt: str) -> str | None:
    """A title from a prompt: its first non-empty line, stripped, at most 100 characters."""
    for line in prompt.splitlines():
        if line.strip():
            return line.strip()[:_TITLE_CHARS]
    return None


def head_started(head: Head) -> datetime | None:
    ms = head.created_ms if head.created_ms is not None else head.file_created_ms
    return None if ms is None else from_epoch_ms(ms)


def cheap_meta(head: Head, chat: CursorChat) -> Meta | None:
    """The Meta when the head alone decides every field, else None (the messages are needed)."""
    title = head.title or head.name
    started = head_started(head)
    if title is None or started is None or head.workspace_path is None or not head.last_model:
        return None
    return Meta(
        id=head.agent_id or chat.chat_id,
        timestamp=started,
        cwd=head.workspace_path,
        title=title,
        model=head.last_model,
    )


def full_meta(
    head: Head,
    chat: CursorChat,
    *,
    first_prompt: str | None,
    context_cwd: str | None,
    first_message_at: datetime | None,
    last_message_model: str | None,
) -> Meta:
    started = head_started(head) or first_message_at
    if started is None:
        started = from_epoch_ms(chat.modified_ms) if chat.modified_ms is not None else EPOCH
    title = head.title or head.name
    if title is None and first_prompt is not None:
        title = derived_title(first_prompt)
    return Meta(
        id=head.agent_id or chat.chat_id,
        timestamp=started,
        cwd=head.workspace_path or context_cwd or chat.resolved_cwd,
        title=title,
        model=head.last_model or last_message_model,
    )
