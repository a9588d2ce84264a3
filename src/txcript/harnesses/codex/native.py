"""The Codex native body: a rollout's lines exactly as written, plus their parsed values.

A rollout is JSON Lines. Every generation is held the same way, so a load followed by a save is
byte-lossless whatever the file holds (unknown record types, non-JSON lines, CRLF, no final
newline):

* **enveloped** (current builds): every line is ``{"timestamp", "type", "payload"}`` (newest
  builds add ``ordinal``), ``type`` one of ``session_meta``, ``turn_context``, ``response_item``,
  ``event_msg``, ``compacted`` or something newer;
* **bare** (mid-2025 builds): the first line is the session header ``{"id", "timestamp",
  "instructions", "git"}``, then one Responses API item per line, with ``{"record_type":
  "state"}`` snapshots in between;
* **legacy** (the original TypeScript CLI): one JSON document ``{"session": {…}, "items": […]}``
  in a ``.json`` file. It is held as a single :class:`Line` whose text is the whole document.

:func:`records` turns any of them into one stream of :class:`Record` values for the codec.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import Malformed
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.timeutil import parse_rfc3339

HARNESS = "codex"
#: Record kinds of the enveloped format that the codec reads.
ENVELOPE_KINDS = frozenset(
    ("session_meta", "turn_context", "response_item", "event_msg", "compacted")
)
#: Responses API item types a bare (mid-2025) rollout line may hold that the codec reads.
RESPONSE_ITEM_TYPES = frozenset(
    (
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    )
)
_UUID_TAIL = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\Z"
)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a rollout: its exact text (no line break) and its parsed JSON, or INVALID."""

    text: str
    value: Any


@dataclass(frozen=True, slots=True)
class CodexSession:
    """One Codex session (thread).

    ``lines`` joined by ``\\n`` (plus a final ``\\n`` when ``trailing_newline``) are the file's
    exact text. ``title`` is the thread's name from ``session_index.jsonl`` (the store fills it)
    or from the rollout's last ``thread_name_updated`` event (the text form fills it);
    ``fallback_id`` is the id the file name carries, used when the rollout records none.
    """

    lines: tuple[Line, ...]
    trailing_newline: bool = True
    legacy: bool = False
    title: str | None = None
    fallback_id: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """A rollout record, whatever generation it came from.

    ``index`` is the line number (0-based; for a legacy document, 0 is the session and ``i + 1``
    item ``i``). ``enveloped`` tells the current format from the bare one.
    """

    index: int
    kind: str
    payload: dict[str, Any]
    timestamp: datetime | None
    enveloped: bool


# ----------------------------------------------------------------------------------- parsing


def _legacy_document(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("session"), dict)
        and isinstance(value.get("items"), list)
    )


def is_rollout_head(value: Any) -> bool:
    """Is this the parsed first record of a rollout (an envelope, or a bare session header)?"""
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("type"), str) and "payload" in value:
        return True
    return "type" not in value and isinstance(value.get("id"), str) and "timestamp" in value


def is_known_record(value: Any) -> bool:
    """Is this parsed line a rollout record the codec reads?

    An envelope of a known kind (:data:`ENVELOPE_KINDS`) with an object payload, a bare session
    header (``id`` and ``timestamp``, no ``type``) or a bare Responses API item
    (:data:`RESPONSE_ITEM_TYPES`).
    """
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if "payload" in value:
        # (A kind that is not a string, say a list, is no known kind: never a set lookup.)
        return (
            isinstance(kind, str) and kind in ENVELOPE_KINDS and isinstance(value["payload"], dict)
        )
    if kind is None:
        return isinstance(value.get("id"), str) and "timestamp" in value
    return isinstance(kind, str) and kind in RESPONSE_ITEM_TYPES


def parse(text: str, label: str | None = None) -> CodexSession:
    """Parse a rollout (any generation) into its native body.

    A line that is not JSON is kept (so it is written back) but skipped, with one warning naming
    ``label`` and the 1-based line numbers; blank lines are kept silently. Lines of unknown record
    types are kept too, but at least one line must be a record the codec reads
    (:func:`is_known_record`): any other text is :class:`~txcript.errors.Malformed`.
    """
    if not text.strip():
        raise Malformed(HARNESS, f"{label or 'the input'} is empty")
    if text.lstrip().startswith("{"):
        whole = try_loads(text)
        if _legacy_document(whole):
            return CodexSession(lines=(Line(text, whole),), trailing_newline=False, legacy=True)
    trailing = text.endswith("\n")
    raw_lines = (text[:-1] if trailing else text).split("\n")
    lines: list[Line] = []
    objects = found = False
    broken: list[int] = []
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            lines.append(Line(raw, INVALID))
            continue
        value = try_loads(raw)
        if value is INVALID:
            broken.append(number)
        elif isinstance(value, dict):
            objects = True
            found = found or is_known_record(value)
        lines.append(Line(raw, value))
    if not found:
        what = label or "the input"
        detail = (
            f"no line of {what} is a Codex rollout record (expected JSON lines such as "
            '{"type": "session_meta", "payload": {…}})'
            if objects
            else f"{what} holds no Codex rollout records"
        )
        raise Malformed(HARNESS, detail)
    if broken:
        # Said once, not once per line: a file of the wrong format would otherwise flood stderr.
        prefix = f"{label}: " if label else ""
        if len(broken) == 1:
            warn(f"{prefix}line {broken[0]} of the Codex rollout is not valid JSON; skipped")
        else:
            shown = ", ".join(str(n) for n in broken[:5]) + (", …" if len(broken) > 5 else "")
            warn(
                f"{prefix}{len(broken)} lines of the Codex rollout are not valid JSON "
                f"(lines {shown}); skipped"
            )
    return CodexSession(lines=tuple(lines), trailing_newline=trailing)


