"""``REF`` arguments that look like options: ``-#2`` is stdin with a range, not an option ``-#``.

Click reads any word starting with ``-`` as an option. :class:`RefCommand` shields a ``-#RANGE``
word from the option parser, and :func:`restore_ref` gives it back to the ``REF`` argument.
"""

from __future__ import annotations

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
