"""Non-fatal problems found while reading input.

Codecs are pure functions, so they do not print. They report through Python's ``warnings``
machinery with :class:`TranscriptWarning`; the CLI shows each one as a ``txcript: warning:`` line
on stderr, and tests can assert them with ``pytest.warns``.
"""

from __future__ import annotations

import warnings


class TranscriptWarning(UserWarning):
    """Something in the input was skipped or repaired; the message says what and where."""


def warn(message: str) -> None:
    warnings.warn(message, TranscriptWarning, stacklevel=3)
