"""Agents-sidebar registration: the ``ItemTable`` values that make the app list a session.

The Agents home reads ``glass.localAgentProjects.v1`` (a JSON array of projects, each naming a
workspace folder) and ``glass.localAgentProjectMembership.v1`` (a JSON object mapping composer id
to project id); a session absent from the membership map never appears.

Every change is a splice into the existing JSON text (:func:`entries` finds each top-level entry's
byte span): a project is appended, a membership entry is appended, re-pointed or removed, and every
other project and membership keeps its exact bytes (whitespace, key order, number spelling). A
value that exists but is not the JSON shape the app writes is never replaced:
:class:`SidebarUnreadable` is raised and the caller writes nothing.

A session that already belongs to a project the array holds keeps that membership (the user's
grouping wins); a membership pointing at a project that does not exist is re-pointed to the
project of the session's folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from txcript.errors import StoreError
from txcript.harnesses.cursor_desktop.workspaces import same_folder
from txcript.shared.ids import uuid5

PROJECTS_KEY = "glass.localAgentProjects.v1"
MEMBERSHIP_KEY = "glass.localAgentProjectMembership.v1"

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_SORTED: dict[str, Any] = {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": False}


class SidebarUnreadable(StoreError):
    """An existing sidebar value cannot be parsed; replacing it would lose the user's projects."""


# ----------------------------------------------------------------------- JSON text splicing


@dataclass(frozen=True, slots=True)
class Entry:
    """One top-level entry of a JSON array or object, with its position in the text.

    ``start`` is where the entry begins (its key, for an object member), ``value_start`` where its
    value begins and ``end`` where the value ends.
    """

    start: int
    value_start: int
    end: int
    key: str | None
    value: Any


@dataclass(frozen=True, slots=True)
class Container:
    """A JSON array or object text: where its body starts (after the opener) and its entries."""

    text: str
    body: int
    entries: tuple[Entry, ...]


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return at if match is None else match.end()


#: One ``"key": "string"`` member without escapes and what follows it (``,`` or ``}``): the
#: membership map's every entry, as the app writes it. Anything else takes the general parser.
_STRING_MEMBER = re.compile(
    r'[ \t\n\r]*"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*("[^"\\\x00-\x1f]*")[ \t\n\r]*([,}])'
)


def _string_map(text: str) -> Container | None:
    """:func:`entries` of an object whose every key and value is a string without escapes, or
    None (then the general parser decides): one match per member instead of four calls."""
    at = _skip(text, 0)
    if not text.startswith("{", at) or text.startswith("}", _skip(text, at + 1)):
        return None
    body = at = at + 1
    found: list[Entry] = []
    match = _STRING_MEMBER.match
    while True:
        member = match(text, at)
        if member is None:
            return None
        raw = member.group(2)
        found.append(
            Entry(member.start(1) - 1, member.start(2), member.end(2), member.group(1), raw[1:-1])
        )
        at = member.end()
        if member.group(3) == "}":
            break
    if _skip(text, at) != len(text):
        return None
    return Container(text, body, tuple(found))


def entries(text: str, kind: type) -> Container | None:
    """The top-level entries of ``text`` when it is exactly one JSON ``kind`` (list or dict)."""
    if kind is dict:
        quick = _string_map(text)
        if quick is not None:
            return quick
    return _entries(text, kind)


def _entries(text: str, kind: type) -> Container | None:
    opener, closer = ("[", "]") if kind is list else ("{", "}")
    keyed = kind is dict
    at = _skip(text, 0)
    if not text.startswith(opener, at):
        return None
    body = at + 1
    at = _skip(text, body)
    found: list[Entry] = []
    try:
        if text.startswith(closer, at):
            at += 1
        else:
            while True:
                start, key = at, None
                if keyed:
                    if not text.startswith('"', at):
                        return None
                    key, at = _DECODER.raw_decode(text, at)
                    at = _skip(text, at)
                    if not text.startswith(":", at):
                        return None
                    at = _skip(text, at + 1)
                value_start = at
                value, at = _DECODER.raw_decode(text, at)
                found.append(Entry(start, value_start, at, key, value))
                at = _skip(text, at)
                if text.startswith(",", at):
                    at = _skip(text, at + 1)
                    continue
                if text.startswith(closer, at):
                    at += 1
                    break
                return None
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python parses
        return None
    if _skip(text, at) != len(text):
        return None
    return Container(text, body, tuple(found))


def append(container: Container, element: str) -> str:
    """``container`` with ``element`` (an array value or ``"key":value`` text) added last."""
    text = container.text
    if not container.entries:
        return text[: container.body] + element + text[container.body :]
    end = container.entries[-1].end
    return text[:end] + "," + element + text[end:]


def prepend(container: Container, element: str) -> str:
    """``container`` with ``element`` added first."""
    text = container.text
    if not container.entries:
        return append(container, element)
    start = container.entries[0].start
    return text[:start] + element + "," + text[start:]


def insert(container: Container, index: int, element: str) -> str:
    """``container`` with ``element`` added so that it becomes entry ``index`` (clamped)."""
    if index <= 0 or not container.entries:
        return prepend(container, element)
    if index >= len(container.entries):
        return append(container, element)
    end = container.entries[index - 1].end
    return container.text[:end] + "," + element + container.text[end:]


