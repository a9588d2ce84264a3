"""Kimi CLI (Moonshot's Python ``kimi``, now legacy): sessions under ``~/.kimi/sessions``.

Layers: :mod:`.native` (the session directory's files, byte-exact), :mod:`.tools` (Kimi's
built-in tools ↔ typed Common tools), :mod:`.codec` (native ↔ Common), :mod:`.text` (a bundle
document holding the session's files) and :mod:`.store` (the ``kimi.json`` index and the session
directories).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
