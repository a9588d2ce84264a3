"""Finding sessions: every local store, documents on disk or stdin, and ``REF`` resolution.

A ``REF`` is a session id, a unique id prefix, an exact title, a path to a document (Simple,
Common JSON, or a harness's native text form), or ``-`` for standard input, optionally followed
by ``#RANGE``.
"""

from __future__ import annotations

import os
import stat
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cached_property, partial
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from txcript import harnesses
from txcript.diagnostics import SkippedFile, give_again, noticed, warn
from txcript.errors import Ambiguous, BadInput, NotFound, StoreError, TxcriptError, UnknownHarness
from txcript.fragment import (
    RangeRequest,
    Span,
    check_pairs,
    resolve,
    slice_transcript,
    split_fragment,
)
from txcript.harnesses.base import Discovered, Harness, lookup
from txcript.model import Transcript
from txcript.shared.files import MAX_DOCUMENT_BYTES, read_capped, read_regular
from txcript.shared.jsonutil import INVALID, loads_strict, try_loads
from txcript.shared.text import scrub

# ------------------------------------------------------------------------------- discovery

T = TypeVar("T")


def discover(
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    with_model: bool = True,
) -> list[Discovered]:
    """Every local session (or those of the named harnesses), newest first by start time.

    A store that cannot be read is skipped with a warning when scanning everything, and is an
    error when it was asked for by name. ``with_model=False`` is for a listing that shows no
    model: a store may then leave it out where reading it would cost extra.
    """
    chosen = chosen_harnesses(harness_names)
    found = _discover(chosen, explicit=bool(harness_names), with_model=with_model)
    if cwd is not None:
        inside = under(cwd)
        found = [d for d in found if d.cwd is not None and inside(d.cwd)]
    if since is not None:
        found = [d for d in found if d.timestamp >= since]
    if until is not None:
        found = [d for d in found if d.timestamp <= until]
    return found


def chosen_harnesses(harness_names: Sequence[str]) -> list[Harness[Any]]:
    """The harnesses named (every one with a store when none is); an unknown name, or one
    with no store, is bad input that names the harnesses that have one."""
    if not harness_names:
        return harnesses.with_stores()
    chosen = []
    for name in harness_names:
        try:
            harness = harnesses.get(name)
        except UnknownHarness:
            raise UnknownHarness(name, _store_ids()) from None
        if not harness.has_store:
            raise BadInput(
                f"{harness.id} has no store to list; harnesses with one: {', '.join(_store_ids())}"
            )
        chosen.append(harness)
    return chosen


def _store_ids() -> list[str]:
    return [harness.id for harness in harnesses.with_stores()]


def existing_root(harness: Harness[Any]) -> Path | None:
    """The root of the harness's store on this machine, or None when it does not exist."""
    root = harness.default_root()
    if root is None or not os.path.lexists(root) or not harness.store_present(root):
        return None
    return root


def existing_store(harness: Harness[Any]) -> Any:
    """The harness's store on this machine, or None when its root does not exist (nothing to
    find there; its store code is then not even imported)."""
    root = existing_root(harness)
    return None if root is None else harness.store(root)


_encode_listing = msgspec.json.Encoder().encode
_decode_listing = msgspec.json.Decoder(list[Discovered]).decode


def _listing(harness: Harness[Any], root: Path, *, with_model: bool) -> list[Discovered]:
    """The listing of the store at ``root``: the one kept in the metadata cache while the
    store's change token stands (nothing in it was written since; the store is then not even
    opened), else a discovery, kept for the next run unless it warned (a warning must be given
    again, so such a listing is made afresh each time)."""
    from txcript.harnesses.base import root_change_token
    from txcript.shared.cache import metadata_cache

    token = root_change_token(harness, root)
    cache = metadata_cache() if token else None
    scope = f"{harness.id}:{'model' if with_model else 'titles'}:{root}"
    if cache is not None:
        held = cache.held_listing(scope, token)
        if held is not None:
            try:
                return _decode_listing(held)
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass  # a damaged entry: list afresh and replace it
    store = harness.store(root)
    if store is None:
        return []
    listing = store.discover
    if not with_model:
        listing = getattr(store, "discover_titles", listing)
    if cache is None:
        return list(listing())
    with noticed() as said:
        found = list(listing())
    if not said:
        cache.hold_listing(scope, token, _encode_listing(found))
    return found


