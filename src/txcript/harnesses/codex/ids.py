"""UUIDv7-shaped ids: fresh ones for new threads, derived ones for the writer's turn ids.

Generic (not Codex-specific); a candidate for :mod:`txcript.shared.ids`.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from datetime import datetime

from txcript.shared.timeutil import to_epoch_ms

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
