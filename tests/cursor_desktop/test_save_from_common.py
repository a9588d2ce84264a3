"""A session written by ``txcript continue`` from a Simple document has everything the app's loader
needs (facts §17, §18): checked cell by cell in the database the real CLI wrote.

(The codec's own fixpoint is property-tested in ``test_cursor_from_common.py``; this module checks
what lands in ``state.vscdb``.)
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dbfixtures as fx
import pytest
from test_save_roundtrip import db_path, dump, split

from conftest import RunCli
from txcript.harnesses.cursor_desktop import sidebar
from txcript.shared.fileuri import vscode_uri


def words(text: str) -> list[str]:
    return text.split()


NS = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")
TEMPLATE = json.loads(
    (
        Path(__file__).parents[2]
        / "src/txcript/harnesses/cursor_desktop/composer_data_template.json"
    ).read_text(encoding="utf-8")
)
#: Facts §17.2, spelled out here rather than read from the package vocabulary.
SKELETON_LISTS = words(
    "approximateLintErrors lints codebaseContextChunks commits pullRequests attachedCodeChunks "
    "assistantSuggestedDiffs gitDiffs interpreterResults images attachedFolders attachedFoldersNew "
    "userResponsesToSuggestedCodeBlocks suggestedCodeBlocks diffsForCompressingFiles relevantFiles "
    "toolResults notepads capabilities multiFileLinterErrors diffHistories recentLocationsHistory "
    "recentlyViewedFiles fileDiffTrajectories docsReferences webReferences aiWebSearchResults "
    "attachedFoldersListDirResults humanChanges summarizedComposers cursorRules contextPieces"
)
SKELETON_FLAGS = (
    "isAgentic",
    "existedSubsequentTerminalCommand",
    "existedPreviousTerminalCommand",
    "attachedHumanChanges",
)
CONTEXT_LISTS = words(
    "composers selectedCommits selectedPullRequests selectedImages selectedDocuments "
    "selectedVideos folderSelections fileSelections terminalFiles selections terminalSelections "
    "selectedDocs externalLinks cursorRules cursorCommands gitPRDiffSelections subagentSelections "
    "browserSelections extraContext"
)
MENTION_LISTS = words(
    "gitDiff gitDiffFromBranchToMain diffHistory uiElementSelections consoleLogs ideEditorsState"
)
WORKSPACE_HASH = "9f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def simple_document(cwd: str) -> dict[str, Any]:
    at = "2026-08-21T09:30:0{}Z".format
    return {
        "id": "sess-1",
        "title": "Demo",
        "cwd": cwd,
        "model": "m",
        "timestamp": "2026-08-21T09:30:00.000Z",
        "messages": [
            {"role": "user", "content": "run the tests", "timestamp": at(0)},
            {
                "role": "assistant",
                "model": "m",
                "timestamp": at(1),
                "usage": {"input_tokens": 10, "output_tokens": 20},
                "content": [
                    {"type": "thinking", "text": "cargo test covers it", "signature": "sig"},
                    {"type": "tool_use", "id": "tu-1", "name": "Bash", "input": {"command": "t"}},
                ],
            },
            {
                "role": "user",
                "timestamp": at(2),
                "content": [{"type": "tool_result", "tool_use_id": "tu-1", "content": "ok"}],
            },
            {
                "role": "assistant",
                "timestamp": at(3),
                "content": [
                    {"type": "text", "text": "Now the config."},
                    {"type": "tool_use", "id": "tu-2", "name": "Read", "input": {"file_path": "c"}},
                ],
            },
            {
                "role": "user",
                "timestamp": at(4),
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu-2",
                        "content": "no",
                        "is_error": True,
                    }
                ],
            },
            {"role": "assistant", "content": "All green.", "timestamp": at(5)},
        ],
    }


@pytest.fixture
def written(run_cli: RunCli, tmp_path: Path) -> dict[str, Any]:
    """``txcript continue doc --with cursor_desktop`` into a user's existing 3.16 database."""
    project = tmp_path / "My Proj é"
    project.mkdir()
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    manifest = root / "workspaceStorage" / WORKSPACE_HASH / "workspace.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"folder": project.as_uri()}))  # percent-encoded, as VS Code
    before = dump(db_path(root))
    document = tmp_path / "session.json"
    document.write_text(json.dumps(simple_document(str(project))))
    env = {"CURSOR_DESKTOP_USER_DIR": str(root)}
    started = datetime.now(UTC)
    # --force: this test is not about the running-app guard (see test_delete_restore.py).
    result = run_cli(
        "continue", str(document), "--with", "cursor_desktop", "--no-resume", "--json",
        "--force", env=env,
    )  # fmt: skip
    assert result.code == 0, result.stderr
    out = json.loads(result.stdout)
    return {
        "out": out,
        "cid": out["id"],
        "root": root,
        "cwd": str(project),
        "before": before,
        "started": started,
        "env": env,
    }