def _discover(
    chosen: Sequence[Harness[Any]],
    *,
    explicit: bool,
    known: dict[str, list[Discovered]] | None = None,
    with_model: bool = True,
) -> list[Discovered]:
    """Every session of the ``chosen`` stores, newest first; ``known`` holds stores' listings
    already made in this run (by harness id), which are not made again."""
    found: list[Discovered] = []
    for harness in chosen:
        if known is not None and harness.id in known:
            found.extend(known[harness.id])
            continue
        root = existing_root(harness)
        if root is not None:
            found.extend(
                store_listing(harness, root, explicit=explicit, with_model=with_model) or ()
            )
    found.sort(key=lambda d: d.timestamp, reverse=True)
    return collapse_mirrors(found, chosen)


def collapse_mirrors(found: list[Discovered], chosen: Sequence[Harness[Any]]) -> list[Discovered]:
    """``found`` with each session once: a harness that mirrors others (its declaration's
    ``mirrors``, such as Cursor's agent transcripts) loses its copy of a session that one of
    those, searched too, holds under the same id, and the holder's entry names it in
    ``also_in``. The richer store wins: the copy has no tool results, no cwd and no times."""
    searched = {harness.id for harness in chosen}
    richer = {
        harness.id: owners
        for harness in chosen
        if (owners := [owner for owner in harness.info.mirrors if owner in searched])
    }
    if not richer:
        return found
    held = {(d.harness, d.meta_id) for d in found if d.harness not in richer}
    copies: dict[tuple[str, str], list[str]] = {}
    kept: list[Discovered] = []
    for session in found:
        mirrored = richer.get(session.harness, ())
        owner = next((o for o in mirrored if (o, session.meta_id) in held), None)
        if owner is None:
            kept.append(session)
            continue
        named = copies.setdefault((owner, session.meta_id), [])
        if session.harness not in named:
            named.append(session.harness)
    if not copies:
        return found
    return [
        msgspec.structs.replace(session, also_in=(*session.also_in, *also))
        if (also := copies.get((session.harness, session.meta_id)))
        else session
        for session in kept
    ]


def store_listing(
    harness: Harness[Any], root: Path, *, explicit: bool, with_model: bool = True
) -> list[Discovered] | None:
    """The sessions of the store at ``root`` (see :func:`_listing`); None when the store failed
    (see :func:`guarded`)."""
    return guarded(
        harness, partial(_listing, harness, root, with_model=with_model), explicit=explicit
    )


def guarded(harness: Harness[Any], work: Callable[[], T], *, explicit: bool) -> T | None:
    """``work()``, a read of the harness's store. A store that fails is an error when it was
    asked for by name (``explicit``), else skipped with a warning (one broken store must not
    hide every other harness) and None."""
    try:
        return work()
    except TxcriptError as exc:
        if explicit:
            raise
        warn(f"skipping {harness.id}: {exc}")
    except Exception as exc:
        if explicit:
            raise
        warn(f"skipping {harness.id}: {type(exc).__name__}: {exc}")
    return None


Held = list[warnings.WarningMessage]


def _looked_up(
    source: str, chosen: Sequence[Harness[Any]], known: dict[str, list[Discovered]]
) -> tuple[list[Discovered] | None, Held, Held]:
    """Every session whose id starts with ``source``, newest first as discovery orders them,
    found by each store's direct lookup (a store without one is discovered, and its listing
    kept in ``known``). None when any store fails: discovery then reports it as it always does.

    The warnings are held back, for the caller to give once: those of the direct lookups, which
    a fallback discovery would give again as it reads those stores, and those of the stores
    listed into ``known``, which it does not read again."""
    matches: list[Discovered] = []
    by_lookup: Held = []
    by_listing: Held = []
    for harness in chosen:
        with warnings.catch_warnings(record=True) as held:
            warnings.simplefilter("always")
            try:
                store = existing_store(harness)
                found = None if store is None else lookup(store, source)
                if store is not None and found is None:
                    known[harness.id] = listed = store.discover()
                    found = [d for d in listed if d.meta_id.startswith(source)]
            except Exception:  # discovery decides what a failing store means
                return None, by_lookup, by_listing
        (by_listing if harness.id in known else by_lookup).extend(held)
        matches.extend(found or ())
    matches.sort(key=lambda d: d.timestamp, reverse=True)
    return collapse_mirrors(matches, chosen), by_lookup, by_listing


