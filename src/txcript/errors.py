"""The error types every layer raises; the CLI maps them to one line and an exit code."""

from __future__ import annotations


class TxcriptError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with: 1 for a failed operation."""

    exit_code = 1


class BadInput(TxcriptError):
    """The user's input is wrong: a malformed document, an unknown session, a bad range (exit 2)."""

    exit_code = 2


class NotFound(BadInput):
    """No session (or backup) answers to the reference given."""


class Ambiguous(BadInput):
    """The reference names more than one session: a prefix or a title several share."""


class Malformed(BadInput):
    """A transcript that cannot be read as the harness it claims to be."""

    def __init__(self, harness: str, detail: str) -> None:
        super().__init__(f"malformed {harness} transcript: {detail}")
        self.harness = harness
        self.detail = detail


class UnknownHarness(BadInput):
    def __init__(self, name: str, known: list[str]) -> None:
        close = did_you_mean(name, known)
        hint = f"; did you mean {close}?" if close else ""
        super().__init__(f"unknown harness `{name}`{hint} (expected one of: {', '.join(known)})")
        self.name = name


def did_you_mean(word: str, choices: list[str]) -> str | None:
    """The choice ``word`` is most likely a typo of (``cursr`` → ``cursor``), or None."""
    import difflib

    wanted = word.strip().lower().replace("-", "_")
    found = difflib.get_close_matches(wanted, choices, n=1, cutoff=0.6)
    return found[0] if found else None


class Unconvertible(TxcriptError):
    """The target harness cannot represent or accept the transcript (exit 1)."""

    def __init__(self, harness: str, detail: str) -> None:
        super().__init__(f"cannot convert to {harness}: {detail}")
        self.harness = harness
        self.detail = detail


class StoreError(TxcriptError):
    """A store could not be read or written: locked, corrupt, not a database (exit 1)."""


class StoreUnreadable(BadInput):
    """The store's file is not what it should be (truncated, not SQLite, unknown shape)."""
