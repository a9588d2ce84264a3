"""Factory droid (``droid``): ``~/.factory/sessions/<project>/<uuid>.jsonl`` and its settings."""
