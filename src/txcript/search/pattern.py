"""The query pattern: fzf-style atoms that must all match one line, and how a line is scored.

* The pattern is split on spaces into **atoms** (``\\ `` keeps a space inside an atom). A plain
  atom is a **fuzzy** subsequence match; ``'word`` an exact substring; ``^word`` a prefix of the
  line; ``word$`` a suffix; ``!word`` (also ``!^word``, ``!word$``) a line that must NOT match.
  A backslash before a leading ``!``, ``'`` or ``^``, or a trailing ``$``, makes it plain text.
* **Smart case**: case-insensitive unless the pattern holds an uppercase character.
  **Diacritics are folded** for fuzzy atoms (``cafe`` finds ``café``).
* **Score**: each positive atom scores up to :data:`ATOM_MAX` (an exact, prefix or suffix match
  scores the maximum; a fuzzy one its partial-ratio similarity from rapidfuzz, so a contiguous
  occurrence scores the maximum and a gapped one less). A line in which the whole trimmed pattern
  appears literally (same case rule) gains :data:`LITERAL_BONUS`, so literal lines always rank
  above gapped ones. Highlights are character offsets into the line.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import msgspec

LITERAL_BONUS = 1 << 16
ATOM_MAX = 10_000
#: Fuzzy scores of all atoms together stay below the literal bonus.
_FUZZY_CAP = LITERAL_BONUS - 1


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower case with Latin diacritics removed; one output character per input character."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered if len(lowered) == len(text) else text
    out = []
    for ch in lowered:
        out.append(_base(ch) if not ch.isascii() else ch)
    folded = "".join(out)
    return folded if len(folded) == len(text) else text


@lru_cache(maxsize=4096)
def _base(ch: str) -> str:
    return unicodedata.normalize("NFD", ch)[0]


def fold_lines(text: str) -> str:
    """:func:`fold` of each ``\\n``-separated line of ``text``, joined again, in one pass (no
    per-line work unless a character changes length when lower-cased)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return "\n".join(fold(line) for line in text.split("\n"))
    if lowered.isascii():
        return lowered
    # One replace per distinct non-ASCII character that folds: Python never visits the text
    # character by character (str.translate looks up every one), nor run by run (a regex
    # callback per run was twice as slow on session text).
    for ch in set("".join(_NON_ASCII.findall(lowered))):
        base = _base(ch)
        if base != ch:
            lowered = lowered.replace(ch, base)
    return lowered


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


class Atom(msgspec.Struct, frozen=True, gc=False):
    kind: str  # "fuzzy" | "exact" | "prefix" | "suffix" | "line"
    text: str
    negated: bool = False


def _split_atoms(pattern: str) -> list[str]:
    """The pattern's atoms: split on spaces, but not on one after a backslash (``\\ ``
    stands for the space). Any other backslash stays, for :func:`_atom` to read."""
    atoms: list[str] = []
    current: list[str] = []
    at = 0
    while at < len(pattern):
        ch = pattern[at]
        if ch == "\\" and pattern[at + 1 : at + 2] == " ":
            current.append(" ")
            at += 2
            continue
        if ch == " ":
            if current:
                atoms.append("".join(current))
                current = []
        else:
            current.append(ch)
        at += 1
    if current:
        atoms.append("".join(current))
    return atoms


def _atom(raw: str) -> Atom | None:
    """One atom. A backslash before its leading ``!``, ``'`` or ``^``, or before its trailing
    ``$``, makes that character plain text, as in fzf and nucleo (``\\!important`` looks for
    ``!important``); any other backslash is plain text itself."""
    negated = raw.startswith("!")
    body = raw[1:] if negated else raw
    plain_head = body[:1] == "\\" and body[1:2] in ("!", "'", "^")
    if plain_head:
        body = body[1:]
    plain_tail = body.endswith("\\$")
    if plain_tail:
        body = body[:-2] + "$"
    prefix = not plain_head and body.startswith("^")
    suffix = not plain_tail and body.endswith("$") and len(body) > 1
    if not plain_head and body.startswith("'"):
        kind, body = "exact", body[1:]
    elif prefix and suffix:
        kind, body = "line", body[1:-1]
    elif prefix:
        kind, body = "prefix", body[1:]
    elif suffix:
        kind, body = "suffix", body[:-1]
    else:
        kind = "exact" if negated else "fuzzy"
    if not body:
        return None
    return Atom(kind, body, negated)


class LineMatch(msgspec.Struct, frozen=True, gc=False):
    score: int
    #: (start, end) character spans to highlight, sorted, non-overlapping.
    highlights: tuple[tuple[int, int], ...]


