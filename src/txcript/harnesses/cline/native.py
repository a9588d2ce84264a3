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

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from txcript.shared.jsonutil import INVALID, try_loads

API_HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
TASK_METADATA = "task_metadata.json"
HISTORY_ITEM = "history_item.json"

_decoder = json.JSONDecoder()


def leading_elements(
    text: str, enough: Callable[[list[Any]], bool] | None = None
) -> tuple[list[Any], bool]:
    """The whole elements at the start of the JSON array ``text`` begins with, and whether the
    array (or ``enough``) ended them; False when the text stops inside one (a file cut off, or
    the head of one). A discovery reads a file's head this way, and a load reads a damaged file
    this way, so both see the same first elements."""
    index = 0
    while index < len(text) and text[index] in " \t\n\r":
        index += 1
    if index >= len(text):
        return [], False
    if text[index] != "[":
        return [], True
    index += 1
    found: list[Any] = []
    while True:
        while index < len(text) and text[index] in " \t\n\r,":
            index += 1
        if index >= len(text):
            return found, False
        if text[index] == "]":
            return found, True
        try:
            value, index = _decoder.raw_decode(text, index)
        except (ValueError, RecursionError):
            return found, False
        found.append(value)
        if enough is not None and enough(found):
            return found, True


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

    def _array(self, name: str) -> list[Any]:
        """The JSON array in file ``name``: all of it, or, when the file is damaged (cut off, or
        not JSON after its first elements), the whole elements before the damage."""
        value = self.json(name)
        if isinstance(value, list):
            return value
        data = self.raw(name)
        if value is INVALID and data is not None:
            return leading_elements(data.decode("utf-8", errors="ignore"))[0]
        return []

    def damaged(self, name: str) -> bool:
        """Is file ``name`` present but not the JSON it should be?"""
        return self.raw(name) is not None and self.json(name) is INVALID

    def api_messages(self) -> list[Any]:
        """The model-facing messages (an empty list when the file is missing or not a list)."""
        if self.origin == TASK:
            return self._array(API_HISTORY)
        value = self.json(self.messages_file)
        messages = value.get("messages") if isinstance(value, dict) else None
        return messages if isinstance(messages, list) else []

    def ui_messages(self) -> list[Any]:
        return self._array(UI_MESSAGES) if self.origin == TASK else []

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
