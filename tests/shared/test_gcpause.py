"""The collector is paused while an item is produced, running while the consumer holds it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from txcript.shared.gcpause import iterate_without_gc, paused


def _reporting(seen: list[bool], count: int) -> Iterator[int]:
    for number in range(count):
        seen.append(gc.isenabled())
        yield number


def test_each_item_is_made_with_the_collector_paused_and_handled_with_it_running() -> None:
    seen: list[bool] = []
    handled = []
    for item in iterate_without_gc(_reporting(seen, 3)):
        handled.append((item, gc.isenabled()))
    assert seen == [False, False, False]
    assert handled == [(0, True), (1, True), (2, True)]
    assert gc.isenabled()


def test_a_failing_producer_leaves_the_collector_as_it_was() -> None:
    def failing() -> Iterator[int]:
        yield 1
        raise RuntimeError("broken")

    with pytest.raises(RuntimeError):
        list(iterate_without_gc(failing()))
    assert gc.isenabled()
    gc.disable()
    try:
        list(iterate_without_gc(_reporting([], 2)))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_paused_block_restores_the_collector_even_when_it_fails() -> None:
    with pytest.raises(RuntimeError), paused():
        assert not gc.isenabled()
        raise RuntimeError("broken")
    assert gc.isenabled()
