"""Crush (``crush``, Charm): each project's ``.crush/crush.db``, found through ``projects.json``."""
