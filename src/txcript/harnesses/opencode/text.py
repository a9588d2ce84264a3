"""OpenCode's text form (the ``opencode export`` document): it lives in
:mod:`txcript.shared.formats.opencode.text`, which Kilo's ``kilo.db`` sessions share; this module
is where the registry finds it."""

from __future__ import annotations

from txcript.shared.formats.opencode.text import from_text, sniff, to_text

__all__ = ["from_text", "sniff", "to_text"]
