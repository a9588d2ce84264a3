"""The Cursor CLI native body: one chat directory's content exactly as the agent stored it.

A chat is ``<chats>/<md5 of the workspace path>/<chat uuid>/`` holding ``store.db`` (SQLite
tables ``blobs(id, data)`` and ``meta(key, value)``) and, in most builds, ``meta.json`` and
``prompt_history.json``. The body keeps every blob and meta row (in rowid order, with their
SQLite storage class) and both side files as raw bytes, so a load followed by a save is
lossless. The codec reads them; the store only moves them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

HARNESS = "cursor"
#: What ``store.db`` holds when txcript creates it (the agent's own schema).
DEFAULT_SCHEMA = (
    "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
)
#: ``PRAGMA user_version`` of the stores the agent writes.
DEFAULT_USER_VERSION = 1

#: An SQLite cell value as it is kept (TEXT, BLOB, INTEGER, REAL or NULL).
Cell = str | bytes | int | float | None


@dataclass(frozen=True, slots=True)
class Blob:
    """One ``blobs`` row. ``data`` is the cell's bytes; ``text`` says it was stored as TEXT."""

    id: str
    data: bytes
    text: bool = False


@dataclass(frozen=True, slots=True)
class MetaRow:
    key: str
    value: Cell


@dataclass(frozen=True, slots=True)
class CursorChat:
    """One Cursor CLI chat.

    ``chat_id`` and ``bucket`` are the directory names (the bucket is ``md5(cwd)``);
    ``meta_json`` and ``prompt_history`` the side files' exact bytes (None when absent).
    ``schema`` holds the ``CREATE`` statements of ``store.db``'s tables and ``user_version`` its
    pragma, so a saved copy is the same database. ``resolved_cwd`` (the workspace the bucket's md5
    was matched to) and ``modified_ms`` (the store's mtime) are what the store knew beside the
    files; the codec uses them only as the last fallbacks for cwd and start time.
    """

    chat_id: str
    blobs: tuple[Blob, ...]
    meta: tuple[MetaRow, ...]
    bucket: str | None = None
    meta_json: bytes | None = None
    prompt_history: bytes | None = None
    schema: tuple[str, ...] = DEFAULT_SCHEMA
    user_version: int = DEFAULT_USER_VERSION
    resolved_cwd: str | None = None
    modified_ms: int | None = None


def blob_id(data: bytes) -> str:
    """A blob's id: the hex SHA-256 of its data."""
    return hashlib.sha256(data).hexdigest()


def bucket_of(cwd: str) -> str:
    """The chats sub-directory of a workspace: the hex MD5 of its path."""
    return hashlib.md5(cwd.encode("utf-8", "surrogateescape"), usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class AgentTranscript:
    """One transcript file: its exact text and what the store knew beside it."""

    id: str
    text: str
    kind: Literal["jsonl", "txt"]
    resolved_cwd: str | None = None
    modified_ms: int | None = None
