"""Cursor desktop vocabulary: the package data files the codec reads, loaded once.

* ``vocabulary.json`` — tool names ↔ numbers, the older tool names the reader may type, the
  statuses that close a call, and the key lists of the bubble skeleton and the empty user
  ``context`` the writer synthesises;
* ``composer_data_template.json`` — the default-state ``composerData`` document of a fresh Cursor
  3.16 composer (the app refuses sparser documents), which the writer starts from.

:data:`NAMESPACE` is the UUIDv5 namespace of every deterministic id this harness mints (bubble
ids, missing call ids, session ids, sidebar project ids).
"""

from __future__ import annotations

import json
import uuid
from functools import cache
from importlib import resources
from typing import Any

#: ``6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742``, the namespace of every id this harness mints.
NAMESPACE = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")


def _load(name: str) -> Any:
    package = resources.files("txcript.harnesses.cursor_desktop")
    return json.loads(package.joinpath(name).read_text(encoding="utf-8"))


@cache
def vocabulary() -> dict[str, Any]:
    """The parsed ``vocabulary.json`` (shared; do not mutate)."""
    data: dict[str, Any] = _load("vocabulary.json")
    return data


def composer_template() -> dict[str, Any]:
    """A fresh deep copy of the ``composerData`` template, safe to modify."""
    template: dict[str, Any] = json.loads(_template_text())
    return template


@cache
def _template_text() -> str:
    return json.dumps(_load("composer_data_template.json"))


def tool_number(native_name: str) -> int | None:
    """The ``toolFormerData.tool`` number the app uses for ``native_name``, if known."""
    number = vocabulary()["tool_numbers"].get(native_name)
    return number if isinstance(number, int) else None
