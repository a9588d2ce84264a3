"""Qwen Code's text form: the chat file itself (JSON Lines), parsed and rendered without I/O."""

from __future__ import annotations

from typing import Any

from .native import QwenSession, parse, render
from .native import sniff_lines as _sniff_lines


def from_text(text: str) -> QwenSession:
    return parse(text)


def to_text(native: QwenSession) -> str:
    return render(native)


def sniff_lines(values: list[Any]) -> bool:
    return _sniff_lines(values)
