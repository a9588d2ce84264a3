"""The active branch of a pi session: the conversation its model sees when the session resumes.

A pi file is a tree. Each entry names its parent (``parentId``); branching (``/tree``, editing an
earlier prompt) adds children under an earlier entry and leaves the old branch in the file. The
**leaf** is the last entry in file order, and the conversation is the path from the root to it
(pi rebuilds its context the same way). OpenClaw also appends *side* rows (``appendMode:
"side"``) that do not move its visible leaf: the leaf is the last entry that is not one. Entries
off that path are abandoned branches: they stay in the native body but are never read as
conversation.

On the path, the **latest compaction** decides where the conversation starts: its summary comes
first, then either the messages it carried along itself (``retainedTail``, newer builds) or the
entries from ``firstKeptEntryId`` up to the compaction, then everything after it. OpenClaw's
``reset`` entry (a fresh history window inside one session) is such a boundary too, without a
summary.

Version 1 files have no entry ids: each entry hangs from the one before, and a compaction names
its first kept entry by position (``firstKeptEntryIndex``). Ids are synthesized for them, and for
any later entry that lacks one; an entry with no ``parentId`` key at all hangs from the one before
it (hand-written files). A header repeated with the same id is skipped; one naming another
session is counted so the reader can say so. Cycles end the walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.shared.jsonutil import INVALID

from .native import PiSession, is_header

#: Entry types pi writes. Anything else on the active branch is counted as unknown.
KNOWN_TYPES = frozenset(
    (
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "reset",
    )
)
#: Entries after which the conversation starts afresh: pi's compaction (its summary first), and
#: OpenClaw's ``reset`` (``/new`` inside a session), each optionally keeping entries from
#: ``firstKeptEntryId`` on.
BOUNDARIES = frozenset(("compaction", "reset"))


@dataclass(frozen=True, slots=True)
class Entry:
    """A non-header entry: its line number in the file, parsed value, id and parent id."""

    line: int
    value: dict[str, Any]
    id: str
    parent: str | None

    @property
    def type(self) -> Any:
        return self.value.get("type")


@dataclass(frozen=True, slots=True)
class Item:
    """One message of the conversation: an ``AgentMessage``-shaped dict, the entry timestamp
    (ISO text) to fall back on, and the key its synthesized ids derive from."""

    message: dict[str, Any]
    timestamp: Any
    key: str


@dataclass
class Tree:
    header: dict[str, Any]
    version: int
    #: Every non-header entry, in file order.
    entries: list[Entry]
    #: The path from the root to the leaf, in order.
    path: list[Entry]
    #: The conversation: what pi's context holds, in order.
    context: list[Item]
    #: Later headers naming another session (their lines are read as this session's).
    foreign_headers: list[str] = field(default_factory=list)
    #: Entries of unknown types on the path.
    unknown: int = 0


def header_of(native: PiSession) -> dict[str, Any]:
    """The first ``session`` header (``parse`` guarantees there is one)."""
    for line in native.lines:
        if is_header(line.value):
            value: dict[str, Any] = line.value
            return value
    return {}


def _version(header: dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def entries_of(native: PiSession) -> tuple[dict[str, Any], int, list[Entry], list[str]]:
    """The header, version, every entry with its id and parent resolved, and the ids of later
    headers that name another session."""
    header: dict[str, Any] | None = None
    foreign: list[str] = []
    entries: list[Entry] = []
    previous: str | None = None
    version = 1
    for number, line in enumerate(native.lines):
        value = line.value
        if not isinstance(value, dict):
            continue
        if value.get("type") == "session":
            if header is None and is_header(value):
                header = value
                version = _version(value)
            elif header is not None and value.get("id") != header.get("id"):
                foreign.append(str(value.get("id")))
            continue
        if header is None:
            continue  # nothing before the header belongs to the session (pi drops such files)
        synthetic = f"#{number}"
        if version < 2:
            entry_id, parent = synthetic, previous
        else:
            given = value.get("id")
            entry_id = given if isinstance(given, str) and given else synthetic
            if "parentId" not in value:
                parent = previous
            else:
                named = value["parentId"]
                parent = named if isinstance(named, str) and named else None
        entries.append(Entry(number, value, entry_id, parent))
        previous = entry_id
    return header or {}, version, entries, foreign


def _path(entries: list[Entry]) -> list[Entry]:
    if not entries:
        return []
    by_id = {entry.id: entry for entry in entries}
    path: list[Entry] = []
    seen: set[str] = set()
    visible = [entry for entry in entries if entry.value.get("appendMode") != "side"]
    current: Entry | None = (visible or entries)[-1]
    while current is not None and current.id not in seen:
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent) if current.parent is not None else None
    path.reverse()
    return path


def _first_kept_id(compaction: Entry, entries: list[Entry], native: PiSession) -> Any:
    """A compaction's first kept entry id; a v1 compaction names it by position in the file's
    JSON lines (the header counting as 0), which is translated to that entry's id."""
    value = compaction.value
    if "firstKeptEntryId" in value or "firstKeptEntryIndex" not in value:
        return value.get("firstKeptEntryId")
    position = value["firstKeptEntryIndex"]
    if not isinstance(position, int) or isinstance(position, bool) or position < 1:
        return None
    parsed = [n for n, line in enumerate(native.lines) if line.value is not INVALID]
    if position >= len(parsed):
        return None
    target = parsed[position]
    for entry in entries:
        if entry.line == target:
            return entry.id
    return None


