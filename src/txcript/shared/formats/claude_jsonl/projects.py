"""The project directory a Claude Code session lives in: its cwd, encoded as Claude Code does."""

from __future__ import annotations


def encode_project(cwd: str) -> str:
    """The project directory name for ``cwd``: every character but ASCII letters and digits
    becomes ``-`` (``C:\\Users\\dev\\repo`` → ``C--Users-dev-repo``, ``/a/.b`` → ``-a--b``).

    Claude Code does this per UTF-16 code unit, so a character outside the BMP gives ``--``.
    """
    out = []
    for ch in cwd:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.append("--" if ord(ch) > 0xFFFF else "-")
    return "".join(out)
