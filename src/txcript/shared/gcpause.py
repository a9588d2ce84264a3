"""Pausing Python's cyclic garbage collector around bulk decoding.

Decoding a large session allocates hundreds of thousands of small, acyclic objects; each
allocation burst triggers generation scans that find nothing to free. On a 10,000-bubble Cursor
session the collector took more than half of ``to_common``. The objects are freed by reference
counting as usual; only the cycle scans are deferred until the decode returns.
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The cyclic collector paused inside the block (restored as it was afterwards).

    Around a whole command that reads a long session and writes it out (``export``): once the
    session's objects exist, every collection the encoder's allocations set off would scan
    them all, and they live until the command ends anyway.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def without_gc(function: Callable[P, R]) -> Callable[P, R]:
    """Run ``function`` with the cyclic collector paused (restored as it was afterwards)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return function(*args, **kwargs)

    return wrapper


def iterate_without_gc(items: Iterable[T]) -> Iterator[T]:
    """``items``, each produced with the collector paused (it runs while the consumer handles
    an item): an encoder streaming a long session allocates as a decoder does, and each
    collection would scan every object of the session it encodes."""
    iterator = iter(items)
    while True:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            item = next(iterator)
        except StopIteration:
            return
        finally:
            if was_enabled:
                gc.enable()
        yield item
