"""Common → Cursor desktop native body (pure and deterministic: no clock, no randomness).

What the app's loader insists on is synthesised: the full ``composerData`` document (the packaged
default-state template, with its id, name, times, ``fullConversationHeadersOnly`` and
``modelConfig`` replaced), the bubble skeleton on every bubble, a ProseMirror ``richText`` and the
empty ``context`` on user bubbles, and a ``grouping`` per header entry (``isRenderable`` above
all). Every synthesised document is compact JSON with sorted keys.

* Session id: ``meta.id``, else ``uuid5(NS, "session:<created ms>:<title or ''>")``. Name: the
  title when non-blank (untrimmed), else the first non-blank user text, trimmed, first 120 code
  points (the Agents sidebar hides unnamed sessions), else ``"Imported session"``.
* One bubble per user message (its Text blocks joined by a blank line, written when the join is
  not empty) and one per assistant block; bubble ids are ``uuid5(NS, "<cid>:<i>:<j>")``.
* A result is written onto its call's bubble (``status`` ``completed``/``error``, ``result`` the
  text verbatim or the JSON compact), whose ``createdAt`` becomes the result's time. Results for
  unknown calls, images, artifacts, encrypted thinking and user-side tool calls are dropped.
* Bash becomes ``run_terminal_command_v2`` (15), Read ``read_file_v2`` (40); other tools keep
  their canonical name, with the app's number when the name has one.
* The head's ``workspaceIdentifier.uri`` is the VS Code form of ``cwd``: ``external`` is
  percent-encoded (``/a b`` → ``file:///a%20b``, ``C:\\x`` → ``file:///c%3A/x``) and ``path`` is
  the URI path (``/C:/x``); ``fsPath`` is ``cwd`` itself. (The reference implementation wrote
  ``"file://" + cwd`` unencoded, which VS Code cannot parse for such paths.)
"""

from __future__ import annotations

import functools
import hashlib
from datetime import datetime
from typing import Any

import msgspec

from txcript.harnesses.cursor_desktop import tools
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
from txcript.harnesses.cursor_desktop.vocabulary import NAMESPACE, composer_template, vocabulary
from txcript.model import Message, Text, Thinking, ToolResult, ToolUse, Transcript
from txcript.pairing import NO_RESULT, answer_open_calls
from txcript.shared.fileuri import vscode_uri
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import uuid5
from txcript.shared.jsonutil import dumps_compact
from txcript.shared.timeutil import format_millis, to_epoch_ms

_NAME_LIMIT = 120
_PREVIEW_LIMIT = 120
_SHORT_TEXT_BYTES = 100
UNTITLED = "Imported session"


def session_name(transcript: Transcript) -> str:
    """The composer name: the title, else the first user text (trimmed, 120 code points)."""
    title = transcript.meta.title
    if title is not None and title.strip():
        return title
    for message in transcript.messages:
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, Text) and block.text.strip():
                return block.text.strip()[:_NAME_LIMIT]
    return UNTITLED


@functools.cache
def _skeleton_template() -> dict[str, Any]:
    words = vocabulary()
    bubble: dict[str, Any] = {key: [] for key in words["bubble_empty_lists"]}
    bubble.update(dict.fromkeys(words["bubble_false_flags"], False))
    bubble.update(words["bubble_constants"])
    return bubble


def _skeleton() -> dict[str, Any]:
    """A fresh bubble dict; its empty lists are shared between bubbles and never mutated (a
    bubble is only encoded)."""
    return dict(_skeleton_template())


@functools.cache
def _user_context() -> dict[str, Any]:
    """The empty ``context`` of a user bubble: one shared value, never mutated."""
    words = vocabulary()
    mentions: dict[str, Any] = {key: {} for key in words["user_mention_objects"]}
    mentions.update({key: [] for key in words["user_mention_lists"]})
    context: dict[str, Any] = {key: [] for key in words["user_context_lists"]}
    context["mentions"] = mentions
    return context


_sorted_encoder = msgspec.json.Encoder(order="sorted")


