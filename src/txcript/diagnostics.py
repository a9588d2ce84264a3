"""Non-fatal problems found while reading input.

Codecs are pure functions, so they do not print. They report through Python's ``warnings``
machinery with :class:`TranscriptWarning`; the CLI shows each one as a ``txcript: warning:`` line
on stderr, and tests can assert them with ``pytest.warns``.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Iterator
from typing import Any


class TranscriptWarning(UserWarning):
    """Something in the input was skipped or repaired; the message says what and where."""


class SkippedFile(TranscriptWarning):
    """A store left a file (or a chat directory) out of its listing: ``path`` and ``reason``
    say which and why, so a command that then finds no session can name the file instead."""

    def __init__(self, message: str, path: str, reason: str) -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason


def warn(message: str) -> None:
    warnings.warn(message, TranscriptWarning, stacklevel=3)


def skipped(path: object, reason: object, what: str = "") -> None:
    """Warn that a store left ``path`` out of its listing because of ``reason``: ``skipping
    <what ><path>: <reason>`` (a :class:`SkippedFile`)."""
    message = f"skipping {what + ' ' if what else ''}{path}: {reason}"
    warnings.warn(SkippedFile(message, str(path), str(reason)), stacklevel=3)


class Tally:
    """The warnings of one read, said once per kind with a count: a file with 200,000 bad lines
    of one kind gets one warning, not 200,000. ``add`` each finding under its kind; ``say``
    gives, per kind, the first finding's message and how many more there were."""

    def __init__(self) -> None:
        self._kinds: dict[str, list[Any]] = {}

    def add(self, kind: str, message: str) -> None:
        found = self._kinds.get(kind)
        if found is None:
            self._kinds[kind] = [message, 1]
        else:
            found[1] += 1

    def say(self) -> None:
        for message, count in self._kinds.values():
            more = count - 1
            warnings.warn(
                message if not more else f"{message} (and {more} more like it)",
                TranscriptWarning,
                stacklevel=3,
            )
        self._kinds.clear()


def give_again(messages: Iterable[warnings.WarningMessage]) -> None:
    """Give warnings held back by ``warnings.catch_warnings(record=True)`` as they were."""
    for message in messages:
        warnings.warn_explicit(message.message, message.category, message.filename, message.lineno)


@contextlib.contextmanager
def noticed() -> Iterator[list[warnings.WarningMessage]]:
    """The warnings given inside the block, each still given (after the block): for a caller
    that must know whether a step warned, e.g. to keep only a listing that did not."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        yield said
    give_again(said)
