"""Builders for REAL Cursor ``state.vscdb`` databases, laid out like the app's.

Every generation the reader supports has a builder (see ``cursor-desktop-generations.md``):

* :func:`app_3_16` — the ``composerHeaders`` table (variants: txcript's DDL, the newer DDL with
  ``subagentTypeName`` and ``idx_composerHeaders_0``, ``recency REAL``), ``cursorDiskKV`` with the
  app's ``UNIQUE ON CONFLICT REPLACE`` key or txcript's ``PRIMARY KEY``;
* :func:`app_3_7` — heads in the ``ItemTable`` key ``composer.composerHeaders``, no table;
* :func:`app_1_7`, :func:`app_0_50` — no heads at all, bubbles in ``bubbleId:`` rows;
* :func:`app_0_45` — no heads, messages inline in ``composerData.conversation``.

Databases are built in either journal mode and closed cleanly, so a WAL database is *resting*
(header bytes 18/19 = 2, no ``-wal``/``-shm``), as the app leaves it when it quits. Cells are
written the way the app writes them: compact JSON in insertion order, TEXT storage class.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Journal = Literal["wal", "delete"]
HeaderTable = Literal["none", "txcript", "app", "real_recency"]
KvKey = Literal["unique", "primary"]


def js(value: Any) -> str:
    """A document as the app writes it: compact, keys in insertion order, raw UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_HEADER_DDL = {
    "txcript": (
        "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
        "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
        "recency INTEGER, checkpointAt INTEGER, value TEXT)",
    ),
    "app": (
        "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
        "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
        "recency INTEGER, checkpointAt INTEGER, subagentTypeName TEXT, value TEXT)",
        "CREATE INDEX idx_composerHeaders_0 ON composerHeaders "
        "(workspaceId, isSubagent, isArchived, recency)",
    ),
    "real_recency": (
        "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
        "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
        "recency REAL, checkpointAt INTEGER, subagentTypeName TEXT, value TEXT)",
        "CREATE INDEX idx_composerHeaders_0 ON composerHeaders "
        "(workspaceId, isSubagent, isArchived, recency)",
    ),
}


@dataclass
class Header:
    """One ``composerHeaders`` row; cells are bound as given (any storage class)."""

    composer_id: Any
    value: Any
    workspace_id: Any = None
    created_at: Any = None
    last_updated_at: Any = None
    is_archived: Any = 0
    is_subagent: Any = 0
    recency: Any = None
    checkpoint_at: Any = None
    subagent_type_name: Any = None


