"""The Grok native body: one session directory's three files, each exactly as stored.

``$GROK_HOME/sessions/<percent-encoded cwd>/<session uuid>/`` holds:

* ``chat_history.jsonl`` — the **model log**: what the model is sent again on resume (user
  prompts wrapped in ``<user_query>``, assistant turns with their tool calls, reasoning items,
  tool results);
* ``updates.jsonl`` — the **display log**: the ACP ``session/update`` notifications Grok replays
  on screen. Only it has timestamps, user images, tool failures, stop reasons and (newer builds)
  each turn's token usage, and a session without it is invisible to ``grok``;
* ``summary.json`` — the listing: id, cwd, title, times, model, git state.

The body keeps the three texts byte for byte (``None`` for a file that is absent); the codec
parses them. Other sidecars (``events.jsonl``, ``rewind_points.jsonl``, ``terminal/`` …) belong to
a live session and are neither read nor written.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote

HARNESS = "grok"
CHAT = "chat_history.jsonl"
UPDATES = "updates.jsonl"
SUMMARY = "summary.json"
FILES = (CHAT, UPDATES, SUMMARY)


@dataclass(frozen=True, slots=True)
class GrokSession:
    #: The session directory's name (the session's uuid).
    id: str
    #: The project directory's name: the cwd percent-encoded ("" when unknown).
    project: str
    chat: str | None
    updates: str | None
    summary: str | None


def project_dir(cwd: str) -> str:
    """The project directory Grok files a session of ``cwd`` under: every byte outside RFC 3986's
    unreserved set as ``%XX`` (upper-case hex)."""
    return quote(cwd, safe="", encoding="utf-8", errors="surrogateescape")


def cwd_of(project: str) -> str | None:
    """The cwd a project directory's name encodes; None when the name is not such an encoding."""
    if not project:
        return None
    decoded = unquote(project, errors="surrogateescape")
    return decoded if project_dir(decoded) == project else None
