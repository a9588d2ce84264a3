"""Qwen Code (QwenLM): chats as JSON Lines uuid trees under ``~/.qwen/projects/<project>/chats``.

Layers: :mod:`.native` (the byte-exact body and the branch Qwen resumes, walked from the leaf),
:mod:`.tools` (Qwen's built-in tools ↔ typed Common tools), :mod:`.codec` (native ↔ Common),
:mod:`.text` (the chat file is the text form) and :mod:`.store` (the chat files).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