class StateDB:
    """A ``state.vscdb`` under construction: ``put`` rows, then :meth:`close`."""

    def __init__(
        self,
        path: Path,
        *,
        headers: HeaderTable = "app",
        kv_key: KvKey = "unique",
        journal: Journal = "wal",
        item_table: bool = True,
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.headers = headers
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode={journal}")
        self.conn.execute("BEGIN")
        if item_table:
            self.conn.execute(
                "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)"
            )
        key_ddl = "TEXT UNIQUE ON CONFLICT REPLACE" if kv_key == "unique" else "TEXT PRIMARY KEY"
        self.conn.execute(f"CREATE TABLE cursorDiskKV (key {key_ddl}, value BLOB)")
        if headers != "none":
            for statement in _HEADER_DDL[headers]:
                self.conn.execute(statement)

    def put(self, key: Any, value: Any) -> StateDB:
        self.conn.execute(
            "INSERT OR REPLACE INTO cursorDiskKV (key, value) VALUES (?, ?)", (key, value)
        )
        return self

    def item(self, key: str, value: Any) -> StateDB:
        self.conn.execute(
            "INSERT OR REPLACE INTO ItemTable (key, value) VALUES (?, ?)", (key, value)
        )
        return self

    def header(self, row: Header) -> StateDB:
        columns = [
            row.composer_id,
            row.workspace_id,
            row.created_at,
            row.last_updated_at,
            row.is_archived,
            row.is_subagent,
            row.recency,
            row.checkpoint_at,
        ]
        if self.headers == "txcript":
            columns.append(row.value)
        else:
            columns += [row.subagent_type_name, row.value]
        marks = ", ".join("?" * len(columns))
        self.conn.execute(f"INSERT OR REPLACE INTO composerHeaders VALUES ({marks})", columns)
        return self

    def session(self, spec: Session) -> StateDB:
        """Write a session's header row (when it has one and the table exists) and KV rows."""
        if spec.header is not None and self.headers != "none":
            self.header(spec.header)
        for key, value in spec.rows():
            self.put(key, value)
        return self

    def close(self) -> Path:
        self.conn.execute("COMMIT")
        self.conn.close()
        return self.path


# ------------------------------------------------------------------------------------ sessions


@dataclass
class Session:
    """A composer's rows in insertion (rowid) order, and what the reader should make of them."""

    cid: str
    composer_data: str | None
    bubbles: list[tuple[str, str | None]] = field(default_factory=list)
    aux: list[tuple[str, str]] = field(default_factory=list)
    header: Header | None = None
    #: Skip the ``composerData:`` row entirely (a head without one).
    no_composer_row: bool = False

    def rows(self) -> Iterable[tuple[str, str | None]]:
        if not self.no_composer_row:
            yield f"composerData:{self.cid}", self.composer_data
        for bid, value in self.bubbles:
            yield f"bubbleId:{self.cid}:{bid}", value
        yield from self.aux

    def loaded_bubbles(self) -> list[tuple[str, str]]:
        return [(f"bubbleId:{self.cid}:{bid}", v) for bid, v in self.bubbles if v is not None]


def uri(path: str) -> dict[str, Any]:
    return {"$mid": 1, "fsPath": path, "external": f"file://{path}", "path": path, "scheme": "file"}


def user_bubble(bid: str, text: str, created: str | None = None, **extra: Any) -> str:
    doc: dict[str, Any] = {"_v": 3, "type": 1, "bubbleId": bid, "text": text}
    if created:
        doc["createdAt"] = created
    doc.update(extra)
    return js(doc)


def assistant_bubble(
    bid: str, text: str, created: str | None = None, model: str | None = None, **extra: Any
) -> str:
    doc: dict[str, Any] = {"_v": 3, "type": 2, "bubbleId": bid, "text": text}
    if created:
        doc["createdAt"] = created
    if model:
        doc["modelInfo"] = {"modelName": model}
    doc.update(extra)
    return js(doc)


def composer_3_16(cid: str, name: str | None, created: int, model: str, bids: list[str]) -> str:
    doc: dict[str, Any] = {"_v": 17, "composerId": cid}
    if name is not None:
        doc["name"] = name
    doc.update(
        {
            "createdAt": created,
            "lastUpdatedAt": created + 5000,
            "status": "completed",
            "conversationState": "~" + "QUJD" * 64,
            "fullConversationHeadersOnly": [
                {"bubbleId": b, "type": 1 if i == 0 else 2, "grouping": {"isRenderable": True}}
                for i, b in enumerate(bids)
            ],
            "modelConfig": {"modelName": model, "maxMode": False, "selectedModels": []},
            "workspaceIdentifier": {"id": "empty-window"},
            "trackedGitRepos": [],
            "isDraft": False,
        }
    )
    return js(doc)


def head_3_16(
    cid: str,
    created: int,
    *,
    name: str | None = None,
    subtitle: str | None = None,
    cwd: str | None = None,
    repo: str | None = None,
    is_draft: bool = False,
    is_archived: bool = False,
) -> str:
    doc: dict[str, Any] = {"type": "head", "composerId": cid}
    if name is not None:
        doc["name"] = name
    if subtitle is not None:
        doc["subtitle"] = subtitle
    doc.update({"createdAt": created, "lastUpdatedAt": created + 5000, "unifiedMode": "agent"})
    doc.update({"forceMode": "edit", "isDraft": is_draft, "isArchived": is_archived})
    if cwd is not None:
        doc["workspaceIdentifier"] = {"id": "84c9a67ebe7054485d323a481a9cffeb", "uri": uri(cwd)}
    if repo is not None:
        doc["trackedGitRepos"] = [{"repoPath": repo, "branches": []}]
    return js(doc)


# ------------------------------------------------------------------------------------ 3.16+

CID_A = "3f0c9a52-6d1e-4b8a-9c47-1e2d3f4a5b6c"
CID_B = "7a21307b-c742-491d-ac90-21fdab1f1746"
CID_C = "c0ffee00-1111-4222-8333-444455556666"
CID_LEGACY = "0e1e2e3e-aaaa-4bbb-8ccc-ddddeeeeffff"
CID_DRAFT = "d4af7000-0000-4000-8000-000000000001"
CID_NULLS = "0a110000-0000-4000-8000-00000000000a"
EMPTY_DRAFT = "empty-state-draft"

T0 = 1786948236174  # 2026-08-17T06:30:36.174Z


def sessions_3_16() -> list[Session]:
    """The sessions of :func:`app_3_16`, in insertion order."""
    a_bids = ["a-user", "a-think", "a-text"]
    a = Session(
        cid=CID_A,
        composer_data=composer_3_16(CID_A, "Run the tests", T0, "claude-fable-5", a_bids),
        bubbles=[
            (
                "a-text",
                assistant_bubble("a-text", "Done.", "2026-08-17T06:30:44.209Z", "claude-fable-5"),
            ),
            ("a-user", user_bubble("a-user", "Run the tests", "2026-08-17T06:30:36.299Z")),
            ("a-null", None),
            (
                "a-think",
                assistant_bubble(
                    "a-think",
                    "",
                    "2026-08-17T06:30:41.992Z",
                    thinking={"text": "Plan", "signature": ""},
                ),
            ),
        ],
        aux=[
            (f"checkpointId:{CID_A}:ck-1", js({"files": [], "nonExistentFiles": []})),
            (f"composerVirtualRowHeights:{CID_A}", js({"a-user": 40})),
            (f"messageRequestContext:{CID_A}:a-user", js({"terminalFiles": []})),
            (f"ofsContent:{CID_A}:file:///Users/dev/acme/src/app.ts", "export const x = 1;\n"),
            (f"codeBlockDiff:{CID_A}:d1", js({"newModelDiffWrtV0": []})),
            (f"agentKv:checkpoint:{CID_A}", js({"opaque": True})),
        ],
        header=Header(
            CID_A,
            head_3_16(
                CID_A, T0, name="Run the tests", subtitle="Ran npm test", cwd="/Users/dev/acme"
            ),
            workspace_id="84c9a67ebe7054485d323a481a9cffeb",
            created_at=T0,
            last_updated_at=T0 + 5000,
            recency=T0 + 9000,
            subagent_type_name="explore",
        ),
    )
    b_bids = ["b-user", "b-reply"]
    b = Session(
        cid=CID_B,
        composer_data=composer_3_16(CID_B, None, T0 - 86_400_000, "default", b_bids),
        bubbles=[
            ("b-user", user_bubble("b-user", "Archived question", "2026-08-16T06:30:37.000Z")),
            ("b-reply", assistant_bubble("b-reply", "Answer", "2026-08-16T06:30:40.000Z", "gpt-9")),
        ],
        aux=[(f"checkpointId:{CID_B}:ck-9", js({"files": []}))],
        header=Header(
            CID_B,
            head_3_16(
                CID_B,
                T0 - 86_400_000,
                subtitle="  Archived  ",
                repo="/Users/dev/repo",
                is_archived=True,
            ),
            workspace_id="empty-window",
            created_at=T0 - 86_400_000,
            last_updated_at=T0 - 86_000_000,
            is_archived=1,
            recency=T0 - 86_000_000,
        ),
    )
    c = Session(
        cid=CID_C,
        composer_data=composer_3_16(CID_C, "No recency", T0 - 1000, "composer-2", ["c-user"]),
        bubbles=[("c-user", user_bubble("c-user", "hello", "2026-08-17T06:30:35.500Z"))],
        header=Header(
            CID_C,
            head_3_16(CID_C, T0 - 1000, name="No recency"),
            created_at=T0 - 1000,
            last_updated_at=T0 - 1000,
            recency=None,
        ),
    )
    draft = Session(
        cid=CID_DRAFT,
        composer_data=js(
            {"_v": 17, "composerId": CID_DRAFT, "status": "none", "fullConversationHeadersOnly": []}
        ),
        header=Header(
            CID_DRAFT,
            head_3_16(CID_DRAFT, T0 + 50_000, is_draft=True),
            created_at=T0 + 50_000,
            recency=T0 + 50_000,
        ),
    )
    empty = Session(
        cid=EMPTY_DRAFT,
        composer_data=None,
        header=Header(
            EMPTY_DRAFT, head_3_16(EMPTY_DRAFT, T0 + 60_000, is_draft=True), recency=T0 + 60_000
        ),
    )
    nulls = Session(
        cid=CID_NULLS,
        composer_data=composer_3_16(CID_NULLS, "Only NULL bubbles", T0, "gpt-9", ["n1"]),
        bubbles=[("n1", None), ("n2", None)],
        header=Header(
            CID_NULLS, head_3_16(CID_NULLS, T0, name="Only NULL bubbles"), recency=T0 + 70_000
        ),
    )
    # A pre-migration session left without a header row: only its composerData and bubbles.
    legacy = Session(
        cid=CID_LEGACY,
        composer_data=js(
            {
                "_v": 10,
                "composerId": CID_LEGACY,
                "name": "Left over",
                "createdAt": T0 - 5000,
                "lastUpdatedAt": T0 - 4000,
                "modelConfig": {"modelName": "default", "maxMode": False},
            }
        ),
        bubbles=[
            ("l-user", user_bubble("l-user", "old question", "2026-08-17T06:30:31.174Z")),
            ("l-reply", assistant_bubble("l-reply", "old answer", None, "default")),
        ],
    )
    return [a, b, c, draft, empty, nulls, legacy]


SHARED_ROWS_3_16: list[tuple[str, str | None]] = [
    ("agentKv:blob:9f86d081884c7d659a2feaa0c55ad015", "opaque-bytes"),
    ("composer.autoAccept.lastSeenHeadSha", js({"/Users/dev/acme": "0" * 40})),
    ("composer.autoAccept.lastSeenHeadTimestamp", js({"/Users/dev/acme": T0})),
    ("composerVirtualRowHeights:_recentIds", "[]"),
    ("inlineDiffs-workspace", "[]"),
]


def app_3_16(
    path: Path,
    *,
    headers: HeaderTable = "app",
    kv_key: KvKey = "unique",
    journal: Journal = "wal",
) -> Path:
    """A 3.16+ database: header table, sessions A (newest), C (NULL recency), B (archived), a
    header-less leftover, plus drafts, ``empty-state-draft``, NULL-only bubbles and shared rows."""
    db = StateDB(path, headers=headers, kv_key=kv_key, journal=journal)
    db.item("composer.composerHeaders.migratedToTable", "true")
    db.item("glass.localAgentProjectMembership.v1", js({CID_A: "p-1"}))
    for spec in sessions_3_16():
        db.session(spec)
    for key, value in SHARED_ROWS_3_16:
        db.put(key, value)
    return db.close()


# ------------------------------------------------------------------------------------ 3.7

CID_37 = "5b5e7e3a-3f3c-4c1e-9c1e-37aa37aa37aa"
CID_37_DRAFT_1 = "5b5e7e3a-0000-4000-8000-000000000d01"
CID_37_DRAFT_2 = "5b5e7e3a-0000-4000-8000-000000000d02"
T37 = 1767225600000  # 2026-01-01T00:00:00.000Z


def heads_3_7() -> list[dict[str, Any]]:
    real = {
        "type": "head",
        "composerId": CID_37,
        "name": "Fix the login form",
        "subtitle": "Edited login.tsx",
        "createdAt": T37,
        "lastUpdatedAt": T37 + 60_000,
        "unifiedMode": "agent",
        "forceMode": "edit",
        "hasUnreadMessages": False,
        "isArchived": False,
        "isDraft": False,
        "totalLinesAdded": 3,
        "contextUsagePercent": 12.5,
        "trackedGitRepos": [
            {
                "repoPath": "/home/me/web",
                "branches": [{"branchName": "main", "lastInteractionAt": T37}],
            }
        ],
        "workspaceIdentifier": {"id": "a" * 32, "uri": uri("/home/me/web/app")},
    }
    drafts = [
        {
            "type": "head",
            "composerId": cid,
            "createdAt": T37 + 100_000,
            "unifiedMode": "agent",
            "forceMode": "edit",
            "isArchived": False,
            "isDraft": True,
            "workspaceIdentifier": {"id": "1767225700000"},
        }
        for cid in (CID_37_DRAFT_1, CID_37_DRAFT_2)
    ]
    empty = {
        "type": "head",
        "composerId": EMPTY_DRAFT,
        "createdAt": T37 + 100_000,
        "unifiedMode": "chat",
        "forceMode": "edit",
        "isArchived": False,
        "isDraft": True,
        "draftTarget": {
            "type": "existing",
            "environment": {"id": "a" * 32, "uri": uri("/home/me/web/app")},
        },
    }
    # Newest first, as the app keeps them.
    return [*drafts, empty, real]


def app_3_7(path: Path, *, journal: Journal = "wal", pretty_index: bool = False) -> Path:
    """A 3.7.42-shaped database: heads in ``ItemTable`` only, no header table."""
    db = StateDB(path, headers="none", journal=journal)
    index = {"allComposers": heads_3_7()}
    db.item("composer.composerHeaders", json.dumps(index, indent=2) if pretty_index else js(index))
    db.item("glass.localAgentProjects.v1", js([]))
    db.put("composer.autoAccept.lastSeenHeadSha", js({"/home/me/web": "f" * 40}))
    bids = ["u1", "t1", "r1"]
    db.put(
        f"composerData:{CID_37}",
        js(
            {
                "_v": 16,
                "composerId": CID_37,
                "name": "Fix the login form",
                "createdAt": T37,
                "lastUpdatedAt": T37 + 60_000,
                "modelConfig": {"modelName": "claude-4.5-sonnet", "maxMode": False},
                "fullConversationHeadersOnly": [
                    {"bubbleId": b, "type": 1 if b == "u1" else 2} for b in bids
                ],
                "conversationState": "~" + "Zm9v" * 100,
            }
        ),
    )
    db.put(
        f"bubbleId:{CID_37}:u1",
        user_bubble(
            "u1",
            "Fix the login form",
            "2026-01-01T00:00:01.000Z",
            modelInfo={"modelName": "claude-4.5-sonnet"},
        ),
    )
    db.put(
        f"bubbleId:{CID_37}:t1",
        assistant_bubble(
            "t1",
            "",
            "2026-01-01T00:00:05.000Z",
            toolFormerData={
                "tool": 40,
                "name": "read_file_v2",
                "params": js({"targetFile": "/home/me/web/app/login.tsx"}),
                "status": "completed",
                "result": "{}",
            },
        ),
    )
    db.put(f"bubbleId:{CID_37}:r1", assistant_bubble("r1", "Fixed.", "2026-01-01T00:00:09.000Z"))
    db.put(f"checkpointId:{CID_37}:c1", js({"files": []}))
    db.put(f"ofsContent:{CID_37}:file:///home/me/web/app/login.tsx", "raw file text")
    db.put(f"codeBlockPartialInlineDiffFates:{CID_37}:x", js({"fates": []}))
    for cid in (CID_37_DRAFT_1, CID_37_DRAFT_2):
        db.put(
            f"composerData:{cid}",
            js({"_v": 16, "composerId": cid, "status": "none", "fullConversationHeadersOnly": []}),
        )
    db.put(f"composerData:{EMPTY_DRAFT}", None)
    db.put("composerVirtualRowHeights:_recentIds", "[]")
    return db.close()


# ------------------------------------------------------------------------------------ 1.7 / 0.50

CID_17 = "17171717-1717-4717-8717-171717171717"
CID_17_B = "17171717-0000-4000-8000-00000000000b"
T17 = 1759276800000  # 2025-10-01T00:00:00.000Z


def app_1_7(path: Path, *, journal: Journal = "wal") -> Path:
    """A 1.7.44-shaped database: no heads, composerData ``_v`` 10, model ``default``."""
    db = StateDB(path, headers="none", journal=journal)
    db.put(
        f"composerData:{CID_17}",
        js(
            {
                "_v": 10,
                "composerId": CID_17,
                "name": "Explain the parser",
                "subtitle": "parser.py",
                "createdAt": T17,
                "lastUpdatedAt": T17 + 30_000,
                "modelConfig": {"modelName": "default", "maxMode": False},
                "fullConversationHeadersOnly": [
                    {"bubbleId": "u", "type": 1},
                    {"bubbleId": "a", "type": 2, "serverBubbleId": "a"},
                ],
            }
        ),
    )
    db.put(
        f"bubbleId:{CID_17}:u",
        user_bubble(
            "u",
            "Explain the parser",
            "2025-10-01T00:00:01.000Z",
            modelInfo={"modelName": "default"},
        ),
    )
    db.put(
        f"bubbleId:{CID_17}:a",
        assistant_bubble("a", "It tokenizes.", "2025-10-01T00:00:04.000Z", "default"),
    )
    db.put(f"messageRequestContext:{CID_17}:WARM_SUBMIT", js({"cursorRules": []}))
    db.put(f"checkpointId:{CID_17}:k", js({"files": []}))
    db.put(
        f"composerData:{CID_17_B}",
        js(
            {
                "_v": 10,
                "composerId": CID_17_B,
                "name": "Second",
                "createdAt": T17 + 3_600_000,
                "modelConfig": {"modelName": "default", "maxMode": False},
                "fullConversationHeadersOnly": [],
            }
        ),
    )
    # No header list entries: row order decides; the second bubble names a concrete model.
    db.put(f"bubbleId:{CID_17_B}:x", user_bubble("x", "hi", "2025-10-01T01:00:01.000Z"))
    db.put(
        f"bubbleId:{CID_17_B}:y",
        assistant_bubble("y", "hello", "2025-10-01T01:00:02.000Z", "gpt-5"),
    )
    return db.close()


CID_050 = "05050505-0505-4505-8505-050505050505"
T050 = 1746057600000  # 2025-05-01T00:00:00.000Z


def app_0_50(path: Path, *, journal: Journal = "delete") -> Path:
    """A ≈0.50-shaped database: composerData ``_v`` 3, bubbles ``_v`` 2, NULL bubble rows."""
    db = StateDB(path, headers="none", journal=journal, item_table=False)
    db.put(
        f"composerData:{CID_050}",
        js(
            {
                "_v": 3,
                "composerId": CID_050,
                "name": "Port to Rust",
                "createdAt": T050,
                "lastUpdatedAt": T050 + 9000,
                "fullConversationHeadersOnly": [
                    {"bubbleId": "q", "type": 1},
                    {"bubbleId": "r", "type": 2, "serverBubbleId": "r"},
                ],
                "conversationMap": {},
            }
        ),
    )
    placeholder = {"additionalData": {"status": "error"}}
    db.put(
        f"bubbleId:{CID_050}:q",
        js(
            {
                "_v": 2,
                "type": 1,
                "bubbleId": "q",
                "text": "Port it",
                "toolFormerData": placeholder,
                "lastTerminalCwd": "c:\\work",
            }
        ),
    )
    db.put(f"bubbleId:{CID_050}:orphan", None)
    db.put(
        f"bubbleId:{CID_050}:r",
        js(
            {
                "_v": 2,
                "type": 2,
                "bubbleId": "r",
                "text": "Porting.",
                "toolFormerData": placeholder,
                "timingInfo": {"clientStartTime": 123456, "clientRpcSendTime": T050 + 2000},
            }
        ),
    )
    db.put(
        f"codeBlockDiff:{CID_050}:z", js({"newModelDiffWrtV0": [], "originalModelDiffWrtV0": []})
    )
    return db.close()


# ------------------------------------------------------------------------------------ 0.45

CID_045 = "04540454-0454-4454-8454-045404540454"
CID_045_EMPTY = "04540454-0000-4000-8000-0000000000e0"
T045 = 1738368000000  # 2025-02-01T00:00:00.000Z


def app_0_45(path: Path, *, journal: Journal = "delete", kv_key: KvKey = "primary") -> Path:
    """A ≈0.45-shaped database: messages inline in ``composerData.conversation``."""
    db = StateDB(path, headers="none", journal=journal, kv_key=kv_key)
    db.put(
        f"composerData:{CID_045}",
        js(
            {
                "composerId": CID_045,
                "name": "Inline chat",
                "createdAt": T045,
                "lastUpdatedAt": T045 + 1000,
                "status": "completed",
                "unifiedMode": "chat",
                "conversation": [
                    {"type": 1, "bubbleId": "i1", "text": "What is 2+2?"},
                    {
                        "type": 2,
                        "bubbleId": "i2",
                        "text": "4",
                        "timingInfo": {
                            "clientStartTime": T045 + 10,
                            "clientRpcSendTime": T045 + 20,
                            "clientSettleTime": T045 + 30,
                            "clientEndTime": T045 + 40,
                        },
                    },
                ],
            }
        ),
    )
    db.put(
        f"composerData:{CID_045_EMPTY}",
        js(
            {
                "composerId": CID_045_EMPTY,
                "name": "Nothing yet",
                "createdAt": T045 + 5000,
                "conversation": [],
            }
        ),
    )
    return db.close()


def written_ago(database: Path, seconds: float) -> None:
    """Date the database's files back, as a store the app last wrote ``seconds`` ago (a change
    token is only given for files that have not moved in the last two seconds)."""
    when = time.time() - seconds
    for name in (database, Path(f"{database}-wal"), Path(f"{database}-journal")):
        if name.exists():
            os.utime(name, (when, when))
