"""The pi text form: the session file itself, parsed and rendered byte for byte by :mod:`.native`
(Campfire's and OpenClaw's are the same)."""

from __future__ import annotations

from typing import Any

from .native import PiSession, is_header, parse, render, sniff_lines


def from_text(text: str) -> PiSession:
    return parse(text)


def to_text(native: PiSession) -> str:
    return render(native)


def sniff(document: Any) -> bool:
    """A one-line pi session (a header and nothing else) parsed as one JSON document."""
    return is_header(document)


__all__ = ["from_text", "sniff", "sniff_lines", "to_text"]
