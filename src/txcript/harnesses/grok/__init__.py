"""Grok CLI (xAI "Grok Build", ``grok``): a session is a directory of three files.

Layers: :mod:`.native` (the three files as stored), :mod:`.display` (reading the display log),
:mod:`.codec` (native ↔ Common, with :mod:`.tools`), :mod:`.text` (the portable bundle) and
:mod:`.store` (``$GROK_HOME/sessions``). The harness is declared in the registry
(:mod:`txcript.harnesses`); this package holds only its logic.
"""
