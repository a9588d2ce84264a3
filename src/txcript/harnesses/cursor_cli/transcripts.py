"""Cursor's agent transcripts (``cursor_transcripts``): a read-only source of readable copies.

Cursor desktop and the CLI both write a readable transcript of each agent chat under
``~/.cursor/projects/<slug>/agent-transcripts/``: ``<uuid>.txt`` in older builds, and
``<uuid>/<uuid>.jsonl`` since about February 2026. They are not what either app resumes from,
but they outlive a lost ``state.vscdb``, so txcript lists and reads them.

* **JSONL**: one ``{role, message: {content}}`` per line; content is a string or a list of
  ``text``, ``thinking`` and ``tool_use {name, input}`` parts. There are no ids, timestamps,
  models or tool results.
* **Text**: ``user:`` / ``assistant:`` lines open each message; everything up to the next one is
  its text, kept verbatim (``[Thinking]`` and ``[Tool call]`` blocks included).

Reading unwraps ``<user_query>``, types tools with the Cursor vocabulary (:mod:`.tools`), and
gives each call a deterministic id. Because no result was recorded, each call is answered by a
result that says so (:data:`NO_RESULT`): a continued copy then stays a well-formed conversation,
and nobody mistakes the marker for the tool's output. A line that carries its own time
(``timestamp``, ``createdAt`` or ``created_at``: RFC 3339 or epoch milliseconds, on the line or
its message) dates its message, and a line without one takes the time before it; only a file with
no time at all falls back to its mtime. The cwd is the workspace whose slug is the project
directory's name (the current directory or one of its parents), when one matches.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from txcript.diagnostics import skipped, warn
from txcript.errors import BadInput, Malformed, Unconvertible
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Block, Message, Meta, Text, Thinking, ToolResult, ToolUse, Transcript
from txcript.shared.files import MAX_SESSION_FILE_BYTES, decode_lossless, read_regular
from txcript.shared.ids import namespace_from_ascii, uuid5
from txcript.shared.jsonutil import try_loads
from txcript.shared.timeutil import EPOCH, from_epoch_ms, parse_rfc3339

from . import tools
from .codec import unwrap_query
from .head import derived_title
from .native import AgentTranscript

HARNESS = "cursor_transcripts"
NAMESPACE = namespace_from_ascii(b"txcript-cursortr")
NO_RESULT = "(no result recorded: Cursor's agent transcripts keep tool calls only)"
_ROLE_LINE = re.compile(r"(user|assistant):[ \t]?(.*)\Z")
#: The keys a line (or its message) may date itself with.
_TIME_KEYS = ("timestamp", "createdAt", "created_at")
_LINE_KEYS = frozenset({"role", "message", *_TIME_KEYS})


def is_line(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "role" in value
        and "message" in value
        and _LINE_KEYS.issuperset(value)
        and value["role"] in ("user", "assistant")
        and isinstance(value["message"], dict)
    )


def _line_time(value: dict[str, Any]) -> datetime | None:
    """The time a transcript line records for itself, if any (see the module docstring)."""
    for holder in (value, value["message"]):
        for key in _TIME_KEYS:
            moment = holder.get(key)
            if isinstance(moment, str):
                parsed = parse_rfc3339(moment)
                if parsed is not None:
                    return parsed
            elif type(moment) is int and 0 < moment < 1 << 53:
                return from_epoch_ms(moment)
    return None


def parse(text: str, session_id: str = "") -> AgentTranscript:
    first = next((line for line in text.splitlines() if line.strip()), "")
    if is_line(try_loads(first)):
        return AgentTranscript(session_id, text, "jsonl")
    if _ROLE_LINE.match(first.strip()):
        return AgentTranscript(session_id, text, "txt")
    raise Malformed(HARNESS, "not a Cursor agent transcript (JSON lines of {role, message})")


# ----------------------------------------------------------------------------------- reading


#: One message as a transcript holds it: its role, its parts and the time it records.
RawMessage = tuple[str, list[Any], datetime | None]


def _jsonl_messages(native: AgentTranscript, label: str) -> list[RawMessage]:
    out: list[RawMessage] = []
    for number, raw in enumerate(native.text.splitlines(), start=1):
        if not raw.strip():
            continue
        value = try_loads(raw)
        if not is_line(value):
            warn(f"{label}: line {number} is not a transcript line; skipped")
            continue
        content = value["message"].get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(parts, list):
            warn(f"{label}: line {number} has no content; skipped")
            continue
        out.append((value["role"], parts, _line_time(value)))
    return out


def _txt_messages(native: AgentTranscript) -> list[RawMessage]:
    out: list[tuple[str, list[str]]] = []
    for raw in native.text.splitlines():
        match = _ROLE_LINE.match(raw)
        if match is not None:
            out.append((match.group(1), [match.group(2)] if match.group(2) else []))
        elif out:
            out[-1][1].append(raw)
    return [
        (role, [{"type": "text", "text": "\n".join(lines).strip()}], None) for role, lines in out
    ]


def to_common(native: AgentTranscript) -> Transcript:
    label = f"Cursor agent transcript {native.id}"
    raw = _jsonl_messages(native, label) if native.kind == "jsonl" else _txt_messages(native)
    recorded = next((moment for _, _, moment in raw if moment is not None), None)
    if recorded is not None:
        started = recorded
    else:  # nothing in the file is dated: its mtime is the only time there is
        started = from_epoch_ms(native.modified_ms) if native.modified_ms is not None else EPOCH
    when = started
    messages: list[Message] = []
    first_prompt: str | None = None
    for index, (role, parts, moment) in enumerate(raw):
        when = moment or when
        blocks: list[Block] = []
        calls: list[str] = []
        for j, part in enumerate(parts):
            kind = part.get("type") if isinstance(part, dict) else None
            text = part.get("text") if isinstance(part, dict) else None
            if kind == "text" and isinstance(text, str):
                blocks.append(Text(text=unwrap_query(text) if role == "user" else text))
            elif kind == "thinking" and isinstance(part.get("thinking", text), str):
                blocks.append(Thinking(text=part.get("thinking", text)))
            elif role == "assistant" and kind == "tool_use" and isinstance(part.get("name"), str):
                call_id = uuid5(NAMESPACE, f"{native.id}:{index}:{j}")
                blocks.append(
                    ToolUse(id=call_id, tool=tools.to_tool(part["name"], part.get("input")))
                )
                calls.append(call_id)
            else:
                warn(f"{label}: a {role} part of type {kind!r}; skipped")
        if role == "user" and first_prompt is None:
            prompt = "\n".join(b.text for b in blocks if isinstance(b, Text))
            first_prompt = prompt or None
        messages.append(
            Message(
                role="user" if role == "user" else "assistant",
                content=tuple(blocks),
                timestamp=when,
            )
        )
        if calls:
            results = tuple(ToolResult(tool_use_id=c, content=NO_RESULT) for c in calls)
            messages.append(Message(role="user", content=results, timestamp=when))
    meta = Meta(
        id=native.id,
        timestamp=started,
        cwd=native.resolved_cwd,
        title=derived_title(first_prompt) if first_prompt else None,
    )
    return Transcript(meta=meta, messages=tuple(messages))


# ------------------------------------------------------------------------------------- store


def slug_of(path: str) -> str:
    """The project directory name Cursor gives a workspace path (runs of other characters → -)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")


