"""The Copilot CLI native body: one session from the event log, the store database, or both.

* **Event log** (``session-state/<id>/events.jsonl``, late 2025 on; earlier a flat
  ``session-state/<id>.jsonl`` or ``history-session-state/``): ``{type, data, id, timestamp,
  parentId}`` events, kept line for line, with the directory's ``workspace.yaml`` as its exact
  text.
* **Store database** (``session-store.db``, 2026): the CLI's cross-session index — a
  ``sessions`` row (``id, cwd, repository, branch, summary, created_at, updated_at``), one
  ``turns`` row per exchange (``user_message``, ``assistant_response``) and
  ``assistant_usage_events`` (model and tokens per call). It holds no tool calls; it is the
  conversation's only record when the event log is gone (pruned, or never copied), and its
  title source (``summary``) otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonlines import Line, parse_lines, render_lines

HARNESS = "copilot"
BUNDLE_KEY = "copilot_session"


@dataclass(frozen=True, slots=True)
class StoreRows:
    """A session's rows in ``session-store.db``, as plain values (column → value)."""

    session: dict[str, Any]
    turns: tuple[dict[str, Any], ...] = ()
    usage: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class CopilotSession:
    session_id: str
    events: tuple[Line, ...] | None = None
    events_newline: bool = True
    workspace: str | None = None
    rows: StoreRows | None = field(default=None)


def workspace_fields(text: str | None) -> dict[str, str]:
    """The top-level ``key: value`` scalars of ``workspace.yaml`` (quotes removed); nested or
    block values are not read."""
    out: dict[str, str] = {}
    for raw in (text or "").splitlines():
        if not raw or raw[0] in " \t#-" or ":" not in raw:
            continue
        key, _, value = raw.partition(":")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if value in ("", "null", "~", "|", ">"):
            continue
        out[key.strip()] = value
    return out


def render_events(native: CopilotSession) -> str | None:
    return None if native.events is None else render_lines(native.events, native.events_newline)


def to_bundle(native: CopilotSession) -> dict[str, Any]:
    rows = native.rows
    return {
        BUNDLE_KEY: 1,
        "id": native.session_id,
        "events": render_events(native),
        "workspace": native.workspace,
        "store": None
        if rows is None
        else {"session": rows.session, "turns": list(rows.turns), "usage": list(rows.usage)},
    }


def sniff(document: Any) -> bool:
    return isinstance(document, dict) and document.get(BUNDLE_KEY) == 1 and "events" in document


def from_bundle(document: Any) -> CopilotSession:
    if not sniff(document):
        raise Malformed(HARNESS, "not a Copilot CLI session bundle ({copilot_session, events, …})")
    ident, events, workspace, store = (
        document.get("id"),
        document.get("events"),
        document.get("workspace"),
        document.get("store"),
    )
    if not isinstance(ident, str):
        raise Malformed(HARNESS, "the bundle's `id` must be text")
    if not (events is None or isinstance(events, str)) or not (
        workspace is None or isinstance(workspace, str)
    ):
        raise Malformed(HARNESS, "the bundle's `events` and `workspace` must be text or null")
    rows = None
    if store is not None:
        if not (
            isinstance(store, dict)
            and isinstance(store.get("session"), dict)
            and all(isinstance(t, dict) for t in store.get("turns") or [])
            and all(isinstance(u, dict) for u in store.get("usage") or [])
        ):
            raise Malformed(HARNESS, "the bundle's `store` must hold session, turns and usage rows")
        rows = StoreRows(
            store["session"], tuple(store.get("turns") or ()), tuple(store.get("usage") or ())
        )
    if events is None and rows is None:
        raise Malformed(HARNESS, "the bundle holds neither an event log nor store rows")
    lines, trailing = parse_lines(events) if events is not None else (None, True)
    return CopilotSession(ident, lines, trailing, workspace, rows)
