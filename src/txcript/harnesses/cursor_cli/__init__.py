"""Cursor CLI (``cursor-agent``, binary now ``agent``): chats under ``~/.cursor/chats``.

Layers: :mod:`.native` (the chat directory's content, byte for byte), :mod:`.codec` with
:mod:`.head` (metadata), :mod:`.tools` (tool vocabulary) and :mod:`.graph` (the turn graph, on
the wire-format decoder :mod:`txcript.shared.protobuf`), :mod:`.text` (the JSON dump that is the
text form) and :mod:`.store` (the chat directories). :mod:`.transcripts` is the read-only
``cursor_transcripts`` source: the readable agent transcripts Cursor keeps under
``~/.cursor/projects``.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
