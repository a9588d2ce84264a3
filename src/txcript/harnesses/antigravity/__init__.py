"""Antigravity (Google's agent IDE and its CLI ``agy``): conversation databases of protobuf steps.

Layers: :mod:`.native` (the database's tables and the brain folder, as stored), :mod:`.steps`
(the step protobuf, by field number, over :mod:`txcript.shared.protobuf`), :mod:`.codec` (steps
↔ Common), :mod:`.text` (the JSON dump that is the text form) and :mod:`.store` (the
``conversations/`` and ``brain/`` directories).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
