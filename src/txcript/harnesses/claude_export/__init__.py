"""The Claude account export (claude.ai Settings → Privacy → Export data), read offline.

Layers: :mod:`.native` (one conversation's exact JSON), :mod:`.codec` (its active branch as
Common), :mod:`.text` (the conversation object) and :mod:`.store` (the export: its ZIP, its
folder or its ``conversations.json``, streamed with :mod:`txcript.shared.jsonstream`). A
read-only source: nothing is ever written into an export.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
