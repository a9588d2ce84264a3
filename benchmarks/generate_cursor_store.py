"""Generate a large, realistic Cursor desktop store (the Cursor 3.16+ layout) for benchmarks.

The output is a Cursor ``User`` directory::

    <out>/User/globalStorage/state.vscdb          one SQLite database, page size 4096, WAL mode
    <out>/User/workspaceStorage/<hash32>/workspace.json
    <out>/manifest.json                           counts, the 10,000-bubble session's id, sizes

Everything is derived from ``--seed``, so the same flags always produce the same rows in the same
order. The shapes follow ``cursor-desktop-facts.md`` §2–§7 and ``cursor-desktop-generations.md``:

* ``composerHeaders`` (with ``subagentTypeName`` and ``idx_composerHeaders_0``), one row per
  composer, ``value`` the ``{"type":"head",…}`` document;
* ``cursorDiskKV``: ``bubbleId:<cid>:<bid>`` (``_v`` 3, the full empty-collection skeleton),
  ``composerData:<cid>`` (``_v`` 17, started from the default-state template, one
  ``fullConversationHeadersOnly`` entry per bubble), aux rows (``checkpointId:``,
  ``messageRequestContext:``, ``ofsContent:``, ``composerVirtualRowHeights:``), drafts without
  bubbles, a few tombstone (NULL) rows, and content-addressed ``agentKv:blob:<sha256>`` rows,
  which are what make real databases multi-GB;
* ``ItemTable``: the migration marker and the Agents sidebar keys.

Bubbles are written in timestamp order across sessions, so a long session's rows are spread
through the file the way the app leaves them, with cache blobs interleaved.

Usage::

    .venv/bin/python benchmarks/generate_cursor_store.py                 # 1 GiB, 3,000 sessions
    .venv/bin/python benchmarks/generate_cursor_store.py --out benchmarks/data/small \\
        --sessions 300 --bubbles 30000 --size-gb 0.1
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import random
import shutil
import sqlite3
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_OUT = HERE / "data" / "large"
DEFAULT_TEMPLATE = (
    REPO.parent / "shared" / "data" / "cursor-desktop" / "composer-data-template.json"
)

GENERATOR = "benchmarks/generate_cursor_store.py"
PAGE_SIZE = 4096
HUGE_SESSION_BUBBLES = 10_000
#: No other session gets more bubbles than this, so the 10,000-bubble one is unique.
OTHER_SESSION_CAP = 4_000
MIN_SESSION_BUBBLES = 2
#: The time window sessions are spread over (ms epoch, UTC).
WINDOW_START = int(datetime(2026, 1, 5, tzinfo=UTC).timestamp() * 1000)
WINDOW_END = int(datetime(2026, 11, 29, 18, 0, tzinfo=UTC).timestamp() * 1000)
BATCH_ROWS = 2_000

DDL = (
    "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)",
    "CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, "
    "createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, "
    "recency INTEGER, checkpointAt INTEGER, subagentTypeName TEXT, value TEXT)",
    "CREATE INDEX idx_composerHeaders_0 ON composerHeaders "
    "(workspaceId, isSubagent, isArchived, recency)",
)

# Bubble kinds.
USER, THINK, TEXT, SHELL, READ, GREP = range(6)
TOOL_KINDS = (SHELL, READ, GREP)
TOOL_IDS = {SHELL: 15, READ: 40, GREP: 41}
TOOL_NAMES = {SHELL: "run_terminal_command_v2", READ: "read_file_v2", GREP: "ripgrep_raw_search"}


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# The empty-collection skeleton Cursor's serializer writes on every bubble (facts §17.2).
EMPTY_LIST_KEYS = words(
    "approximateLintErrors lints codebaseContextChunks commits pullRequests "
    "attachedCodeChunks assistantSuggestedDiffs gitDiffs interpreterResults images "
    "attachedFolders attachedFoldersNew userResponsesToSuggestedCodeBlocks "
    "suggestedCodeBlocks diffsForCompressingFiles relevantFiles toolResults notepads "
    "capabilities multiFileLinterErrors diffHistories recentLocationsHistory "
    "recentlyViewedFiles fileDiffTrajectories docsReferences webReferences aiWebSearchResults "
    "attachedFoldersListDirResults humanChanges summarizedComposers cursorRules contextPieces"
)
SKELETON: dict[str, Any] = {key: [] for key in EMPTY_LIST_KEYS} | {
    "isAgentic": False,
    "existedSubsequentTerminalCommand": False,
    "existedPreviousTerminalCommand": False,
    "attachedHumanChanges": False,
    "requestId": "",
    "conversationState": "~",
    "unifiedMode": 2,
    "text": "",
    "richText": "",
}
CONTEXT_LIST_KEYS = words(
    "composers selectedCommits selectedPullRequests selectedImages selectedDocuments "
    "selectedVideos folderSelections fileSelections terminalFiles selections "
    "terminalSelections selectedDocs externalLinks cursorRules cursorCommands "
    "gitPRDiffSelections subagentSelections browserSelections"
)
MENTION_LIST_KEYS = words(
    "gitDiff gitDiffFromBranchToMain diffHistory uiElementSelections consoleLogs ideEditorsState"
)

WORDS = words(
    "the a to of and in is it that for on with as this be are we can not use when from by "
    "should will if then now file test tests function value config error build run check "
    "update fix add remove change session store database query index row column key cache "
    "bubble header composer model message tool result output input parse load save write read "
    "path folder workspace repo branch commit diff patch lint type types import module "
    "package install version release deploy server client request response timeout retry "
    "token stream buffer async await promise handler route schema migration field struct list "
    "map set array string number boolean null empty missing failing passing green red slow "
    "fast memory leak profile benchmark median latency throughput batch transaction lock "
    "thread worker queue event log warn debug trace assert expect mock fixture snapshot "
    "component props state hook render effect layout style theme button modal form input user "
    "account auth login logout permission role admin settings preference feature flag"
)
IDENT_PARTS = words(
    "get set load save parse build make read write fetch update create delete find handle "
    "user session store cache config item row key value node tree list map index header body "
    "token stream result error status count size limit offset path file name data info meta"
)
PROJECTS = words(
    "acme-web api-gateway billing-service mobile-app data-pipeline infra ml-experiments "
    "docs-site design-system cli-tools auth-service search-indexer notebook analytics "
    "chat-backend payments scheduler edge-proxy monorepo playground"
)
MODELS = (
    ("claude-4.5-sonnet-thinking", 30),
    ("gpt-5.1-codex", 20),
    ("composer-1", 20),
    ("claude-4.5-opus-high-thinking", 10),
    ("gemini-3-pro", 8),
    ("default", 12),
)
SUBAGENT_TYPES = ("explore", "generalPurpose", "codeReviewer")


def compact(value: Any) -> str:
    """JSON as the app writes it: compact, raw UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def iso_ms(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def uuid_from(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def file_uri(path: str) -> dict[str, Any]:
    return {"$mid": 1, "fsPath": path, "external": "file://" + path, "path": path, "scheme": "file"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- text ------------------------------------------------------------------------------------


class TextSource:
    """Cheap deterministic text: sentences from a word list, code and log lines from pools."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.code_lines = [self._code_line() for _ in range(6_000)]
        self.log_lines = [self._log_line() for _ in range(3_000)]
        # Random bytes that blobs and signatures are cut from (fresh per run, from the seed).
        self.noise = rng.randbytes(16 * 1024 * 1024)

    def ident(self) -> str:
        first, second = self.rng.sample(IDENT_PARTS, 2)
        return first + second.capitalize()

    def _code_line(self) -> str:
        rng = self.rng
        indent = " " * (4 * rng.randrange(4))
        shape = rng.randrange(7)
        if shape == 0:
            call = f"{self.ident()}({self.ident()}, {rng.randrange(100)})"
            return f"{indent}const {self.ident()} = await {call};"
        if shape == 1:
            return f"{indent}if ({self.ident()}.{self.ident()} === undefined) {{"
        if shape == 2:
            return f"{indent}return {self.ident()}.map((x) => x.{self.ident()});"
        if shape == 3:
            return f"{indent}def {self.ident()}(self, {self.ident()}: str) -> int:"
        if shape == 4:
            return f"{indent}# {self.sentence(5, 12)}"
        if shape == 5:
            return f"{indent}}}"
        options = f"{{ retries: {rng.randrange(9)} }}"
        return f"{indent}{self.ident()}.{self.ident()}({self.ident()}, {options});"

    def _log_line(self) -> str:
        rng = self.rng
        shape = rng.randrange(5)
        if shape == 0:
            return f"  ✓ {self.sentence(3, 9)} ({rng.randrange(1, 900)} ms)"
        if shape == 1:
            return f"PASS src/{rng.choice(IDENT_PARTS)}/{self.ident()}.test.ts"
        if shape == 2:
            clock = f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
            return f"[{clock}] INFO {self.sentence(4, 10)}"
        if shape == 3:
            where = f"src/{self.ident()}.ts:{rng.randrange(1, 400)}:{rng.randrange(1, 80)}"
            return f"    at {self.ident()} ({where})"
        return f"warning: {self.sentence(4, 11)}"

    def sentence(self, low: int, high: int) -> str:
        words = self.rng.choices(WORDS, k=self.rng.randint(low, high))
        return " ".join(words).capitalize() + "."

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence(5, 18) for _ in range(sentences))

    def lines(self, pool: list[str], approx_bytes: int) -> str:
        count = max(1, approx_bytes // 42)
        return "\n".join(self.rng.choices(pool, k=count)) + "\n"

    def b64(self, nbytes: int) -> str:
        start = self.rng.randrange(len(self.noise) - nbytes)
        return base64.b64encode(self.noise[start : start + nbytes]).decode("ascii")


# -- the plan --------------------------------------------------------------------------------


@dataclass
class Workspace:
    hash: str
    folder: str
    name: str


@dataclass
class SessionPlan:
    index: int
    cid: str
    kinds: bytes
    times: list[int]
    workspace: Workspace | None
    model: str
    name: str
    archived: bool
    subagent: str | None
    #: Filled in while the bubbles are written.
    entries: list[dict[str, Any]] = field(default_factory=list)
    row_heights: dict[str, int] = field(default_factory=dict)
    lines_added: int = 0
    lines_removed: int = 0

    @property
    def created(self) -> int:
        return self.times[0]

    @property
    def last_updated(self) -> int:
        return self.times[-1]


def apportion(rng: random.Random, count: int, total: int, low: int, high: int) -> list[int]:
    """``count`` skewed (log-normal) sizes in ``[low, high]`` summing exactly to ``total``."""
    if not count * low <= total <= count * high:
        raise SystemExit(f"cannot split {total} bubbles into {count} sessions of {low}..{high}")
    weights = [rng.lognormvariate(0.0, 1.3) for _ in range(count)]
    sizes: list[float] = [0.0] * count
    free = list(range(count))
    budget = float(total)
    while True:
        scale = budget / sum(weights[i] for i in free)
        clamped = [i for i in free if not low <= weights[i] * scale <= high]
        if not clamped or len(clamped) == len(free):
            break
        for i in clamped:
            sizes[i] = low if weights[i] * scale < low else high
            budget -= sizes[i]
        gone = set(clamped)
        free = [i for i in free if i not in gone]
    for i in free:
        sizes[i] = weights[i] * scale
    result = [math.floor(s) for s in sizes]
    order = sorted(free, key=lambda i: sizes[i] - result[i], reverse=True)
    for i in order[: total - sum(result)]:
        result[i] += 1
    return result


def bubble_kinds(rng: random.Random, count: int) -> bytes:
    """A conversation's bubble kinds: user turns, each followed by an agent loop."""
    kinds = bytearray()
    while len(kinds) < count:
        kinds.append(USER)
        steps = 1 + int(rng.expovariate(1 / 9))
        for step in range(steps):
            if rng.random() < 0.3:
                kinds.append(THINK)
            if rng.random() < 0.35:
                kinds.append(TEXT)
            if step < steps - 1:
                kinds.append(rng.choices(TOOL_KINDS, weights=(45, 35, 20))[0])
        kinds.append(TEXT)
    return bytes(kinds[:count])


def bubble_times(rng: random.Random, kinds: bytes) -> list[int]:
    times: list[int] = []
    now = 0
    for j, kind in enumerate(kinds):
        if j:
            if kind == USER:
                now += int(rng.lognormvariate(12.5, 1.5))  # minutes to hours between turns
            else:
                now += int(rng.lognormvariate(8.5, 1.0))  # seconds between agent steps
        times.append(now)
    start = rng.randrange(WINDOW_START, max(WINDOW_START + 1, WINDOW_END - now))
    return [start + t for t in times]


def make_workspaces(rng: random.Random) -> list[Workspace]:
    out = []
    for name in PROJECTS:
        folder = f"/home/dev/src/{name}"
        digest = hashlib.md5(f"{folder}:{rng.random()}".encode(), usedforsecurity=False)
        out.append(Workspace(digest.hexdigest(), folder, name))
    return out


def plan_sessions(
    rng: random.Random, text: TextSource, sessions: int, bubbles: int
) -> list[SessionPlan]:
    sizes = apportion(
        rng, sessions - 1, bubbles - HUGE_SESSION_BUBBLES, MIN_SESSION_BUBBLES, OTHER_SESSION_CAP
    )
    sizes.insert(rng.randrange(sessions), HUGE_SESSION_BUBBLES)
    workspaces = make_workspaces(rng)
    ws_weights = [1 / (rank + 1) for rank in range(len(workspaces))]
    models, model_weights = zip(*MODELS, strict=True)
    plans = []
    for index, size in enumerate(sizes):
        kinds = bubble_kinds(rng, size)
        workspace = None if rng.random() < 0.05 else rng.choices(workspaces, ws_weights)[0]
        subagent = rng.choice(SUBAGENT_TYPES) if rng.random() < 0.04 else None
        plans.append(
            SessionPlan(
                index=index,
                cid=uuid_from(rng),
                kinds=kinds,
                times=bubble_times(rng, kinds),
                workspace=workspace,
                model=rng.choices(models, model_weights)[0],
                name=text.sentence(3, 8).rstrip(".")[:80],
                archived=rng.random() < 0.08,
                subagent=subagent,
            )
        )
    return plans


# -- documents -------------------------------------------------------------------------------


class Documents:
    """Builds the JSON cells of one session at a time."""

    def __init__(self, rng: random.Random, text: TextSource, template: dict[str, Any]) -> None:
        self.rng = rng
        self.text = text
        self.template_json = compact(template)

    # bubbles

    def user_context(self, plan: SessionPlan) -> dict[str, Any]:
        context: dict[str, Any] = {key: [] for key in CONTEXT_LIST_KEYS}
        context["extraContext"] = []
        mentions: dict[str, Any] = {key: {} for key in CONTEXT_LIST_KEYS}
        mentions |= {key: [] for key in MENTION_LIST_KEYS}
        context["mentions"] = mentions
        if plan.workspace is not None and self.rng.random() < 0.3:
            path = f"{plan.workspace.folder}/src/{self.text.ident()}.ts"
            context["fileSelections"] = [{"uri": file_uri(path), "addedWithoutMention": False}]
            mentions["fileSelections"] = {f"file://{path}": [{"uuid": uuid_from(self.rng)}]}
        return context

    def bubble(self, plan: SessionPlan, j: int) -> tuple[str, str, list[tuple[str, str | None]]]:
        """(bubble id, bubble JSON, aux rows) for bubble ``j`` of ``plan``."""
        rng, text = self.rng, self.text
        kind = plan.kinds[j]
        bid = uuid_from(rng)
        created = plan.times[j]
        doc: dict[str, Any] = {"_v": 3, "type": 1 if kind == USER else 2, "bubbleId": bid}
        doc.update(SKELETON)
        doc["createdAt"] = iso_ms(created)
        doc["tokenCount"] = {"inputTokens": 0, "outputTokens": 0}
        aux: list[tuple[str, str | None]] = []
        grouping: dict[str, Any] = {"isRenderable": True}
        if kind == USER:
            prompt = text.paragraph(rng.randint(1, 4))
            if rng.random() < 0.15:
                prompt += "\n\n```\n" + text.lines(text.log_lines, rng.randint(200, 2000)) + "```"
            checkpoint = uuid_from(rng)
            rich = {
                "type": "doc",
                "content": [{"type": "paragraph", "content": [{"type": "text", "text": prompt}]}],
            }
            doc |= {
                "text": prompt,
                "richText": compact(rich),
                "context": self.user_context(plan),
                "modelInfo": {"modelName": plan.model},
                "requestId": uuid_from(rng),
                "checkpointId": checkpoint,
                "isAgentic": True,
            }
            aux.append((f"checkpointId:{plan.cid}:{checkpoint}", self.checkpoint(plan)))
            aux.append((f"messageRequestContext:{plan.cid}:{bid}", self.request_context(plan)))
            grouping |= {"hasText": True, "isShortPlainText": len(prompt.encode()) < 100}
        else:
            if plan.model != "default":
                doc["modelInfo"] = {"modelName": plan.model}
            if rng.random() < 0.4:
                doc["tokenCount"] = {
                    "inputTokens": rng.randrange(1, 4000),
                    "outputTokens": rng.randrange(1, 2000),
                }
        if kind == THINK:
            duration = rng.randrange(300, 40_000)
            thought = "" if rng.random() < 0.6 else text.paragraph(rng.randint(1, 6))
            doc |= {
                "capabilityType": 30,
                "thinking": {"text": thought, "signature": text.b64(rng.randint(200, 1200))},
                "thinkingDurationMs": duration,
                "thinkingStyle": 1,
            }
            grouping |= {"capabilityType": 30, "hasThinking": True, "thinkingDurationMs": duration}
        elif kind == TEXT:
            answer = text.paragraph(rng.randint(1, 8))
            if rng.random() < 0.2:
                answer += (
                    "\n\n```ts\n" + text.lines(text.code_lines, rng.randint(200, 1500)) + "```"
                )
            doc["text"] = answer
            grouping |= {"hasText": True, "isKeptFinalAiVisibleOutsideWorkedForGroup": True}
            grouping["contentHeightHint"] = 24 * (1 + answer.count("\n") + len(answer) // 90)
        elif kind in TOOL_KINDS:
            tool = self.tool(plan, kind)
            doc["capabilityType"] = 15
            doc["toolFormerData"] = tool
            grouping |= {
                "capabilityType": 15,
                "toolFormerTool": tool["tool"],
                "toolCallId": tool["toolCallId"],
            }
            if kind != SHELL:
                grouping["isToolGroupable"] = True
            if kind == READ and plan.workspace is not None and rng.random() < 0.1:
                path = json.loads(tool["params"])["targetFile"]
                aux.append(
                    (f"ofsContent:{plan.cid}:file://{path}", text.lines(text.code_lines, 3000))
                )
        plan.entries.append({"bubbleId": bid, "type": doc["type"], "grouping": grouping})
        plan.row_heights[bid] = 24 * rng.randint(2, 40)
        return bid, compact(doc), aux

    def call_id(self) -> str:
        rng = self.rng
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        body = "".join(rng.choices(alphabet, k=24))
        roll = rng.random()
        if roll < 0.6:
            return "toolu_01" + body
        if roll < 0.95:
            return "call_" + body
        return f"call_{body[:10]}\nfc_{body[10:]}"  # real ids can hold a newline

    def result_size(self) -> int:
        return min(60_000, int(self.rng.lognormvariate(6.5, 1.0)))  # median ~670 B, tail to 60 KB

    def tool(self, plan: SessionPlan, kind: int) -> dict[str, Any]:
        rng, text = self.rng, self.text
        root = plan.workspace.folder if plan.workspace else "/home/dev"
        roll = rng.random()
        status = "completed" if roll < 0.95 else "error" if roll < 0.995 else "cancelled"
        if kind == SHELL:
            command = rng.choice(
                (
                    "npm test",
                    "pnpm lint --fix",
                    "pytest -q tests/",
                    f"git diff --stat HEAD~{rng.randint(1, 9)}",
                    f"rg -n {rng.choice(IDENT_PARTS)} src | head -50",
                    "cargo build --release",
                    "ls -la",
                )
            )
            params: dict[str, Any] = {"command": command, "cwd": "" if rng.random() < 0.5 else root}
            if rng.random() < 0.4:
                params["options"] = {"timeout": rng.choice((30_000, 120_000, 600_000))}
            result = text.lines(text.log_lines, self.result_size())
            if status == "error":
                result = compact({"exitCode": rng.choice((1, 2, 127)), "output": result[:2000]})
        elif kind == READ:
            path = f"{root}/src/{rng.choice(IDENT_PARTS)}/{text.ident()}.ts"
            params = {"targetFile": path, "charsLimit": 100_000}
            if rng.random() < 0.5:
                params |= {"offset": rng.randint(1, 400), "limit": rng.choice((50, 100, 200))}
            if status == "error":
                result = compact({"error": "ENOENT: no such file or directory"})
            else:
                contents = text.lines(text.code_lines, self.result_size())
                result = compact(
                    {
                        "contents": contents,
                        "totalLinesInFile": contents.count("\n") + rng.randrange(500),
                    }
                )
        else:
            pattern = text.ident()
            params = {"pattern": pattern, "path": root, "caseInsensitive": rng.random() < 0.3}
            matches = []
            budget = self.result_size()
            while budget > 0:
                line = rng.choice(text.code_lines)
                matches.append(
                    {
                        "file": f"src/{rng.choice(IDENT_PARTS)}/{text.ident()}.ts",
                        "matches": [{"lineNumber": rng.randint(1, 900), "content": line}],
                    }
                )
                budget -= 90 + len(line)
            result = compact(
                {
                    "success": {
                        "pattern": pattern,
                        "path": root,
                        "outputMode": "content",
                        "workspaceResults": {root: {"content": {"matches": matches}}},
                    }
                }
            )
        return {
            "tool": TOOL_IDS[kind],
            "name": TOOL_NAMES[kind],
            "toolCallId": self.call_id(),
            "params": compact(params),
            "rawArgs": "",
            "status": status,
            "result": result,
            "additionalData": {"status": "success" if status == "completed" else status},
        }

    def checkpoint(self, plan: SessionPlan) -> str:
        files = []
        if plan.workspace is not None:
            for _ in range(self.rng.randrange(3)):
                path = f"{plan.workspace.folder}/src/{self.text.ident()}.ts"
                diff = [
                    {
                        "original": {
                            "startLineNumber": self.rng.randint(1, 300),
                            "endLineNumberExclusive": self.rng.randint(301, 400),
                        },
                        "modified": self.rng.choices(
                            self.text.code_lines, k=self.rng.randint(1, 8)
                        ),
                    }
                ]
                files.append(
                    {"uri": file_uri(path), "originalModelDiffWrtV0": diff, "isNewlyCreated": False}
                )
                plan.lines_added += len(diff[0]["modified"])
                plan.lines_removed += self.rng.randrange(6)
        return compact(
            {
                "files": files,
                "nonExistentFiles": [],
                "newlyCreatedFolders": [],
                "activeInlineDiffs": [],
                "inlineDiffNewlyCreatedResources": {"files": [], "folders": []},
            }
        )

    def request_context(self, plan: SessionPlan) -> str:
        root = plan.workspace.folder if plan.workspace else "/home/dev"
        return compact(
            {
                "terminalFiles": [],
                "cursorRules": [],
                "attachedFoldersListDirResults": [],
                "summarizedComposers": [],
                "gitStatusRaw": "\n".join(
                    f" M src/{self.text.ident()}.ts" for _ in range(self.rng.randrange(6))
                ),
                "projectLayouts": [
                    {"rootPath": root, "childrenNames": self.rng.sample(IDENT_PARTS, 8)}
                ],
            }
        )

    # session-level documents

    def workspace_identifier(self, plan: SessionPlan) -> dict[str, Any]:
        if plan.workspace is None:
            return {"id": "empty-window"}
        return {"id": plan.workspace.hash, "uri": file_uri(plan.workspace.folder)}

    def draft_composer_data(self, cid: str, created: int) -> dict[str, Any]:
        """The template as a fresh composer has it: no name, no bubbles, status ``none``."""
        doc: dict[str, Any] = json.loads(self.template_json)
        doc["composerId"] = cid
        doc["createdAt"] = created
        return doc

    def composer_data(self, plan: SessionPlan) -> str:
        doc = self.draft_composer_data(plan.cid, plan.created)
        doc |= {
            "name": plan.name,
            "subtitle": (
                f"Ran {plan.kinds.count(SHELL)} commands, read {plan.kinds.count(READ)} files"
            ),
            "lastUpdatedAt": plan.last_updated,
            "conversationCheckpointLastUpdatedAt": plan.last_updated + 5_000,
            "status": "completed",
            "fullConversationHeadersOnly": plan.entries,
            "modelConfig": {
                "maxMode": self.rng.random() < 0.2,
                "modelName": plan.model,
                "selectedModels": [{"modelId": plan.model, "parameters": []}],
            },
            "workspaceIdentifier": self.workspace_identifier(plan),
            "trackedGitRepos": self.tracked_repos(plan),
            "conversationState": "~" + self.text.b64(self.rng.randint(2_000, 30_000)),
            "contextTokensUsed": self.rng.randrange(5_000, 180_000),
            "contextTokenLimit": 200_000,
            "totalLinesAdded": plan.lines_added,
            "totalLinesRemoved": plan.lines_removed,
        }
        if plan.subagent:
            doc["subagentInfo"] = {"subagentTypeName": plan.subagent, "parentComposerId": ""}
        return compact(doc)

    def tracked_repos(self, plan: SessionPlan) -> list[dict[str, Any]]:
        if plan.workspace is None:
            return []
        branch = {
            "branchName": self.rng.choice(("main", "dev", f"feature/{self.text.ident()}")),
            "lastInteractionAt": plan.last_updated,
        }
        return [{"repoPath": plan.workspace.folder, "branches": [branch]}]

    def head(self, plan: SessionPlan) -> str:
        doc: dict[str, Any] = {
            "type": "head",
            "composerId": plan.cid,
            "name": plan.name,
            "subtitle": f"Ran {plan.kinds.count(SHELL)} commands",
            "createdAt": plan.created,
            "lastUpdatedAt": plan.last_updated,
            "conversationCheckpointLastUpdatedAt": plan.last_updated + 5_000,
            "unifiedMode": "agent",
            "forceMode": "edit",
            "hasUnreadMessages": False,
            "isArchived": plan.archived,
            "isDraft": False,
            "isWorktree": False,
            "worktreeStartedReadOnly": False,
            "isSpec": False,
            "isProject": False,
            "isBestOfNSubcomposer": False,
            "hasBlockingPendingActions": False,
            "hasPendingPlan": False,
            "hasBeenInSidebar": True,
            "totalLinesAdded": plan.lines_added,
            "totalLinesRemoved": plan.lines_removed,
            "numSubComposers": 0,
            "filesChangedCount": self.rng.randrange(12),
            "contextUsagePercent": round(self.rng.uniform(2, 95), 2),
            "referencedPlans": [],
            "trackedGitRepos": self.tracked_repos(plan),
            "workspaceIdentifier": self.workspace_identifier(plan),
        }
        if plan.workspace is not None:
            env = {"id": plan.workspace.hash, "uri": file_uri(plan.workspace.folder)}
            doc["agentLocation"] = {"type": "local", "environment": env, "status": "active"}
            doc["agentLocationHistory"] = [
                {
                    "id": uuid_from(self.rng),
                    "timestamp": plan.created,
                    "destination": {"type": "local"},
                    "location": doc["agentLocation"],
                    "reason": "created",
                }
            ]
        return compact(doc)

    def draft_head(self, cid: str, created: int, workspace: Workspace | None) -> str:
        ident: dict[str, Any] = (
            {"id": workspace.hash, "uri": file_uri(workspace.folder)}
            if workspace
            else {"id": "empty-window"}
        )
        return compact(
            {
                "type": "head",
                "composerId": cid,
                "createdAt": created,
                "unifiedMode": "agent",
                "forceMode": "edit",
                "hasUnreadMessages": False,
                "isArchived": False,
                "isDraft": True,
                "referencedPlans": [],
                "trackedGitRepos": [],
                "workspaceIdentifier": ident,
            }
        )


# -- writing ---------------------------------------------------------------------------------


@dataclass
class Counters:
    bubbles: int = 0
    aux_rows: int = 0
    blobs: int = 0
    blob_bytes: int = 0
    bubble_bytes: int = 0
    composer_data_bytes: int = 0


class Writer:
    def __init__(self, db: sqlite3.Connection, rng: random.Random, text: TextSource) -> None:
        self.db = db
        self.rng = rng
        self.text = text
        self.batch: list[tuple[str, str | None]] = []
        self.counts = Counters()

    def kv(self, key: str, value: str | None) -> None:
        self.batch.append((key, value))
        if len(self.batch) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.db.executemany("INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)", self.batch)
            self.batch.clear()

    def file_bytes(self) -> int:
        self.flush()
        (pages,) = self.db.execute("PRAGMA page_count").fetchone()
        return int(pages) * PAGE_SIZE

    def blob(self) -> int:
        """One ``agentKv:blob:<sha256>`` row; returns its value's size."""
        size = min(2_000_000, int(self.rng.lognormvariate(10.3, 1.1)))  # median ~30 KB
        value = self.text.b64(size)
        key = "agentKv:blob:" + hashlib.sha256(value.encode("ascii")).hexdigest()
        self.kv(key, value)
        self.counts.blobs += 1
        self.counts.blob_bytes += len(value)
        return len(value)

    def top_up(self, target: int) -> None:
        """Add cache blobs until the file reaches ``target`` bytes."""
        gap = target - self.file_bytes()
        while gap > 0:
            written = 0
            while written < gap:
                written += self.blob() + 200
            gap = target - self.file_bytes()


def was_generated(out: Path) -> bool:
    """Does ``out`` hold a store this script wrote (so regenerating may replace it)?"""
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("generator") == GENERATOR


def generate(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    out: Path = args.out.resolve()
    user_dir = out / "User"
    if out.exists() and any(out.iterdir()):
        if not was_generated(out):
            raise SystemExit(f"{out} is not empty and holds no generated store; not touching it")
        shutil.rmtree(user_dir, ignore_errors=True)
        (out / "manifest.json").unlink()
    db_path = user_dir / "globalStorage" / "state.vscdb"
    db_path.parent.mkdir(parents=True)

    rng = random.Random(args.seed)
    text = TextSource(rng)
    template = json.loads(args.template.read_text(encoding="utf-8"))
    log(f"planning {args.sessions:,} sessions / {args.bubbles:,} bubbles (seed {args.seed})")
    plans = plan_sessions(rng, text, args.sessions, args.bubbles)
    huge = next(p for p in plans if len(p.kinds) == HUGE_SESSION_BUBBLES)
    workspaces = {p.workspace.hash: p.workspace for p in plans if p.workspace is not None}
    for ws in workspaces.values():
        folder = user_dir / "workspaceStorage" / ws.hash
        folder.mkdir(parents=True)
        (folder / "workspace.json").write_text(
            compact({"folder": "file://" + ws.folder}), encoding="utf-8"
        )

    db = sqlite3.connect(db_path, isolation_level=None)
    # Build without a journal (the fastest way to write 1 GB in one go), then switch the file to
    # WAL at the end, as the app leaves it. auto_vacuum must be set before the first table.
    for pragma in (
        f"PRAGMA page_size={PAGE_SIZE}",
        "PRAGMA auto_vacuum=INCREMENTAL",
        "PRAGMA journal_mode=OFF",
        "PRAGMA synchronous=OFF",
        "PRAGMA cache_size=-524288",
        "PRAGMA temp_store=MEMORY",
        "PRAGMA user_version=1",
    ):
        db.execute(pragma)
    db.execute("BEGIN")
    for statement in DDL:
        db.execute(statement)
    writer = Writer(db, rng, text)
    docs = Documents(rng, text, template)
    target = int(args.size_gb * 1024**3)

    # Drafts: composers with a head and composerData but no bubbles (the app's empty-state-draft
    # among them), plus a few whose only bubble rows are NULL tombstones (still not sessions).
    drafts: list[tuple[str, int, Workspace | None]] = [
        ("empty-state-draft", WINDOW_END - 60_000, None)
    ]
    for _ in range(max(3, args.sessions // 50)):
        home = rng.choice(list(workspaces.values())) if workspaces and rng.random() < 0.7 else None
        drafts.append((uuid_from(rng), rng.randrange(WINDOW_START, WINDOW_END), home))
    tombstone_drafts = [d[0] for d in drafts[1:4]]
    for cid, created, home in drafts:
        db.execute(
            "INSERT INTO composerHeaders VALUES (?,?,?,?,0,0,?,NULL,NULL,?)",
            (
                cid,
                home.hash if home else "empty-window",
                created,
                created,
                created,
                docs.draft_head(cid, created, home),
            ),
        )
        writer.kv(
            f"composerData:{cid}",
            None if cid == "empty-state-draft" else compact(docs.draft_composer_data(cid, created)),
        )
    for cid in tombstone_drafts:
        writer.kv(f"bubbleId:{cid}:{uuid_from(rng)}", None)
    writer.kv("composerVirtualRowHeights:_recentIds", "[]")
    writer.kv(
        "composer.autoAccept.lastSeenHeadSha",
        compact(
            {
                ws.folder: hashlib.sha1(ws.hash.encode(), usedforsecurity=False).hexdigest()
                for ws in workspaces.values()
            }
        ),
    )

    # Bubbles in timestamp order across all sessions; each session's composerData and renderer
    # cache are written after its last bubble; cache blobs keep the file growing in step.
    events = sorted((t, p.index, j) for p in plans for j, t in enumerate(p.times))
    kv_target = target * 0.985  # leave room for the headers and ItemTable written at the end
    next_check = 0
    for done, (_, index, j) in enumerate(events, 1):
        plan = plans[index]
        bid, value, aux = docs.bubble(plan, j)
        writer.kv(f"bubbleId:{plan.cid}:{bid}", value)
        writer.counts.bubbles += 1
        writer.counts.bubble_bytes += len(value)
        for key, aux_value in aux:
            writer.kv(key, aux_value)
            writer.counts.aux_rows += 1
        if j == len(plan.kinds) - 1:
            data = docs.composer_data(plan)
            writer.kv(f"composerData:{plan.cid}", data)
            writer.counts.composer_data_bytes += len(data)
            heights = dict(list(plan.row_heights.items())[-200:])
            writer.kv(f"composerVirtualRowHeights:{plan.cid}", compact(heights))
            writer.counts.aux_rows += 1
            plan.row_heights = {}
            plan.entries = []
        if done >= next_check:
            writer.top_up(int(kv_target * done / len(events)))
            next_check = done + 1_000
            if done % 20_000 < 1_000:
                size = writer.file_bytes()
                log(
                    f"  {done:>9,}/{len(events):,} bubbles  {size / 1024**2:8.1f} MiB  "
                    f"{time.perf_counter() - started:6.1f} s"
                )

    rows = []
    for plan in plans:
        checkpoint = plan.last_updated + 5_000 if rng.random() < 0.7 else None
        recency = plan.last_updated + (rng.randrange(86_400_000) if rng.random() < 0.1 else 0)
        rows.append(
            (
                plan.cid,
                plan.workspace.hash if plan.workspace else "empty-window",
                plan.created,
                plan.last_updated,
                int(plan.archived),
                int(plan.subagent is not None),
                recency,
                checkpoint,
                plan.subagent,
                docs.head(plan),
            )
        )
    db.executemany("INSERT INTO composerHeaders VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
    write_item_table(db, rng, plans, workspaces)
    writer.top_up(target)
    db.execute("COMMIT")
    # At rest like the app: WAL in the header, no -wal/-shm files left behind.
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    elapsed = time.perf_counter() - started

    counts = writer.counts
    manifest = {
        "generator": GENERATOR,
        "seed": args.seed,
        "user_dir": str(user_dir),
        "database": str(db_path),
        "file_bytes": db_path.stat().st_size,
        "sessions": len(plans),
        "listable_sessions": len(plans),
        "bubbles": counts.bubbles,
        "drafts": len(drafts),
        "tombstone_only_drafts": len(tombstone_drafts),
        "composers": len(plans) + len(drafts),
        "huge_session": {"composer_id": huge.cid, "bubbles": len(huge.kinds)},
        "largest_other_session": max(len(p.kinds) for p in plans if p is not huge),
        "median_session_bubbles": sorted(len(p.kinds) for p in plans)[len(plans) // 2],
        "aux_rows": counts.aux_rows,
        "agentkv_blobs": counts.blobs,
        "agentkv_blob_bytes": counts.blob_bytes,
        "bubble_bytes": counts.bubble_bytes,
        "composer_data_bytes": counts.composer_data_bytes,
        "workspaces": len(workspaces),
        "seconds": round(elapsed, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def write_item_table(
    db: sqlite3.Connection,
    rng: random.Random,
    plans: list[SessionPlan],
    workspaces: dict[str, Workspace],
) -> None:
    projects = []
    project_of: dict[str, str] = {}
    for ws in workspaces.values():
        project_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        project_of[ws.hash] = project_id
        projects.append(
            {
                "id": project_id,
                "name": ws.name,
                "workspace": {"id": ws.hash, "uri": file_uri(ws.folder)},
                "createdAt": WINDOW_START,
                "lastUpdatedAt": WINDOW_END,
                "isArchived": False,
            }
        )
    membership = {p.cid: project_of[p.workspace.hash] for p in plans if p.workspace is not None}
    items = {
        "composer.composerHeaders.migratedToTable": "true",
        "composer.planMigrationToHomeDirCompleted": "true",
        "glass.localAgentProjects.v1": compact(projects),
        "glass.localAgentProjectMembership.v1": compact(membership),
        "glass.cloudAgentProjects.v1": "[]",
        "glass.cloudAgentProjectMembership.v1": "{}",
        "cursor/glass.removedProjects": "[]",
        "cursor/glass.selectedAgent": max(plans, key=lambda p: p.last_updated).cid,
        "workspaceMetadata.entries": compact(
            {
                "entries": [
                    {
                        "workspaceId": ws.hash,
                        "displayPath": "~" + ws.folder.removeprefix("/home/dev"),
                        "worktreeInfo": {"isWorktree": False},
                        "folderUri": "file://" + ws.folder,
                        "paths": [{"uri": "file://" + ws.folder, "displayPath": ws.name}],
                        "trackedGitRepos": [
                            {"repoPath": ws.folder, "repoUrl": f"git@example.com:dev/{ws.name}.git"}
                        ],
                    }
                    for ws in workspaces.values()
                ]
            }
        ),
        "history.recentlyOpenedPathsList": compact(
            {"entries": [{"folderUri": "file://" + ws.folder} for ws in workspaces.values()]}
        ),
        "workbench.panel.markers.hidden": compact(
            [{"id": "workbench.panel.markers.view", "isHidden": False}]
        ),
    }
    db.executemany("INSERT INTO ItemTable (key, value) VALUES (?, ?)", items.items())


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="output directory (default: %(default)s)"
    )
    parser.add_argument(
        "--sessions", type=int, default=3_000, help="sessions with bubbles (default: %(default)s)"
    )
    parser.add_argument(
        "--bubbles", type=int, default=300_000, help="bubbles in total (default: %(default)s)"
    )
    parser.add_argument(
        "--size-gb",
        type=float,
        default=2.0,
        help="minimum database size in GiB (default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=int, default=20261130, help="random seed (default: %(default)s)"
    )
    parser.add_argument(
        "--template", type=Path, default=DEFAULT_TEMPLATE, help="composerData template JSON"
    )
    args = parser.parse_args(argv)
    if args.sessions < 2:
        parser.error("--sessions must be at least 2")
    if args.bubbles < HUGE_SESSION_BUBBLES + (args.sessions - 1) * MIN_SESSION_BUBBLES:
        parser.error(
            f"--bubbles must be at least {HUGE_SESSION_BUBBLES} "
            f"+ {MIN_SESSION_BUBBLES} per other session"
        )
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    manifest = generate(args)
    log(
        f"done in {manifest['seconds']} s: {manifest['sessions']:,} sessions, "
        f"{manifest['bubbles']:,} bubbles, "
        f"{manifest['file_bytes'] / 1024**3:.2f} GiB -> {manifest['database']}"
    )
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