class Pattern:
    """A parsed pattern; :meth:`match` scores one line (None when it does not match)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.literal = text.strip()
        self.case_sensitive = any(ch.isupper() for ch in text)
        self.atoms = tuple(a for a in (_atom(raw) for raw in _split_atoms(text)) if a)
        self.positive = tuple(a for a in self.atoms if not a.negated)
        #: Cheap exact tests first: a line failing one never pays for fuzzy alignment.
        self._checked = tuple(sorted(self.positive, key=lambda a: a.kind == "fuzzy"))
        self.negative = tuple(a for a in self.atoms if a.negated)

    @property
    def empty(self) -> bool:
        return not self.atoms

    def case_form(self, text: str) -> str:
        """``text`` as exact, prefix and suffix atoms compare it (smart case)."""
        return text if self.case_sensitive else text.lower()

    def fuzzy_form(self, text: str) -> str:
        """``text`` as fuzzy atoms compare it (smart case, diacritics folded)."""
        return text if self.case_sensitive else fold(text)

    def literal_needles(self) -> list[str]:
        """Substrings every matching line contains in folded form (for index narrowing)."""
        return [fold(a.text) for a in self.positive]

    def anchored(self) -> list[Atom]:
        """The atoms every matching line holds literally, whatever its fuzzy atoms match: the
        exact, prefix, suffix and whole-line ones. Only ASCII ones: folding them is
        lower-casing, which the trigram index ignores anyway."""
        return [a for a in self.positive if a.kind != "fuzzy" and a.text.isascii()]

    def match(self, line: str) -> LineMatch | None:
        spans: list[tuple[int, int]] = []
        score = self._scored(line, spans)
        return None if score is None else LineMatch(score, _merge(spans))

    def lone_fuzzy(self) -> str | None:
        """The text of the pattern's one atom, in fuzzy form, when it is a pattern of one
        fuzzy atom and nothing else (a line's score is then the atom's); else None."""
        if len(self.atoms) == 1 and self.atoms[0].kind == "fuzzy" and not self.negative:
            return self.fuzzy_form(self.atoms[0].text)
        return None

    def score(self, line: str) -> int | None:
        """``match(line).score``, without the highlights: for ranking many lines, of which
        only the few shown need them (a gapped match's spans cost as much as its score)."""
        return self._scored(line, None)

    def _scored(self, line: str, spans: list[tuple[int, int]] | None) -> int | None:
        if not self.atoms:
            return None
        cased = self.case_form(line)
        for atom in self.negative:
            if _plain(atom, cased, self.case_form(atom.text)) is not None:
                return None
        score = 0
        for atom in self._checked:
            if atom.kind == "fuzzy":
                found = _fuzzy(self.fuzzy_form(atom.text), self.fuzzy_form(line), spans is not None)
            else:
                found = _plain(atom, cased, self.case_form(atom.text))
            if found is None:
                return None
            score += found[0]
            if spans is not None:
                spans.extend(found[1])
        score = min(score, _FUZZY_CAP)
        if self.literal:
            literal = self.case_form(self.literal)
            at = cased.find(literal)
            if at >= 0:
                score += LITERAL_BONUS
                if spans is not None:
                    spans[:] = [(at, at + len(literal))]
        return score


def holds(atom: Atom, line: str, needle: str) -> bool:
    """Whether ``line`` satisfies the exact, prefix, suffix or whole-line ``atom`` (``needle``
    is its text in the pattern's case form, ``line`` too)."""
    if atom.kind == "prefix":
        return line.startswith(needle)
    if atom.kind == "suffix":
        return line.endswith(needle)
    if atom.kind == "line":
        return line == needle
    return needle in line


def _plain(atom: Atom, line: str, needle: str) -> tuple[int, list[tuple[int, int]]] | None:
    if atom.kind == "prefix":
        return (ATOM_MAX, [(0, len(needle))]) if line.startswith(needle) else None
    if atom.kind == "suffix":
        end = len(line)
        return (ATOM_MAX, [(end - len(needle), end)]) if line.endswith(needle) else None
    if atom.kind == "line":
        return (ATOM_MAX, [(0, len(line))]) if line == needle else None
    at = line.find(needle)
    return None if at < 0 else (ATOM_MAX, [(at, at + len(needle))])


def gapped_score(ratio: float) -> int:
    """A fuzzy atom's score for a gapped match of partial-ratio similarity ``ratio`` (0–100)."""
    return int(ratio * (ATOM_MAX - 1) / 100)


def _fuzzy(
    needle: str, line: str, with_spans: bool = True
) -> tuple[int, list[tuple[int, int]]] | None:
    at = line.find(needle)
    if at >= 0:  # contiguous: the maximum, without aligning anything
        return ATOM_MAX, [(at, at + len(needle))]
    # Imported here: a query whose lines hold its atoms as written never needs rapidfuzz.
    from rapidfuzz import fuzz
    from rapidfuzz.distance import LCSseq

    if len(needle) > len(line) or LCSseq.similarity(needle, line) < len(needle):
        return None
    aligned = fuzz.partial_ratio_alignment(needle, line)
    score = gapped_score(aligned.score) if aligned else 0
    return score, _subsequence_spans(needle, line) if with_spans else []


def _subsequence_spans(needle: str, line: str) -> list[tuple[int, int]]:
    """The leftmost occurrence of ``needle`` as a subsequence, as spans of consecutive hits."""
    spans: list[tuple[int, int]] = []
    position = 0
    for ch in needle:
        position = line.find(ch, position)
        if position < 0:
            return spans
        if spans and spans[-1][1] == position:
            spans[-1] = (spans[-1][0], position + 1)
        else:
            spans.append((position, position + 1))
        position += 1
    return spans


def _merge(spans: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return tuple(merged)
