"""Codex CLI (OpenAI): sessions ("threads") as JSON Lines rollouts under ``$CODEX_HOME``.

Layers: :mod:`.native` (the byte-exact body every generation parses into), :mod:`.tools` (tool
calls, ``apply_patch`` and output envelopes), :mod:`.codec` (native ↔ Common), :mod:`.store` (the
rollout files, ``session_index.jsonl``) and :mod:`.statedb` (Codex's SQLite state database).
The text form is the rollout itself (a legacy ``{session, items}`` document for the oldest CLI).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