def _item(entry: Entry) -> Item | None:
    """The conversation message an entry of the path contributes, if any."""
    value = entry.value
    kind = value.get("type")
    timestamp = value.get("timestamp")
    if kind == "message":
        message = value.get("message")
        return Item(message, timestamp, entry.id) if isinstance(message, dict) else None
    if kind == "custom_message":
        message = {
            "role": "custom",
            "customType": value.get("customType"),
            "content": value.get("content"),
        }
        return Item(message, timestamp, entry.id)
    if kind == "branch_summary":
        summary = value.get("summary")
        if isinstance(summary, str) and summary:
            return Item({"role": "branchSummary", "summary": summary}, timestamp, entry.id)
    return None


def resolve(native: PiSession) -> Tree:
    """The session's tree walked from its leaf: the conversation in order."""
    header, version, entries, foreign = entries_of(native)
    path = _path(entries)
    unknown = sum(1 for entry in path if entry.type not in KNOWN_TYPES)
    boundary_at = None
    for position, entry in enumerate(path):
        if entry.type in BOUNDARIES:
            boundary_at = position
    context: list[Item] = []
    if boundary_at is None:
        context.extend(item for entry in path if (item := _item(entry)) is not None)
        return Tree(header, version, entries, path, context, foreign, unknown)
    boundary = path[boundary_at]
    if boundary.type == "compaction":
        summary = boundary.value.get("summary")
        text = summary if isinstance(summary, str) else ""
        summary_item = Item({"role": "compactionSummary", "summary": text}, None, boundary.id)
        context.append(summary_item)
    tail = boundary.value.get("retainedTail")
    if isinstance(tail, list):
        for number, message in enumerate(tail):
            if isinstance(message, dict):
                key = f"{boundary.id}/{number}"
                context.append(Item(message, boundary.value.get("timestamp"), key))
    else:
        first_kept = _first_kept_id(boundary, entries, native)
        kept = False
        for entry in path[:boundary_at]:
            kept = kept or entry.id == first_kept
            if kept and (item := _item(entry)) is not None:
                context.append(item)
    context.extend(item for entry in path[boundary_at + 1 :] if (item := _item(entry)) is not None)
    if boundary.type == "compaction":
        # The summary stands for what came before the first message it precedes: it takes that
        # message's time (the compaction's when nothing follows), so times never go back.
        following = context[1] if len(context) > 1 else None
        if following is None:
            moment, fallback = None, boundary.value.get("timestamp")
        else:
            moment, fallback = following.message.get("timestamp"), following.timestamp
        first = context[0]
        context[0] = Item({**first.message, "timestamp": moment}, fallback, first.key)
    return Tree(header, version, entries, path, context, foreign, unknown)
