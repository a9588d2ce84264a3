"""What a harness declares to the conformance suite: its fixture families, the Common transcripts
its codec holds exactly, what a hop through it may change, and the contracts it opts out of.

Each registered, built harness has one module ``tests/conformance/harnesses/<id>.py`` that
defines ``CONFORMANCE = Conformance(...)``. The suite (``tests/conformance/test_contracts.py``)
collects them and runs every contract of :data:`CONTRACTS` for every harness and family, with no
per-harness test code. A registered harness without a declaration, or with no family, fails the
suite. A harness skips a contract only by naming it in ``skips`` with the reason.

Declaration modules import from here as ``from declare import Conformance, Family, HopLimit``
(``tests/conformance`` is on ``sys.path`` while the suite runs), and make their fixture modules
importable with :func:`use_fixtures`. ``tests/conformance/README.md`` explains the contracts.

**Where a family's store is built.** The suite gives ``build`` the harness's default root under a
fresh home: ``Root.under(home)`` of the registry entry (``<home>/.claude``,
``<home>/.config/Cursor/User``, ``<home>/.local/share/opencode``, ``<home>/.gemini``, ...; for a
store with no default place, such as the Claude account export, ``<home>/<id>``). The real
CLI is pointed at it with ``HOME=<home>`` plus the declared root variable naming it (with the
entry's ``env_suffix`` taken off: ``GEMINI_CLI_HOME=<home>``), or with :attr:`Conformance.env`
where that variable means something else (OpenCode's names one database file).

**A document format** (a harness without a store, such as Simple) declares families too: its
``build(root)`` writes documents, one file per session, under ``root`` (``<home>/documents``),
and the suite reads each regular file with the harness's ``from_text``. Its store contracts are
skipped, each with the reason ``NO_STORE``.

Additions since the first version (all optional, so older declarations stay valid; the two
contracts whose one-line description changed keep their names: ``text-round-trip`` compares the
Common a text reads to, since a native body may hold what the text does not, see
:class:`StoreFacts`; ``hostile-input`` allows one line more than the warning or error, such as
a call the damage left without its result):
:func:`use_fixtures`, :attr:`Conformance.fresh_root`, :attr:`Conformance.store_facts` and
:attr:`Conformance.text_facts` (:class:`StoreFacts`), :attr:`Family.skips` and
:attr:`Family.fresh_root`, :data:`NO_STORE`, :data:`READ_ONLY`, :func:`replaced`, the hop
normalizers (:func:`composed`,
:func:`each_result_with_its_call`, :func:`results_in_call_order`, :func:`unsigned_thinking`,
:func:`commands_as_prompts`, :func:`without_commands`, :func:`closed_calls`,
:func:`text_before_calls`, :func:`tool_fields`, :func:`user_texts_joined`), the document families
above.

**The exchange** a hop compares (``contracts.exchange``) is a list of tuples, in order:
``("text", role, text)``, ``("thinking", text, signed)``, ``("call", n, tool)`` with ``n`` the
call's number by order of appearance and ``tool`` in its canonical typed form, and
``("result", n, text, is_error)``. A :class:`HopLimit` maps the source's exchange to what the
target reads back; calls are numbered again after it, so a limit may drop a call.
"""

from __future__ import annotations

import dataclasses
import sys
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
    "text-round-trip": "from_text(to_text(native)) gives the same text and the same Common",
    "discovery-matches-load": "every field discovery lists is the one a full load gives",
    "reads-leave-store-untouched": "list, load and fingerprint change no byte, mtime or file",
    "write-preflight": "a write refused at its preflight writes nothing anywhere",
    "write-refused-halfway": "a write that fails after its first byte leaves nothing behind",
    "hostile-input": "damaged stores give one warning or error line (and one more), no traceback",
    "hostile-ids": "an id holding /, .., or a leading - is refused, or lands inside the root",
    "hop": "into every other writer and back keeps every call, result and is_error",
}


#: The reason every store contract of a document format (no store) is skipped with.
NO_STORE = "a document format: no store"
#: The reason a read-only source skips the contracts that need a writer.
READ_ONLY = "read-only source: no writer"

TESTS = Path(__file__).resolve().parents[1]


