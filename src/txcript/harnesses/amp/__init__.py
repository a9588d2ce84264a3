"""Amp (``amp``): the thread documents of its local-first era, and what ``amp threads export``
prints. A read-only source: current Amp keeps threads on its servers (``docs/formats/amp.md``).

Layers: :mod:`.native` (the thread document as stored), :mod:`.codec` (to Common), :mod:`.text`
(the document itself) and :mod:`.store` (the legacy thread directories). The harness is declared
in the registry (:mod:`txcript.harnesses`); this package holds only its logic.
"""
