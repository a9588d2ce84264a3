"""A packed part answers "which lines hold these needles" exactly as a per-line test does,
through the bytes when folding is only ASCII lower-casing, through the text otherwise."""

from __future__ import annotations

import pytest

from txcript.search.lines import Line
from txcript.search.parts import Part, pack
from txcript.search.pattern import fold

TEXTS = {
    "ascii": ["Fix the Auth token", "auth", "refresh TOKEN auth token", "nothing here"],
    "punctuation": ["the “auth token” — fixed", "日本語 auth token", "emoji 🙂 auth"],
    "diacritics": ["Café AUTH token", "naïve auth", "ÉTÉ token auth token"],
    "surrogate": ["bad \udcff byte auth token", "auth"],
    "length change": ["İstanbul auth token", "auth token"],
}


@pytest.mark.parametrize("kind", list(TEXTS))
@pytest.mark.parametrize(
    "needles", [["auth token"], ["auth", "token"], ["token"], ["zzz"], ["auth", "cafe"]]
)
def test_lines_holding_matches_a_per_line_test(kind: str, needles: list[str]) -> None:
    texts = TEXTS[kind]
    lines = [Line("user", text, n, 0) for n, text in enumerate(texts)]
    part = Part(7, pack(lines).data)
    expected = [
        n for n, text in enumerate(texts) if all(needle in fold(text) for needle in needles)
    ]
    assert part.lines_holding(needles) == expected
    assert part.texts == texts
    assert [part.holds_lowered(needle) for needle in needles] == [
        needle in "\n".join(texts).lower() for needle in needles
    ]


def test_only_text_whose_folding_is_ascii_lower_casing_is_searched_as_bytes() -> None:
    def flag(text: str) -> bool:
        return Part(0, pack([Line("user", text, 0, 0)]).data).bytes_fold

    assert flag("plain ASCII") and flag("quotes “ ” — and 日本語 and 🙂")
    assert not flag("Café") and not flag("ÄRGER") and not flag("İstanbul")


@pytest.mark.parametrize("kind", ["exact", "prefix", "suffix", "line"])
@pytest.mark.parametrize("needle", ["auth", "token", "auth token", "x"])
def test_lines_where_matches_a_per_line_test_of_the_atom(kind: str, needle: str) -> None:
    from txcript.search.pattern import Atom, holds

    texts = ["Auth token", "the auth token", "token", "AUTH", "auth", "“auth” x", "x"]
    part = Part(1, pack([Line("user", text, n, 0) for n, text in enumerate(texts)]).data)
    atom = Atom(kind, needle)
    expected = [n for n, text in enumerate(texts) if holds(atom, text.lower(), needle)]
    assert part.lines_where(needle, kind) == expected
    folded = Part(1, pack([Line("user", "Café auth", 0, 0)]).data)
    assert folded.lines_where(needle, kind) is None  # not searched as bytes


@pytest.mark.parametrize("kind", list(TEXTS))
@pytest.mark.parametrize("atom_kind", ["exact", "prefix", "suffix", "line", "fuzzy"])
@pytest.mark.parametrize("needle", ["auth", "token", "auth token", "fix", "bad", "x", "été"])
def test_what_the_index_is_asked_for_is_in_every_part_with_a_matching_line(
    kind: str, atom_kind: str, needle: str
) -> None:
    """The trigram index is asked for a prefix atom after a line break and for a suffix atom
    before one, so `config$` no longer names every part that says `config` anywhere (4,783 of
    the 5,000 benchmark sessions, each decoded to be dropped: 294 ms). That is only sound if
    every line, the first and last of a part too, stands between breaks in what it holds, and
    if a part whose line holds the atom (contiguously, for a fuzzy one) always holds what is
    asked."""
    from txcript.search.parts import pinned
    from txcript.search.pattern import Atom, holds

    texts = TEXTS[kind]
    held = pack([Line("user", text, n, 0) for n, text in enumerate(texts)]).trigram_text
    atom = Atom(atom_kind, needle)
    check = Atom("exact", needle) if atom_kind == "fuzzy" else atom
    if any(holds(check, fold(text), fold(needle)) for text in texts):
        assert pinned(atom) in held
    assert held.startswith("\n") and held.endswith("\n")
    assert held.strip("\n").split("\n") == list(dict.fromkeys(fold(t) for t in texts))


def test_pinned_needles() -> None:
    from txcript.search.parts import pinned
    from txcript.search.pattern import Atom

    assert [pinned(Atom(k, "Café")) for k in ("fuzzy", "exact", "prefix", "suffix", "line")] == [
        "cafe",
        "cafe",
        "\ncafe",
        "cafe\n",
        "\ncafe\n",
    ]