def use_fixtures(*directories: str) -> None:
    """Make the fixture modules of ``tests/<directory>`` importable (``claude_code``,
    ``cursor_desktop``, ...), as pytest does for the test files beside them."""
    for directory in directories:
        path = str(TESTS / directory)
        if path not in sys.path:
            sys.path.insert(0, path)


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
    #: contract -> the documented reason this generation opts out (e.g. a generation the store
    #: reads but never writes).
    skips: Mapping[str, str] = field(default_factory=dict)
    #: What an empty root for this generation holds before a save (default:
    #: :attr:`Conformance.fresh_root`), e.g. a database of this generation's schema.
    fresh_root: Callable[[Path], None] | None = None


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
class StoreFacts:
    """What a native body holds from beside the session's own records: a file's name or mtime,
    a cwd resolved from the project directory or the current one, files kept next to it, a row
    its store synthesizes when it writes one.

    As :attr:`Conformance.store_facts`, the facts a copy saved into a fresh root cannot keep (the
    store round trip compares bodies without them); as :attr:`Conformance.text_facts`, the facts
    the text form does not hold (the text round trip compares the Common of bodies without them).
    ``strip(native)`` returns the body without them; ``reason`` names each and where it is from.
    """

    reason: str
    strip: Callable[[Any], Any]


def replaced(native: Any, **changes: Any) -> Any:
    """A copy of a native body (a dataclass or a msgspec struct) with ``changes``: for
    :attr:`StoreFacts.strip`."""
    if dataclasses.is_dataclass(native) and not isinstance(native, type):
        return dataclasses.replace(native, **changes)
    import msgspec

    return msgspec.structs.replace(native, **changes)


Exchange = list[tuple[Any, ...]]


def each_result_with_its_call(items: Exchange) -> Exchange:
    """A store that keeps a call and its result in one record gives each result right after its
    call: a parallel batch ``A B rA rB`` comes back ``A rA B rB``."""
    calls = {item[1] for item in items if item[0] == "call"}
    results = {item[1]: item for item in items if item[0] == "result" and item[1] in calls}
    out: Exchange = []
    for item in items:
        if item[0] == "result" and item[1] in calls:
            continue
        out.append(item)
        if item[0] == "call" and item[1] in results:
            out.append(results[item[1]])
    return out


def results_in_call_order(items: Exchange) -> Exchange:
    """A store that keeps each result on its call's record but still writes a batch's calls
    before its results gives the results of a batch in the order of its calls (``A B rB rA``
    comes back ``A B rA rB``): every run of results is sorted by the call it answers."""
    out: Exchange = []
    run: Exchange = []
    for item in [*items, ("end",)]:
        if item[0] == "result":
            run.append(item)
            continue
        out.extend(sorted(run, key=lambda result: result[1]))
        run = []
        if item[0] != "end":
            out.append(item)
    return out


def composed(*steps: Callable[[Exchange], Exchange]) -> Callable[[Exchange], Exchange]:
    """The normalizers applied one after the other (for one :class:`HopLimit`)."""

    def apply(items: Exchange) -> Exchange:
        for step in steps:
            items = step(items)
        return items

    return apply


def user_texts_joined(items: Exchange) -> Exchange:
    """A store that keeps one text per user turn joins a user message's texts (a prompt and the
    environment details an extension adds as a block of its own) with a blank line; two user
    messages in a row stay two."""
    out: Exchange = []
    for item in items:
        if (
            item[0] == "text"
            and item[1] == "user"
            and out
            and out[-1][:2] == ("text", "user")
            and _same_message(out[-1][2], item[2])
        ):
            joined: Any = f"{out[-1][2]}\n\n{item[2]}"
            if hasattr(item[2], "message"):
                joined = type(item[2])(joined, item[2].message)
            out[-1] = ("text", "user", joined)
        else:
            out.append(item)
    return out


def _same_message(first: Any, second: Any) -> bool:
    """Were these two texts said in one message (``contracts.Said`` knows; a plain string, as
    a hand-written exchange holds, is taken to be)?"""
    return getattr(first, "message", None) == getattr(second, "message", None)


