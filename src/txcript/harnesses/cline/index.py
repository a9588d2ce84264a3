"""The task history index: what the extension's History view lists.

Cline keeps it in ``<storage>/state/taskHistory.json`` (an array of ``HistoryItem``); before that,
Cline and Roo kept it in the editor's globalState (the ``taskHistory`` key of the extension's
``ItemTable`` row in ``state.vscdb``); Roo's 2026 releases give each task its own
``history_item.json`` (and rebuild ``tasks/_index.json`` from them, so txcript never writes that
cache). Entries are edited by splicing the text (:mod:`txcript.shared.jsonspans`): every other
entry, and every other key of the globalState, keeps its bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import StoreError, StoreUnreadable
from txcript.shared import jsonspans, vscode_state
from txcript.shared.files import MAX_SIDE_FILE_BYTES, decode_lossless, read_regular

from .locations import ExtensionDir

HISTORY_KEY = "taskHistory"
FILE = "file"
STATE = "state"


def _entries(value: Any) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                found.setdefault(item["id"], item)
    return found


def read_file_index(path: Path) -> tuple[str, dict[str, dict[str, Any]]] | None:
    """``state/taskHistory.json``: its text and its entries by id; None when absent."""
    try:
        text = decode_lossless(read_regular(path, limit=MAX_SIDE_FILE_BYTES))
    except StoreError:
        if not path.exists():
            return None
        raise
    parsed = jsonspans.parse(text, list)
    if parsed is None:
        raise StoreUnreadable(f"{path} is not a JSON array of tasks")
    return text, _entries([e.value for e in parsed.entries])


def state_history(item: vscode_state.Item | None) -> list[Any] | None:
    """The ``taskHistory`` list of the extension's globalState, or None when it has none."""
    if item is None:
        return None
    parsed = jsonspans.parse(item.text, dict)
    if parsed is None:
        return None
    for member in parsed.entries:
        if member.key == HISTORY_KEY and isinstance(member.value, list):
            return member.value
    return None


def read_state_index(extension: ExtensionDir, state_key: str) -> dict[str, dict[str, Any]] | None:
    """The entries of the globalState ``taskHistory``; None when the database or key is absent.
    An unreadable database is skipped with a warning (the task directories still list)."""
    try:
        item = vscode_state.read_item(extension.state_db, state_key)
    except (StoreError, StoreUnreadable) as exc:
        warn(f"skipped the task history in {extension.state_db}: {exc}")
        return None
    history = state_history(item)
    return None if history is None else _entries(history)


def index_of(extension: ExtensionDir, state_key: str) -> dict[str, tuple[dict[str, Any], str]]:
    """Every entry either index of this storage holds, with where it was found (the file
    first, as the newer)."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    try:
        from_file = read_file_index(extension.history_file)
    except (StoreError, StoreUnreadable) as exc:
        warn(f"skipped {extension.history_file}: {exc}")
        from_file = None
    if from_file is not None:
        for task_id, entry in from_file[1].items():
            found[task_id] = (entry, FILE)
    for task_id, entry in (read_state_index(extension, state_key) or {}).items():
        found.setdefault(task_id, (entry, STATE))
    return found


# ------------------------------------------------------------------------------- splicing


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def put_entry(text: str | None, entry: dict[str, Any]) -> str:
    """An index array's text with ``entry`` in it: in place of the entry of the same id, else
    appended (the extension appends too)."""
    if text is None or not text.strip():
        return _dumps([entry])
    parsed = jsonspans.parse(text, list)
    if parsed is None:
        raise StoreError("the task history is not a JSON array; refusing to replace it")
    same = [
        e for e in parsed.entries if isinstance(e.value, dict) and e.value.get("id") == entry["id"]
    ]
    if same:
        text = jsonspans.replace(parsed, same[0], _dumps(entry))
        if len(same) > 1:
            reparsed = jsonspans.parse(text, list)
            assert reparsed is not None
            doomed = {
                i
                for i, e in enumerate(reparsed.entries)
                if isinstance(e.value, dict) and e.value.get("id") == entry["id"]
            }
            doomed.discard(min(doomed))
            text = jsonspans.remove(reparsed, doomed)
        return text
    return jsonspans.append(parsed, _dumps(entry))


def drop_entry(text: str, task_id: str) -> str:
    parsed = jsonspans.parse(text, list)
    if parsed is None:
        raise StoreError("the task history is not a JSON array; refusing to replace it")
    doomed = {
        i
        for i, e in enumerate(parsed.entries)
        if isinstance(e.value, dict) and e.value.get("id") == task_id
    }
    return jsonspans.remove(parsed, doomed)


def with_state_history(item: vscode_state.Item | None, edit: Callable[[str | None], str]) -> str:
    """The globalState text with its ``taskHistory`` array edited by ``edit(text | None)``;
    every other key keeps its bytes. A globalState that is not a JSON object is refused."""
    if item is None:
        return _dumps({HISTORY_KEY: json.loads(edit(None))})
    parsed = jsonspans.parse(item.text, dict)
    if parsed is None:
        raise StoreError("the extension's globalState is not a JSON object; refusing to replace it")
    for member in parsed.entries:
        if member.key == HISTORY_KEY:
            old = item.text[member.start : member.end] if isinstance(member.value, list) else None
            return jsonspans.replace(parsed, member, edit(old))
    return jsonspans.append(parsed, edit(None), key=HISTORY_KEY)
