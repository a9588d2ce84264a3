"""OpenCode's codec layer: the OpenCode database codec, which Kilo's ``kilo.db`` shares, lives in
:mod:`txcript.shared.formats.opencode.codec`; this module is where the registry finds it."""

from __future__ import annotations

from txcript.shared.formats.opencode.codec import (
    first_assistant_model,
    from_common,
    is_placeholder_title,
    meta_of,
    session_meta,
    to_common,
)

__all__ = [
    "first_assistant_model",
    "from_common",
    "is_placeholder_title",
    "meta_of",
    "session_meta",
    "to_common",
]
