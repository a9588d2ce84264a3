"""Build Cursor desktop native sessions as data, for the codec and text-form tests.

Documents are plain dicts serialised with :func:`cell`; a bubble given as a ``str`` is stored
verbatim (for corrupt rows). :func:`sample_session` is the shared fixture of the behaviour
checklist (A.0).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow

DATA = Path(__file__).parent / "data"
EXAMPLE_TEXT = (DATA / "example-session.json").read_text(encoding="utf-8")

CID = "7a21307b-c742-491d-ac90-21fdab1f1746"
CREATED_MS = 1786948236174
CREATED = datetime(2026, 8, 17, 6, 30, 36, 174000, tzinfo=UTC)


def cell(document: Any) -> str:
    """A document as app-shaped cell text (compact, key order kept); strings pass through."""
    if isinstance(document, str):
        return document
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def at(text: str) -> datetime:
    """``"06:30:36.299"`` (on 2026-08-17, UTC) or a full RFC 3339 string as a datetime."""
    if "T" not in text:
        text = f"2026-08-17T{text}Z"
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def headers(*entries: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"bubbleId": bubble_id, "type": kind} for bubble_id, kind in entries]


def session(
    bubbles: list[tuple[str, Any]] | list[Any],
    *,
    cid: str = CID,
    head: Any = None,
    composer: Any = None,
    created_at: int = CREATED_MS,
    aux: tuple[KVRow, ...] = (),
    **columns: Any,
) -> CursorSession:
    """A session whose bubble rows are ``(bubble id, document)`` pairs (or bare documents, keyed
    by their own ``bubbleId``)."""
    rows = []
    for item in bubbles:
        bubble_id, document = item if isinstance(item, tuple) else (item["bubbleId"], item)
        rows.append(KVRow(f"bubbleId:{cid}:{bubble_id}", cell(document)))
    header = head if head is not None else {"type": "head", "composerId": cid}
    return CursorSession(
        header=cell(header),
        bubbles=tuple(rows),
        created_at=created_at,
        composer_data=None if composer is None else cell(composer),
        aux=aux,
        **columns,
    )


def ordered_session(bubbles: list[dict[str, Any]], **kwargs: Any) -> CursorSession:
    """A session whose composerData lists ``bubbles`` in the given order."""
    listed = headers(*((b["bubbleId"], b.get("type", 2)) for b in bubbles))
    composer = {
        "_v": 17,
        "composerId": kwargs.get("cid", CID),
        "fullConversationHeadersOnly": listed,
    }
    return session(bubbles, composer=kwargs.pop("composer", composer), **kwargs)


def user(bubble_id: str, text: str, created: str | None = None, **extra: Any) -> dict[str, Any]:
    bubble: dict[str, Any] = {"_v": 3, "type": 1, "bubbleId": bubble_id, "text": text}
    if created is not None:
        bubble["createdAt"] = created
    bubble.update(extra)
    return bubble


def assistant(
    bubble_id: str, text: str = "", created: str | None = None, **extra: Any
) -> dict[str, Any]:
    bubble: dict[str, Any] = {"_v": 3, "type": 2, "bubbleId": bubble_id, "text": text}
    if created is not None:
        bubble["createdAt"] = created
    bubble.update(extra)
    return bubble


def tool(
    bubble_id: str,
    name: str,
    call_id: Any,
    params: Any,
    status: str | None = "completed",
    result: Any = "",
    *,
    number: int | None = None,
    created: str | None = None,
    **former: Any,
) -> dict[str, Any]:
    """An assistant tool bubble; ``params`` that are not a string are JSON-encoded into one."""
    tool_former: dict[str, Any] = {"name": name, "toolCallId": call_id}
    if number is not None:
        tool_former["tool"] = number
    tool_former["params"] = params if isinstance(params, str) else cell(params)
    tool_former["rawArgs"] = ""
    if status is not None:
        tool_former["status"] = status
    if result is not None:
        tool_former["result"] = result
    tool_former.update(former)
    return assistant(bubble_id, "", created, capabilityType=15, toolFormerData=tool_former)


# ------------------------------------------------------------------------- checklist A.0

SAMPLE_HEAD = {
    "type": "head",
    "composerId": CID,
    "name": "Can you evaluate the support",
    "subtitle": "Read lib.rs",
    "createdAt": 1786948236174,
    "lastUpdatedAt": 1786948236297,
    "unifiedMode": "agent",
    "workspaceIdentifier": {
        "id": "84c9a67ebe7054485d323a481a9cffeb",
        "uri": {"fsPath": "/repo", "scheme": "file"},
    },
}
SAMPLE_COMPOSER: dict[str, Any] = {
    "_v": 17,
    "composerId": CID,
    "hasLoaded": True,
    "status": "completed",
    "fullConversationHeadersOnly": headers(
        ("b-user", 1),
        ("b-think", 2),
        ("b-text", 2),
        ("b-read", 2),
        ("b-search", 2),
        ("b-mystery", 7),
    ),
    "modelConfig": {"modelName": "composer-2", "maxMode": True},
}
SAMPLE_PROMPT = "Can you evaluate the support for cursor sessions in this library?"


def sample_bubbles() -> list[tuple[str, Any]]:
    return [
        (
            "b-text",
            assistant(
                "b-text",
                "I'll evaluate Cursor session support.",
                "2026-08-17T06:30:44.209Z",
                tokenCount={"inputTokens": 900, "outputTokens": 42},
                modelInfo={"modelName": "composer-2"},
            ),
        ),
        (
            "b-user",
            user(
                "b-user",
                SAMPLE_PROMPT,
                "2026-08-17T06:30:36.299Z",
                richText='{"type":"doc"}',
                unmodeledField={"survives": True},
                unifiedMode=2,
                conversationState="~",
                tokenCount={"inputTokens": 0, "outputTokens": 0},
            ),
        ),
        ("b-corrupt", "{not json"),
        (
            "b-think",
            assistant(
                "b-think",
                "",
                "2026-08-17T06:30:41.992Z",
                thinking={"text": "Evaluating Cursor session support.", "signature": "sig-1"},
                thinkingDurationMs=2201,
                tokenCount={"inputTokens": 0, "outputTokens": 0},
            ),
        ),
        (
            "b-read",
            tool(
                "b-read",
                "read_file_v2",
                "call-1",
                '{"targetFile":"/repo/src/lib.rs","limit":80,"charsLimit":1000000}',
                "completed",
                '{"totalLinesInFile":290}',
                number=40,
                created="2026-08-17T06:30:50.000Z",
            ),
        ),
        (
            "b-search",
            tool(
                "b-search",
                "glob_file_search",
                "call-2",
                '{"targetDirectory":"/nope","globPattern":"**/plan.md"}',
                "error",
                "no such directory",
                number=42,
                created="2026-08-17T06:30:55.000Z",
            ),
        ),
        ("b-mystery", '{"_v":9,"type":7,"bubbleId":"b-mystery","novel":{"future":"record"}}'),
    ]


def sample_session(
    extra_bubbles: tuple[tuple[str, Any], ...] = (),
    extra_headers: tuple[tuple[str, int], ...] = (),
) -> CursorSession:
    """Checklist A.0's sample, optionally with more bubbles appended to rows and header list."""
    composer = dict(SAMPLE_COMPOSER)
    listed: list[dict[str, Any]] = list(SAMPLE_COMPOSER["fullConversationHeadersOnly"])
    composer["fullConversationHeadersOnly"] = [*listed, *headers(*extra_headers)]
    return session(
        [*sample_bubbles(), *extra_bubbles],
        head=SAMPLE_HEAD,
        composer=composer,
        workspace_id="84c9a67ebe7054485d323a481a9cffeb",
        last_updated_at=1786948236297,
        recency=1786948236297,
        aux=(KVRow(f"checkpointId:{CID}:ck-1", '{"files":[]}'),),
    )
