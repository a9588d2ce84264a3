"""Build Cursor desktop native sessions as data, for the codec and text-form tests.

Documents are plain dicts serialised with :func:`cell`; a bubble given as a ``str`` is stored
verbatim (for corrupt rows). :func:`sample_session` is the shared fixture of the behaviour
checklist (A.0).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import strategies as st

from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.model import (
    Bash,
    Command,
    Edit,
    EditSpec,
    Message,
    Meta,
    MultiEdit,
    Raw,
    Read,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    Write,
)
from txcript.pairing import answer_open_calls
from txcript.shared.jsonutil import INVALID
from txcript.shared.jsonutil import try_loads as parse_json

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


# ------------------------------------------------- the representable subset (hypothesis)


_SPECIAL_NAMES = {
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Bash",
    "run_terminal_command_v2",
    "read_file_v2",
    "run_terminal_cmd",
    "read_file",
    "search_replace",
}
_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)

texts = st.text(max_size=25)
nonblank = texts.filter(lambda t: t.strip() != "")
names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True).filter(
    lambda n: n not in _SPECIAL_NAMES
)
models = st.none() | names.filter(lambda n: n != "default")
uints = st.integers(0, 2**63 - 1)
times = st.integers(1, 10**12).map(lambda ms: _EPOCH + timedelta(milliseconds=ms))
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
text_results = texts.filter(lambda t: parse_json(t) is INVALID or parse_json(t) is None)
json_results = json_values.filter(lambda v: v is not None and not isinstance(v, str))
usages = st.none() | st.builds(Usage, input_tokens=uints, output_tokens=uints).filter(
    lambda u: u.input_tokens > 0 or u.output_tokens > 0
)
tools = st.one_of(
    st.builds(Bash, command=texts, workdir=st.none() | nonblank, timeout_ms=st.none() | uints),
    st.builds(Read, file_path=texts, offset=st.none() | uints, limit=st.none() | uints),
    st.builds(Write, file_path=texts, content=texts),
    st.builds(Edit, file_path=texts, old_string=texts, new_string=texts, replace_all=st.booleans()),
    st.builds(
        MultiEdit,
        file_path=texts,
        edits=st.lists(st.builds(EditSpec, old_string=texts, new_string=texts), max_size=2).map(
            tuple
        ),
    ),
    st.builds(Command, command=names.map(lambda n: "/" + n), args=st.none() | texts),
    st.builds(Raw, tool_name=names, input=json_values),
)
prose = st.one_of(
    st.builds(Text, nonblank),
    st.builds(Thinking, nonblank, signature=st.none() | nonblank),
)


@st.composite
def representable(draw: st.DrawFn) -> Transcript:
    """A Common transcript Cursor desktop represents exactly (see the codec's folding rules)."""
    messages: list[Message] = []
    open_call = False  # the last message is an assistant message ending in a call without result
    for n in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            messages.append(Message("user", (Text(draw(nonblank)),), draw(times)))
            open_call = False
            continue
        if messages and messages[-1].role == "assistant" and not open_call:
            messages.append(Message("user", (Text(draw(nonblank)),), draw(times)))
        blocks: list[Any] = draw(st.lists(prose, max_size=3))
        call = draw(st.none() | tools)
        if call is not None:
            blocks.append(ToolUse(f"{draw(names)}-{n}", call))
        if not blocks:
            blocks.append(Text(draw(nonblank)))
        result = None
        if call is not None and draw(st.booleans()):
            content = draw(text_results | json_results)
            result = Message(
                "user",
                (ToolResult(blocks[-1].id, content, is_error=draw(st.booleans())),),
                draw(times),
            )
        stamp = result.timestamp if result is not None and len(blocks) == 1 else draw(times)
        messages.append(
            Message("assistant", tuple(blocks), stamp, model=draw(models), usage=draw(usages))
        )
        if result is not None:
            messages.append(result)
        open_call = call is not None and result is None
    # A session without a model reads back the first model its bubbles name, so only a session
    # with a model may have messages that name one.
    model = draw(models)
    if model is None:
        messages = [msgspec.structs.replace(m, model=None) for m in messages]
    meta = Meta(
        id=draw(st.text(min_size=1, max_size=12)),
        timestamp=draw(times),
        cwd=draw(st.none() | nonblank),
        title=draw(nonblank.map(str.strip)),
        model=model,
    )
    # Writers close calls left open mid-session (txcript.pairing); the fixpoint is over closed ones.
    return answer_open_calls(Transcript(meta=meta, messages=tuple(messages)))
