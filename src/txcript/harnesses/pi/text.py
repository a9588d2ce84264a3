"""The pi text form: the session file itself, parsed and rendered byte for byte by :mod:`.native`
(Campfire's and OpenClaw's are the same)."""

from __future__ import annotations

from .native import PiSession, parse, render, sniff_lines


def from_text(text: str) -> PiSession:
    return parse(text)


def to_text(native: PiSession) -> str:
    return render(native)


__all__ = ["from_text", "sniff_lines", "to_text"]
