"""The Claude Code JSONL codec, shared by every harness whose sessions are Claude Code transcripts.

Claude Code keeps each session as one JSONL file; Claude desktop's Cowork mode runs Claude Code
and keeps the same transcript beside an app record of its own. Both harnesses read and write the
transcript through this package: :mod:`.native` (the lines, byte for byte), :mod:`.meta` (the
session metadata rules and the cheap head scan), :mod:`.envelope` (slash-command markup),
:mod:`.reader` and :mod:`.writer` (the codec: native body ↔ Common), :mod:`.text` (the JSONL text
form) and :mod:`.projects` (the project directory names).

It builds Common values, so it sits one layer above the rest of :mod:`txcript.shared`, beside
:mod:`txcript.model` (``tests/test_layering.py``).
"""
