"""Cowork task ↔ Common: the transcript through the shared Claude Code codec, the record on top.

**Reading.** The conversation, usage, per-turn models, git branch and CLI version are the Claude
Code transcript's (:mod:`txcript.shared.formats.claude_jsonl.reader`). The record gives the
task's id (its ``local_…`` name), title, cwd and session model, and its start: ``createdAt``
(epoch ms), which comes before the transcript's first line. A field the record lacks falls back
to the transcript's. A task with no transcript yet is its record alone, with no messages.

**Writing** gives a foreign id the ``local_`` prefix (:data:`txcript.shared.ids.COWORK_IDS`),
writes the transcript with the Claude Code writer under ``cliSessionId`` = UUIDv5 of the task
id, and a record with every field Claude desktop's validator requires: ``processName``
``txcript-<8 hex>``, ``hostLoopMode: true``, ``initialMessage`` the first prompt,
``lastActivityAt`` the last message's time. Nothing reads the clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from txcript.harnesses.cowork.native import CoworkTask
from txcript.model import Meta, Text, Transcript
from txcript.shared.formats.claude_jsonl import reader as claude_reader
from txcript.shared.formats.claude_jsonl import writer as claude_writer
from txcript.shared.ids import COWORK_IDS, namespace_from_ascii, uuid5
from txcript.shared.jsonutil import dumps_pretty
from txcript.shared.timeutil import EPOCH, from_epoch_ms, to_epoch_ms

#: The UUIDv5 namespace of every id this codec mints (16 ASCII bytes).
NAMESPACE = namespace_from_ascii(b"txcript-cowork!!")
#: The largest epoch-ms time read from a record (9999-12-31).
_MAX_MS = 253_402_300_799_999


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def record_time(value: Any) -> datetime | None:
    """A record's epoch-ms time; None when it is not a time."""
    if type(value) is float and value == value:  # (not NaN)
        value = int(value)
    if type(value) is not int or not 0 <= value <= _MAX_MS:
        return None
    return from_epoch_ms(value)


def record_meta(task_id: str, record: dict[str, Any] | None, transcript: Meta | None) -> Meta:
    """The task's Meta: the record's fields, else the transcript's (``transcript`` is the Claude
    Code codec's Meta of the transcript, or None when there is none)."""
    record = record or {}
    claude = transcript or Meta(id="", timestamp=EPOCH)
    started = record_time(record.get("createdAt"))
    return Meta(
        id=task_id or _text(record.get("sessionId")) or claude.id,
        timestamp=started or claude.timestamp,
        cwd=_text(record.get("cwd")) or claude.cwd,
        git_branch=claude.git_branch,
        title=_text(record.get("title")) or claude.title,
        cli_version=claude.cli_version,
        model=_text(record.get("model")) or claude.model,
    )


def meta_of(task: CoworkTask) -> Meta:
    transcript = None
    if task.transcript is not None:
        transcript = claude_reader.scan(task.transcript)[0].meta()
    return record_meta(task.task_id, task.value, transcript)


def to_common(task: CoworkTask) -> Transcript:
    if task.transcript is None:
        return Transcript(meta=record_meta(task.task_id, task.value, None))
    conversation = claude_reader.to_common(task.transcript)
    meta = record_meta(task.task_id, task.value, conversation.meta)
    return Transcript(meta=meta, messages=conversation.messages)


def cli_session_id(task_id: str) -> str:
    """The ``cliSessionId`` of a task txcript writes: UUIDv5 of its id."""
    return uuid5(NAMESPACE, task_id)


def record_bytes(record: dict[str, Any]) -> bytes:
    return (dumps_pretty(record) + "\n").encode("utf-8", "surrogatepass")


def _first_prompt(transcript: Transcript) -> str | None:
    """The text of the first user message that has some (the task's opening request)."""
    for message in transcript.messages:
        if message.role != "user":
            continue
        for block in message.content:
            if isinstance(block, Text) and block.text.strip():
                return block.text
    return None


def from_common(transcript: Transcript) -> CoworkTask:
    meta = transcript.meta
    task_id = COWORK_IDS.adopt(meta.id)
    cli_id = cli_session_id(task_id)
    session = claude_writer.from_common(
        msgspec.structs.replace(transcript, meta=msgspec.structs.replace(meta, id=cli_id))
    )
    last = transcript.messages[-1].timestamp if transcript.messages else meta.timestamp
    record: dict[str, Any] = {
        "sessionId": task_id,
        "processName": "txcript-" + cli_id.replace("-", "")[:8],
        "cliSessionId": cli_id,
        "cwd": meta.cwd or "",
        "createdAt": to_epoch_ms(meta.timestamp),
        "lastActivityAt": to_epoch_ms(max(last, meta.timestamp)),
    }
    if meta.title:
        record["title"] = meta.title
    if meta.model:
        record["model"] = meta.model
    record["isArchived"] = False
    record["hostLoopMode"] = True
    prompt = _first_prompt(transcript)
    if prompt is not None:
        record["initialMessage"] = prompt
    return CoworkTask(
        task_id=task_id,
        record=record_bytes(record),
        value=record,
        transcript=session,
    )
