"""Text shown to people: one-line messages and values that cannot forge terminal output."""

from __future__ import annotations


def scrub(text: str) -> str:
    """Replace each control character with one space (keeps widths; no escapes, no new lines)."""
    return "".join(" " if ord(ch) < 32 or 127 <= ord(ch) < 160 else ch for ch in text)


def shown(value: str) -> str:
    """An id or key as it appears in an error: control and non-ASCII characters escaped."""
    return value.encode("unicode_escape").decode("ascii")
