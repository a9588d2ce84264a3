"""Kimi Code (Moonshot's Node ``kimi``): sessions under ``~/.kimi-code/sessions``, read-only.

Layers: :mod:`.native` (a session directory's ``state.json`` and main-agent ``wire.jsonl``,
byte-exact), :mod:`.codec` (native → Common: the wire's context events replayed, undo and clear
included), :mod:`.text` (a bundle document holding the session's files) and :mod:`.store`
(``session_index.jsonl`` and the session directories). Writing into Kimi Code goes through its
own import, ``kimi migrate``, from a Kimi CLI copy (``docs/formats/kimi.md``).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
