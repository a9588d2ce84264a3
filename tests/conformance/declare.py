"""What a harness declares to the conformance suite: its fixture families, the Common transcripts
its codec holds exactly, what a hop through it may change, and the contracts it opts out of.

Each registered, built harness has one module ``tests/conformance/harnesses/<id>.py`` that
defines ``CONFORMANCE = Conformance(...)``. The suite (``tests/conformance/test_contracts.py``)
collects them and runs every contract of :data:`CONTRACTS` for every harness and family, with no
per-harness test code. A registered harness without a declaration, or with no family, fails the
suite. A harness skips a contract only by naming it in ``skips`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from txcript import model as m

#: Every contract the suite runs, by the name a ``skips`` entry uses.
CONTRACTS: dict[str, str] = {
    "store-round-trip": "load, save into a fresh root, load again: the same native body and text",
    "codec-fixpoint": "Common -> native -> Common is the identity on what the harness holds",
    "codec-deterministic": "from_common twice gives the same native body",
    "text-round-trip": "from_text(to_text(native)) == native, and to_text of it is the same text",
    "discovery-matches-load": "every field discovery lists is the one a full load gives",
    "reads-leave-store-untouched": "list, load and fingerprint change no byte, mtime or file",
    "write-preflight": "a write refused at its preflight writes nothing anywhere",
    "write-refused-halfway": "a write that fails after its first byte leaves nothing behind",
    "hostile-input": "damaged stores give one warning or one error line, never a traceback",
    "hostile-ids": "an id holding /, .., or a leading - is refused, or lands inside the root",
    "hop": "into every other writer and back keeps every call, result and is_error",
}


@dataclass(frozen=True)
class Family:
    """One format generation or store shape of a harness, laid out as its app lays it out.

    ``build(root)`` writes real files and real SQLite databases under ``root``, which is the
    store root that ``harness.store(root)`` opens (what the harness's root variable would name).
    It must give at least one session, and ``sessions`` of them when that is set.
    """

    name: str
    build: Callable[[Path], None]
    sessions: int | None = None


@dataclass(frozen=True)
class HopLimit:
    """What the target format cannot hold, declared once for every hop into it.

    ``normalize`` maps the exchange of the source (see ``contracts.exchange``: the texts, calls
    and results, with ``is_error``, in order) to what a faithful copy in this harness reads back.
    ``reason`` says why, in a sentence a user would understand.
    """

    reason: str
    normalize: Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]]


@dataclass(frozen=True)
class Conformance:
    harness: str
    families: tuple[Family, ...]
    #: Common transcripts this harness's codec holds exactly (the fixpoint's domain).
    representable: st.SearchStrategy[m.Transcript] | None = None
    #: contract name (a key of CONTRACTS) -> the documented reason this harness opts out.
    skips: Mapping[str, str] = field(default_factory=dict)
    #: What a hop into this harness may change (None: nothing).
    hop_limit: HopLimit | None = None
    #: The environment that points the real CLI at a store rooted at ``root`` (default: the
    #: harness's declared root variable set to ``root``).
    env: Callable[[Path], dict[str, str]] | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.skips) - set(CONTRACTS))
        if unknown:
            raise ValueError(f"{self.harness}: unknown contracts in skips: {unknown}")
        for contract, reason in self.skips.items():
            if not reason.strip():
                raise ValueError(f"{self.harness}: skipping {contract} needs a reason")
