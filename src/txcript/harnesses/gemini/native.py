"""The Gemini CLI native body: a chat file's exact text, plus its parsed values, and its replay.

Gemini CLI keeps a chat in one of two forms, and both were still written in 2026 by different
installs, so the form is decided by the content, never by the date or the extension alone:

* **legacy document** (``.json``): ``{sessionId, projectHash, startTime, lastUpdated, messages,
  summary?, kind?, directories?}``, held as a single :class:`Line` whose text is the whole file;
* **log** (``.jsonl``): a header line ``{sessionId, projectHash, startTime, lastUpdated, kind,
  …}``, then records. A message record (``{id, type, …}``) re-appended with the same ``id``
  replaces the earlier one in place (the last one wins); ``{"$set": {…}}`` patches the metadata
  or, with ``messages``, replaces the whole message list; ``{"$rewindTo": id}`` drops that message
  and everything after it.

The body keeps every line as written (non-JSON lines, unknown records, CRLF, no final newline),
so a load followed by a save is byte-lossless. :func:`replay` turns either form into one
:class:`Chat` (the metadata and the live messages) and warns about whatever it had to skip.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from txcript.diagnostics import Tally
from txcript.errors import Malformed
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.text import shown

HARNESS = "gemini"
#: Message record types Gemini CLI writes; ``info``/``error``/``warning`` are its notices.
MESSAGE_TYPES = frozenset(("user", "gemini", "info", "error", "warning"))
#: Header fields whose JSON type is checked when a ``$set`` patches them.
_HEADER_TYPES: dict[str, type | tuple[type, ...]] = {
    "sessionId": str,
    "projectHash": str,
    "startTime": str,
    "lastUpdated": str,
    "summary": str,
    "kind": str,
    "directories": list,
}


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a log (or the whole legacy document): its exact text and its parsed JSON."""

    text: str
    value: Any


@dataclass(frozen=True, slots=True)
class GeminiSession:
    """One Gemini CLI chat.

    ``lines`` joined by ``\\n`` (plus a final ``\\n`` when ``trailing_newline``) are the file's
    exact text. The store fills what the file does not hold: ``cwd`` (the project root, from
    ``.project_root`` or ``projects.json``), ``parent_id`` (for a sub-agent chat, the name of the
    directory it sits in) and ``fallback_id`` (the file stem, used when the chat records no id).
    """

    lines: tuple[Line, ...]
    trailing_newline: bool = True
    legacy: bool = False
    cwd: str | None = None
    parent_id: str | None = None
    fallback_id: str | None = None


@dataclass
class Chat:
    """A chat replayed: its metadata after every ``$set``, and its live messages in order."""

    header: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)


# ----------------------------------------------------------------------------------- parsing


def is_legacy_document(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("messages"), list)
    )


def is_header(value: Any) -> bool:
    """A log's header line: a session id and no record type."""
    return (
        isinstance(value, dict) and isinstance(value.get("sessionId"), str) and "type" not in value
    )


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("type"), str) and "id" in value


def is_record(value: Any) -> bool:
    """Is this parsed line something a Gemini log holds (header, message, ``$set``, rewind)?"""
    if not isinstance(value, dict):
        return False
    return is_header(value) or is_message(value) or "$set" in value or "$rewindTo" in value


def parse(text: str, label: str | None = None) -> GeminiSession:
    """Parse a chat file (either form) into its native body.

    A log line that is not JSON is kept (so it is written back) but skipped with a warning; at
    least one line must be a header or a message record, else the text is
    :class:`~txcript.errors.Malformed`.
    """
    what = label or "the input"
    if not text.strip():
        raise Malformed(HARNESS, f"{what} is empty")
    if text.lstrip().startswith("{"):
        whole = try_loads(text)
        if is_legacy_document(whole):
            return GeminiSession(lines=(Line(text, whole),), trailing_newline=False, legacy=True)
        if isinstance(whole, dict) and not is_record(whole):
            raise Malformed(
                HARNESS,
                f"{what} is neither a Gemini chat document ({{sessionId, messages, …}}) "
                "nor a chat log",
            )
    trailing = text.endswith("\n")
    raw_lines = (text[:-1] if trailing else text).split("\n")
    lines: list[Line] = []
    found = False
    tally = Tally()
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            lines.append(Line(raw, INVALID))
            continue
        value = try_loads(raw)
        if value is INVALID:
            where = f"{label}: line {number}" if label else f"line {number}"
            tally.add("json", f"{where} of the Gemini chat is not valid JSON (truncated?); skipped")
        else:
            found = found or is_header(value) or is_message(value)
        lines.append(Line(raw, value))
    tally.say()
    if not found:
        raise Malformed(HARNESS, f"{what} holds no Gemini chat header or message records")
    return GeminiSession(lines=tuple(lines), trailing_newline=trailing)


def render(native: GeminiSession) -> str:
    """The exact text the body was parsed from (or was built as)."""
    text = "\n".join(line.text for line in native.lines)
    return text + "\n" if native.trailing_newline else text


