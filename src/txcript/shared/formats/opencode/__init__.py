"""OpenCode's database and its codec: ``session``, ``message`` and ``part`` rows of JSON data.

Shared by the OpenCode harness and by Kilo, whose 2026 line keeps the same tables in
``kilo.db``. A :class:`~.native.Dialect` names whose database a call reads or writes.
"""
