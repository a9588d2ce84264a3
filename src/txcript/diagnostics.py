"""Non-fatal problems found while reading input.

Codecs are pure functions, so they do not print. They report through Python's ``warnings``
machinery with :class:`TranscriptWarning`; the CLI shows each one as a ``txcript: warning:`` line
on stderr, and tests can assert them with ``pytest.warns``.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterable, Iterator


class TranscriptWarning(UserWarning):
    """Something in the input was skipped or repaired; the message says what and where."""


def warn(message: str) -> None:
    warnings.warn(message, TranscriptWarning, stacklevel=3)


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
