"""Gemini CLI (Google): chats as JSON Lines logs (or legacy JSON documents) under ``~/.gemini``.

Layers: :mod:`.native` (the byte-exact body both file forms parse into, and the replay of a log's
re-appended records, ``$set`` patches and rewinds), :mod:`.tools` (Gemini's built-in tools ↔
typed Common tools), :mod:`.codec` (native ↔ Common), :mod:`.projects` (the project registry)
and :mod:`.store` (the chat files). The text form is the chat file itself.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
