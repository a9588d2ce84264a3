"""A task's text form: one JSON document bundling its files and its index entry.

``{"cline_task": {"harness", "id", "origin", "entry", "entry_origin", "files": {name: text}}}``
— each file's text exactly as stored (bytes that are not UTF-8 kept as surrogate escapes), so
``from_text(to_text(task)) == task``. ``harness`` says which extension wrote it, so ``convert``
and ``export PATH`` tell a Roo task from a Cline one.
"""

from __future__ import annotations

import json
from typing import Any

from txcript.errors import Malformed
from txcript.shared.files import decode_lossless

from .native import SESSION, TASK, ClineTask

KEY = "cline_task"


def _document(native: ClineTask, harness: str) -> dict[str, Any]:
    return {
        KEY: {
            "harness": harness,
            "id": native.id,
            "origin": native.origin,
            "entry": native.entry,
            "entry_origin": native.entry_origin,
            "files": {name: decode_lossless(data) for name, data in native.files},
        }
    }


def render(native: ClineTask, harness: str) -> str:
    return json.dumps(_document(native, harness), indent=2, ensure_ascii=False) + "\n"


def to_text(native: ClineTask) -> str:
    return render(native, "cline")


def roo_to_text(native: ClineTask) -> str:
    return render(native, "roo")


def kilo_to_text(native: ClineTask) -> str:
    return render(native, "kilo")


def is_bundle(text: str) -> bool:
    return text.lstrip().startswith("{") and f'"{KEY}"' in text[:200]


def from_text(text: str) -> ClineTask:
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise Malformed("cline", f"the task document is not JSON: {exc}") from None
    body = document.get(KEY) if isinstance(document, dict) else None
    if not isinstance(body, dict):
        raise Malformed("cline", f"a task document is an object with a `{KEY}` object")
    task_id, files = body.get("id"), body.get("files")
    if not isinstance(task_id, str) or not task_id:
        raise Malformed("cline", "the task document has no `id`")
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise Malformed("cline", "the task's `files` are not an object of file texts")
    entry, origin, entry_origin = body.get("entry"), body.get("origin"), body.get("entry_origin")
    if entry is not None and not isinstance(entry, dict):
        raise Malformed("cline", "the task's `entry` is not an object")
    if origin not in (TASK, SESSION) or entry_origin not in (None, "file", "state"):
        raise Malformed("cline", "the task's `origin` or `entry_origin` is not one txcript knows")
    return ClineTask(
        task_id,
        tuple(
            sorted((name, data.encode("utf-8", "surrogateescape")) for name, data in files.items())
        ),
        entry,
        origin,
        entry_origin,
    )


def sniff_flavour(document: Any, harness: str) -> bool:
    body = document.get(KEY) if isinstance(document, dict) else None
    return isinstance(body, dict) and body.get("harness") == harness


def sniff(document: Any) -> bool:
    return sniff_flavour(document, "cline")


def roo_sniff(document: Any) -> bool:
    return sniff_flavour(document, "roo")
