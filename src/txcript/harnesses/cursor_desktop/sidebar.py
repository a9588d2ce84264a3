"""Agents-sidebar registration: the ``ItemTable`` values that make the app list a session.

The Agents home reads ``glass.localAgentProjects.v1`` (a JSON array of projects, each naming a
workspace folder) and ``glass.localAgentProjectMembership.v1`` (a JSON object mapping composer id
to project id); a session absent from the membership map never appears.

Registration only *adds*: the new project or membership entry is spliced into the existing JSON
text, so every other project and membership keeps its exact bytes. A value that exists but is not
the JSON shape the app writes is never replaced: :class:`SidebarUnreadable` is raised and the
caller writes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import StoreError
from txcript.harnesses.cursor_desktop.workspaces import same_folder
from txcript.shared.ids import uuid5

PROJECTS_KEY = "glass.localAgentProjects.v1"
MEMBERSHIP_KEY = "glass.localAgentProjectMembership.v1"


class SidebarUnreadable(StoreError):
    """An existing sidebar value cannot be parsed; replacing it would lose the user's projects."""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _parse(key: str, text: str | None, kind: type) -> Any:
    if text is None:
        return kind()
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, kind):
        shape = "an array" if kind is list else "an object"
        raise SidebarUnreadable(
            f"the Agents sidebar value `{key}` is not {shape} of the shape Cursor writes; "
            "refusing to replace it (nothing was written)"
        )
    return value


def _splice(text: str | None, close: str, element: str) -> str:
    """Append ``element`` to the JSON array/object ``text`` without touching existing bytes."""
    if text is None:
        return ("[" if close == "]" else "{") + element + close
    body = text.rstrip()
    inner = body[:-1].rstrip()
    separator = "" if inner.endswith("[" if close == "]" else "{") else ","
    return inner + separator + element + close


def project_name(cwd: str) -> str:
    """The folder's last path component (``/a/b/`` → ``b``), or ``Imported``."""
    parts = [p for p in cwd.replace("\\", "/").split("/") if p]
    last = parts[-1] if parts else ""
    return "Imported" if last in ("", ".", "..") or last.endswith(":") else last


def project_id(namespace: Any, cwd: str) -> str:
    return uuid5(namespace, f"project:{cwd}")


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
    chosen = None
    for project in projects:
        if not isinstance(project, dict):
            continue
        workspace = project.get("workspace")
        uri_value = workspace.get("uri") if isinstance(workspace, dict) else None
        fs_path = uri_value.get("fsPath") if isinstance(uri_value, dict) else None
        if isinstance(fs_path, str) and same_folder(fs_path, cwd):
            if isinstance(project.get("id"), str):
                chosen = project["id"]
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
        new_projects = _splice(projects_text, "]", json.dumps(project, **_SORTED))
    if membership.get(composer_id) == chosen:
        return new_projects, None
    if composer_id in membership:
        membership[composer_id] = chosen
        return new_projects, _compact(membership)
    entry = _compact(composer_id) + ":" + _compact(chosen)
    return new_projects, _splice(membership_text, "}", entry)


def unregister(membership_text: str | None, composer_id: str) -> str | None:
    """The membership text without ``composer_id`` (None when there is nothing to change).

    An unreadable membership value is left alone: a dangling entry is harmless, a clobbered map
    would hide every other session.
    """
    try:
        membership = _parse(MEMBERSHIP_KEY, membership_text, dict)
    except SidebarUnreadable:
        return None
    if composer_id not in membership:
        return None
    del membership[composer_id]
    return _compact(membership)


_SORTED: dict[str, Any] = {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": False}
