"""JSON Lines kept byte for byte, and the one warning a reader gives for what it left out.

Several harnesses keep a session as JSON Lines whose records the reader does not all understand
(Qwen Code's chats, Kimi's ``wire.jsonl`` and ``context.jsonl``, Copilot CLI's ``events.jsonl``).
Their native bodies keep every line as written — its exact text and its parsed value — so a
same-harness load and save is byte-lossless, unknown records, non-JSON lines, CRLF and a missing
final newline included. :class:`Tally` collects what a reader skipped and says it once, with the
counts, instead of one warning per line.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from txcript.diagnostics import warn
from txcript.shared.jsonutil import INVALID, try_loads
from txcript.shared.text import shown


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a JSON Lines file: its exact text (no newline) and its parsed value
    (:data:`~txcript.shared.jsonutil.INVALID` when it is not JSON)."""

    text: str
    value: Any


def parse_lines(text: str) -> tuple[tuple[Line, ...], bool]:
    """Every line of ``text`` with its parsed value, and whether the text ends with a newline.

    A blank line is kept (as INVALID), so the text renders back exactly."""
    trailing = text.endswith("\n")
    body = text[:-1] if trailing else text
    if not body and trailing:
        return (Line("", INVALID),), True
    if not body:
        return (), False
    out = []
    for raw in body.split("\n"):
        stripped = raw.strip()
        out.append(Line(raw, try_loads(raw) if stripped else INVALID))
    return tuple(out), trailing


def render_lines(lines: Iterable[Line], trailing_newline: bool) -> str:
    """The exact text :func:`parse_lines` read (or the text of synthesised lines)."""
    text = "\n".join(line.text for line in lines)
    return text + "\n" if trailing_newline else text


def values(lines: Iterable[Line]) -> Iterator[Any]:
    """The parsed values of the lines that are JSON objects, in order."""
    for line in lines:
        if isinstance(line.value, dict):
            yield line.value


class Tally:
    """What a reader left out of Common, by kind, said in ONE warning (:meth:`report`).

    ``label`` names the file or session; each :meth:`add` counts one record of a kind (``"not
    JSON"``, ``"unknown type `x`"``…). Kinds are shown escaped and cut, so a hostile file cannot
    put terminal escapes into the warning.
    """

    __slots__ = ("counts", "label")

    def __init__(self, label: str) -> None:
        self.label = label
        self.counts: dict[str, int] = {}

    def add(self, kind: str, count: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + count

    def __bool__(self) -> bool:
        return bool(self.counts)

    def report(self, what: str = "records") -> None:
        """Give the one warning (nothing when nothing was left out)."""
        if not self.counts:
            return
        total = sum(self.counts.values())
        kinds = sorted(self.counts.items(), key=lambda item: (-item[1], item[0]))
        shown_kinds = ", ".join(f"{count} {shown(kind[:60])}" for kind, count in kinds[:8])
        more = f", and {len(kinds) - 8} more kinds" if len(kinds) > 8 else ""
        warn(
            f"{self.label}: {total} {what} left out of the conversation "
            f"({shown_kinds}{more}); the session file keeps them"
        )
