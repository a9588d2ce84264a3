"""txcript: move AI coding-agent sessions between harnesses through one typed Common model.

The public API is the names of :data:`__all__`, imported from here; everything else is
internal (``docs/library.md``)::

    import txcript

    for session in txcript.list_sessions("claude_code", since="7d"):
        print(session.id, session.title)
    transcript = txcript.load(session.id)
    saved = txcript.save(transcript, "codex")  # continue it in Codex
    txcript.delete(saved.id, "codex")  # and undo that

Names load on first use, so ``import txcript`` costs little more than Python itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from txcript._version import __version__

if TYPE_CHECKING:
    from txcript import errors
    from txcript._library import (
        Format,
        HarnessEntry,
        Hit,
        Match,
        Resume,
        Saved,
        Session,
        delete,
        dumps,
        find,
        list_backups,
        list_harnesses,
        list_sessions,
        load,
        loads,
        restore,
        save,
    )
    from txcript.diagnostics import TranscriptWarning
    from txcript.errors import TxcriptError
    from txcript.model import Transcript
    from txcript.shared.backups import Backup

__all__ = [
    "Backup",
    "Format",
    "HarnessEntry",
    "Hit",
    "Match",
    "Resume",
    "Saved",
    "Session",
    "Transcript",
    "TranscriptWarning",
    "TxcriptError",
    "__version__",
    "delete",
    "dumps",
    "errors",
    "find",
    "list_backups",
    "list_harnesses",
    "list_sessions",
    "load",
    "loads",
    "restore",
    "save",
]

#: Where each public name lives (``module`` or ``module:attribute``).
_PUBLIC = {
    "Backup": "txcript.shared.backups:Backup",
    "Transcript": "txcript.model:Transcript",
    "TranscriptWarning": "txcript.diagnostics:TranscriptWarning",
    "TxcriptError": "txcript.errors:TxcriptError",
    "errors": "txcript.errors",
    **{
        name: f"txcript._library:{name}"
        for name in __all__
        if name not in ("Backup", "Transcript", "TranscriptWarning", "TxcriptError", "errors")
        and name != "__version__"
    },
}


def __getattr__(name: str) -> Any:
    target = _PUBLIC.get(name)
    if target is None:
        raise AttributeError(f"module 'txcript' has no attribute {name!r}")
    import importlib

    module, _, attribute = target.partition(":")
    value = importlib.import_module(module)
    value = getattr(value, attribute) if attribute else value
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
