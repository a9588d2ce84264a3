"""Hermes Agent (``hermes``, Nous Research): sessions as rows of ``state.db``, and the per-session
logs under ``sessions/`` that older builds (and backups) keep.

Layers: :mod:`.native` (a session as stored), :mod:`.codec` (native ↔ Common, with
:mod:`.tools`), :mod:`.text` (the ``hermes sessions export`` object and the log files),
:mod:`.database` (reading the database by the columns it has), :mod:`.logs` (the log files),
:mod:`.store` (every store under ``$HERMES_HOME`` and its profiles), :mod:`.write` and
:mod:`.rowbackup` (writing rows that ``txcript restore`` undoes). The harness is declared in the
registry (:mod:`txcript.harnesses`); this package holds only its logic.
"""
