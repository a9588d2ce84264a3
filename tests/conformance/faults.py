"""Write faults for every store at once: each step a save takes that changes a file, counted, and
one of them made to fail.

The steps are the ones every store's writes go through, whoever wrote them:

* ``rename`` — ``os.replace`` and ``os.rename``: an atomic file write ends in one, a directory
  built aside is renamed into place, a backup is published by one;
* ``sqlite`` — SQLite work on a connection opened for writing (not ``mode=ro`` or
  ``immutable=1``), seen through a progress handler every :data:`TICK` virtual-machine steps:
  an interrupt there fails the statement running, inside the transaction or at its commit.

A failed rename raises ``OSError(EIO)`` before it renames; an interrupted statement raises
``sqlite3.OperationalError`` ("interrupted"), as a full disk or an I/O error would.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections import Counter
from types import TracebackType
from typing import Any

#: Virtual-machine steps between two progress-handler calls (the count starts again with each
#: statement, so a short statement is seen only under a small count).
TICK = 8

Step = tuple[str, int]


class Faults:
    """Count the steps of the writes made inside ``with`` (:attr:`counts`), and with ``fail``
    set make that one step fail (``("rename", 0)`` is the first rename)."""

    def __init__(self, fail: Step | None = None) -> None:
        self.fail = fail
        self.counts: Counter[str] = Counter()
        self.failed = False
        self._saved: list[tuple[object, str, Any]] = []

    def _step(self, kind: str) -> bool:
        index = self.counts[kind]
        self.counts[kind] += 1
        if not self.failed and self.fail == (kind, index):
            self.failed = True
            return True
        return False

    def steps(self) -> list[Step]:
        return [(kind, i) for kind in sorted(self.counts) for i in range(self.counts[kind])]

    def __enter__(self) -> Faults:
        real_replace, real_rename, real_connect = os.replace, os.rename, sqlite3.connect

        def renamer(real: Any) -> Any:
            def rename(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
                if self._step("rename"):
                    raise OSError(errno.EIO, "fault injected by the conformance suite", str(dst))
                real(src, dst, *args, **kwargs)

            return rename

        def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
            conn = real_connect(database, *args, **kwargs)
            name = str(database)
            if "mode=ro" not in name and "immutable=1" not in name and name != ":memory:":
                conn.set_progress_handler(lambda: 1 if self._step("sqlite") else 0, TICK)
            return conn

        for target, name, value in (
            (os, "replace", renamer(real_replace)),
            (os, "rename", renamer(real_rename)),
            (sqlite3, "connect", connect),
        ):
            self._saved.append((target, name, getattr(target, name)))
            setattr(target, name, value)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for target, name, original in reversed(self._saved):
            setattr(target, name, original)
        self._saved.clear()


def chosen(counts: Counter[str]) -> list[Step]:
    """The steps to fail, one save each: the first and the last of each kind, and the middle
    one of the SQLite work (inside the transaction)."""
    out: list[Step] = []
    for kind in sorted(counts):
        total = counts[kind]
        picks = {0, total - 1} | ({total // 2} if kind == "sqlite" else set())
        out.extend((kind, i) for i in sorted(picks) if 0 <= i < total)
    return out
