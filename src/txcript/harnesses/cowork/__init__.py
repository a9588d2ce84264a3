"""Cowork (Claude desktop's local agent mode): an app record and a Claude Code transcript per task.

Layers: :mod:`.native` (the record's bytes and the transcript's lines, as stored), :mod:`.codec`
(the transcript through the shared Claude Code codec :mod:`txcript.shared.formats.claude_jsonl`, the
record's title, cwd, model and start on top), :mod:`.text` (a JSON bundle of both) and
:mod:`.store` (the ``<org>/<account>/`` trees of ``local-agent-mode-sessions``).

The harness itself is declared in the registry (:mod:`txcript.harnesses`); this package holds
only its logic.
"""
