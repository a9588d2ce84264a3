"""GitHub Copilot CLI: sessions under ``~/.copilot``, read-only.

Layers: :mod:`.native` (a session's event log and ``workspace.yaml``, byte-exact, or its rows in
``session-store.db``), :mod:`.codec` (native → Common), :mod:`.text` (a bundle document) and
:mod:`.store` (``session-state/`` and the store database). Copilot CLI validates a resumed session
strictly, so txcript does not write into it (``docs/formats/copilot.md``).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
