"""Copilot CLI's text form: a bundle document holding the session's files and rows, no I/O."""

from __future__ import annotations

from typing import Any

from txcript.errors import Malformed
from txcript.shared.jsonutil import dumps_pretty, loads_strict

from .native import HARNESS, CopilotSession, from_bundle, to_bundle
from .native import sniff as _sniff


def from_text(text: str) -> CopilotSession:
    try:
        document = loads_strict(text)
    except ValueError as exc:
        raise Malformed(HARNESS, f"not a Copilot CLI session bundle: {exc}") from None
    return from_bundle(document)


def to_text(native: CopilotSession) -> str:
    return dumps_pretty(to_bundle(native)) + "\n"


def sniff(document: Any) -> bool:
    return _sniff(document)
