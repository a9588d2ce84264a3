"""Pausing Python's cyclic garbage collector around bulk decoding.

Decoding a large session allocates hundreds of thousands of small, acyclic objects; each
allocation burst triggers generation scans that find nothing to free. On a 10,000-bubble Cursor
session the collector took more than half of ``to_common``. The objects are freed by reference
counting as usual; only the cycle scans are deferred until the decode returns.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def without_gc(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with the cyclic collector paused (restored as it was afterwards)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper
