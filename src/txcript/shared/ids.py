"""Identifiers: deterministic UUIDv5 minting and the rule for ids that become file names."""

from __future__ import annotations

import unicodedata
import uuid

from txcript.errors import BadInput


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
        shown = session_id.encode("unicode_escape").decode("ascii")
        raise BadInput(f"session id `{shown}` is not usable as a file name ({problem})")
    return session_id