def head_index(text: str) -> Container | None:
    """The ``allComposers`` array of a 3.7 head index ``{"allComposers": [...]}``, with spans in
    the whole value's text; None when the value is not that shape."""
    index = entries(text, dict)
    members = [] if index is None else [e for e in index.entries if e.key == "allComposers"]
    if not members:
        return None
    member = members[-1]
    inner = entries(text[member.value_start : member.end], list)
    if inner is None:
        return None
    shift = member.value_start
    return Container(
        text,
        inner.body + shift,
        tuple(
            Entry(e.start + shift, e.value_start + shift, e.end + shift, None, e.value)
            for e in inner.entries
        ),
    )


def replace_value(container: Container, entry: Entry, value: str) -> str:
    """``container`` with ``entry``'s value replaced by the JSON text ``value``."""
    text = container.text
    return text[: entry.value_start] + value + text[entry.end :]


def remove(container: Container, doomed: set[int]) -> str:
    """``container`` without the entries at the indexes in ``doomed`` (and their commas)."""
    every = container.entries
    text = container.text
    kept = [index for index in range(len(every)) if index not in doomed]
    pieces = [text[: every[0].start]]
    for position, index in enumerate(kept):
        last = position == len(kept) - 1
        # An entry keeps the separator that followed it, unless it is now the last one.
        end = every[index].end if last else every[index + 1].start
        pieces.append(text[every[index].start : end])
    pieces.append(text[every[-1].end :])
    return "".join(pieces)


# ----------------------------------------------------------------------------- registration


def _parse(key: str, text: str | None, kind: type) -> Container:
    if text is None:
        return Container("[]" if kind is list else "{}", 1, ())
    container = entries(text, kind)
    if container is None:
        shape = "an array" if kind is list else "an object"
        raise SidebarUnreadable(
            f"the Agents sidebar value `{key}` is not {shape} of the shape Cursor writes; "
            "refusing to replace it (nothing was written)"
        )
    return container


def project_name(cwd: str) -> str:
    """The folder's last path component (``/a/b/`` → ``b``), or ``Imported``."""
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    last = parts[-1] if parts else ""
    return "Imported" if last in ("", ".", "..") or last.endswith(":") else last


def project_id(namespace: Any, cwd: str) -> str:
    return uuid5(namespace, f"project:{cwd}")


def _folder_of(project: Any) -> str | None:
    if not isinstance(project, dict):
        return None
    workspace = project.get("workspace")
    uri_value = workspace.get("uri") if isinstance(workspace, dict) else None
    fs_path = uri_value.get("fsPath") if isinstance(uri_value, dict) else None
    return fs_path if isinstance(fs_path, str) else None


def register(
    projects_text: str | None,
    membership_text: str | None,
    *,
    composer_id: str,
    cwd: str,
    uri: dict[str, Any],
    workspace_id: str | None,
    created_ms: int,
    namespace: Any,
) -> tuple[str | None, str | None]:
    """New texts for the two keys (None where the value does not change)."""
    projects = _parse(PROJECTS_KEY, projects_text, list)
    membership = _parse(MEMBERSHIP_KEY, membership_text, dict)
    known = {
        entry.value["id"]
        for entry in projects.entries
        if isinstance(entry.value, dict) and isinstance(entry.value.get("id"), str)
    }
    mine = [entry for entry in membership.entries if entry.key == composer_id]
    # JSON.parse keeps the last of duplicate keys, and so does the app.
    current = mine[-1].value if mine else None
    if isinstance(current, str) and current in known:
        return None, None
    chosen = None
    for entry in projects.entries:
        folder = _folder_of(entry.value)
        if folder is not None and same_folder(folder, cwd):
            if isinstance(entry.value.get("id"), str):
                chosen = entry.value["id"]
            break
    new_projects = None
    if chosen is None:
        chosen = project_id(namespace, cwd)
        project = {
            "createdAt": created_ms,
            "id": chosen,
            "isArchived": False,
            "lastUpdatedAt": created_ms,
            "name": project_name(cwd),
            "workspace": {"id": workspace_id or "", "uri": uri},
        }
        new_projects = append(projects, json.dumps(project, **_SORTED))
    chosen_text = json.dumps(chosen, ensure_ascii=False)
    if mine:
        return new_projects, replace_value(membership, mine[-1], chosen_text)
    entry_text = json.dumps(composer_id, ensure_ascii=False) + ":" + chosen_text
    return new_projects, append(membership, entry_text)


def unregister(membership_text: str | None, composer_id: str) -> str | None:
    """The membership text without ``composer_id`` (None when there is nothing to change).

    An unreadable membership value is left alone: a dangling entry is harmless, a clobbered map
    would hide every other session.
    """
    if membership_text is None:
        return None
    membership = entries(membership_text, dict)
    if membership is None:
        return None
    doomed = {i for i, entry in enumerate(membership.entries) if entry.key == composer_id}
    return remove(membership, doomed) if doomed else None
