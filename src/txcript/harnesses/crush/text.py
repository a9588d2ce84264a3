"""The Crush text form: one session's rows as a JSON document (no I/O).

``{"project": <project dir or null>, "session": {<column>: <value>}, "messages": [{<column>:
<value>}, …]}``: every column of the ``sessions`` row and of each ``messages`` row, with
``parts`` as the exact JSON text Crush stored, so the document carries everything a store round
trip needs.
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import loads_strict

from .native import HARNESS, CrushMessage, CrushSession

_CELL = (str, int, float, type(None))


def _row(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(
        isinstance(cell, _CELL) and not isinstance(cell, bool) for cell in value.values()
    ):
        raise Malformed(HARNESS, f"{what} is not an object of column values")
    return value


def sniff(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and set(document) == {"project", "session", "messages"}
        and isinstance(document["session"], dict)
        and "title" in document["session"]
        and isinstance(document["messages"], list)
        and all(isinstance(m, dict) and "parts" in m for m in document["messages"])
    )


def from_text(text: str) -> CrushSession:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"not valid JSON: {exc}") from None
    if not sniff(document):
        raise Malformed(HARNESS, "expected {project, session, messages} (a Crush session)")
    project = document["project"]
    if project is not None and not isinstance(project, str):
        raise Malformed(HARNESS, "`project` is not a string")
    session = _row(document["session"], "`session`")
    messages = tuple(
        CrushMessage(_row(row, f"message {i}")) for i, row in enumerate(document["messages"])
    )
    return CrushSession(session=session, messages=messages, project=project)


def to_text(native: CrushSession) -> str:
    document = {
        "project": native.project,
        "session": native.session,
        "messages": [message.row for message in native.messages],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
