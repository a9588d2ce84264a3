"""The public library API: what ``import txcript`` offers, built on the internals.

Every name here is re-exported lazily by :mod:`txcript` (see its ``__all__``); the CLI and the
MCP server call these same functions. Records are frozen msgspec Structs: typed, comparable,
and cheap to build for thousands of sessions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import msgspec

from txcript.errors import BadInput

if TYPE_CHECKING:
    from txcript.harnesses.base import Discovered
    from txcript.model import Transcript
    from txcript.shared.backups import Backup

Format = Literal["common", "simple", "markdown", "html", "native"]
FORMATS: tuple[str, ...] = ("common", "simple", "markdown", "html", "native")


class HarnessEntry(msgspec.Struct, frozen=True):
    """A harness this build knows: whether it reads and writes, and where its store is."""

    id: str
    name: str
    #: Sessions can be read from it (every listed harness: its store, or its documents).
    reads: bool
    #: Sessions can be written into its store (``save``, ``continue --with``).
    writes: bool
    #: Where its store lives on this machine (None: no store, or no default place).
    root: Path | None


class Session(msgspec.Struct, frozen=True):
    """One stored session, as a listing gives it (nothing but its head is read)."""

    harness: str
    id: str
    title: str | None
    cwd: str | None
    model: str | None
    #: The git branch it was recorded on, where the store says.
    git_branch: str | None
    #: When the session started (timezone-aware).
    created: datetime
    #: When it was last written, where the store says (timezone-aware).
    updated: datetime | None
    #: The session that spawned this one (a sub-agent's), where there is one.
    parent: str | None = None
    #: How many messages it holds, where the store knows without reading it.
    messages: int | None = None
    #: Where it came from within its harness (Hermes: ``cli``, ``telegram`` …).
    kind: str | None = None
    #: The account it belongs to, in a store that keeps several (Cowork).
    account: str | None = None


class Hit(msgspec.Struct, frozen=True):
    """One matching line of a session."""

    #: The 1-based message number (``view ID#N`` shows it); None for the title, cwd or branch.
    message: int | None
    #: What said it: ``user``, ``assistant``, ``thinking``, ``tool_use``, ``tool_result`` or
    #: ``meta``.
    origin: str
    line: str
    #: Which block of the message's content the line is in (0 for a message of plain text).
    block: int = 0
    #: How well the line matches (the session's score is its best lines').
    score: int = 0
    #: The ``(start, end)`` character spans of ``line`` that the pattern matched.
    highlights: tuple[tuple[int, int], ...] = ()


class Match(msgspec.Struct, frozen=True):
    """A session that matches a search, with its best lines."""

    session: Session
    score: int
    hits: tuple[Hit, ...]


class Resume(msgspec.Struct, frozen=True):
    """How to go on with a written copy: run ``argv`` in ``cwd`` with ``env`` added."""

    argv: tuple[str, ...]
    #: The directory to run it in (None: anywhere; the harness finds the copy by id).
    cwd: Path | None
    #: Variables it needs: the store override of a copy written under ``out``.
    env: dict[str, str]


class Saved(msgspec.Struct, frozen=True):
    """What :func:`save` wrote: the copy's id and place, how to resume it, and how to undo it."""

    harness: str
    id: str
    #: Where the copy lives: a file, or a database and the row that holds it.
    location: str
    resume: Resume
    #: The backup ``restore`` undoes the write with (None: the store took none; a new file
    #: store copy is undone by deleting it).
    backup: str | None
    #: The title the harness shows for the copy.
    title: str | None
    #: What the write changed or noticed (a cwd that does not exist here, an id re-shaped …).
    notes: tuple[str, ...] = ()


def _session(found: Discovered) -> Session:
    return Session(
        harness=found.harness,
        id=found.meta_id,
        title=found.title,
        cwd=found.cwd,
        model=found.model,
        git_branch=found.git_branch,
        created=found.timestamp,
        updated=found.updated_at,
        parent=found.parent,
        messages=found.message_count,
        kind=found.kind,
        account=found.account,
    )


def _names(harness: str | Sequence[str] | None) -> tuple[str, ...]:
    if harness is None:
        return ()
    return (harness,) if isinstance(harness, str) else tuple(harness)


