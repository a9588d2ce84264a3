"""Identifiers: deterministic UUIDv5 minting and the rule for ids that become file names."""

from __future__ import annotations

import hashlib
import os
import time
import unicodedata
import uuid
from datetime import datetime

from txcript.errors import BadInput
from txcript.shared.text import shown
from txcript.shared.timeutil import to_epoch_ms


def uuid5(namespace: uuid.UUID, name: str) -> str:
    return str(uuid.uuid5(namespace, name))


def namespace_from_ascii(tag: bytes) -> uuid.UUID:
    """A UUID namespace spelled as 16 ASCII bytes (e.g. ``b"txcript-simple!!"``)."""
    return uuid.UUID(bytes=tag)


def id_problem(session_id: str) -> str | None:
    """Why ``session_id`` cannot be a path component or store key, or None when it can."""
    if session_id == "":
        return "it is empty"
    if session_id in (".", ".."):
        return "it is a relative path"
    for ch in session_id:
        if ch in "/\\:":
            return f"it contains {ch!r}"
        if unicodedata.category(ch) == "Cc":
            return "it contains a control character"
    return None


def check_session_id(session_id: str) -> str:
    """Return ``session_id`` or raise the error every writing store uses."""
    problem = id_problem(session_id)
    if problem is not None:
        raise BadInput(f"session id `{shown(session_id)}` is not usable as a file name ({problem})")
    return session_id


# UUIDv7: a millisecond timestamp in the top 48 bits (what Codex mints for threads).
_MILLIS_MAX = (1 << 48) - 1


def uuid7(millis: int, entropy: bytes) -> str:
    """The UUIDv7 with ``millis`` (clamped to 48 bits) as its time and ``entropy`` as its bits."""
    millis = min(max(millis, 0), _MILLIS_MAX)
    rand = int.from_bytes(entropy[:10].ljust(10, b"\0"), "big")
    rand_a, rand_b = (rand >> 62) & 0xFFF, rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=(millis << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b))


def new_uuid7() -> str:
    """A fresh random UUIDv7 (what Codex mints for a new thread)."""
    return uuid7(time.time_ns() // 1_000_000, os.urandom(10))


def derived_uuid7(namespace: uuid.UUID, when: datetime, key: str) -> str:
    """A deterministic UUIDv7: ``when`` in its time bits, a hash of ``namespace`` + ``key``."""
    digest = hashlib.sha256(namespace.bytes + key.encode("utf-8", "surrogatepass")).digest()
    return uuid7(to_epoch_ms(when), digest)
