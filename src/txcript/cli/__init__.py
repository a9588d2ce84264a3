"""The ``txcript`` command line (see :mod:`txcript.cli.app`).

:func:`main` is the entry point. It imports the command line itself, so that a Ctrl-C while
that loads (click, the command modules) is "interrupted", exit 130, as it is once a command runs,
and never a traceback.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn


def _interrupted() -> NoReturn:
    sys.stderr.write("txcript: error: interrupted\n")
    sys.stderr.flush()
    sys.exit(130)


def main(argv: list[str] | None = None) -> None:
    """Run ``txcript`` (:func:`txcript.cli.app.main`)."""
    try:
        from txcript.cli.app import main as run
    except KeyboardInterrupt:
        _interrupted()
    try:
        run(argv)
    except KeyboardInterrupt:  # (before the command's own handling starts)
        _interrupted()


def __getattr__(name: str) -> Any:
    if name == "cli":
        from txcript.cli.app import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["cli", "main"]
