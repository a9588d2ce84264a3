"""OpenCode tool calls ↔ Common tools, and the stop reasons and ids the codec shares.

OpenCode's tools are lowercase with camelCase arguments. Four have a Common type when their input
fits it exactly: ``bash{command, description?, timeout?, workdir?}`` (``timeout`` is in
milliseconds), ``read{filePath, offset?, limit?}``, ``edit{filePath, oldString, newString,
replaceAll?}`` and ``write{filePath, content}``. Everything else — and any of these whose input
has another key or a wrongly typed value — is :class:`~txcript.model.Raw` with the input as
stored.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from txcript import model as m
from txcript.shared.jsonutil import is_uint

#: OpenCode name → (Common name, {OpenCode key: Common key}).
_TYPED: dict[str, tuple[str, dict[str, str]]] = {
    "bash": (
        "Bash",
        {
            "command": "command",
            "description": "description",
            "timeout": "timeout_ms",
            "workdir": "workdir",
        },
    ),
    "read": ("Read", {"filePath": "file_path", "offset": "offset", "limit": "limit"}),
    "edit": (
        "Edit",
        {
            "filePath": "file_path",
            "oldString": "old_string",
            "newString": "new_string",
            "replaceAll": "replace_all",
        },
    ),
    "write": ("Write", {"filePath": "file_path", "content": "content"}),
}
_BY_COMMON = {common: (native, keys) for native, (common, keys) in _TYPED.items()}


def to_tool(name: str, tool_input: Any) -> m.Tool:
    typed = _TYPED.get(name)
    if typed is None or not isinstance(tool_input, dict):
        return m.Raw(tool_name=name, input=tool_input)
    common, keys = typed
    if not set(tool_input) <= set(keys):
        return m.Raw(tool_name=name, input=tool_input)
    tool = m.type_tool(common, {keys[k]: v for k, v in tool_input.items()})
    return m.Raw(tool_name=name, input=tool_input) if isinstance(tool, m.Raw) else tool


def from_tool(tool: m.Tool) -> tuple[str, Any]:
    """The OpenCode ``(tool, input)`` for a Common tool."""
    if isinstance(tool, m.Raw):
        return tool.tool_name, tool.input
    name, canonical = m.render_tool(tool)
    typed = _BY_COMMON.get(name)
    if typed is None or (isinstance(tool, m.Bash) and tool.run_in_background):
        return name, canonical  # MultiEdit, Command, background Bash: kept under Common's name
    native, keys = typed
    back = {common: key for key, common in keys.items()}
    return native, {back[k]: v for k, v in canonical.items()}


# ------------------------------------------------------------------------------ stop reasons

_FINISH_TO_STOP: dict[str, m.StopReason] = {
    "stop": "end_turn",
    "tool-calls": "tool_use",
    "length": "max_tokens",
    "stop-sequence": "stop_sequence",
    "aborted": "aborted",
    "error": "error",
}
_STOP_TO_FINISH = {stop: finish for finish, stop in _FINISH_TO_STOP.items()}
#: What OpenCode writes when the provider gave no reason.
NO_REASON = "unknown"


def stop_reason(finish: Any) -> m.StopReason | None:
    if not isinstance(finish, str) or finish == NO_REASON:
        return None
    return _FINISH_TO_STOP.get(finish) or m.OtherStop(other=finish)


def finish_of(stop: m.StopReason | None) -> str:
    if stop is None:
        return NO_REASON
    if isinstance(stop, m.OtherStop):
        return stop.other
    return _STOP_TO_FINISH[stop]


def usage_of(tokens: Any) -> m.Usage | None:
    """``tokens{input, output, reasoning, cache{read, write}}`` as Usage; all-zero is none."""
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    values: list[Any] = [
        tokens.get("input"),
        tokens.get("output"),
        cache.get("read"),
        cache.get("write"),
    ]
    counts: list[int] = [v if is_uint(v) else 0 for v in values]
    if not any(counts):
        return None
    return m.Usage(
        input_tokens=counts[0],
        output_tokens=counts[1],
        cache_read_input_tokens=counts[2] or None,
        cache_creation_input_tokens=counts[3] or None,
    )


def tokens_of(usage: m.Usage | None) -> dict[str, Any]:
    u = usage or m.Usage(input_tokens=0, output_tokens=0)
    return {
        "input": u.input_tokens,
        "output": u.output_tokens,
        "reasoning": 0,
        "cache": {
            "read": u.cache_read_input_tokens or 0,
            "write": u.cache_creation_input_tokens or 0,
        },
    }


# ---------------------------------------------------------------------------------------- ids

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SESSION_ID = re.compile(r"ses_[0-9A-Za-z]{1,64}\Z")
_MAX_MS = (1 << 48) - 1


def _base62(data: bytes) -> str:
    return "".join([_BASE62[byte % 62] for byte in data])


def make_id(prefix: str, millis: int, seed: bytes) -> str:
    """``<prefix>_`` + 12 hex digits of the time in ms + 14 base62 characters (OpenCode's shape).

    Ids made with increasing ``millis`` sort in that order, as OpenCode's own do.
    """
    millis = min(max(millis, 0), _MAX_MS)
    return f"{prefix}_{millis:012x}{_base62(hashlib.blake2b(seed, digest_size=14).digest())}"


def new_session_id(millis: int) -> str:
    return make_id("ses", millis, secrets.token_bytes(16))


def fresh_session_id() -> str:
    """A new session id stamped now, for a copy written into the store."""
    from txcript.shared.timeutil import now, to_epoch_ms

    return new_session_id(to_epoch_ms(now()))


def session_id_for(meta_id: str, millis: int) -> str:
    """``meta_id`` when it already is an OpenCode session id, else one derived from it."""
    if SESSION_ID.match(meta_id):
        return meta_id
    return make_id("ses", millis, b"txcript-opencode:" + meta_id.encode("utf-8", "surrogatepass"))


class IdMint:
    """Message and part ids for one session, strictly ascending in the order they are asked for.

    ``<prefix>_`` + 12 hex digits of a time in ms that never goes back + 10 characters tagging the
    session (so ids of different sessions never collide) + a 4-character base62 counter.
    """

    def __init__(self, session_id: str) -> None:
        seed = b"txcript-opencode-ids:" + session_id.encode("utf-8", "surrogatepass")
        self._tag = _base62(hashlib.blake2b(seed, digest_size=10).digest())
        self._last = -1
        self._count = 0

    def next(self, prefix: str, millis: int) -> str:
        self._last = min(max(millis, self._last + 1, 0), _MAX_MS)
        self._count += 1
        count, digits = self._count, []
        for _ in range(4):
            count, digit = divmod(count, 62)
            digits.append(_BASE62[digit])
        return f"{prefix}_{self._last:012x}{self._tag}{''.join(reversed(digits))}"