def kv(path: Path, key: str) -> Any:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
    finally:
        conn.close()
    assert row is not None, key
    return row[0]


def bubbles_of(path: Path, cid: str) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return list(
            conn.execute(
                "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ? ORDER BY rowid",
                (f"bubbleId:{cid}:", f"bubbleId:{cid};"),
            )
        )
    finally:
        conn.close()


def test_continue_reports_the_new_session(written: dict[str, Any]) -> None:
    out, cid = written["out"], written["cid"]
    assert out == {
        "harness": "cursor_desktop",
        "id": cid,
        "location": str(db_path(written["root"])),
        "resume_command": ["cursor"],
        "cwd": None,
        "env": {},
    }
    assert str(uuid.UUID(cid)) == cid and cid != "sess-1"  # a fresh id: never the source's


def test_composer_data_is_the_template_with_exactly_six_keys_replaced(
    written: dict[str, Any],
) -> None:
    cid = written["cid"]
    text = kv(db_path(written["root"]), f"composerData:{cid}")
    composer = json.loads(text)
    assert text == compact(composer)  # compact, sorted keys
    replaced = {
        "composerId",
        "name",
        "createdAt",
        "lastUpdatedAt",
        "fullConversationHeadersOnly",
        "modelConfig",
    }
    assert set(composer) == set(TEMPLATE) | replaced
    assert {k: v for k, v in composer.items() if k not in replaced} == {
        k: v for k, v in TEMPLATE.items() if k not in replaced
    }
    created = composer["createdAt"]
    assert composer["lastUpdatedAt"] == created
    assert abs(created / 1000 - written["started"].timestamp()) < 60  # continue restarts the clock
    assert (composer["composerId"], composer["name"]) == (cid, "Demo")
    assert composer["modelConfig"] == {
        "maxMode": False,
        "modelName": "m",
        "selectedModels": [{"modelId": "m", "parameters": []}],
    }
    assert composer["workspaceIdentifier"] == {"id": "empty-window"}
    assert composer["status"] == "none" and composer["isDraft"] is False


