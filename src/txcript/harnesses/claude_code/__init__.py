"""Claude Code (``claude``): one JSONL file per session under ``~/.claude/projects/<cwd>/``.

Layers: :mod:`.reader` and :mod:`.writer` (the codec: native body ↔ Common), :mod:`.text` (the
JSONL text form), :mod:`.store` (the projects directory). :mod:`.native` defines the body they
share, :mod:`.envelope` the slash-command markup and :mod:`.meta` the session metadata rules.
The codec itself lives in :mod:`txcript.shared.formats.claude_jsonl`, which Cowork (Claude desktop's
agent mode, whose tasks are Claude Code transcripts) shares; these modules name its parts.

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