def sniff(document: Any) -> bool:
    """A parsed JSON document in Gemini's text form: a legacy chat or a one-line log."""
    return is_legacy_document(document) or (
        is_header(document) and isinstance(document.get("projectHash"), str)
    )


def sniff_lines(values: list[Any]) -> bool:
    """The first JSON lines of a log: a header with ``projectHash``, then records."""
    return bool(values) and sniff(values[0]) and all(is_record(v) for v in values[1:])


# ------------------------------------------------------------------------------------ replay


class _Messages:
    """Messages keyed by id in first-seen order: a re-appended record replaces in place.

    Each key's place in :attr:`order` is kept beside it, so a rewind finds where to cut in one
    lookup: a log rewound thousands of times replays in time linear in its lines (searching the
    order for the target made 50,000 rewinds take most of a minute)."""

    def __init__(self) -> None:
        self.order: list[str] = []
        #: Each key → its record and its place in :attr:`order`.
        self.by_key: dict[str, tuple[dict[str, Any], int]] = {}

    def put(self, record: dict[str, Any], fallback_key: str) -> None:
        ident = record.get("id")
        key = ident if isinstance(ident, str) and ident else fallback_key
        held = self.by_key.get(key)
        if held is None:
            self.by_key[key] = (record, len(self.order))
            self.order.append(key)
        else:
            self.by_key[key] = (record, held[1])

    def reset(self, records: list[Any], where: str, tally: Tally) -> None:
        self.order, self.by_key = [], {}
        for index, record in enumerate(records):
            if is_message(record):
                self.put(record, f"{where}:{index}")
            else:
                tally.add(
                    "not a message", f"{where}: messages[{index}] is not a message record; skipped"
                )

    def rewind(self, target: str) -> bool:
        held = self.by_key.get(target)
        if held is None:
            return False
        cut = held[1]
        for key in self.order[cut:]:  # (each key is cut once after it was put: linear overall)
            del self.by_key[key]
        del self.order[cut:]
        return True

    def values(self) -> list[dict[str, Any]]:
        return [self.by_key[key][0] for key in self.order]


def _patch(
    header: dict[str, Any], patch: dict[str, Any], messages: _Messages, where: str, tally: Tally
) -> None:
    for key, value in patch.items():
        if key == "messages":
            if isinstance(value, list):
                messages.reset(value, where, tally)
            else:
                tally.add("$set messages", f"{where}: $set of `messages` is not a list; ignored")
            continue
        expected = _HEADER_TYPES.get(key)
        if expected is not None and not isinstance(value, expected):
            tally.add(
                f"$set {key}",
                f"{where}: $set of `{shown(key[:40])}` has the wrong type "
                f"({type(value).__name__}); ignored",
            )
            continue
        header[key] = value


def replay(native: GeminiSession, label: str = "the Gemini chat") -> Chat:
    """The chat the file describes: header after every ``$set``, messages after every rewind."""
    if native.legacy:
        return replay_document(native.lines[0].value, label)
    return replay_values((line.value for line in native.lines), label)


def replay_document(document: dict[str, Any], label: str) -> Chat:
    """A legacy document's chat: its fields and its messages (by id, the last one winning)."""
    listed = _Messages()
    tally = Tally()
    listed.reset(document["messages"], label, tally)
    tally.say()
    fields = {k: v for k, v in document.items() if k != "messages"}
    return Chat(header=fields, messages=listed.values())


def replay_values(values: Iterable[Any], label: str) -> Chat:
    """A log's chat from its lines' parsed values, in order (:data:`INVALID` for non-JSON)."""
    header: dict[str, Any] = {}
    messages = _Messages()
    seen_header = False
    # One warning per kind, with a count: 200,000 rewinds naming no message said 200,000.
    tally = Tally()
    for number, value in enumerate(values, start=1):
        if value is INVALID:
            continue
        if not isinstance(value, dict):
            tally.add("not an object", f"{label}: line {number} is not a JSON object; skipped")
        elif "$set" in value:
            patch = value["$set"]
            if isinstance(patch, dict):
                _patch(header, patch, messages, f"{label}: line {number}", tally)
            else:
                tally.add("$set", f"{label}: line {number}: $set is not an object; ignored")
        elif "$rewindTo" in value:
            target = value["$rewindTo"]
            if not isinstance(target, str):
                tally.add(
                    "$rewindTo id",
                    f"{label}: line {number}: $rewindTo is not a message id; ignored",
                )
            elif not messages.rewind(target):
                tally.add(
                    "$rewindTo",
                    f"{label}: line {number}: $rewindTo names no earlier message "
                    f"({shown(target[:40])}); ignored",
                )
        elif is_message(value):
            messages.put(value, f"line:{number}")
        elif is_header(value) and not seen_header:
            seen_header = True
            header.update(value)
        else:
            tally.add("record", f"{label}: line {number} is not a Gemini chat record; skipped")
    tally.say()
    return Chat(header=header, messages=messages.values())