def test_every_bubble_has_the_skeleton_and_user_bubbles_their_rich_text_and_context(
    written: dict[str, Any],
) -> None:
    cid = written["cid"]
    rows = bubbles_of(db_path(written["root"]), cid)
    # One bubble per user text and per assistant block; the result-only user turns make none.
    positions = [(0, 0), (1, 0), (1, 1), (3, 0), (3, 1), (5, 0)]
    assert len(rows) == len(positions)
    for (key, value), (i, j) in zip(rows, positions, strict=True):
        bubble = json.loads(value)
        assert value == compact(bubble)
        assert bubble["bubbleId"] == str(uuid.uuid5(NS, f"{cid}:{i}:{j}"))
        assert key == f"bubbleId:{cid}:{bubble['bubbleId']}"
        for name in SKELETON_LISTS:
            assert bubble[name] == [], name
        for name in SKELETON_FLAGS:
            assert bubble[name] is False, name
        assert bubble["_v"] == 3 and bubble["unifiedMode"] == 2
        assert (bubble["requestId"], bubble["conversationState"]) == ("", "~")
        assert isinstance(bubble["text"], str) and isinstance(bubble["richText"], str)
        assert bubble["createdAt"].endswith("Z") and len(bubble["createdAt"]) == 24
        assert bubble["type"] == (1 if i in (0,) else 2)
    user = json.loads(rows[0][1])
    assert user["text"] == "run the tests"
    assert user["richText"] == compact(
        {
            "content": [
                {"content": [{"text": "run the tests", "type": "text"}], "type": "paragraph"}
            ],
            "type": "doc",
        }
    )
    context = user["context"]
    assert set(context) == {*CONTEXT_LISTS, "mentions"}
    assert all(context[name] == [] for name in CONTEXT_LISTS)
    mentions = context["mentions"]
    assert set(mentions) == {*(n for n in CONTEXT_LISTS if n != "extraContext"), *MENTION_LISTS}
    assert all(mentions[n] == {} for n in CONTEXT_LISTS if n != "extraContext")
    assert all(mentions[n] == [] for n in MENTION_LISTS)
    assert user["modelInfo"] == {"modelName": "default"}
    thinking, bash = json.loads(rows[1][1]), json.loads(rows[2][1])
    assert thinking["thinking"] == {"signature": "sig", "text": "cargo test covers it"}
    assert thinking["capabilityType"] == 30 and thinking["text"] == ""
    assert thinking["tokenCount"] == bash["tokenCount"] == {"inputTokens": 10, "outputTokens": 20}
    assert bash["capabilityType"] == 15 and bash["text"] == ""
    assert bash["toolFormerData"] == {
        "name": "run_terminal_command_v2",
        "params": compact({"command": "t", "cwd": ""}),
        "rawArgs": "",
        "result": "ok",
        "status": "completed",
        "tool": 15,
        "toolCallId": "tu-1",
    }
    assert bash["createdAt"] == "2026-08-21T09:30:02.000Z"  # restamped to the result's time
    read = json.loads(rows[4][1])
    assert read["toolFormerData"]["status"] == "error" and read["toolFormerData"]["tool"] == 40


def test_header_entries_carry_the_grouping_the_app_renders_by(written: dict[str, Any]) -> None:
    cid = written["cid"]
    path = db_path(written["root"])
    composer = json.loads(kv(path, f"composerData:{cid}"))
    entries = composer["fullConversationHeadersOnly"]
    rows = bubbles_of(path, cid)
    assert [e["bubbleId"] for e in entries] == [json.loads(v)["bubbleId"] for _, v in rows]
    for entry, (_, value) in zip(entries, rows, strict=True):
        bubble = json.loads(value)
        assert set(entry) == {"bubbleId", "createdAt", "grouping", "type"}
        assert (entry["createdAt"], entry["type"]) == (bubble["createdAt"], bubble["type"])
        assert entry["grouping"]["isRenderable"] is True
        assert entry["grouping"]["toolDisplayComputed"] is True
    user, thinking, bash, text, read, last = (e["grouping"] for e in entries)
    assert user == {
        "hasText": True,
        "isRenderable": True,
        "isShortPlainText": True,
        "textPreview": "run the tests",
        "toolDisplayComputed": True,
    }
    assert thinking == {
        "capabilityType": 30,
        "hasThinking": True,
        "isRenderable": True,
        "thinkingDurationMs": 0,
        "toolDisplayComputed": True,
    }
    assert bash == {
        "capabilityType": 15,
        "isRenderable": True,
        "isToolGroupable": True,
        "toolCallId": "tu-1",
        "toolDisplayComputed": True,
        "toolFormerStatus": "completed",
        "toolFormerTool": 15,
    }
    assert read["toolFormerStatus"] == "error" and read["toolFormerTool"] == 40
    for grouping, preview in ((text, "Now the config."), (last, "All green.")):
        assert grouping == {
            "hasText": True,
            "isKeptFinalAiVisibleOutsideWorkedForGroup": True,
            "isRenderable": True,
            "textPreview": preview,
            "toolDisplayComputed": True,
        }