def _moment(value: datetime | str | None, *, end: bool) -> datetime | None:
    """An aware datetime for a ``since``/``until`` bound: a datetime (a naive one is local time),
    or any text ``--since``/``--until`` take (``2026-12-01``, ``7d``, ``yesterday``)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.astimezone()
    from txcript.shared.timeutil import parse_when

    return parse_when(value, end_of_day=end)


def list_harnesses() -> list[HarnessEntry]:
    """Every harness this build can read, in the order ``txcript harnesses`` shows."""
    from txcript import harnesses

    out = []
    for harness in harnesses.implemented():
        if not harness.listed:
            continue
        root = harness.default_root() if harness.has_store else None
        out.append(HarnessEntry(harness.id, harness.name, True, harness.can_write, root))
    return out


def list_sessions(
    harness: str | Sequence[str] | None = None,
    cwd: str | Path | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    limit: int | None = None,
) -> Iterator[Session]:
    """The local sessions, newest first: of one harness or several (ids or aliases), under a
    directory, started in a time window. Problems met on the way are
    :class:`~txcript.TranscriptWarning` warnings; an unknown harness is
    :class:`~txcript.errors.BadInput`."""
    from txcript.sessions import discover

    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise BadInput(f"limit must be a whole number ≥ 0, not {limit!r}")
    found = discover(
        _names(harness),
        cwd=None if cwd is None else str(cwd),
        since=_moment(since, end=False),
        until=_moment(until, end=True),
    )
    # The stores are read now, not on the first ``next``: a bad argument raises at the call,
    # and the warnings come inside the caller's ``catch_warnings`` around it.
    return iter([_session(session) for session in (found if limit is None else found[:limit])])


def load(ref: str | Path, harness: str | None = None) -> Transcript:
    """The session ``ref`` names, as a Common transcript: a session id, a unique id prefix, an
    exact title, or a path to a document, optionally with ``#RANGE`` (``#3``, ``#2-5``, ``#4-``)
    for part of it. ``harness`` scopes the lookup (or names a document's format)."""
    from txcript.sessions import open_reference

    opened = open_reference(str(ref), harness)
    transcript, _ = opened.sliced(check_tool_pairs=False)
    return transcript


def dumps(transcript: Transcript, format: Format = "common", harness: str | None = None) -> str:
    """``transcript`` as text: a Common or Simple JSON document, a Markdown or HTML page, or
    (``format="native"``) the native text form of ``harness``."""
    from txcript import harnesses

    if format not in FORMATS:
        raise BadInput(f"format `{format}` is not one of {', '.join(FORMATS)}")
    if format == "common":
        from txcript.model import to_json

        return to_json(transcript, indent=2) + "\n"
    if format in ("markdown", "html"):
        from txcript.operations import render_document

        return render_document(transcript, format, harness=harness or "common")
    if format == "native" and harness is None:
        raise BadInput("format `native` needs the harness whose text form to write")
    target = harnesses.get("simple" if format == "simple" else str(harness))
    text = target.to_text(target.from_common(transcript))
    return text if text.endswith("\n") else text + "\n"


def loads(text: str, harness: str | None = None) -> Transcript:
    """A transcript from a document's text: Common, Simple, or any harness's native text form,
    recognised as ``txcript convert`` does (``harness`` names the format instead)."""
    from txcript.sessions import parse_document

    source, native = parse_document(text.encode("utf-8", "surrogatepass"), "<text>", harness)
    return source.to_common(native)


def find(
    pattern: str,
    harness: str | Sequence[str] | None = None,
    cwd: str | Path | None = None,
    limit: int | None = None,
    hits_per_session: int = 3,
) -> list[Match]:
    """Sessions whose text matches ``pattern`` (fzf syntax, as ``txcript query``), best first,
    each with its best ``hits_per_session`` lines; the search index in the cache dir is brought
    up to date first."""
    from txcript.search import find as search

    matches = search(
        pattern,
        _names(harness),
        cwd=None if cwd is None else str(cwd),
        limit=20 if limit is None else limit,
        hits_per_session=hits_per_session,
    )
    return [
        Match(
            _session(match.session),
            match.score,
            tuple(
                Hit(
                    None if h.message is None else h.message + 1,
                    h.origin,
                    h.line,
                    h.block,
                    h.score,
                    h.highlights,
                )
                for h in match.hits
            ),
        )
        for match in matches
    ]


def save(
    transcript: Transcript,
    harness: str,
    out: str | Path | None = None,
    cwd: str | Path | None = None,
    replace: bool = False,
    force: bool = False,
) -> Saved:
    """Write ``transcript`` into ``harness``'s store, as ``txcript continue --with`` does; the
    session it came from is never touched.

    Into the live store (``out`` None) the copy gets a fresh id and start time, and ``cwd`` (by
    default its recorded one where that exists here, else the current directory) so that the
    harness finds it. With ``out``, a store root anywhere, it is a faithful copy: id, start time
    and cwd kept, and a session already holding that id is refused unless ``replace``. ``force``
    writes while the harness's app runs. Everything is checked before the first byte: bad input
    raises :class:`~txcript.errors.BadInput` with nothing written.
    """
    from txcript import harnesses
    from txcript.operations import continue_target, write_copy

    target = continue_target(harness)
    written = write_copy(
        transcript,
        target,
        source_harness="common",
        cwd=None if cwd is None else str(cwd),
        out=None if out is None else str(out),
        force=force,
        replace=replace,
    )
    needs_cwd = harnesses.get(written.harness).resume_in_cwd
    return Saved(
        harness=written.harness,
        id=written.id,
        location=written.location,
        resume=Resume(
            tuple(written.resume_command),
            written.launch_cwd if needs_cwd else None,
            dict(written.resume_env or {}),
        ),
        backup=written.backup,
        title=written.title,
        notes=written.notes,
    )


def delete(
    ref: str,
    harness: str | None = None,
    root: str | Path | None = None,
    force: bool = False,
) -> str | None:
    """Remove the one session ``ref`` names (an id, unique prefix or a title no other session
    shares) from its store, or from the store of ``harness`` rooted at ``root`` (a copy
    :func:`save` wrote under ``out``). The store backs up what it removes first: the id
    returned is the backup :func:`restore` puts it back with. Undoes a :func:`save` into a
    file store, which takes no backup of a file it creates."""
    from txcript.operations import delete_session, resolve_for_delete

    where = None if root is None else str(root)
    session = resolve_for_delete(ref, harness, where)
    return delete_session(session, force=force, root=where)


def list_backups() -> list[Backup]:
    """Every backup txcript has taken, newest first (``txcript restore`` lists them too)."""
    from txcript import restoring

    return restoring.listing()


def restore(backup_id: str, force: bool = False) -> Backup | None:
    """Undo the write that ``backup_id`` guarded (or put a snapshot back); returns the backup
    of what the restore itself replaced, so that it can be undone in turn. ``force`` restores
    while the app runs, or into a store txcript's configuration does not point at."""
    from txcript import restoring

    return restoring.restore(restoring.plan(backup_id), force=force)