def sessions_with_id(session_id: str, harness_names: Sequence[str] = ()) -> list[Discovered] | None:
    """Every session whose id is exactly ``session_id`` in the named stores (or all), newest
    first, found by each store's direct lookup. None when a store failed (only a full discovery
    can tell what that means). The lookups' warnings are given when some session has that id;
    otherwise the discovery a caller falls back on gives them, once."""
    if not session_id:
        return None
    matches, by_lookup, by_listing = _looked_up(session_id, chosen_harnesses(harness_names), {})
    exact = None if matches is None else [m for m in matches if m.meta_id == session_id]
    if exact:
        give_again(by_lookup + by_listing)
    return exact


def direct_session(source: str, matches: list[Discovered]) -> Discovered | None:
    """The session ``matches`` (every session whose id starts with ``source``) decide without
    any title: the newest with exactly that id, else the only id the prefix names. None when
    only a full discovery can tell (a title, nothing found, or several ids)."""
    for session in matches:
        if session.meta_id == source:
            return session
    if len({(m.harness, m.meta_id) for m in matches}) == 1:
        return matches[0]
    return None


def _canonical(path: str) -> Path:
    """``path`` absolute, with symlinks resolved as far as it exists and ``.``, ``..`` and
    doubled slashes gone from the rest: a session's cwd is often a directory that is not here
    (deleted since, or on another machine), and ``--cwd`` names it as the user types it."""
    candidate = Path(path).expanduser()
    try:
        return candidate.resolve()
    except (OSError, RuntimeError, ValueError):  # (ValueError: a NUL, which no path holds)
        return Path(os.path.abspath(candidate))


def is_under(path: str, directory: str) -> bool:
    """Is ``path`` the directory or inside it? Compared by component, symlinks resolved."""
    return under(directory)(path)


def under(directory: str) -> Callable[[str], bool]:
    """:func:`is_under` ``directory``, as a test of one path: the directory is resolved once,
    and each distinct path once (a store's sessions share a few cwds; resolving costs a
    system call per component, and a filter runs over every session)."""
    outer = _canonical(directory).parts
    seen: dict[str, bool] = {}

    def test(path: str) -> bool:
        found = seen.get(path)
        if found is None:
            found = seen[path] = _canonical(path).parts[: len(outer)] == outer
        return found

    return test


# ------------------------------------------------------------------------------- documents


class Document(msgspec.Struct, frozen=True):
    """A session read from a file or stdin rather than from a store."""

    harness: Harness[Any]
    native: Any
    label: str
    #: The file stem, for a regular file; fills an empty session id.
    stem: str | None


