"""OpenCode (``opencode``): sessions as rows of an SQLite database, and the file stores before it.

Layers: :mod:`.codec` (native body ↔ Common, with :mod:`.tools` for tools, stop reasons and ids),
:mod:`.text` (the ``opencode export`` document), :mod:`.database` (reading and writing the
database), :mod:`.files` (the JSON file stores of older versions) and :mod:`.store` (every store
under one data directory). :mod:`.native` defines the body they share.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
