"""``#RANGE`` fragments: grammar, resolution errors, and the tool-pair refusal."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from txcript import model as m
from txcript.errors import BadInput
from txcript.fragment import Span, check_pairs, parse_range, resolve, split_fragment

T = datetime(2026, 1, 1, tzinfo=UTC)


def msg(role: str, *blocks: m.Block) -> m.Message:
    return m.Message(role=role, content=blocks, timestamp=T)  # type: ignore[arg-type]


# reference-cli.md §2 worked example: 1 user / 2 call a / 3 result a / 4 assistant / 5 user
WORKED = [
    msg("user", m.Text("go")),
    msg("assistant", m.ToolUse("a", m.Bash(command="ls"))),
    msg("user", m.ToolResult("a", "out")),
    msg("assistant", m.Text("done")),
    msg("user", m.Text("thanks")),
]


@pytest.mark.parametrize(
    ("reference", "source", "bounds"),
    [
        ("abc#1-10", "abc", (1, 10)),
        ("abc#7", "abc", (7, 7)),
        ("abc#5-", "abc", (5, None)),
        ("abc#-10", "abc", (None, 10)),
        ("Fix the parser #2#3-9", "Fix the parser #2", (3, 9)),
    ],
)
def test_ranges_split_at_the_last_hash(
    reference: str, source: str, bounds: tuple[int | None, int | None]
) -> None:
    split_source, request = split_fragment(reference)
    assert split_source == source
    assert request is not None and (request.start, request.end) == bounds


@pytest.mark.parametrize("reference", ["abc#", "abc#-", "title#anchor", "abc#1x", "#7", "abc#١"])
def test_text_that_is_not_a_range_is_a_plain_source(reference: str) -> None:
    assert split_fragment(reference) == (reference, None)


@pytest.mark.parametrize(
    ("typed", "count", "message"),
    [
        ("0-3", 5, "message numbers are 1-based — `#0-3` has a 0"),
        ("5-", 0, "message numbers are 1-based — `#5-` has a 0"),
        ("9-3", 20, "range `#9-3` is inverted"),
        ("5-", 3, "range `#5-` is inverted"),
        ("1-21", 20, "range `#1-21` is out of bounds — the session has 20 messages"),
        ("2", 1, "range `#2` is out of bounds — the session has 1 message"),
        ("1-2", 1, "range `#1-2` is out of bounds — the session has 1 message"),
    ],
)
def test_resolution_errors_echo_the_request_as_typed(typed: str, count: int, message: str) -> None:
    request = parse_range(typed)
    assert request is not None
    with pytest.raises(BadInput) as caught:
        resolve(request, count)
    assert str(caught.value) == message


def test_ranges_become_zero_based_half_open_spans() -> None:
    assert resolve(parse_range("2-3"), 5) == Span(1, 3)  # type: ignore[arg-type]
    assert resolve(parse_range("-2"), 5) == Span(0, 2)  # type: ignore[arg-type]
    assert resolve(parse_range("4-"), 5) == Span(3, 5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("span", "suggestion"),
    [(Span(0, 2), "#1-3"), (Span(2, 5), "#2-5"), (Span(1, 2), "#2-3"), (Span(2, 3), "#2-3")],
)
def test_a_range_cutting_a_pair_is_refused_with_the_nearest_valid_range(
    span: Span, suggestion: str
) -> None:
    with pytest.raises(BadInput) as caught:
        check_pairs(WORKED, span)
    assert str(caught.value) == (
        f"range {span.label()} cuts a tool call away from its result — "
        f"nearest valid range is {suggestion}"
    )


@pytest.mark.parametrize("span", [Span(1, 3), Span(3, 5), Span(0, 5), Span(0, 1)])
def test_ranges_keeping_pairs_whole_are_accepted(span: Span) -> None:
    check_pairs(WORKED, span)


def test_a_dangling_call_at_the_end_may_be_cut_off() -> None:
    dangling = [*WORKED, msg("assistant", m.ToolUse("z", m.Bash(command="sleep")))]
    check_pairs(dangling, Span(0, 5))
