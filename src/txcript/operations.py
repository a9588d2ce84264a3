"""What each command does, as library calls: the CLI and MCP front ends only parse and print."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from txcript import harnesses, view
from txcript.errors import BadInput
from txcript.harnesses.base import Discovered
from txcript.model import to_json
from txcript.sessions import discover, open_reference, parse_document
from txcript.shared.timeutil import format_rfc3339

EXPORT_FORMATS = ("simple", "common", "native")


def harness_rows() -> list[dict[str, Any]]:
    """``txcript harnesses --json``: every implemented harness and where its store lives."""
    rows = []
    for harness in harnesses.implemented():
        if not harness.listed:
            continue
        root = harness.default_root() if harness.has_store else None
        rows.append(
            {
                "id": harness.id,
                "name": harness.name,
                "read": True,
                "write": harness.can_write,
                "root": None if root is None else str(root),
            }
        )
    return rows


def list_sessions(
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
) -> list[Discovered]:
    sessions = discover(harness_names, cwd=cwd, since=since, until=until)
    return sessions if limit is None else sessions[:limit]


def session_row(session: Discovered) -> dict[str, Any]:
    """One ``list --json`` entry; absent values are ``null``."""
    return {
        "harness": session.harness,
        "id": session.meta_id,
        "title": session.title,
        "cwd": session.cwd,
        "model": session.model,
        "timestamp": format_rfc3339(session.timestamp),
        "updated_at": None if session.updated_at is None else format_rfc3339(session.updated_at),
        "messages": session.message_count,
    }


def view_session(reference: str, from_harness: str | None = None) -> str:
    """The text projection of a session or range (no tool-pair check, as ``view`` promises)."""
    opened = open_reference(reference, from_harness)
    return view.render(opened.transcript, opened.span())


def export_session(
    reference: str, from_harness: str | None = None, export_format: str = "simple"
) -> str:
    """A session (or range) as a Simple document, a Common document, or its native text form.

    The source id, start time and cwd are kept. A range may not cut a tool call from its result.
    """
    if export_format not in EXPORT_FORMATS:
        raise BadInput(
            f"export format `{export_format}` is not supported; use one of "
            + ", ".join(EXPORT_FORMATS)
        )
    opened = open_reference(reference, from_harness)
    if export_format == "native" and opened.request is None:
        return _with_newline(opened.harness.to_text(opened.native))
    transcript, _ = opened.sliced(check_tool_pairs=True)
    if export_format == "common":
        return to_json(transcript, indent=2) + "\n"
    target = harnesses.get("simple") if export_format == "simple" else opened.harness
    return _with_newline(target.to_text(target.from_common(transcript)))


def convert_document(data: bytes, label: str, from_harness: str, to_harness: str) -> str:
    """Pure conversion of one document: text of ``from_harness`` in, text of ``to_harness`` out.

    A same-harness conversion re-renders the native body without passing through Common, so it
    loses nothing the format can hold (Simple keeps unknown keys).
    """
    source_id = harnesses.canonical_id(from_harness)
    target = harnesses.get(to_harness)
    source, native = parse_document(data, label, source_id)
    if source.id == target.id:
        return _with_newline(target.to_text(native))
    transcript = source.to_common(native)
    return _with_newline(target.to_text(target.from_common(transcript)))


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"
