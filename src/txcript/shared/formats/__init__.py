"""Formats that more than one harness reads and writes, with the Common codec each needs.

These sit above :mod:`txcript.model` (a codec builds Common transcripts) and below the harness
packages: a harness that stores sessions the way another app does (Kilo's ``kilo.db`` is
OpenCode's database) uses the format from here, never from the sibling harness package.
"""