def _compact(document: dict[str, Any]) -> str:
    """``dumps_compact(document)``, written by msgspec (several times faster on 24 MB of bubbles).

    The bytes are the same: msgspec escapes strings exactly as the json module does with
    ``ensure_ascii=False`` (checked over every code point) and sorts keys by code point, and these
    documents hold only strings, integers, booleans, null, lists and objects built here (tool
    params and results arrive as strings already), never a float, where the two differ
    (``1e+16`` / ``1e16``). A lone surrogate, which msgspec refuses, takes the json path.
    """
    try:
        return _sorted_encoder.encode(document).decode()
    except (UnicodeEncodeError, OverflowError, TypeError):
        return dumps_compact(document)


def _rich_text(text: str) -> str:
    paragraph = {"content": [{"text": text, "type": "text"}], "type": "paragraph"}
    return _compact({"content": [paragraph], "type": "doc"})


def bubble_id(cid: str, i: int, j: int) -> str:
    """``uuid5(NAMESPACE, f"{cid}:{i}:{j}")``, without building a ``uuid.UUID`` per bubble."""
    digest = bytearray(hashlib.sha1(_NAMESPACE_BYTES + f"{cid}:{i}:{j}".encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


_NAMESPACE_BYTES = NAMESPACE.bytes


class _Writer:
    def __init__(self, cid: str) -> None:
        self.cid = cid
        self.bubbles: list[dict[str, Any]] = []
        #: call id → index of its bubble in ``self.bubbles`` (a later call with the id wins).
        self.calls: dict[str, int] = {}
        #: ``format_millis`` by timestamp: every block of a message shares the message's.
        self.times: dict[datetime, str] = {}

    def created(self, message: Message) -> str:
        known = self.times.get(message.timestamp)
        if known is None:
            known = self.times[message.timestamp] = format_millis(message.timestamp)
        return known

    def bubble(self, kind: int, i: int, j: int, message: Message) -> dict[str, Any]:
        bubble = _skeleton()
        bubble["type"] = kind
        bubble["bubbleId"] = bubble_id(self.cid, i, j)
        bubble["createdAt"] = self.created(message)
        bubble["tokenCount"] = {"inputTokens": 0, "outputTokens": 0}
        return bubble

    def user(self, i: int, message: Message) -> None:
        texts = []
        for block in message.content:
            if isinstance(block, Text):
                texts.append(block.text)
            elif isinstance(block, ToolResult) and block.tool_use_id in self.calls:
                self.attach(self.bubbles[self.calls[block.tool_use_id]], block, message)
        joined = "\n\n".join(texts)
        if joined:
            bubble = self.bubble(1, i, 0, message)
            bubble["text"] = joined
            bubble["richText"] = _rich_text(joined)
            bubble["context"] = _user_context()
            bubble["modelInfo"] = {"modelName": "default"}
            self.bubbles.append(bubble)

    def assistant(self, i: int, message: Message) -> None:
        for j, block in enumerate(message.content):
            bubble = self.bubble(2, i, j, message)
            if isinstance(block, Text):
                bubble["text"] = block.text
            elif isinstance(block, Thinking):
                bubble["capabilityType"] = 30
                bubble["thinkingDurationMs"] = 0
                bubble["thinking"] = {"signature": block.signature or "", "text": block.text}
            elif isinstance(block, ToolUse):
                name, params, number = tools.write_call(block.tool)
                tool_former: dict[str, Any] = {
                    "name": name,
                    "toolCallId": block.id,
                    "params": params,
                    "rawArgs": "",
                    "status": "started",
                    "result": "",
                }
                if number is not None:
                    tool_former["tool"] = number
                bubble["capabilityType"] = 15
                bubble["toolFormerData"] = tool_former
                self.close_reused(block.id)
                self.calls[block.id] = len(self.bubbles)
            else:
                continue
            if message.model is not None:
                bubble["modelInfo"] = {"modelName": message.model}
            if message.usage is not None:
                bubble["tokenCount"] = {
                    "inputTokens": message.usage.input_tokens,
                    "outputTokens": message.usage.output_tokens,
                }
            self.bubbles.append(bubble)

    def close_reused(self, call_id: str) -> None:
        """A call id used again: results attach to the later call, so close the earlier one
        (still ``started``, it would read back as a call without result mid-session)."""
        earlier = self.calls.get(call_id)
        if earlier is not None:
            tool_former = self.bubbles[earlier]["toolFormerData"]
            if tool_former["status"] == "started":
                tool_former["status"] = "error"
                tool_former["result"] = NO_RESULT

    def attach(self, bubble: dict[str, Any], result: ToolResult, message: Message) -> None:
        tool_former = bubble["toolFormerData"]
        tool_former["result"] = tools.write_result(result.content)
        tool_former["status"] = "error" if result.is_error else "completed"
        bubble["createdAt"] = self.created(message)


def _grouping(bubble: dict[str, Any]) -> dict[str, Any]:
    grouping: dict[str, Any] = {"isRenderable": True, "toolDisplayComputed": True}
    tool_former = bubble.get("toolFormerData")
    if isinstance(tool_former, dict):
        grouping.update(
            capabilityType=15,
            isToolGroupable=True,
            toolFormerStatus=tool_former["status"],
            toolCallId=tool_former["toolCallId"],
        )
        if "tool" in tool_former:
            grouping["toolFormerTool"] = tool_former["tool"]
    elif "thinking" in bubble:
        grouping.update(
            capabilityType=30, hasThinking=True, thinkingDurationMs=bubble["thinkingDurationMs"]
        )
    else:
        text: str = bubble["text"]
        grouping.update(hasText=True, textPreview=text[:_PREVIEW_LIMIT])
        if bubble["type"] == 1:
            size = len(text.encode("utf-8", errors="surrogatepass"))
            grouping["isShortPlainText"] = size < _SHORT_TEXT_BYTES
        else:
            grouping["isKeptFinalAiVisibleOutsideWorkedForGroup"] = True
    return grouping


def _head(cid: str, name: str, created: int, cwd: str | None) -> dict[str, Any]:
    head: dict[str, Any] = {
        "type": "head",
        "composerId": cid,
        "name": name,
        "createdAt": created,
        "lastUpdatedAt": created,
        "unifiedMode": "agent",
        "forceMode": "edit",
        "isDraft": False,
        "isArchived": False,
    }
    if cwd is not None:
        head["workspaceIdentifier"] = {"id": "", "uri": vscode_uri(cwd)}
        head["trackedGitRepos"] = [{"branches": [], "repoPath": cwd}]
    return head


@without_gc  # tens of thousands of small acyclic dicts: no cycle scans while they are built
def from_common(transcript: Transcript) -> CursorSession:
    """Write a Common transcript as a native Cursor session. Never fails; deterministic."""
    # Every block is a bubble: a call followed by any later bubble needs its result.
    transcript = answer_open_calls(transcript, blockwise=True)
    meta = transcript.meta
    created = to_epoch_ms(meta.timestamp)
    cid = meta.id or uuid5(NAMESPACE, f"session:{created}:{meta.title or ''}")
    name = session_name(transcript)
    writer = _Writer(cid)
    for i, message in enumerate(transcript.messages):
        if message.role == "user":
            writer.user(i, message)
        else:
            writer.assistant(i, message)
    headers = [
        {
            "bubbleId": bubble["bubbleId"],
            "createdAt": bubble["createdAt"],
            "grouping": _grouping(bubble),
            "type": bubble["type"],
        }
        for bubble in writer.bubbles
    ]
    model_name = meta.model if meta.model is not None else "default"
    composer = composer_template()
    composer.update(
        composerId=cid,
        name=name,
        createdAt=created,
        lastUpdatedAt=created,
        fullConversationHeadersOnly=headers,
        modelConfig={
            "maxMode": False,
            "modelName": model_name,
            "selectedModels": [{"modelId": model_name, "parameters": []}],
        },
    )
    return CursorSession(
        header=dumps_compact(_head(cid, name, created, meta.cwd)),
        bubbles=tuple(
            KVRow(f"bubbleId:{cid}:{bubble['bubbleId']}", _compact(bubble))
            for bubble in writer.bubbles
        ),
        created_at=created,
        last_updated_at=created,
        recency=created,
        composer_data=_compact(composer),
    )