def render(native: CodexSession) -> str:
    """The exact text the body was parsed from (or was built as)."""
    text = "\n".join(line.text for line in native.lines)
    return text + "\n" if native.trailing_newline else text


def sniff(document: Any) -> bool:
    """A parsed JSON document in Codex's text form: a legacy document or a one-line rollout."""
    if _legacy_document(document):
        return True
    return (
        isinstance(document, dict)
        and document.get("type") == "session_meta"
        and isinstance(document.get("payload"), dict)
    )


def id_from_file_name(name: str) -> str:
    """The session id a rollout's file name carries: its trailing UUID, else the stem."""
    for suffix in (".jsonl.zst", ".jsonl", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    match = _UUID_TAIL.search(name)
    return match.group(1) if match else name


# ----------------------------------------------------------------------------------- records


def line_record(index: int, value: Any) -> Record | None:
    """The record one parsed line holds, or None (not an object, a state snapshot, unknown)."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if isinstance(kind, str) and "payload" in value:
        payload = value["payload"]
        if not isinstance(payload, dict):
            return None
        return Record(index, kind, payload, parse_rfc3339(value.get("timestamp")), True)
    if "record_type" in value:
        return None
    if isinstance(kind, str):
        return Record(index, "response_item", value, None, False)
    if isinstance(value.get("id"), str) and "timestamp" in value:
        return Record(index, "session_meta", value, None, False)
    return None


def _chat_text(content: Any) -> str | None:
    """A Chat Completions ``content``: a string, or text parts joined; None when empty."""
    if isinstance(content, str):
        return content or None
    if not isinstance(content, list):
        return None
    parts = [
        part["text"]
        for part in content
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]
    return "\n".join(parts) if parts else None


def chat_items(item: dict[str, Any]) -> list[dict[str, Any]]:
    """A Chat-Completions-shaped legacy item (no ``type``) as the Responses items it amounts to.

    ``{role, content, reasoning?, tool_calls?}`` gives reasoning, then the text, then one
    ``function_call`` per tool call; ``{role: "tool", tool_call_id, content}`` gives the output.
    """
    role = item["role"]
    text = _chat_text(item.get("content"))
    if role == "tool":
        call_id = item.get("tool_call_id")
        if not isinstance(call_id, str):
            return []
        content = item.get("content")
        output = content if isinstance(content, str) else (text or "")
        return [{"type": "function_call_output", "call_id": call_id, "output": output}]
    out: list[dict[str, Any]] = []
    reasoning = item.get("reasoning")
    if role == "assistant" and isinstance(reasoning, str) and reasoning:
        out.append({"type": "reasoning", "summary": [{"type": "summary_text", "text": reasoning}]})
    if text is not None:
        kind = "output_text" if role == "assistant" else "input_text"
        out.append({"type": "message", "role": role, "content": [{"type": kind, "text": text}]})
    calls = item.get("tool_calls")
    for call in calls if role == "assistant" and isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        payload = {"type": "function_call", "name": function["name"]}
        payload["arguments"] = function.get("arguments", "{}")
        if isinstance(call.get("id"), str):
            payload["call_id"] = call["id"]
        out.append(payload)
    return out


def records(native: CodexSession) -> Iterator[Record]:
    """Every record of the session, in file order."""
    if native.legacy:
        document = native.lines[0].value
        session = document["session"]
        yield Record(0, "session_meta", session, None, False)
        for i, item in enumerate(document["items"]):
            if isinstance(item, dict) and isinstance(item.get("type"), str):
                yield Record(i + 1, "response_item", item, None, False)
            elif isinstance(item, dict) and isinstance(item.get("role"), str):
                for payload in chat_items(item):
                    yield Record(i + 1, "response_item", payload, None, False)
        return
    for index, line in enumerate(native.lines):
        record = line_record(index, line.value)
        if record is not None:
            yield record
