"""Reading Grok's display log (``updates.jsonl``): turns, their agent updates, and each call.

Every line is ``{timestamp (epoch s), method, params: {sessionId, update: {sessionUpdate, …,
_meta?}, _meta: {eventId, agentTimestampMs, …}}}``; a user chunk names its prompt in
``update._meta.promptIndex`` (older builds: ``params._meta.promptIndex``). A **turn** starts
with the user's chunks (``user_message_chunk``: text, or an image ``{type: "image", data,
mimeType}``) and ends with
``turn_completed`` (``stop_reason`` and, in newer builds, ``usage``). Between them come the
agent's updates — message and thought chunks and ``tool_call`` — and each call's
``tool_call_update`` (``status: "failed"`` is a tool failure).

``_meta.promptIndex`` only *names* a turn (a key the model log's ``prompt_index`` matches); it is
never used to size or index anything, and one outside ``0 ≤ n < 2³¹`` counts as absent (a hostile
``10¹²`` once made another reader allocate a vector that long). Lines that are not JSON objects,
and kinds that are not conversation (``hook_execution``, plans, mode changes …), are passed over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from txcript.shared.jsonutil import INVALID, is_uint, try_loads
from txcript.shared.timeutil import EPOCH, from_epoch_ms

#: The largest prompt index taken as a name; anything else counts as absent.
MAX_PROMPT_INDEX = 2**31
_TERMINAL = frozenset(("completed", "failed"))


@dataclass(slots=True)
class Agent:
    """One agent update of a turn: a chunk of the reply or of its reasoning, or a call."""

    kind: str  # "message", "thought" or "call"
    time: datetime | None
    text: str = ""
    call_id: str = ""


@dataclass(slots=True)
class Call:
    started: datetime | None = None
    status: str | None = None
    finished: datetime | None = None


@dataclass(slots=True)
class Turn:
    key: int | None = None
    user_time: datetime | None = None
    images: list[tuple[str, str]] = field(default_factory=list)  # (media type, data)
    agent: list[Agent] = field(default_factory=list)
    stop: str | None = None
    usage: dict[str, Any] | None = None
    completed: bool = False


@dataclass(slots=True)
class Display:
    turns: list[Turn] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)
    first_time: datetime | None = None
    _prompted: list[Turn] | None = None
    _by_key: dict[int, Turn] | None = None

    def turn_for(self, key: int | None, ordinal: int) -> Turn | None:
        """The turn the model log's ``ordinal``-th prompt (named ``key``) belongs to."""
        if self._by_key is None:
            self._by_key = {}
            for turn in self.turns:
                if turn.key is not None:
                    self._by_key.setdefault(turn.key, turn)
        if key is not None and key in self._by_key:
            return self._by_key[key]
        if self._prompted is None:
            self._prompted = [t for t in self.turns if t.user_time is not None or t.images]
        return self._prompted[ordinal] if ordinal < len(self._prompted) else None


def prompt_index(value: Any) -> int | None:
    """A prompt index, or None when absent or out of range (it names; it never sizes)."""
    return value if is_uint(value) and value < MAX_PROMPT_INDEX else None


def _time(line: dict[str, Any], meta: dict[str, Any]) -> datetime | None:
    millis = meta.get("agentTimestampMs")
    try:
        if type(millis) is int and millis >= 0:
            return from_epoch_ms(millis)
        seconds = line.get("timestamp")
        if isinstance(seconds, int | float) and not isinstance(seconds, bool) and seconds >= 0:
            return from_epoch_ms(round(seconds * 1000))
    except (OverflowError, ValueError):
        pass
    return None


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _chunk_text(update: dict[str, Any]) -> str | None:
    content = _obj(update.get("content"))
    text = content.get("text")
    return text if content.get("type", "text") == "text" and isinstance(text, str) else None


def first_time(text: str | None) -> datetime | None:
    """The time of the display log's first timed line (what a session started at when its
    summary does not say), reading only as far as that line."""
    for raw in (text or "").split("\n"):
        line = try_loads(raw)
        if isinstance(line, dict):
            found = _time(line, _obj(_obj(line.get("params")).get("_meta")))
            if found is not None:
                return found
    return None


def read(text: str | None) -> Display:
    display = Display()
    turn: Turn | None = None
    for raw in (text or "").split("\n"):
        line = try_loads(raw) if raw.strip() else INVALID
        if not isinstance(line, dict):
            continue
        params = _obj(line.get("params"))
        update = _obj(params.get("update"))
        meta = _obj(params.get("_meta"))
        kind = update.get("sessionUpdate")
        when = _time(line, meta)
        if display.first_time is None:
            display.first_time = when
        if kind == "user_message_chunk":
            # builds name the prompt in the update's own _meta (0.2.111), or beside it
            named = _obj(update.get("_meta")).get("promptIndex", meta.get("promptIndex"))
            key = prompt_index(named)
            renamed = key is not None and turn is not None and turn.key not in (None, key)
            if turn is None or turn.agent or turn.completed or renamed:
                turn = Turn(key=key)
                display.turns.append(turn)
            if turn.user_time is None:
                turn.user_time = when
            content = _obj(update.get("content"))
            if content.get("type") == "image":
                data, media = content.get("data"), content.get("mimeType")
                if isinstance(data, str) and isinstance(media, str):
                    turn.images.append((media, data))
            continue
        if turn is None:
            turn = Turn()
            display.turns.append(turn)
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            chunk = _chunk_text(update)
            if chunk is not None:
                agent_kind = "message" if kind == "agent_message_chunk" else "thought"
                turn.agent.append(Agent(agent_kind, when, chunk))
        elif kind == "tool_call":
            call_id = update.get("toolCallId")
            if isinstance(call_id, str):
                turn.agent.append(Agent("call", when, call_id=call_id))
                call = display.calls.setdefault(call_id, Call())
                call.started = call.started or when
                _status(call, update.get("status"), when)
        elif kind == "tool_call_update":
            call_id = update.get("toolCallId")
            if isinstance(call_id, str):
                _status(display.calls.setdefault(call_id, Call()), update.get("status"), when)
        elif kind == "turn_completed":
            reason = update.get("stop_reason", update.get("stopReason"))
            turn.stop = reason if isinstance(reason, str) and reason else None
            usage = update.get("usage")
            turn.usage = usage if isinstance(usage, dict) else None
            turn.completed = True
    return display


def _status(call: Call, status: Any, when: datetime | None) -> None:
    if isinstance(status, str):
        call.status = status
        if status in _TERMINAL:
            call.finished = when


__all__ = ["EPOCH", "Agent", "Call", "Display", "Turn", "first_time", "prompt_index", "read"]
