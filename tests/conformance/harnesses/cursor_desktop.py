"""Cursor desktop: one real ``state.vscdb`` per generation the reader knows (3.16 with its header
table, 3.7 with heads in ItemTable, 1.7 and 0.50 with bubble rows and no heads, 0.45 with inline
conversations)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    closed_calls,
    composed,
    each_result_with_its_call,
    replaced,
    use_fixtures,
    user_texts_joined,
    without_commands,
)

from txcript.pairing import NO_RESULT

use_fixtures("cursor_desktop")
import dbfixtures as fx  # noqa: E402
from sessions import representable  # noqa: E402


def _json_text_results(items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A bubble stores a result as a string and reads one that is JSON (but not null) as that
    value: a text result such as Hermes's ``{"output": …, "exit_code": 1}`` comes back as its
    compact JSON."""
    from txcript.shared.jsonutil import INVALID, dumps_compact, try_loads

    out = []
    for item in items:
        if item[0] == "result":
            parsed = try_loads(item[2])
            if parsed is not INVALID and parsed is not None:
                text = parsed if isinstance(parsed, str) else dumps_compact(parsed)
                item = (item[0], item[1], text, *item[3:])
        out.append(item)
    return out


def _database(app: Callable[[Path], Path]) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        storage = root / "globalStorage"
        storage.mkdir(parents=True, exist_ok=True)
        app(storage / "state.vscdb")

    return build


def _as_saved_elsewhere(native: Any) -> Any:
    """A session saved where it has no header row gets one, so the app lists it: a head read
    from ItemTable or synthesized becomes a row (NULL in the columns it has no value for), and
    a head listed by its creation time keeps that time as its recency."""
    recency = native.recency or (native.created_at if native.header_origin != "table" else 0)
    extra = tuple((k, v) for k, v in native.extra_columns if v is not None)
    return replaced(native, header_origin="table", recency=recency, extra_columns=extra)


CONFORMANCE = Conformance(
    harness="cursor_desktop",
    families=(
        Family("3.16", _database(fx.app_3_16)),
        Family("3.7", _database(fx.app_3_7)),
        Family("1.7", _database(fx.app_1_7)),
        Family("0.50", _database(fx.app_0_50)),
        Family("0.45", _database(fx.app_0_45)),
    ),
    representable=representable(),
    store_facts=StoreFacts(
        "a session without a header row gets one when it is written (with its creation time "
        "as its recency), so the app lists it",
        _as_saved_elsewhere,
    ),
    text_facts=StoreFacts(
        "the composer id a body was loaded under is the store's reference to it",
        lambda native: replaced(native, reference=None),
    ),
    hop_limit=HopLimit(
        "a Cursor desktop tool bubble holds its call and its result together, so a parallel "
        "batch A B rA rB comes back A rA B rB, and a call followed by anything gets an error "
        "result saying none was recorded; a slash command the user ran (a user-side call) has "
        "no bubble and is left out; a user bubble holds one text, so a user's texts are joined "
        "by a blank line; a text result that is JSON comes back as that JSON",
        composed(
            _json_text_results,
            without_commands,
            user_texts_joined,
            closed_calls(NO_RESULT, at_the_end=False),
            each_result_with_its_call,
        ),
    ),
)
