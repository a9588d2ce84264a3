"""Slash-command markup: how Claude Code records a user's ``/command`` and what it printed.

A command turn is a body made only of tag sections, whitespace between them::

    <command-name>/deploy</command-name>
    <command-message>deploy</command-message>
    <command-args>prod --fast</command-args>

and its output is ``<local-command-stdout>…</local-command-stdout>`` (or ``-stderr``). The
boilerplate ``<local-command-caveat>`` body is scaffolding. Sections may come in any order.

Claude Code itself does not escape section contents, so an argument holding
``</command-args>`` would end its section early. Our writer adds one backslash to every close
tag of these sections inside a content (``</command-args>`` → ``<\\/command-args>``,
``<\\/command-args>`` → ``<\\\\/command-args>``) and the reader removes one: the pair is a
bijection, and a written content never holds an unescaped close tag.
"""

from __future__ import annotations

import functools
import re

import msgspec

NAME = "command-name"
MESSAGE = "command-message"
ARGS = "command-args"
STDOUT = "local-command-stdout"
STDERR = "local-command-stderr"
CAVEAT = "local-command-caveat"
TAGS = (NAME, MESSAGE, ARGS, STDOUT, STDERR, CAVEAT)

_TAG_ALTERNATION = "|".join(re.escape(tag) for tag in TAGS)


# Compiled on first use (together ~1 ms at start-up): only a writer escapes, and most runs
# read no session whose user text holds this markup.
@functools.cache
def _close_run() -> re.Pattern[str]:
    return re.compile(rf"<(\\*)/({_TAG_ALTERNATION})>")


@functools.cache
def _escaped_run() -> re.Pattern[str]:
    return re.compile(rf"<\\(\\*)/({_TAG_ALTERNATION})>")


@functools.cache
def _opening() -> re.Pattern[str]:
    return re.compile(rf"<({_TAG_ALTERNATION})>")


def escape(content: str) -> str:
    """Add one backslash to every close-tag run of the envelope tags."""
    return _close_run().sub(lambda m: f"<\\{m.group(1)}/{m.group(2)}>", content)


def unescape(content: str) -> str:
    """Remove one backslash from every escaped close-tag run (the inverse of :func:`escape`)."""
    return _escaped_run().sub(lambda m: f"<{m.group(1)}/{m.group(2)}>", content)


def sections(text: str) -> dict[str, str] | None:
    """The tag sections of a body made only of envelope sections, contents unescaped.

    None when anything else is in the body (other text, an unknown tag, an unclosed or repeated
    section): such a body is ordinary text.
    """
    found: dict[str, str] = {}
    position, end = 0, len(text)
    while True:
        while position < end and text[position].isspace():
            position += 1
        if position == end:
            return found or None
        opened = _opening().match(text, position)
        if opened is None:
            return None
        tag = opened.group(1)
        close = f"</{tag}>"
        stop = text.find(close, opened.end())
        if stop < 0 or tag in found:
            return None
        found[tag] = unescape(text[opened.end() : stop])
        position = stop + len(close)


class Envelope(msgspec.Struct, frozen=True, gc=False):
    """What a markup body says: a command, an output, both, or only the caveat."""

    command: str | None = None
    args: str | None = None
    output: str | None = None
    is_error: bool = False

    @property
    def caveat_only(self) -> bool:
        return self.command is None and self.output is None


def parse(text: str) -> Envelope | None:
    """Read a markup body; None when it is not one (it is then ordinary user text)."""
    found = sections(text)
    if found is None:
        return None
    name = found.get(NAME)
    if name is None and (MESSAGE in found or ARGS in found):
        return None
    command: str | None = None
    args: str | None = None
    if name is not None:
        command = name if name.startswith("/") else "/" + name
        args = found.get(ARGS) or None
    output: str | None = None
    is_error = False
    stdout, stderr = found.get(STDOUT), found.get(STDERR)
    if stdout is None and stderr is not None:
        output, is_error = stderr, True
    elif stdout is not None and stderr is None:
        output = stdout
    elif stdout is not None and stderr is not None:
        if not stderr:
            output = stdout
        elif not stdout:
            output, is_error = stderr, True
        else:
            output = f"{stdout}\n{stderr}"
    return Envelope(command=command, args=args, output=output, is_error=is_error)


def render_command(command: str, args: str | None) -> str:
    """The body Claude Code writes for a typed slash command (name, message, args)."""
    message = command[1:] if command.startswith("/") else command
    return (
        f"<{NAME}>{escape(command)}</{NAME}>\n"
        f"<{MESSAGE}>{escape(message)}</{MESSAGE}>\n"
        f"<{ARGS}>{escape(args or '')}</{ARGS}>"
    )


def render_output(output: str, is_error: bool) -> str:
    """The body holding a command's output (stderr when it failed)."""
    tag = STDERR if is_error else STDOUT
    return f"<{tag}>{escape(output)}</{tag}>"
