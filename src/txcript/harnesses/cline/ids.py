"""Ids of new Cline tasks: the epoch milliseconds the task starts at, as Cline names its own."""

from __future__ import annotations


def new_task_id() -> str:
    from txcript.shared.timeutil import now, to_epoch_ms

    return str(to_epoch_ms(now()))
