"""The native body of a Cline, Roo or Kilo task: its files as stored, and its index entry.

A VS Code task is the directory ``tasks/<taskId>/``: ``api_conversation_history.json`` (what the
model sees: Anthropic messages), ``ui_messages.json`` (what the chat view shows),
``task_metadata.json``, and per extension a few more (Cline's ``context_history.json`` and
``settings.json``, Roo's ``history_item.json``). Every regular file at the top of the directory
is kept byte for byte (the ``checkpoints/`` shadow git repository is not: it is the workspace's
history, not the conversation). The task's entry in the history index (a ``HistoryItem``: title,
time, tokens, cost, workspace) is kept as its JSON value.

A Cline CLI session (``~/.cline/data/sessions/<id>/``) has the same shape with other file names
(``<id>.json`` manifest, ``<id>.messages.json``); ``origin`` tells which.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from txcript.shared.jsonutil import try_loads

API_HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
TASK_METADATA = "task_metadata.json"
HISTORY_ITEM = "history_item.json"

#: The task directory (a VS Code extension's) or the CLI session directory.
TASK = "task"
SESSION = "session"


@dataclass(frozen=True)
class ClineTask:
    """One task or CLI session: its id, its files (name → bytes, sorted by name), its entry in
    the history index outside the task directory (None when none lists it), and which kind of
    directory it lives in."""

    id: str
    files: tuple[tuple[str, bytes], ...]
    entry: dict[str, Any] | None = None
    origin: str = TASK
    #: Where ``entry`` was found: ``state/taskHistory.json`` ("file"), the editor's
    #: ``state.vscdb`` ("state"), or nowhere yet (None: a save uses the store's own index).
    entry_origin: str | None = None
    _parsed: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def raw(self, name: str) -> bytes | None:
        for stored, data in self.files:
            if stored == name:
                return data
        return None

    def json(self, name: str) -> Any:
        """The file ``name`` parsed (:data:`INVALID` when it is not JSON, None when absent)."""
        if name not in self._parsed:
            data = self.raw(name)
            self._parsed[name] = None if data is None else try_loads(data)
        return self._parsed[name]

    @property
    def messages_file(self) -> str:
        return API_HISTORY if self.origin == TASK else f"{self.id}.messages.json"

    @property
    def manifest_file(self) -> str:
        return f"{self.id}.json"

    def api_messages(self) -> list[Any]:
        """The model-facing messages (an empty list when the file is missing or not a list)."""
        value = self.json(self.messages_file)
        if self.origin == SESSION and isinstance(value, dict):
            value = value.get("messages")
        return value if isinstance(value, list) else []

    def ui_messages(self) -> list[Any]:
        value = self.json(UI_MESSAGES) if self.origin == TASK else None
        return value if isinstance(value, list) else []

    def manifest(self) -> dict[str, Any]:
        value = self.json(self.manifest_file) if self.origin == SESSION else None
        return value if isinstance(value, dict) else {}

    def history_item(self) -> dict[str, Any] | None:
        """Roo's per-task ``history_item.json``, when the task has one."""
        value = self.json(HISTORY_ITEM)
        return value if isinstance(value, dict) else None

    def index_entry(self) -> dict[str, Any]:
        """The entry the history index gives the task (Roo's own file first), else ``{}``."""
        own = self.history_item()
        if own is not None:
            return own
        return self.entry if isinstance(self.entry, dict) else {}
