"""Text shown to people: the one terminal sanitizer every human output goes through.

Session text (titles, messages, tool results, paths, ids) is untrusted. Printed raw to a terminal
it could clear the screen, set the window title, write the clipboard (OSC 52), plant links
(OSC 8), ring the bell or overwrite a line with a bare CR. :func:`scrub` (one line: lists, error
messages, hints) and :func:`scrub_block` (many lines: ``view`` on a terminal) remove every
complete escape sequence (CSI, OSC, DCS, SOS, PM, APC, two-byte ESC sequences, and their C1
forms) and replace every other control character with one space. Tabs and newlines survive only
in blocks. Printable text is never changed. Machine formats (``--json``, ``export``) do not come
here: they keep the text exactly.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

# ECMA-48 sequences, 7-bit (ESC-introduced) and 8-bit (C1) forms. A string sequence (OSC, DCS,
# SOS, PM, APC) ends at ST (ESC \ or U+009C) or, for OSC as xterm allows, at BEL. One that never
# ends loses only its introducer: its payload stays as visible, harmless text.
_STRING_END = r"(?:\x1b\\|\x9c|\x07)"
_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"  # cursor moves, erases, colours
# The body stops at any introducer too, so text full of unterminated ones is still scanned in
# linear time (each scan ends where the next could begin).
_STRING = (
    r"(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9b\x9c\x9d\x90\x98\x9e\x9f]*" + _STRING_END
)
_ESCAPE = r"\x1b[\x20-\x2f]*[\x30-\x7e]"  # two-byte and nF escapes (ESC c resets the terminal)
# What is left after sequences are gone: C0 (but tab/newline in blocks), DEL, C1, and the
# bidirectional overrides that make text display in a different order than it reads.
_LINE_CONTROLS = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
_BLOCK_CONTROLS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


# Compiled on first use: together about 2 ms at start-up, which machine output (``--json``) and
# a command that prints nothing untrusted never need.
@functools.cache
def _sequence() -> re.Pattern[str]:
    return re.compile(f"{_CSI}|{_STRING}|{_ESCAPE}", re.DOTALL)


@functools.cache
def _controls(block: bool) -> re.Pattern[str]:
    return re.compile(_BLOCK_CONTROLS if block else _LINE_CONTROLS)


def scrub(text: str, *, keep_offsets: bool = False) -> str:
    """One line safe for a terminal: sequences removed, each other control char one space.

    With ``keep_offsets`` a removed sequence leaves one space per character instead, so
    character offsets into ``text`` (search highlights) still point at the same characters.
    """
    if keep_offsets:
        return _controls(False).sub(" ", _sequence().sub(lambda m: " " * len(m.group()), text))
    return _controls(False).sub(" ", _sequence().sub("", text))


def scrub_block(text: str) -> str:
    """Many lines safe for a terminal: as :func:`scrub`, keeping tabs and newlines.

    A bare CR (which would let a line overwrite the one before it) becomes a newline; CRLF
    becomes LF.
    """
    text = _sequence().sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return _controls(True).sub(" ", text)


def shown(value: str) -> str:
    """An id or key as it appears in an error: control and non-ASCII characters escaped."""
    return value.encode("unicode_escape").decode("ascii")


def excerpt(text: str, spans: Sequence[tuple[int, int]], width: int) -> str:
    """At most ``width`` characters of ``text`` (a search hit's line), around the first of
    ``spans`` (its highlights, character offsets): from the line's start when that match fits,
    else from a quarter of ``width`` before it; ``…`` marks each end that was cut."""
    if len(text) <= width:
        return text
    start = 0
    if spans and spans[0][1] > width - 1:
        start = min(max(0, spans[0][0] - width // 4), len(text) - (width - 1))
    lead = "…" if start > 0 else ""
    room = width - len(lead)
    if start + room >= len(text):
        return lead + text[start:]
    return lead + text[start : start + room - 1] + "…"
