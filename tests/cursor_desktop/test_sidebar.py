"""Agents-sidebar registration and workspace resolution (pure parts)."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest

from txcript.harnesses.cursor_desktop import sidebar
from txcript.harnesses.cursor_desktop.workspaces import resolve_workspace_id, same_folder

NS = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")
URI = {"$mid": 1, "external": "file:///repo", "fsPath": "/repo", "path": "/repo", "scheme": "file"}


def register(projects: str | None, membership: str | None, cwd: str = "/repo", cid: str = "c1"):
    return sidebar.register(
        projects,
        membership,
        composer_id=cid,
        cwd=cwd,
        uri=URI,
        workspace_id="hash",
        created_ms=5,
        namespace=NS,
    )


def test_a_first_save_creates_the_project_and_its_membership() -> None:
    projects, membership = register(None, None)
    assert json.loads(projects or "") == [
        {
            "createdAt": 5,
            "id": "49fbef92-18e9-547d-b4f9-937c3315414e",
            "isArchived": False,
            "lastUpdatedAt": 5,
            "name": "repo",
            "workspace": {"id": "hash", "uri": URI},
        }
    ]
    assert json.loads(membership or "") == {"c1": "49fbef92-18e9-547d-b4f9-937c3315414e"}


def test_other_projects_and_memberships_keep_their_exact_bytes() -> None:
    existing = '[{"id":"p0","name":"Other","workspace":{"uri":{"fsPath":"/other"}},"z":1,"a":2}]'
    members = '{"old":"p0","zz":"p0"}'
    projects, membership = register(existing, members)
    assert projects is not None and projects.startswith(existing[:-1] + ",{")
    assert membership == '{"old":"p0","zz":"p0","c1":"49fbef92-18e9-547d-b4f9-937c3315414e"}'


def test_an_existing_project_for_the_folder_is_reused_and_projects_are_not_rewritten() -> None:
    existing = '[{"id":"app-project","workspace":{"uri":{"fsPath":"/repo/"}}}]'
    projects, membership = register(existing, "{}")
    assert projects is None
    assert membership == '{"c1":"app-project"}'


def test_registering_twice_changes_nothing() -> None:
    projects, membership = register(None, None)
    assert register(projects, membership) == (None, None)


@pytest.mark.parametrize(
    ("projects", "membership", "key"),
    [
        ('{"not": "an array"}', None, "glass.localAgentProjects.v1"),
        ("[broken", None, "glass.localAgentProjects.v1"),
        (None, "[]", "glass.localAgentProjectMembership.v1"),
        (None, "{broken", "glass.localAgentProjectMembership.v1"),
    ],
)
def test_unparseable_sidebar_values_are_refused_not_replaced(
    projects: str | None, membership: str | None, key: str
) -> None:
    with pytest.raises(sidebar.SidebarUnreadable, match=key):
        register(projects, membership)


@pytest.mark.parametrize(
    ("cwd", "name"),
    [
        ("/a/b/", "b"),
        ("/", "Imported"),
        ("/a/..", "Imported"),
        ("C:\\Users\\me\\proj", "proj"),
        ("C:\\", "Imported"),
    ],
)
def test_project_names_are_the_last_path_component(cwd: str, name: str) -> None:
    assert sidebar.project_name(cwd) == name


def test_unregister_removes_only_that_membership() -> None:
    assert sidebar.unregister('{"a":"p","b":"p"}', "a") == '{"b":"p"}'
    assert sidebar.unregister('{"b":"p"}', "a") is None
    assert sidebar.unregister("{broken", "a") is None


def workspace(root: Path, name: str, folder: str, mtime: int = 1_000_000_000) -> None:
    path = root / "workspaceStorage" / name / "workspace.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"folder": folder}))
    os.utime(path, ns=(mtime, mtime))


def test_workspace_ids_resolve_through_percent_encoding_and_drive_letters(tmp_path: Path) -> None:
    workspace(tmp_path, "a" * 32, "file:///Users/me/My%20Proj")
    workspace(tmp_path, "b" * 32, "file:///c%3A/Users/me/repo")
    (tmp_path / "workspaceStorage" / ("c" * 32)).mkdir()
    workspace(tmp_path, "d" * 32, "not a uri")
    (tmp_path / "workspaceStorage" / ("e" * 32) / "workspace.json").parent.mkdir()
    (tmp_path / "workspaceStorage" / ("e" * 32) / "workspace.json").write_text("{broken")
    assert resolve_workspace_id(tmp_path, "/Users/me/My Proj") == "a" * 32
    assert resolve_workspace_id(tmp_path, "/Users/me/My Proj/") == "a" * 32
    assert resolve_workspace_id(tmp_path, "C:\\Users\\me\\repo") == "b" * 32
    assert resolve_workspace_id(tmp_path, "/elsewhere") is None
    assert resolve_workspace_id(tmp_path / "missing", "/Users/me/My Proj") is None


def test_the_most_recently_used_workspace_wins_when_two_name_one_folder(tmp_path: Path) -> None:
    workspace(tmp_path, "1" * 32, "file:///repo", mtime=2_000_000_000)
    workspace(tmp_path, "2" * 32, "file:///repo", mtime=1_000_000_000)
    assert resolve_workspace_id(tmp_path, "/repo") == "1" * 32


def test_same_folder_compares_windows_paths_case_insensitively() -> None:
    assert same_folder("C:\\Users\\Me", "c:/users/me/")
    assert not same_folder("/Users/Me", "/users/me")
