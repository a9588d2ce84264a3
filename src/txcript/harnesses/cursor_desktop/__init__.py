"""Cursor desktop: agent sessions ("composers") kept in the app's global ``state.vscdb``.

Layers: :mod:`.codec` (native body ↔ Common), :mod:`.text` (the portable JSON text form),
:mod:`.store` (the SQLite database; its listing is :mod:`.discovery`). :mod:`.native` defines
the body they share.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
