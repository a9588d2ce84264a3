"""A pi session's metadata, read in file order from as few lines as the rules allow.

Discovery and a full load both feed the same :class:`MetaScan`, so what a listing shows is what
loading the session gives, by construction.

* ``id``, ``cwd``: the first header's (the file name's id when the header names none);
* ``timestamp``: the header's, else the first entry's, else the Unix epoch;
* ``model``: a v1 header's ``modelId``, else the first ``model_change`` or assistant message (in
  file order) that names one;
* ``title``: the last ``session_info`` name (an empty one clears it), else the first line of the
  first user prompt in the file (what pi's session list shows).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import msgspec

from txcript.model import Meta, Text, prompt_title
from txcript.shared.timeutil import EPOCH, parse_rfc3339

from .native import is_header

#: The byte pattern of a line that may be a ``session_info`` entry (matched before any parse).
SESSION_INFO_LINE = re.compile(rb'"type"\s*:\s*"session_info"')


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def prompt_of(content: Any) -> str | None:
    """The title a user message's content gives (its first non-empty line)."""
    if isinstance(content, str):
        return prompt_title((Text(content),))
    if isinstance(content, list):
        texts = [
            Text(block["text"])
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
        return prompt_title(texts)
    return None


class MetaScan:
    """Feed the parsed lines of a session in file order; :meth:`meta` is its metadata."""

    def __init__(self, fallback_id: str | None = None) -> None:
        self.fallback_id = fallback_id
        self.header: dict[str, Any] | None = None
        self.first_time: datetime | None = None
        self.model: str | None = None
        self.model_known = False
        self.prompt: str | None = None
        self.prompt_known = False
        self.title: str | None = None

    @property
    def needs_head(self) -> bool:
        """Do more lines need to be parsed for anything but titles?"""
        if self.header is None or not self.model_known or not self.prompt_known:
            return True
        return parse_rfc3339(self.header.get("timestamp")) is None and self.first_time is None

    def feed(self, value: Any) -> None:
        if not isinstance(value, dict):
            return
        kind = value.get("type")
        if kind == "session":
            if self.header is None and is_header(value):
                self.header = value
                model = _text(value.get("modelId"))
                if model is not None:
                    self.model, self.model_known = model, True
            return
        if self.header is None:
            return
        if kind == "session_info":
            name = value.get("name")
            self.title = name.strip() or None if isinstance(name, str) else None
        if self.first_time is None:
            self.first_time = parse_rfc3339(value.get("timestamp"))
        if kind == "model_change" and not self.model_known:
            model = _text(value.get("modelId"))
            if model is not None:
                self.model, self.model_known = model, True
        if kind != "message":
            return
        message = value.get("message")
        if not isinstance(message, dict):
            return
        role = message.get("role")
        if role == "assistant" and not self.model_known:
            model = _text(message.get("model"))
            if model is not None:
                self.model, self.model_known = model, True
        elif role == "user" and not self.prompt_known:
            self.prompt = prompt_of(message.get("content"))
            self.prompt_known = self.prompt is not None

    def meta(self) -> Meta:
        header = self.header or {}
        session_id = _text(header.get("id")) or self.fallback_id or ""
        started = parse_rfc3339(header.get("timestamp")) or self.first_time or EPOCH
        cwd = _text(header.get("cwd"))
        return Meta(
            id=session_id,
            timestamp=started,
            cwd=cwd,
            title=self.title or self.prompt,
            model=self.model,
        )


def with_index(meta: Meta, entry: dict[str, Any] | None) -> Meta:
    """A session's Meta with what an OpenClaw index entry adds: its ``label``, else its
    ``displayName``, as the title; its ``modelOverride`` as the model when no line names one."""
    if entry is None:
        return meta
    names = (entry.get("label"), entry.get("displayName"))
    title = next((v.strip() for v in names if isinstance(v, str) and v.strip()), None)
    override = entry.get("modelOverride")
    model = meta.model or (override if isinstance(override, str) and override else None)
    return msgspec.structs.replace(meta, title=title or meta.title, model=model)
