"""Handing the terminal over to a harness: ``continue`` ends by running its resume command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from txcript.errors import TxcriptError

#: Pause before handing over, so a wrong pick can still be cancelled with ctrl-c: about 300 ms to
#: glance plus 300 ms to react, under the ~1 s where a pause reads as lag.
PAUSE_SECONDS = 0.6


def launch(command: list[str], cwd: Path | None) -> int:
    """Run ``command`` in ``cwd`` with this terminal. On Unix this process is replaced."""
    if sys.stderr.isatty():
        time.sleep(PAUSE_SECONDS)
    program = shutil.which(command[0])
    if program is None and os.name == "nt":
        program = shutil.which(command[0] + ".cmd")
    if program is None:
        raise TxcriptError(f"failed to launch `{command[0]}`: not found (is it on PATH?)")
    if os.name != "nt":
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.stdout.flush()
            sys.stderr.flush()
            os.execv(program, [command[0], *command[1:]])
        except OSError as exc:
            raise TxcriptError(f"failed to launch `{command[0]}`: {exc.strerror or exc}") from None
    try:
        return subprocess.call([program, *command[1:]], cwd=cwd)
    except OSError as exc:
        raise TxcriptError(f"failed to launch `{command[0]}`: {exc.strerror or exc}") from None
