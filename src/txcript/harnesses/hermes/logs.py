"""The per-session logs under ``sessions/`` (what older builds wrote, and what people back up).

* ``<id>.jsonl`` — a transcript: the first line ``{role: "session_meta", tools, model,
  platform, timestamp}``, then one OpenAI-chat message per line (``role``, ``content``,
  ``timestamp``, ``tool_calls``, ``tool_call_id``, ``reasoning`` …).
* ``session_<id>.json`` — a whole snapshot ``{session_id, model, base_url, platform,
  session_start, last_updated, system_prompt, tools, message_count, messages}``.

``sessions.json`` (the gateway's routing index) and ``request_dump_*.json`` (raw API requests)
are not conversation and are never read. A log whose session the database also holds is not
listed: the database wins.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import Malformed
from txcript.shared.jsonutil import loads_strict, try_loads

from .native import HARNESS, JSON, JSONL, HermesSession

SNAPSHOT_PREFIX = "session_"
_NOT_LOGS = ("sessions.json",)
_NOT_LOG_PREFIXES = ("request_dump_", ".")


def log_id(name: str) -> tuple[str, str] | None:
    """``(session id, kind)`` for a log file's name, or None when it names no log."""
    if name in _NOT_LOGS or name.startswith(_NOT_LOG_PREFIXES):
        return None
    if name.endswith(".jsonl"):
        stem = name[: -len(".jsonl")]
        return (stem, JSONL) if stem else None
    if name.startswith(SNAPSHOT_PREFIX) and name.endswith(".json"):
        stem = name[len(SNAPSHOT_PREFIX) : -len(".json")]
        return (stem, JSON) if stem else None
    return None


def log_files(directory: Path) -> list[tuple[Path, str, str]]:
    """``(path, session id, kind)`` of each log in ``directory`` (links not followed)."""
    try:
        with os.scandir(directory) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        named = log_id(entry.name)
        try:
            regular = entry.is_file(follow_symlinks=False)
        except OSError:
            regular = False
        if named is not None and regular:
            found.append((Path(entry.path), *named))
    return found


def parse_jsonl(text: str, name: str = "") -> HermesSession:
    header: dict[str, Any] = {}
    records: list[dict[str, Any]] = []
    skipped = 0
    for raw in text.split("\n"):  # lines end at a newline only, never at U+2028 or U+0085
        if not raw.strip():
            continue
        value = try_loads(raw)
        if not isinstance(value, dict):
            skipped += 1
        elif value.get("role") == "session_meta" and not header:
            header = value
        else:
            records.append(value)
    if skipped:
        warn(
            f"Hermes transcript {name or '(document)'}: skipped {skipped} line(s) that are "
            "not JSON objects"
        )
    return HermesSession(session=header, messages=tuple(records), kind=JSONL, log=text, name=name)


def parse_snapshot(text: str, name: str = "") -> HermesSession:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"the session snapshot is not JSON: {exc}") from None
    if not is_snapshot(document):
        raise Malformed(HARNESS, "not a Hermes session snapshot (no `session_id` and `messages`)")
    session = {k: v for k, v in document.items() if k != "messages"}
    messages = tuple(r for r in document["messages"] if isinstance(r, dict))
    return HermesSession(session=session, messages=messages, kind=JSON, log=text, name=name)


def is_snapshot(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and isinstance(document.get("session_id"), str)
        and isinstance(document.get("messages"), list)
    )


def is_transcript_head(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") == "session_meta"


def file_name(native: HermesSession) -> str:
    """The file a log session is kept in under ``sessions/``."""
    if native.kind == JSON:
        return f"{SNAPSHOT_PREFIX}{native.id}.json"
    return f"{native.id}.jsonl"
