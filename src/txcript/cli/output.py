"""Terminal output shared by every command: colour, display widths, ages, progress, writing.

Colour comes from ``click.style``, display widths and the progress spinner from rich; nothing
here writes escape codes by hand. Text taken from sessions is passed through
:func:`txcript.shared.text.scrub` before it reaches a terminal, and is never read as markup.
Machine formats (``--json``, ``export``) are written exactly.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click

#: ``--color``: ``auto`` colours a terminal unless ``NO_COLOR`` is set (or ``FORCE_COLOR`` is).
COLOUR_CHOICES = ("auto", "always", "never")

HARNESS_STYLES = {
    "claude_code": "yellow",
    "codex": "cyan",
    "opencode": "green",
    "pi": "magenta",
    "cursor": "blue",
    "cursor_desktop": "bright_cyan",
    "grok": "white",
    "gemini": "bright_blue",
    "simple": "bright_green",
}
DIM = "dim"
BOLD = "bold"

colour_option = click.option(
    "--color",
    "colour",
    type=click.Choice(COLOUR_CHOICES),
    metavar="auto|always|never",
    default="auto",
    show_default=True,
    help="Colour the output: auto colours a terminal (NO_COLOR turns it off, FORCE_COLOR on).",
)


#: What ``--since``/``--until`` take, for their help.
WHEN_FORMS = "RFC 3339, a local date or date and time, today, yesterday, or a span ago: 7d, 12h"


def _harness_ids(*, store: bool = False, write: bool = False) -> str:
    from txcript import harnesses

    return ", ".join(harnesses.ids(store=store, write=write))


#: The harness ids options accept, for ``--help`` (only harnesses that work are offered).
STORE_IDS = _harness_ids(store=True)
WRITE_IDS = _harness_ids(store=True, write=True)
FORMAT_IDS = _harness_ids() + ", common"


#: DEL and the C1 controls (U+0080–U+009F, e.g. U+009B, an 8-bit CSI), which ``json.dumps``
#: leaves raw when it keeps non-ASCII text as is, and the bidirectional embeddings, overrides
#: and isolates (U+202A–U+202E, U+2066–U+2069) that :func:`~txcript.shared.text.scrub` also
#: takes out: on a terminal they show the JSON in another order than it reads.
_EIGHT_BIT_CONTROLS = {
    code: f"\\u{code:04x}"
    for code in (*range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as the JSON a command prints: non-ASCII text kept as is, as
    ``json.dumps(value, ensure_ascii=False)`` writes it, but with DEL, the C1 controls and the
    bidirectional controls escaped too (C0 ones always are). The JSON means the same; a
    terminal it is printed on never receives an 8-bit control sequence from a session's text,
    nor an override that reorders what it shows."""
    import json

    return json.dumps(value, ensure_ascii=False, indent=indent).translate(_EIGHT_BIT_CONTROLS)


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def colour_enabled(stream: Any, choice: str = "auto") -> bool:
    """Whether to colour ``stream``: ``--color`` first, then NO_COLOR, FORCE_COLOR, a TTY."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    return is_terminal(stream) and os.environ.get("TERM") != "dumb"


def terminal_width(stream: Any) -> int | None:
    """The width of the terminal ``stream`` writes to (``COLUMNS`` first, as everywhere), or
    None when it is not a terminal."""
    if not is_terminal(stream):
        return None
    import shutil

    return shutil.get_terminal_size().columns


def harness_style(harness: str) -> str:
    return HARNESS_STYLES.get(harness, "")


#: Words of a style that ``click.style`` takes as flags; the other word is the colour.
_STYLE_FLAGS = frozenset({"bold", "dim", "italic", "underline", "reverse", "strikethrough"})


def _coloured(text: str, style: str) -> str:
    """``text`` in ``style`` (words such as ``"bold red"`` or ``"bright_cyan"``)."""
    if not style or not text:
        return text
    words = style.split()
    colours = [word for word in words if word not in _STYLE_FLAGS]
    flags = {word: True for word in words if word in _STYLE_FLAGS}
    return click.style(text, fg=colours[-1] if colours else None, **flags)


def line_text(parts: Iterable[str | tuple[str, str]], *, colour: bool) -> str:
    """One line from plain parts and ``(text, style)`` pairs, coloured or not."""
    if not colour:
        return "".join(part[0] if isinstance(part, tuple) else part for part in parts)
    return "".join(_coloured(*part) if isinstance(part, tuple) else part for part in parts)


def echo_lines(
    lines: Iterable[Iterable[str | tuple[str, str]]], *, colour: bool, err: bool = False
) -> None:
    """Print :func:`line_text` lines at once (click keeps colour it is told to: ``--color
    always`` into a pipe)."""
    text = "".join(line_text(parts, colour=colour) + "\n" for parts in lines)
    click.echo(text, nl=False, err=err, color=colour)


def echo_styled(*parts: str | tuple[str, str], colour: bool, err: bool = False) -> None:
    echo_lines([parts], colour=colour, err=err)


def _narrow(text: str) -> bool:
    """Is every character of ``text`` one terminal cell (printable ASCII)? Then its width is
    its length, and rich's cell tables are not needed (nor imported)."""
    return text.isascii() and text.isprintable()


def cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal cells (wide CJK and emoji count two) with ``…``."""
    if _narrow(text):
        if len(text) <= width:
            return text
        return "…"[:width] if width <= 1 else text[: width - 1].rstrip() + "…"
    from rich.cells import cell_len, set_cell_size

    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    return set_cell_size(text, width - 1).rstrip() + "…"


def pad(text: str, width: int) -> str:
    """``text`` cut and padded to exactly ``width`` cells."""
    if _narrow(text):  # so is its cut: "…" is one cell
        return cut(text, width).ljust(width)
    from rich.cells import set_cell_size

    return set_cell_size(cut(text, width), width)


def age(moment: datetime, now: datetime) -> str:
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86_400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86_400:
        return f"{int(seconds // 86_400)}d ago"
    local = time.localtime(moment.timestamp())  # what astimezone() uses, without a datetime
    return f"{local.tm_year:04d}-{local.tm_mon:02d}-{local.tm_mday:02d}"


#: Whether a progress line (:func:`progress_line`) is on stderr without its end of line yet.
_open_progress = False


def progress_line(text: str) -> None:
    """Draw ``text`` as the one progress line on stderr (redrawn in place, left open)."""
    global _open_progress
    click.echo(f"\r{text}\x1b[K", err=True, nl=False)
    _open_progress = True


def end_progress_line() -> None:
    """End the progress line, if one is open: what comes next (an error) starts a line."""
    global _open_progress
    if _open_progress:
        click.echo("", err=True)
        _open_progress = False


@contextmanager
def progress(label: str) -> Iterator[None]:
    """A transient status line on stderr while a long step runs; nothing when not a terminal."""
    stream = sys.stderr
    if not is_terminal(stream):
        yield
        return
    from rich.console import Console

    with Console(file=stream, highlight=False, markup=False).status(label):
        yield


def show_long(text: str, *, pager: bool) -> None:
    """Print ``text`` on the terminal, through ``$PAGER`` (``less -R``) when taller than it."""
    import shlex  # only a pager needs it (~0.6 ms to import)
    import shutil

    stdout = sys.stdout
    size = shutil.get_terminal_size()
    if pager and _rows(text, size.columns) > size.lines - 1:
        command = shlex.split(os.environ.get("PAGER") or "") or ["less", "-R"]
        if _page(command, text):
            return
    stdout.write(text)
    stdout.flush()


def _rows(text: str, columns: int) -> int:
    from rich.cells import cell_len

    columns = max(columns, 1)
    return sum(max(1, -(-cell_len(line) // columns)) for line in text.split("\n"))


def _page(command: list[str], text: str) -> bool:
    """Feed ``text`` to a pager; False when it cannot be started (the caller prints instead)."""
    import signal
    import subprocess

    try:
        pager = subprocess.Popen(command, stdin=subprocess.PIPE)
    except OSError:
        return False
    # The pager owns the terminal now: ctrl-c is for it, not for us.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert pager.stdin is not None
        try:
            pager.stdin.write(text.encode("utf-8", "replace"))
            pager.stdin.close()
        except BrokenPipeError:
            pass  # the user quit the pager before reading everything
        pager.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    return True


def write_output(text: str, out: str | None) -> None:
    """Print exactly (``out`` None or ``-``), or write ``out`` (see :func:`write_output_file`).

    Not ``click.echo``: it strips what looks like colour codes when stdout is not a terminal,
    and machine output must keep the session's text byte for byte.
    """
    if out is None or out == "-":
        stdout = sys.stdout
        stdout.write(text)
        stdout.flush()
        return
    from txcript.shared.files import write_output_file

    write_output_file(Path(out), text.encode("utf-8"))


def write_output_chunks(chunks: Iterable[bytes], out: str | None) -> None:
    """:func:`write_output` for UTF-8 chunks, written as they come (never joined in memory)."""
    if out is None or out == "-":
        stdout = sys.stdout
        stdout.flush()
        buffer = getattr(stdout, "buffer", None)
        for chunk in chunks:
            if buffer is None:
                stdout.write(chunk.decode("utf-8"))
            else:
                buffer.write(chunk)
        (stdout if buffer is None else buffer).flush()
        return
    from txcript.shared.files import write_output_file

    write_output_file(Path(out), chunks)
