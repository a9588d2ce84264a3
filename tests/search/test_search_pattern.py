"""The pattern language: atoms, operators, smart case, diacritics, and how lines rank."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from txcript.search.pattern import ATOM_MAX, LITERAL_BONUS, Pattern, fold, fold_lines


def matches(pattern: str, line: str) -> bool:
    return Pattern(pattern).match(line) is not None


def score(pattern: str, line: str) -> int:
    found = Pattern(pattern).match(line)
    assert found is not None, (pattern, line)
    return found.score


def test_every_atom_must_match_the_same_line() -> None:
    assert matches("auth bug", "fixed the oauth bug today")
    assert not matches("auth bug", "fixed the oauth problem")


def test_a_plain_atom_is_a_fuzzy_subsequence() -> None:
    assert matches("tstprs", "test the parser")
    assert not matches("tstprsz", "test the parser")


def test_exact_prefix_suffix_and_negation() -> None:
    assert matches("'uth", "oauth") and not matches("'uht", "oauth")
    assert matches("^fix", "fix the parser") and not matches("^fix", "we fix it")
    assert matches("parser$", "fix the parser") and not matches("parser$", "parser fixed")
    assert matches("fix !test", "fix the parser") and not matches("fix !test", "fix the test")
    assert not matches("!^fix parser", "fix the parser")
    assert matches("!parser$ fix", "parser fix")


def test_escaped_space_keeps_one_atom() -> None:
    assert matches("'a\\ b", "x a b y") and not matches("'a\\ b", "a x b")


def test_a_backslash_makes_an_operator_character_plain_text() -> None:
    """Every backslash was dropped with the character after it kept, so `\\!x` became the
    negation `!x`, and `\\!`, `\\'` or `\\^` alone became an empty atom: a pattern that
    matched every session. As in nucleo, a backslash before a leading `!`, `'` or `^`, or a
    trailing `$`, makes it plain text; any other backslash is text itself."""
    assert matches("\\!important", "mark it !important") and not matches("\\!important", "x")
    assert matches("'!important", "a !important b") and not matches("'!important", "important")
    assert matches("\\^caret", "a ^caret") and not matches("\\^caret", "caret first")
    assert matches("\\'quoted", "it's 'quoted'") and not matches("\\'quoted", "quoted")
    assert matches("cost\\$", "the cost$ here") and not matches("cost\\$", "the cost")
    assert matches("!\\!x y", "y") and not matches("!\\!x y", "y !x")
    for alone in ("\\!", "\\'", "\\^"):
        assert [(a.kind, a.text) for a in Pattern(alone).atoms] == [("fuzzy", alone[1])]
    assert matches("'C:\\Users", "at C:\\Users\\me") and not matches("'C:\\Users", "C:Users")


def test_smart_case() -> None:
    assert matches("parser", "The PARSER broke")
    assert not matches("Parser", "the parser broke")
    assert matches("Parser", "The Parser broke")


def test_diacritics_fold_in_fuzzy_mode_only() -> None:
    assert matches("cafe", "un café noir")
    assert matches("resume", "Résumé attached")
    assert not matches("'cafe", "un café noir")


def test_a_literal_line_beats_any_gapped_line() -> None:
    literal = score("auth bug", "the auth bug")
    gapped = score("auth bug", "a u t h  b u g and more words")
    assert literal >= LITERAL_BONUS > gapped


def test_contiguous_atoms_score_the_maximum_and_gapped_ones_less() -> None:
    assert score("bug auth", "auth: the bug") == 2 * ATOM_MAX
    assert score("bug auth", "a-u-t-h the bug") < 2 * ATOM_MAX


def test_highlights_are_character_offsets() -> None:
    found = Pattern("café").match("ünïcode café here")
    assert found is not None and found.highlights == ((8, 12),)


def test_empty_and_blank_patterns_match_nothing_per_line() -> None:
    assert Pattern("").empty and Pattern("   ").empty
    assert Pattern("").match("anything") is None


@settings(max_examples=300)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n")), min_size=1))
def test_folding_a_whole_part_folds_each_of_its_lines(lines: list[str]) -> None:
    """Queries fold a session's joined lines in one pass; it must agree with the per-line fold
    the index and the matcher use (final sigma, dotted capital I, diacritics, Hangul)."""
    joined = "\n".join(lines)
    assert fold_lines(joined) == "\n".join(fold(line) for line in lines)


def test_folding_a_whole_part_edge_cases() -> None:
    text = "ΟΔΟΣ\nCafé İstanbul\n한국\nplain"
    assert fold_lines(text) == "\n".join(fold(line) for line in text.split("\n"))


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.lists(
        st.sampled_from(["auth", "tstprs", "'bug", "^the", "fix$", "!x", "Café", "a", "ĳ"]),
        min_size=1,
        max_size=3,
    ).map(" ".join),
    line=st.text(alphabet="authe bugfixtsprcafé ĳ'^$!", max_size=40),
)
def test_score_is_the_score_of_match_without_its_highlights(pattern: str, line: str) -> None:
    found = Pattern(pattern).match(line)
    assert Pattern(pattern).score(line) == (None if found is None else found.score)