def test_the_header_row_head_and_workspace_column(written: dict[str, Any]) -> None:
    cid, cwd = written["cid"], written["cwd"]
    conn = sqlite3.connect(db_path(written["root"]))
    conn.row_factory = sqlite3.Row
    row = conn.execute("SELECT * FROM composerHeaders WHERE composerId = ?", (cid,)).fetchone()
    types = conn.execute(
        "SELECT typeof(createdAt), typeof(recency), typeof(value) FROM composerHeaders "
        "WHERE composerId = ?",
        (cid,),
    ).fetchone()
    conn.close()
    assert tuple(types) == ("integer", "integer", "text")
    created = row["createdAt"]
    assert dict(row) == {
        "composerId": cid,
        # Resolved from workspaceStorage/*/workspace.json, whose folder URI is percent-encoded.
        "workspaceId": WORKSPACE_HASH,
        "createdAt": created,
        "lastUpdatedAt": created,
        "isArchived": 0,
        "isSubagent": 0,
        "recency": created,
        "checkpointAt": None,
        "subagentTypeName": None,
        "value": row["value"],
    }
    head = json.loads(row["value"])
    assert row["value"] == compact(head)
    assert head == {
        "type": "head",
        "composerId": cid,
        "name": "Demo",
        "createdAt": created,
        "lastUpdatedAt": created,
        "unifiedMode": "agent",
        "forceMode": "edit",
        "isDraft": False,
        "isArchived": False,
        # The head's own workspace id stays "" (facts §17.6); only the column gets the hash.
        "workspaceIdentifier": {"id": "", "uri": vscode_uri(cwd)},
        "trackedGitRepos": [{"branches": [], "repoPath": cwd}],
    }
    assert head["workspaceIdentifier"]["uri"]["external"] == Path(cwd).as_uri()


def test_the_sidebar_lists_it_under_its_folder_and_nothing_else_changed(
    written: dict[str, Any], run_cli: RunCli
) -> None:
    cid, cwd, root = written["cid"], written["cwd"], written["root"]
    path = db_path(root)
    after = dump(path)
    # Every row of every other session, and every other ItemTable key, is byte-identical.
    assert split(after, cid)[1] == split(written["before"], cid)[1]
    conn = sqlite3.connect(path)
    items = dict(conn.execute("SELECT key, value FROM ItemTable"))
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    projects = json.loads(items[sidebar.PROJECTS_KEY])
    membership = json.loads(items[sidebar.MEMBERSHIP_KEY])
    project_id = str(uuid.uuid5(NS, f"project:{cwd}"))
    assert membership == {fx.CID_A: "p-1", cid: project_id}
    assert items[sidebar.MEMBERSHIP_KEY].startswith(
        '{"3f0c9a52-6d1e-4b8a-9c47-1e2d3f4a5b6c":"p-1",'
    )
    created = json.loads(kv(path, f"composerData:{cid}"))["createdAt"]
    assert projects == [
        {
            "createdAt": created,
            "id": project_id,
            "isArchived": False,
            "lastUpdatedAt": created,
            "name": "My Proj é",
            "workspace": {"id": WORKSPACE_HASH, "uri": vscode_uri(cwd)},
        }
    ]
    listed = run_cli("list", "--json", "--from", "cursor_desktop", env=written["env"])
    assert listed.code == 0, listed.stderr
    rows = {row["id"]: row for row in json.loads(listed.stdout)}
    assert rows[cid]["title"] == "Demo" and rows[cid]["cwd"] == cwd and rows[cid]["model"] == "m"
    assert next(iter(rows)) == cid  # the newest session
    view = run_cli("view", cid, env=written["env"])
    assert view.code == 0 and "All green." in view.stdout
