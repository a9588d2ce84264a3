"""Ctrl-C once a write has committed: the command still says what it wrote.

A copy that is written but never reported is a copy nobody knows of, and retrying makes a second
one. So from the moment a write commits until the command has printed the copy's id and its undo,
SIGINT and SIGTERM are recorded rather than raised (:class:`AfterCommit`). The handlers are
swapped, not the signal mask, so a signal the kernel hands to another thread (a progress
spinner's) is held too.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class AfterCommit:
    """Use around a command that writes; call :meth:`hold` when the write has committed. From
    then until the block ends a SIGINT or SIGTERM only sets :attr:`interrupted`."""

    def __init__(self) -> None:
        self.interrupted = False
        self._previous: dict[int, Any] = {}

    def hold(self) -> None:
        if self._previous or threading.current_thread() is not threading.main_thread():
            return
        for number in _SIGNALS:
            self._previous[number] = signal.signal(number, self._record)

    def _record(self, signum: int, frame: FrameType | None) -> None:
        self.interrupted = True

    def __enter__(self) -> AfterCommit:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()
