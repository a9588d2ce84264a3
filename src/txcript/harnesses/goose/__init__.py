"""Goose (``goose``, Block): ``sessions/sessions.db`` and the older ``sessions/*.jsonl`` files."""
