"""Cline, Roo Code and Kilo Code (``cline``, ``roo``, ``kilo``): VS Code agents that keep each task
as a directory of JSON files in the editor's storage of the extension, listed by a history index.

One reader serves the three (:mod:`.flavours` says what differs): :mod:`.native` (the task's
files and index entry), :mod:`.codec` (↔ Common, both tool eras, with :mod:`.tools` and
:mod:`.xmlera`), :mod:`.text` (a task bundle), :mod:`.store` (every editor under one root, with
:mod:`.locations`, :mod:`.index`, :mod:`.heads`) and :mod:`.saving` (writes, guarded like Cursor
desktop's where the index is the editor's ``state.vscdb``). :mod:`.kilo` adds Kilo's ``kilo.db``
through the OpenCode database code in :mod:`txcript.shared.formats.opencode`.

The harnesses are declared in the registry (:mod:`txcript.harnesses`); this package holds only
their logic.
"""
