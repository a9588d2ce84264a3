"""``excerpt``: a search hit's line cut to a width around its first match (MCP search)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from txcript.shared.text import excerpt


@given(
    st.text(max_size=300),
    st.integers(min_value=0, max_value=300),
    st.integers(min_value=1, max_value=8),
    st.integers(min_value=12, max_value=120),
)
def test_an_excerpt_fits_and_keeps_a_match_that_fits(
    text: str, at: int, length: int, width: int
) -> None:
    """Never longer than the width; text that fits is whole; a match shorter than half the
    width is always in the excerpt, and what is kept is the line's own text between the
    ``…`` marks of the cut ends."""
    at = min(at, len(text))
    end = min(at + length, len(text))
    shown = excerpt(text, ((at, end),) if at < end else (), width)
    assert len(shown) <= width
    if len(text) <= width:
        assert shown == text
        return
    assert shown.strip("…") in text or shown[1:-1] in text or shown[:-1] in text
    if at < end and end - at < width // 2:
        assert text[at:end] in shown
