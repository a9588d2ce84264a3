"""Identifiers: UUIDv5/v7 minting, the rule for ids that become file names, and each harness's
id grammar with the allow-list of what a foreign id may become (see ``docs/security.md``)."""

from __future__ import annotations

import functools
import os
import re
import time
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:  # uuid (and the platform module it loads) is imported when an id is minted
    import uuid
    from datetime import datetime

from txcript.errors import BadInput
from txcript.shared.text import shown
from txcript.shared.timeutil import to_epoch_ms


def uuid5(namespace: uuid.UUID, name: str) -> str:
    import uuid

    return str(uuid.uuid5(namespace, name))


def namespace_from_ascii(tag: bytes) -> uuid.UUID:
    """A UUID namespace spelled as 16 ASCII bytes (e.g. ``b"txcript-simple!!"``)."""
    import uuid

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
    import uuid

    return str(uuid.UUID(int=(millis << 80) | (0x7 << 76) | (rand_a << 64) | (0b10 << 62) | rand_b))


def new_uuid7() -> str:
    """A fresh random UUIDv7 (what Codex mints for a new thread)."""
    return uuid7(time.time_ns() // 1_000_000, os.urandom(10))


def derived_uuid7(namespace: uuid.UUID, when: datetime, key: str) -> str:
    """A deterministic UUIDv7: ``when`` in its time bits, a hash of ``namespace`` + ``key``."""
    import hashlib

    digest = hashlib.sha256(namespace.bytes + key.encode("utf-8", "surrogatepass")).digest()
    return uuid7(to_epoch_ms(when), digest)


# ------------------------------------------------------------------------------- id grammars

#: The longest id any grammar accepts (a UUID is 36; OpenCode's ``ses_…`` about 30). Longer ids
#: would make file names over the 255-byte limit of most file systems.
MAX_ID_LENGTH = 128
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_OPENCODE = r"ses_[0-9A-Za-z]{1,100}"
#: The namespace of the UUIDv5 a foreign (non-conforming) id maps to, as 16 ASCII bytes.
FOREIGN_ID_NAMESPACE_TAG = b"txcript-foreign!"


class IdGrammar(msgspec.Struct, frozen=True):
    """The shape of the session ids one harness resumes by, and what a foreign id becomes.

    Every writer checks the id it writes with :meth:`check`, and every resume command is built
    from an id that passed it, so a stored id can never be read as a command-line option.
    :meth:`adopt` is the allow-list for ids coming from elsewhere: an id the grammar accepts is
    kept as it is; any other becomes a deterministic id of the grammar's own shape (the same
    source id always gives the same result), derived by ``derive``.
    """

    #: What the error message calls a conforming id ("a UUID").
    description: str
    #: The regular expression a whole id matches (compiled when an id is first checked).
    pattern: str
    derive: Callable[[str], str]

    def problem(self, session_id: str) -> str | None:
        """Why ``session_id`` is not an id of this grammar, or None when it is one."""
        if len(session_id) > MAX_ID_LENGTH:
            return f"it is {len(session_id)} characters long"
        if _compiled(self.pattern).fullmatch(session_id) is None:
            return f"it is not {self.description}"
        return None

    def check(self, session_id: str, harness: str) -> str:
        """Return ``session_id``, or raise the one-line error every writer and resume gives."""
        problem = self.problem(session_id)
        if problem is not None:
            raise BadInput(
                f"session id `{_brief(session_id)}` is not a valid {harness} id ({problem})"
            )
        return session_id

    def adopt(self, source_id: str) -> str:
        """The id a copy of a session with ``source_id`` gets: kept when valid, else derived."""
        return source_id if self.problem(source_id) is None else self.derive(source_id)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A grammar's pattern, compiled once: most runs check no id, and need not pay for it."""
    return re.compile(pattern)


def foreign_uuid(source_id: str) -> str:
    """The UUIDv5 of a foreign id (RFC 4122 v5 of its UTF-8 bytes in the txcript namespace)."""
    return uuid5(namespace_from_ascii(FOREIGN_ID_NAMESPACE_TAG), source_id)


#: Claude Code, Codex and Cursor desktop resume by UUID (Claude Code and Codex refuse any other).
UUID_IDS = IdGrammar("a UUID", _UUID, foreign_uuid)
#: Cursor desktop's composer ids are UUIDs; older and test stores hold other ids of letters, digits
#: and ``-``, which its writer keeps. ``%`` and ``_`` (SQL LIKE wildcards, facts §22.1) and every
#: other character are refused; a foreign id outside the grammar becomes its UUIDv5.
CURSOR_IDS = IdGrammar(
    "a Cursor composer id (letters, digits and -)",
    r"[A-Za-z0-9][A-Za-z0-9-]*",
    foreign_uuid,
)
#: OpenCode's ``ses_`` + letters and digits; a foreign id becomes ``ses_`` + its UUIDv5's hex.
OPENCODE_IDS = IdGrammar(
    "an OpenCode id (ses_ and letters or digits)",
    _OPENCODE,
    lambda source_id: "ses_" + foreign_uuid(source_id).replace("-", ""),
)

#: Cline's task ids: its VS Code tasks are named by the epoch milliseconds they started at, its CLI
#: sessions ``<epoch ms>_<nanoid>``, Roo-era ones UUIDs; any id of letters, digits, ``_`` and
#: ``-`` names a task directory. A foreign id outside the grammar becomes its UUIDv5.
CLINE_IDS = IdGrammar(
    "a Cline task id (letters, digits, _ and -)",
    r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}",
    foreign_uuid,
)
#: Kilo: its 2026 sessions (``kilo.db``) have OpenCode's ``ses_…`` ids, its older extension's
#: tasks UUIDs; a foreign id becomes a ``ses_`` id, the kind a new copy is written as.
KILO_IDS = IdGrammar(
    "a Kilo session id (ses_ and letters or digits, or a UUID)",
    f"{_OPENCODE}|{_UUID}",
    lambda source_id: "ses_" + foreign_uuid(source_id).replace("-", ""),
)
#: Hermes's session ids (``20260225_143052_a1b2c3``, ``cron_<job>_<time>``): letters, digits, ``_``
#: and ``-``; a foreign id becomes ``import_`` + 20 hex digits of its UUIDv5.
HERMES_IDS = IdGrammar(
    "a Hermes session id (letters, digits, _ and -)",
    r"[A-Za-z0-9][A-Za-z0-9_-]*",
    lambda source_id: "import_" + foreign_uuid(source_id).replace("-", "")[:20],
)