def resolve_slug(slug: str) -> str | None:
    try:
        here = Path.cwd()
    except OSError:
        return None
    for candidate in (here, *here.parents):
        if slug_of(str(candidate)) == slug:
            return str(candidate)
    return None


class TranscriptStore:
    """The transcripts under ``<root>/projects/*/agent-transcripts/`` (read only)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.projects = root / "projects"

    def _files(self) -> Iterable[tuple[Path, str]]:
        for project in _subdirs(self.projects):
            directory = project / "agent-transcripts"
            try:
                entries = sorted(os.scandir(directory), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.endswith(".txt") and entry.is_file():
                    yield Path(entry.path), project.name
                elif entry.is_dir(follow_symlinks=False):
                    inner = Path(entry.path, f"{entry.name}.jsonl")
                    if inner.is_file():
                        yield inner, project.name

    def discover(self) -> list[Discovered]:
        return self._listed(path for path, _slug in self._files())

    def fingerprinted(self) -> dict[str, str]:
        """Every transcript :meth:`discover` reads, with its fingerprint now (see
        :class:`txcript.harnesses.base.ListsByFile`)."""
        return self.fingerprints(str(path) for path, _slug in self._files())

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The transcripts among ``references``, each exactly as :meth:`discover` lists it."""
        wanted = set(references)
        return self._listed(path for path, _slug in self._files() if str(path) in wanted)

    def _listed(self, paths: Iterable[Path]) -> list[Discovered]:
        found = []
        for path in paths:
            try:
                transcript = to_common(self.load(str(path)))
            except (BadInput, OSError) as exc:
                skipped(path, exc, "the Cursor agent transcript")
                continue
            meta = transcript.meta
            last = transcript.messages[-1].timestamp if transcript.messages else None
            latest = last or meta.timestamp
            updated = latest if latest != EPOCH else None
            found.append(Discovered.from_meta(HARNESS, str(path), meta, updated_at=updated))
        return found

    def load(self, reference: str) -> AgentTranscript:
        path = Path(reference)
        data = read_regular(path, limit=MAX_SESSION_FILE_BYTES)
        native = parse(decode_lossless(data), path.stem)
        slug = (path.parent.parent if native.kind == "jsonl" else path.parent).parent.name
        stat = path.stat()
        return AgentTranscript(
            id=native.id,
            text=native.text,
            kind=native.kind,
            resolved_cwd=resolve_slug(slug),
            modified_ms=stat.st_mtime_ns // 1_000_000,
        )

    def save(self, native: AgentTranscript, *, force: bool = False) -> Saved:
        raise Unconvertible(HARNESS, "Cursor's agent transcripts are a read-only source")

    def delete(self, reference: str, *, force: bool = False) -> None:
        raise BadInput("Cursor's agent transcripts are a read-only source; nothing was deleted")

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """``"<mtime ns>:<size>"`` and the workspace the transcript's project resolves to from
        the current directory (its cwd comes from there): a transcript read from another
        directory may list another cwd. ``""`` when the file cannot be examined."""
        from txcript.shared.files import file_key

        resolved: dict[str, str | None] = {}

        def workspace(slug: str) -> str:
            if slug not in resolved:
                resolved[slug] = resolve_slug(slug)
            return resolved[slug] or ""

        out: dict[str, str] = {}
        for reference in references:
            path = Path(reference)
            try:
                key = file_key(path.stat())
            except OSError:
                out[reference] = ""
                continue
            # (Which parent names the project depends on the form the content turns out to be.)
            slugs = [p.name for p in path.parents[1:3]]
            out[reference] = key + "".join(f"@{workspace(slug)}" for slug in slugs)
        return out

    def location(self, reference: str) -> str:
        return reference


def _subdirs(directory: Path) -> list[Path]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return sorted(Path(e.path) for e in entries if e.is_dir(follow_symlinks=False))


def sniff_lines(values: list[Any]) -> bool:
    return bool(values) and all(is_line(v) for v in values)


def to_text(native: AgentTranscript) -> str:
    """The transcript's text form is the file itself."""
    return native.text