def unsigned_thinking(items: Exchange) -> Exchange:
    """Reasoning is kept without the signature another vendor's API gave it."""
    return [("thinking", i[1], False) if i[0] == "thinking" else i for i in items]


def _command_calls(items: Exchange) -> set[Any]:
    from txcript.model import Command

    return {i[1] for i in items if i[0] == "call" and isinstance(i[2], Command)}


def commands_as_prompts(items: Exchange) -> Exchange:
    """A slash command the user ran has no record of its own: it is written as the prompt text
    that ran it (``/memory show``), and its output as the user's text after it."""
    commands = _command_calls(items)
    out: Exchange = []
    for item in items:
        if item[0] == "call" and item[1] in commands:
            tool = item[2]
            out.append(
                (
                    "text",
                    "user",
                    tool.command if tool.args is None else f"{tool.command} {tool.args}",
                )
            )
        elif item[0] == "result" and item[1] in commands:
            out.append(("text", "user", item[2]))
        else:
            out.append(item)
    return out


def without_commands(items: Exchange) -> Exchange:
    """A slash command the user ran (a user-side call) and its output are left out."""
    commands = _command_calls(items)
    return [i for i in items if not (i[0] in ("call", "result") and i[1] in commands)]


def closed_calls(text: str, *, at_the_end: bool) -> Callable[[Exchange], Exchange]:
    """A call without a result gets an error result saying so (``text``), after the results of
    its batch: only when anything follows it, or also at the end with ``at_the_end``."""

    def close(items: Exchange) -> Exchange:
        # (A slash command the user ran is no model's call: nothing answers it.)
        answered = {i[1] for i in items if i[0] == "result"} | _command_calls(items)
        out: Exchange = []
        waiting: list[Any] = []
        for item in items:
            if waiting and item[0] not in ("call", "result"):
                out.extend(("result", n, text, True) for n in waiting)
                waiting = []
            out.append(item)
            if item[0] == "call" and item[1] not in answered:
                waiting.append(item[1])
        if waiting and at_the_end:
            out.extend(("result", n, text, True) for n in waiting)
        return out

    return close


def text_before_calls(items: Exchange) -> Exchange:
    """A message holds its text and thinking before its calls: an assistant text or thinking
    right after a call (no result between, so the same message) moves before that message's
    calls."""
    out: Exchange = []
    for item in items:
        speaks = item[0] == "thinking" or (item[0] == "text" and item[1] == "assistant")
        if speaks and out and out[-1][0] == "call":
            start = len(out)
            while start > 0 and out[start - 1][0] == "call":
                start -= 1
            out.insert(start, item)
        else:
            out.append(item)
    return out


def tool_fields(kind: type, **kept_as: Any) -> Callable[[Exchange], Exchange]:
    """A tool of ``kind`` keeps only some of its fields: each named field is set to the value
    given (its default), e.g. ``tool_fields(Bash, description=None)``."""

    def keep(items: Exchange) -> Exchange:
        return [
            ("call", i[1], replaced(i[2], **kept_as))
            if i[0] == "call" and isinstance(i[2], kind)
            else i
            for i in items
        ]

    return keep


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
    #: harness's declared root variable set to ``root``; ``HOME`` is always set to the home the
    #: store was built under).
    env: Callable[[Path], dict[str, str]] | None = None
    #: What an empty store root must hold before the first save into it (OpenCode: a database
    #: of the current schema); None when a save into an empty directory creates everything.
    fresh_root: Callable[[Path], None] | None = None
    #: What a session saved into a fresh root cannot keep (see :class:`StoreFacts`).
    store_facts: StoreFacts | None = None
    #: What a native body holds that its text form does not (see :class:`StoreFacts`).
    text_facts: StoreFacts | None = None

    def __post_init__(self) -> None:
        for where, skips in [("", self.skips), *((f" {f.name}", f.skips) for f in self.families)]:
            unknown = sorted(set(skips) - set(CONTRACTS))
            if unknown:
                raise ValueError(f"{self.harness}{where}: unknown contracts in skips: {unknown}")
            for contract, reason in skips.items():
                if not reason.strip():
                    raise ValueError(f"{self.harness}{where}: skipping {contract} needs a reason")
