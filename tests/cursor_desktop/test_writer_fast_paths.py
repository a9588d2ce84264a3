"""The writer's fast paths give exactly what the slow, obvious code gives.

``write.bubble_id`` is ``uuid5(NAMESPACE, "<cid>:<i>:<j>")`` without a
``uuid.UUID`` per bubble; the sidebar membership map is parsed by one match per member where
it can be, with the same entries as the general parser.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from txcript.harnesses.cursor_desktop import sidebar, write
from txcript.harnesses.cursor_desktop.vocabulary import NAMESPACE
from txcript.shared.ids import uuid5


@settings(max_examples=300, deadline=None)
@given(
    st.text().filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t)),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=100),
)
def test_bubble_id_is_uuid5(cid: str, i: int, j: int) -> None:
    assert write.bubble_id(cid, i, j) == uuid5(NAMESPACE, f"{cid}:{i}:{j}")


json_texts = st.builds(
    lambda members, spaced, indent: json.dumps(
        members,
        ensure_ascii=False,
        separators=(", ", ": ") if spaced else (",", ":"),
        indent=indent,
    ),
    st.dictionaries(st.text(max_size=8), st.text(max_size=8) | st.integers(), max_size=6),
    st.booleans(),
    st.none() | st.integers(min_value=0, max_value=2),
)


@settings(max_examples=400, deadline=None)
@given(json_texts | st.text(alphabet='{}":, \t\n\\abu0', max_size=30))
def test_the_membership_fast_path_parses_as_the_general_parser(text: str) -> None:
    assert sidebar.entries(text, dict) == sidebar._entries(text, dict)
