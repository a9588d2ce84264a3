"""``REF`` arguments that look like options, and the ``PATH`` of a store named on the command line.

Click reads any word starting with ``-`` as an option. :class:`RefCommand` shields a ``-#RANGE``
word from the option parser, and :func:`restore_ref` gives it back to the ``REF`` argument.

``list``, ``view``, ``export`` and ``continue`` take an optional ``PATH`` after ``--from H``: the
store of ``H`` to read, named as ``H``'s root variable would name it (a Claude export's ZIP, a
Codex home). :func:`use_store_at` sets that variable for this run, so every layer below finds
the store there exactly as it would find a store the variable names.
"""

from __future__ import annotations

import os
import re
from typing import Any

import click

_STDIN_RANGE = re.compile(r"-#[0-9-]*")
_SHIELD = "\x00stdin"


class RefCommand(click.Command):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        shielded = [_SHIELD + a[1:] if _STDIN_RANGE.fullmatch(a) else a for a in args]
        return super().parse_args(ctx, shielded)


def restore_ref(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_SHIELD):
        return "-" + value[len(_SHIELD) :]
    return value


def use_store_at(from_harness: str | None, path: str | None) -> None:
    """Read ``from_harness``'s store at ``path`` in this run (nothing when ``path`` is None)."""
    if path is None:
        return
    if from_harness is None:
        raise click.UsageError("PATH names a harness's store: give the harness with --from H")
    from txcript import harnesses
    from txcript.errors import BadInput

    found = harnesses.info(from_harness)
    root = found.root
    if root is None or root.env is None:
        raise BadInput(f"the {found.id} store cannot be given as a path")
    if not os.path.lexists(path):
        raise BadInput(f"no {found.name} store at {path}")
    os.environ[root.env] = os.path.abspath(path)