#: Kimi Code's ``session_`` + a UUID; a foreign id becomes ``session_`` + its UUIDv5.
KIMI_CODE_IDS = IdGrammar(
    "a Kimi Code id (session_ and a UUID)",
    "session_" + _UUID,
    lambda source_id: "session_" + foreign_uuid(source_id),
)


#: Goose's ids: ``YYYYMMDD_N`` for its own sessions, the file name for sessions migrated from its
#: older JSONL files (any name of letters, digits, ``_``, ``.`` and ``-``); a foreign id outside
#: that becomes its UUIDv5. ``goose session --resume --session-id`` takes any of them.
GOOSE_IDS = IdGrammar(
    "a Goose session id (letters, digits, _, . and -)",
    r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    foreign_uuid,
)


#: Crush's ids: UUIDs for its sessions, the agent tool's call id for a sub-agent's session, and
#: ``title-<id>`` for its title sessions; ``crush --session`` takes any of them.
CRUSH_IDS = IdGrammar(
    "a Crush session id (letters, digits, _, . and -)",
    r"[A-Za-z0-9][A-Za-z0-9_.-]*",
    foreign_uuid,
)


def _cowork_id(source_id: str) -> str:
    """A foreign id as a Cowork task id: ``local_`` before a UUID, else before its UUIDv5."""
    if _compiled(_UUID).fullmatch(source_id) is not None:
        return "local_" + source_id.lower()
    return "local_" + foreign_uuid(source_id)


#: Claude desktop's Cowork task ids: ``local_`` and letters, digits, ``_`` or ``-``
#: (``local_<uuid>``, ``local_ditto_…``); a foreign id gets the prefix (before its UUIDv5 when it
#: is not a UUID).
COWORK_IDS = IdGrammar(
    "a Cowork task id (local_ and letters, digits, _ or -)",
    r"local_[A-Za-z0-9][A-Za-z0-9_-]{0,100}",
    _cowork_id,
)


def _brief(session_id: str) -> str:
    """An id as an error shows it: escaped, and cut to 60 characters."""
    escaped = shown(session_id)
    return escaped if len(escaped) <= 60 else escaped[:59] + "…"


def option_safe(session_id: str) -> str:
    """Refuse an id that a command line would read as an option (the last line of defence)."""
    if session_id.startswith("-"):
        raise BadInput(
            f"session id `{_brief(session_id)}` starts with `-` and would be read as an option; "
            "refusing to build a resume command from it"
        )
    return session_id