def _read_bytes(path: str) -> tuple[bytes, str, str | None]:
    """A document's bytes, at most :data:`MAX_DOCUMENT_BYTES` of them (checked before decoding).

    A regular file is read through :func:`read_regular`. Standard input and a pipe the user
    names (``<(…)``) are streams the user chose to hand over: they are read until EOF, capped.
    """
    if path == "-":
        return read_capped(sys.stdin.buffer, MAX_DOCUMENT_BYTES, "stdin"), "stdin", None
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise NotFound(f"reading {path}: no such file") from None
    except OSError as exc:
        raise BadInput(f"reading {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise BadInput(f"reading {path}: is a directory, not a session document")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):
        raise BadInput(f"reading {path}: is a device, not a session document")
    try:
        if stat.S_ISFIFO(mode):
            with open(path, "rb") as handle:
                data = read_capped(handle, MAX_DOCUMENT_BYTES, path)
        else:
            data = read_regular(path, limit=MAX_DOCUMENT_BYTES)
    except StoreError as exc:
        raise BadInput(str(exc)) from None
    except OSError as exc:
        raise BadInput(f"reading {path}: {exc.strerror or exc}") from None
    stem = Path(path).stem if stat.S_ISREG(mode) else None
    return data, path, stem


def read_raw(path: str) -> tuple[bytes, str]:
    """The bytes of a document path (or ``-`` for stdin) and the label errors name it by."""
    data, label, _ = _read_bytes(path)
    return data, label


def parse_document(
    data: bytes, label: str, harness_name: str | None = None
) -> tuple[Harness[Any], Any]:
    """Parse document bytes as ``harness_name``'s text form, or sniff which format it is.

    Decoding takes several times the document's size in memory; running out (a memory limit,
    ``ulimit -v``) is a one-line error naming the document, not a crash.
    """
    try:
        return _parse_document(data, label, harness_name)
    except MemoryError:
        raise TxcriptError(
            f"reading {label}: out of memory decoding a {len(data) / 1e6:.1f} MB document "
            "(free memory or raise the memory limit; nothing was written)"
        ) from None


def _parse_document(data: bytes, label: str, harness_name: str | None) -> tuple[Harness[Any], Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"reading {label}: not valid UTF-8 (byte {exc.start})") from None
    # A byte-order mark (Windows editors write one) is not part of the document.
    text = text.removeprefix("\ufeff")
    if harness_name is not None:
        harness = harnesses.get(harness_name)
        return harness, harness.from_text(text)
    try:
        value = loads_strict(text)
    except ValueError as exc:
        line_based = _sniff_lines(text)
        if line_based is not None:
            return line_based, line_based.from_text(text)
        raise BadInput(f"reading {label}: not valid JSON: {exc}") from None
    for harness in _sniff_order():
        if harness.sniff(value):
            return harness, harness.from_text(text)
    # Nothing recognises it: Simple, the most forgiving format, says precisely what is missing.
    simple = harnesses.get("simple")
    return simple, simple.from_text(text)


def _sniff_lines(text: str, limit: int = 20) -> Harness[Any] | None:
    """The harness whose line-based (JSONL) text form this is, judged by its first lines."""
    values = []
    for line in text.splitlines():
        if line.strip():
            value = try_loads(line)
            if value is not INVALID:
                values.append(value)
            if len(values) >= limit:
                break
    if not values:
        return None
    for harness in _sniff_order():
        if harness.sniff_lines(values):
            return harness
    return None


def _sniff_order() -> list[Harness[Any]]:
    """Common first (what documents usually are), Simple last: its sniff takes any object with a
    ``messages`` list, which a harness's own document (a legacy Gemini chat) can also be, and the
    harnesses' sniffs match their exact shapes."""
    common, simple = harnesses.get("common"), harnesses.get("simple")
    middle = [h for h in harnesses.implemented() if h not in (common, simple)]
    return [common, *middle, simple]


def read_document(path: str, harness_name: str | None = None) -> Document:
    data, label, stem = _read_bytes(path)
    harness, native = parse_document(data, label, harness_name)
    return Document(harness=harness, native=native, label=label, stem=stem)


def _is_document_path(path: str) -> bool:
    if path == "-":
        return True
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


# ------------------------------------------------------------------------------ resolution


class Opened(msgspec.Struct, frozen=True, dict=True):
    """A resolved ``REF``: where it came from, its native body, and the requested range.

    ``dict=True`` gives the frozen struct the ``__dict__`` that :attr:`transcript` is cached in
    (outside the fields, so it is in no comparison and no repr).
    """

    harness: Harness[Any]
    native: Any
    label: str
    request: RangeRequest | None
    session: Discovered | None = None
    document: Document | None = None

    @cached_property
    def transcript(self) -> Transcript:
        """The whole session in Common form (computed once)."""
        transcript = self.harness.to_common(self.native)
        stem = self.document.stem if self.document else None
        if not transcript.meta.id and stem:
            meta = msgspec.structs.replace(transcript.meta, id=stem)
            transcript = msgspec.structs.replace(transcript, meta=meta)
        return transcript

    def span(self) -> Span:
        count = len(self.transcript.messages)
        return Span(0, count) if self.request is None else resolve(self.request, count)

    def sliced(self, *, check_tool_pairs: bool) -> tuple[Transcript, Span]:
        """The transcript cut to the requested range (the whole session without one)."""
        transcript = self.transcript
        span = self.span()
        if self.request is None:
            return transcript, span
        if check_tool_pairs:
            check_pairs(transcript.messages, span)
        return slice_transcript(transcript, span), span


#: An ambiguous REF's error names at most this many candidates, each title cut to
#: :data:`CANDIDATE_TITLE` characters: a prefix shared by hundreds of sessions, or a title of a
#: pasted paragraph, must not flood the one error line.
CANDIDATES = 10
CANDIDATE_TITLE = 60


def _candidate_title(title: str) -> str:
    shown = " ".join(scrub(title).split())
    return shown if len(shown) <= CANDIDATE_TITLE else shown[: CANDIDATE_TITLE - 1] + "…"


def _ambiguous(source: str, what: str, matches: list[Discovered]) -> Ambiguous:
    shown = "; ".join(
        f"{m.harness} {scrub(m.meta_id)}" + (f" ({_candidate_title(m.title)})" if m.title else "")
        for m in matches[:CANDIDATES]
    )
    more = f"; and {len(matches) - CANDIDATES} more" if len(matches) > CANDIDATES else ""
    return Ambiguous(
        f"`{scrub(source)}` {what} {len(matches)} sessions — be more specific: {shown}{more}"
    )


def find_session(
    source: str, sessions: Iterable[Discovered], scope: str | None, *, unique_title: bool = False
) -> Discovered:
    """Exact id or title first (newest wins), then a unique id prefix.

    With ``unique_title`` (for destructive commands) a title shared by several sessions is
    ambiguous instead of naming the newest.
    """
    candidates = list(sessions)
    for session in candidates:
        if session.meta_id == source:
            return session
    titled = [s for s in candidates if s.title == source]
    if len(titled) > 1 and unique_title:
        raise _ambiguous(source, "is the title of", titled)
    if titled:
        return titled[0]
    if source:
        by_id: dict[tuple[str, str], Discovered] = {}
        for session in candidates:
            if session.meta_id.startswith(source):
                by_id.setdefault((session.harness, session.meta_id), session)
        if len(by_id) == 1:
            return next(iter(by_id.values()))
        if len(by_id) > 1:
            raise _ambiguous(source, "prefixes the ids of", list(by_id.values()))
    where = f" {scope}" if scope else ""
    raise NotFound(f"no local{where} session matches `{scrub(source)}` (try `txcript list`)")


def load_session(session: Discovered) -> tuple[Harness[Any], Any]:
    harness = harnesses.get(session.harness)
    store = harness.store()
    if store is None:
        raise BadInput(f"{harness.id} has no store on this machine")
    return harness, store.load(session.reference)


def open_reference(
    reference: str, from_harness: str | None = None, *, documents: bool = True
) -> Opened:
    """Resolve a ``REF[#RANGE]`` to a document or a stored session.

    With ``documents=False`` the reference only ever names a stored session (id, id prefix or
    title): it is never opened as a file, nor ``-`` as standard input. The MCP server asks so:
    its ids come from an agent, which must not read any file the user can (nor a FIFO that
    never ends, nor the server's own stdin, which is its JSON-RPC channel).
    """
    source, request = split_fragment(reference)
    if documents:
        if _is_document_path(reference):
            document = read_document(reference, _document_format(from_harness))
            return Opened(
                document.harness, document.native, document.label, None, document=document
            )
        if request is not None and _is_document_path(source):
            document = read_document(source, _document_format(from_harness))
            return Opened(
                document.harness, document.native, document.label, request, document=document
            )
        if os.path.isdir(reference):
            raise BadInput(f"reading {reference}: is a directory, not a session document")
    scope = harnesses.canonical_id(from_harness) if from_harness else None
    session, request = _resolve(reference, source, request, scope, documents=documents)
    harness, native = load_session(session)
    if scope is None and harness.info.mirrors:
        owners = " or ".join(harnesses.info(owner).name for owner in harness.info.mirrors)
        warn(
            f"session {scrub(session.meta_id)} is read from {harness.name}, a copy without tool "
            f"results, working directory or times: no {owners} store here holds it"
        )
    label = f"{session.harness} session {session.meta_id}"
    return Opened(harness, native, label, request, session=session)


def _resolve(
    reference: str,
    source: str,
    request: RangeRequest | None,
    scope: str | None,
    *,
    documents: bool = True,
) -> tuple[Discovered, RangeRequest | None]:
    """The stored session ``reference`` names (``source`` and ``request`` are its fragment
    split), and the range that still applies.

    An id or a unique id prefix is looked up directly in each store; only a title, an unknown
    name or an ambiguous prefix pays for a full discovery, which decides exactly as before.
    """
    chosen = chosen_harnesses([scope] if scope else ())
    known: dict[str, list[Discovered]] = {}
    matches, by_lookup, by_listing = _looked_up(source, chosen, known) if source else (None, [], [])
    if matches is not None:
        answer: tuple[Discovered, RangeRequest | None] | None = None
        if request is not None:
            # The whole input names a session by its id: it wins over the split (§1.3). Its
            # id starts with ``source``, so it is among the matches.
            whole = next((m for m in matches if m.meta_id == reference), None)
            if whole is not None:
                answer = whole, None
        direct = direct_session(source, matches)
        if answer is None and direct is not None:
            answer = direct, request
        if answer is not None:
            give_again(by_lookup + by_listing)
            return answer
    # (The stores looked up directly are read again, and say their warnings again.)
    said: Held = list(by_listing)
    try:
        with warnings.catch_warnings(record=True) as listed:
            warnings.simplefilter("always")
            sessions = _discover(chosen, explicit=scope is not None, known=known)
    finally:
        said += listed
    if request is not None:
        whole_matches = [s for s in sessions if reference in (s.meta_id, s.title)]
        if whole_matches:
            source, request = reference, None
    try:
        found = find_session(source, sessions, scope), request
    except BadInput:
        unreadable = _unreadable_file(source, said)
        give_again(
            w
            for w in said
            if unreadable is None
            or not (isinstance(w.message, SkippedFile) and w.message.path == unreadable.path)
        )
        if unreadable is not None:
            raise BadInput(f"reading {unreadable.path}: {unreadable.reason}") from None
        elsewhere = _held_elsewhere(source, scope) if scope is not None else []
        if elsewhere:
            named = " or ".join(f"--from {h}" for h in elsewhere)
            raise NotFound(
                f"no local {scope} session matches `{scrub(source)}`; a {elsewhere[0]} session "
                f"has that id (did you mean {named}?)"
            ) from None
        if documents and ("/" in reference or "\\" in reference):
            raise NotFound(
                f"no local session matches `{scrub(reference)}`, and no such file exists"
            ) from None
        raise
    give_again(said)
    return found


def _held_elsewhere(source: str, scope: str) -> list[str]:
    """The other harnesses holding a session whose id starts with ``source`` (for ``--from
    cursor`` given a Cursor desktop id), by their direct lookups; their warnings are not given
    (this only shapes an error)."""
    if not source:
        return []
    others = [h for h in harnesses.with_stores() if h.id != scope]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        matches, _, _ = _looked_up(source, others, {})
    return list(dict.fromkeys(m.harness for m in matches or ()))


def _unreadable_file(source: str, said: Held) -> SkippedFile | None:
    """The one file a store skipped as unreadable whose name holds ``source``, when ``source``
    names no session: the error then names that file, and why, rather than saying that no
    session matches (and its warning is not given besides)."""
    if not source:
        return None
    skipped = [
        w.message
        for w in said
        if isinstance(w.message, SkippedFile) and source in os.path.basename(w.message.path)
    ]
    return skipped[0] if len({s.path for s in skipped}) == 1 else None


def _document_format(from_harness: str | None) -> str | None:
    """``--from`` names the document's format when given (e.g. a native text form)."""
    if from_harness is None:
        return None
    return harnesses.canonical_id(from_harness)
