"""What each command does, as library calls: the CLI and MCP front ends only parse and print."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from txcript import harnesses
from txcript.errors import BadInput, TxcriptError, Unconvertible
from txcript.fragment import Span
from txcript.harnesses.base import Discovered, Harness, Saved
from txcript.model import Transcript, iter_json
from txcript.sessions import (
    discover,
    find_session,
    open_reference,
    parse_document,
    sessions_with_id,
)
from txcript.shared.files import decode_lossless
from txcript.shared.gcpause import iterate_without_gc
from txcript.shared.text import scrub
from txcript.shared.timeutil import format_rfc3339, now
from txcript.shared.workdir import filing_directory

if TYPE_CHECKING:
    from txcript.render.archive import ArchiveResult

EXPORT_FORMATS = ("simple", "common", "markdown", "html", "native")
#: Formats for people to read: one-way renderings, never parsed back.
READING_FORMATS = ("markdown", "html")


def harness_rows() -> list[dict[str, Any]]:
    """``txcript harnesses --json``: every implemented harness and where its store lives."""
    rows = []
    for harness in harnesses.implemented():
        if not harness.listed:
            continue
        root = harness.default_root() if harness.has_store else None
        rows.append(
            {
                "id": harness.id,
                "name": harness.name,
                "read": True,
                "write": harness.can_write,
                "root": None if root is None else str(root),
            }
        )
    return rows


def list_sessions(
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int | None = None,
    with_model: bool = True,
    kinds: Sequence[str] = (),
) -> list[Discovered]:
    """The sessions ``list`` shows; ``with_model=False`` for a listing that shows no model;
    ``kinds`` keeps only sessions of those source kinds (Hermes's ``cli``, ``telegram`` …)."""
    sessions = discover(harness_names, cwd=cwd, since=since, until=until, with_model=with_model)
    if kinds:
        wanted = {kind.strip().lower() for kind in kinds}
        sessions = [s for s in sessions if s.kind is not None and s.kind.lower() in wanted]
    return sessions if limit is None else sessions[:limit]


def missing_stores(harness_names: Sequence[str]) -> list[tuple[str, str]]:
    """Each named harness whose store root is not there, with that root (``list`` says so: a
    typo in a root's variable otherwise reads as a store with no sessions)."""
    from txcript.sessions import chosen_harnesses, existing_root

    missing = []
    for harness in chosen_harnesses(harness_names):
        if existing_root(harness) is None:
            root = harness.default_root()
            missing.append((harness.id, "(no home)" if root is None else str(root)))
    return missing


def session_row(session: Discovered) -> dict[str, Any]:
    """One ``list --json`` entry; absent values are ``null``.

    A sub-agent chat also carries ``parent``: the id of the session that spawned it; a session
    of a store that keeps several accounts, ``account``; a session of a harness with several
    sources, ``kind`` (Hermes: ``cli``, ``telegram`` …); and a session another harness keeps a
    copy of, ``also_in``: those harnesses' ids.
    """
    row: dict[str, Any] = {
        "harness": session.harness,
        "id": session.meta_id,
        "title": session.title,
        "cwd": session.cwd,
        "model": session.model,
        "timestamp": format_rfc3339(session.timestamp),
        "updated_at": None if session.updated_at is None else format_rfc3339(session.updated_at),
        "messages": session.message_count,
    }
    if session.parent is not None:
        row["parent"] = session.parent
    if session.account is not None:
        row["account"] = session.account
    if session.kind is not None:
        row["kind"] = session.kind
    if session.also_in:
        row["also_in"] = list(session.also_in)
    return row


def view_session(reference: str, from_harness: str | None = None) -> str:
    """The text projection of a session or range (no tool-pair check, as ``view`` promises)."""
    opened = open_reference(reference, from_harness)
    from txcript.render import view

    return view.render(opened.transcript, opened.span())


def view_chunks(reference: str, from_harness: str | None = None) -> Iterator[str]:
    """:func:`view_session`'s text in pieces, to write as they come. Resolving, reading and
    the range (everything that can refuse) happen before this returns."""
    opened = open_reference(reference, from_harness)
    from txcript.render import view

    return view.iter_render(opened.transcript, opened.span())


def export_session(
    reference: str,
    from_harness: str | None = None,
    export_format: str = "simple",
    *,
    full: bool = False,
) -> str:
    """A session (or range) as a Simple document, a Common document, its native text form, or a
    Markdown or HTML page to read.

    The source id, start time and cwd are kept. A range may not cut a tool call from its result.
    ``full`` keeps long output whole in the reading formats (they cut it by default).
    """
    chunks = export_chunks(reference, from_harness, export_format, full=full)
    return decode_lossless(b"".join(chunks))


def export_chunks(
    reference: str,
    from_harness: str | None = None,
    export_format: str = "simple",
    *,
    full: bool = False,
) -> Iterable[bytes]:
    """:func:`export_session`'s text as UTF-8 chunks, for writing as they come.

    Everything that can refuse the export (resolving, the range, the conversion) happens before
    this returns; what is left to iterate only encodes. Common and Simple documents are encoded
    one message at a time, so a long session never exists as one string.
    """
    if export_format not in EXPORT_FORMATS:
        raise BadInput(
            f"export format `{export_format}` is not supported; use one of "
            + ", ".join(EXPORT_FORMATS)
        )
    opened = open_reference(reference, from_harness)
    if export_format in READING_FORMATS:
        _, span = opened.sliced(check_tool_pairs=True)
        page = render_document(
            opened.transcript, export_format, harness=opened.harness.id, span=span, full=full
        )
        return (page.encode("utf-8"),)
    same_format = export_format == "native" or opened.harness.id == export_format
    if same_format and opened.request is None:
        # No detour through Common: the harness's own text keeps what Common has no slot for.
        return iterate_without_gc(_text_chunks(opened.harness, opened.native))
    transcript, _ = opened.sliced(check_tool_pairs=True)
    if export_format == "common":
        return iterate_without_gc(iter_json(transcript, indent=2))
    target = harnesses.get("simple") if export_format == "simple" else opened.harness
    return iterate_without_gc(_text_chunks(target, target.from_common(transcript)))


def _text_chunks(harness: Harness[Any], native: Any) -> Iterable[bytes]:
    """``_with_newline(harness.to_text(native))`` as UTF-8 chunks."""
    chunks = harness.to_text_chunks(native)

    def with_newline() -> Iterator[bytes]:
        last = b""
        for chunk in chunks:
            if chunk:
                last = chunk
                yield chunk
        if not last.endswith(b"\n"):
            yield b"\n"

    return with_newline()


def render_document(
    transcript: Transcript,
    export_format: str,
    *,
    harness: str,
    span: Span | None = None,
    full: bool = False,
) -> str:
    """A transcript (or the messages in ``span``) as a Markdown or HTML document."""
    from txcript.render import present

    session = present.present(transcript, harness=harness, span=span, full=full)
    if export_format == "markdown":
        from txcript.render import markdown

        return markdown.render(session)
    from txcript.render.html import render_session

    return render_session(session)


def archive_sessions(
    out: str,
    harness_names: Sequence[str] = (),
    *,
    cwd: str | None = None,
    since: datetime | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ArchiveResult:
    """``txcript archive``: bring the static site in ``out`` up to date with the matching
    sessions."""
    from txcript.render.archive import build_archive

    sessions = discover(harness_names, cwd=cwd, since=since)
    return build_archive(Path(out), sessions, progress=progress)


def convert_document(data: bytes, label: str, from_harness: str, to_harness: str) -> str:
    """Pure conversion of one document: text of ``from_harness`` in, text of ``to_harness`` out.

    A same-harness conversion re-renders the native body without passing through Common, so it
    loses nothing the format can hold (Simple keeps unknown keys).
    """
    source_id = harnesses.canonical_id(from_harness)
    target = harnesses.get(to_harness)
    source, native = parse_document(data, label, source_id)
    if source.id == target.id:
        return _with_newline(target.to_text(native))
    transcript = source.to_common(native)
    return _with_newline(target.to_text(target.from_common(transcript)))


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


@dataclass(frozen=True)
class Continued:
    """What ``continue`` did: where the copy lives and how to resume it."""

    source_harness: str
    harness: str
    id: str
    location: str
    resume_command: list[str]
    #: Where to launch the harness; None means the current directory.
    launch_cwd: Path | None
    #: False when the session is resumed in place (nothing was written).
    written: bool
    notes: tuple[str, ...] = ()
    #: The backup that undoes the write (``txcript restore <id>``), where the store took one.
    backup: str | None = None
    #: The title the target shows for a written copy (e.g. in Cursor's sidebar).
    title: str | None = None
    #: A Ctrl-C (or SIGTERM) came after the write committed: the copy stands, the report is
    #: given, and nothing is launched.
    interrupted: bool = False
    #: Variables the resume command needs (the store override of a copy under ``--out``).
    resume_env: dict[str, str] | None = None

    def as_json(self) -> dict[str, Any]:
        """``{harness, id, location, resume_command, cwd, env}``: run ``resume_command`` in
        ``cwd`` (null: anywhere) with ``env`` added, as the printed resume line does."""
        needs_cwd = harnesses.get(self.harness).resume_in_cwd and self.launch_cwd is not None
        return {
            "harness": self.harness,
            "id": self.id,
            "location": self.location,
            "resume_command": self.resume_command,
            "cwd": str(self.launch_cwd) if needs_cwd else None,
            "env": dict(self.resume_env or {}),
        }


def _rehome(cwd: str | None, explicit: str | None) -> tuple[str, tuple[str, ...]]:
    """The cwd of a live-store copy: ``--cwd``, else the recorded one if it exists here, else ``.``.

    Stores shard sessions by cwd, and a copy filed under a directory that does not exist on this
    machine is invisible when the harness is launched from the current project.
    """
    if explicit is not None:
        return str(Path(explicit).resolve()), ()
    here = str(Path.cwd())
    if not cwd:
        return here, (f"the session has no working directory; using {here}",)
    if not os.path.isdir(cwd):
        return here, (f"session cwd `{cwd}` does not exist here; using {here}",)
    return cwd, ()


def continue_session(
    reference: str,
    *,
    with_harness: str | None = None,
    from_harness: str | None = None,
    cwd: str | None = None,
    out: str | None = None,
    force: bool = False,
    replace: bool = False,
    launching: bool = False,
    documents: bool = True,
    committed: Callable[[], None] | None = None,
) -> Continued:
    """Write a copy of a session (or range) into a harness's store; the source is never modified.

    Without ``out`` the copy gets a fresh id and start time (so it can never overwrite the source)
    and a cwd that exists on this machine. With ``out`` it is a faithful export into ``out`` as the
    target's store root: id, start time and cwd are kept.

    Everything that can be checked is checked before the first byte is written: ``cwd`` is an
    existing directory, the target takes writes, and (with ``launching``) the harness's binary is
    on PATH. ``force`` writes while the target app is running; ``replace`` lets an ``out`` copy
    replace a session with the same id. With ``documents=False`` the reference names a stored
    session only, never a file (see :func:`~txcript.sessions.open_reference`).

    ``committed`` is called as soon as the copy is written (see
    :class:`~txcript.shared.interrupts.AfterCommit`). A Ctrl-C that escapes the save once the
    copy is there (a store delivers one it held back over its COMMIT) still returns the copy,
    with ``interrupted`` set; one that lands before is raised, with nothing written.
    """
    if cwd is not None and not os.path.isdir(cwd):
        raise BadInput(f"--cwd `{scrub(cwd)}` is not a directory")
    target = continue_target(with_harness) if with_harness else None
    opened = open_reference(reference, from_harness, documents=documents)
    interchange = opened.harness.id in INTERCHANGE
    if opened.document is not None:
        if with_harness is None and interchange:
            raise BadInput(
                f"a {opened.harness.id} document has no harness of its own to resume; pass "
                "--with <harness> (e.g. --with claude_code)"
            )
        if from_harness is not None and interchange:
            raise BadInput(
                "--from scopes the search for a local session; a document is its own input "
                "and takes --with only"
            )
    # A native session file (a Claude Code JSONL, a Codex rollout…) continues in its own harness.
    if target is None and not opened.harness.can_write:
        writers = ", ".join(harnesses.ids(write=True))
        raise BadInput(
            f"{opened.label} is read from {opened.harness.name}, which txcript cannot write; "
            f"pass --with <harness> to continue it in another ({writers})"
        )
    target = target or opened.harness
    _check_target(target)
    session = opened.session
    if (
        session is not None
        and target.id == opened.harness.id
        and opened.request is None
        and out is None
        and cwd is None
    ):
        launch_dir, launch_notes = _launch_dir(session.cwd)
        if launch_dir is None and session.cwd and target.resume_in_cwd:
            launch_notes = (
                f"session cwd `{scrub(session.cwd)}` no longer exists, and {target.name} finds "
                "a session only from its own directory; to continue it here, run: "
                f"txcript continue {shlex.quote(scrub(session.meta_id))} --cwd .",
            )
        store = target.store()
        location = store.location(session.reference) if store is not None else opened.label
        return Continued(
            opened.harness.id,
            target.id,
            session.meta_id,
            location,
            target.resume_command(session.meta_id),
            launch_dir,
            written=False,
            notes=launch_notes,
        )
    if launching:
        _check_launchable(target)
    transcript, _ = opened.sliced(check_tool_pairs=True)
    if not transcript.messages:
        raise BadInput(f"{opened.label} has no messages to continue")
    return write_copy(
        transcript,
        target,
        source_harness=opened.harness.id,
        cwd=cwd,
        out=out,
        force=force,
        replace=replace,
        committed=committed,
    )


def write_copy(
    transcript: Transcript,
    target: Harness[Any],
    *,
    source_harness: str,
    cwd: str | None = None,
    out: str | None = None,
    force: bool = False,
    replace: bool = False,
    committed: Callable[[], None] | None = None,
) -> Continued:
    """Write ``transcript`` into ``target``'s store: the one write path of ``continue`` and of
    :func:`txcript.save`. Without ``out`` the copy gets a fresh id, start time and a cwd that
    exists here; with ``out`` (a store root) it is a faithful copy, id and cwd kept, refused over
    a session with the same id unless ``replace``. ``committed`` is called once it is written."""
    if cwd is not None and not os.path.isdir(cwd):
        raise BadInput(f"--cwd `{scrub(cwd)}` is not a directory")
    _check_target(target)
    if not transcript.messages:
        raise BadInput("the transcript has no messages to continue")
    meta = transcript.meta
    notes: tuple[str, ...] = ()
    if out is None:
        new_cwd, notes = _rehome(meta.cwd, cwd)
        # Millisecond precision: what every target store can write and read back exactly.
        moment = now()
        started = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
        meta = msgspec.structs.replace(
            meta, id=target.new_session_id(), timestamp=started, cwd=new_cwd
        )
    else:
        if cwd is not None:
            meta = msgspec.structs.replace(meta, cwd=str(Path(cwd).resolve()))
        elif not meta.cwd and target.resume_in_cwd:
            # Kept as recorded: absent. The store files it under the current directory
            # (:func:`~txcript.shared.workdir.filing_directory`), where the app then finds it.
            notes = (
                f"the session has no working directory and the copy keeps none; {target.name} "
                f"files it under the current directory, {filing_directory(None)}",
            )
        if not meta.id:
            meta = msgspec.structs.replace(meta, id=target.new_session_id())
        adopted = target.adopt_id(meta.id)
        if adopted != meta.id:
            notes += (
                f"session id `{meta.id}` is not {_id_shape(target)}; the copy is `{adopted}` "
                "(the same source id always maps to the same id)",
            )
            meta = msgspec.structs.replace(meta, id=adopted)
    transcript = msgspec.structs.replace(transcript, meta=meta)
    store = target.store(Path(out) if out is not None else None)
    if store is None:
        raise Unconvertible(target.id, "it has no store on this machine (is HOME set?)")
    if out is None:
        notes += _live_root_notes(target, store.root)
    # A faithful copy keeps the source id; never let it replace a session already there (with
    # ``--out`` pointing at the live store, that would be the source itself).
    held = [d for d in store.discover() if d.meta_id == meta.id] if out is not None else []
    if held and not replace:
        raise BadInput(
            f"{target.id} under {scrub(out or '')} already holds a session `{scrub(meta.id)}`; "
            "refusing to overwrite it (pass --replace to replace it)"
        )
    before = store.fingerprints([d.reference for d in held]) if held else {}
    native = target.from_common(transcript)
    interrupted = False
    # The app keeps only its own store open: a copy under another root cannot race it.
    try:
        saved = store.save(
            native, force=force or (out is not None and not _is_live_root(target, out))
        )
    except KeyboardInterrupt:
        if committed is not None:
            committed()
        found = _written_anyway(target, store, meta.id, before)
        if found is None:
            raise
        saved, interrupted = found, True
    else:
        if committed is not None:
            committed()
    filed = meta.cwd or (filing_directory(None) if target.resume_in_cwd else None)
    launch_dir = Path(filed) if filed and os.path.isdir(filed) else None
    return Continued(
        source_harness,
        target.id,
        saved.id,
        saved.location,
        target.resume_command(saved.id),
        launch_dir,
        written=True,
        notes=notes + saved.notes,
        backup=saved.backup,
        title=target.meta_of(native).title,
        interrupted=interrupted,
        resume_env=_resume_env(target, out),
    )


def _resume_env(target: Harness[Any], out: str | None) -> dict[str, str]:
    """What the resume command of a copy under ``out`` needs: the variable that points the
    harness itself at that root, where it has one."""
    variable = target.root_env
    if out is None or variable is None:
        return {}
    return {variable: str(Path(out).absolute())}


def _written_anyway(
    target: Harness[Any], store: Any, session_id: str, before: dict[str, str]
) -> Saved | None:
    """The copy a save interrupted by a signal left behind, when its write committed first: a
    session with its id that was not there (or not so) before; None when there is none."""
    from txcript.harnesses.base import lookup
    from txcript.shared import backups

    try:
        found = lookup(store, session_id)
        if found is None:
            found = store.discover()
        mine = [d for d in found if d.meta_id == session_id]
        now_held = store.fingerprints([d.reference for d in mine])
    except Exception:  # the store cannot tell: the write did not happen, as far as we know
        return None
    written = [
        d
        for d in mine
        if d.reference not in before or before[d.reference] != now_held.get(d.reference)
    ]
    if not written:
        return None
    reference = written[0].reference
    taken = [
        b.id
        for b in backups.list_backups()
        if b.harness == target.id and b.operation == "save" and b.session == session_id
    ]
    return Saved(
        id=session_id,
        reference=reference,
        location=store.location(reference),
        backup=taken[0] if taken else None,
    )


def _live_root_notes(target: Harness[Any], root: Path) -> tuple[str, ...]:
    """Before a live copy's first byte: a store root that is not there is most often a typo in
    its variable (``CURSOR_DESKTOP_USER_DIR``, ``CLAUDE_CONFIG_DIR``), and a copy written there
    is one no app reads. A database the app creates (its declaration's ``app_makes_store``:
    Cursor desktop's, OpenCode's) is the app's to create, so the write is refused; a file store,
    which its app would create itself, is created, with a note naming it so a typo shows."""
    declared = target.info.root
    env = declared.env if declared is not None else None
    variable = (
        "" if not env else f" (from ${env})" if os.environ.get(env) else f" (${env} moves it)"
    )
    database = target.store_database(root) if target.info.app_makes_store else None
    if database is not None:
        # (A store of one database per project, Crush's: its root holds them.)
        held = root if isinstance(database, tuple) else database
        if os.path.lexists(held):
            return ()
        what = "store" if isinstance(database, tuple) else "database"
        raise BadInput(
            f"no {target.name} {what} at {scrub(str(held))}{variable}: {target.name} "
            "creates it when it first starts; start it once, or check the path (nothing was "
            "written; --out DIR writes a copy anywhere)"
        )
    if os.path.lexists(root):
        return ()
    return (
        f"there was no {target.name} store at {scrub(str(root))}{variable}; it is created "
        f"there now (if that is a typo, delete the copy and fix the path)",
    )


def _id_shape(target: Harness[Any]) -> str:
    grammar = target.id_grammar
    return f"a {target.name} id" if grammar is None else grammar.description


#: Interchange formats: documents to read and export, never stores to continue into.
INTERCHANGE = ("simple", "common")


def continue_target(name: str) -> Harness[Any]:
    """The harness ``--with name`` continues into; bad input when it cannot take the copy."""
    target = harnesses.get(name)
    _check_target(target)
    return target


def _check_target(target: Harness[Any]) -> None:
    if target.id in INTERCHANGE:
        fmt = "" if target.id == "simple" else " --format common"
        raise BadInput(
            f"cannot convert to {target.id}: {target.id} is an interchange input; sessions are "
            f"continued from documents, not written into them (use `txcript export{fmt}` to "
            "write one)"
        )
    if not target.can_write:
        raise BadInput(f"cannot convert to {target.id}: writing {target.name} is not supported yet")


def _check_launchable(target: Harness[Any]) -> None:
    """Before writing: the binary that resumes the copy must exist, or the copy is stranded."""
    program = target.resume_command(target.new_session_id())[0]
    import shutil

    if shutil.which(program) is None and not (os.name == "nt" and shutil.which(program + ".cmd")):
        raise TxcriptError(
            f"`{scrub(program)}` is not on PATH, so nothing was written; install {target.name}, "
            "or pass --no-resume to write the copy without launching it"
        )


def _is_live_root(target: Harness[Any], out: str) -> bool:
    live = target.default_root()
    if live is None:
        return False
    try:
        return Path(out).resolve() == live.resolve()
    except (OSError, RuntimeError):
        return False


def _launch_dir(cwd: str | None) -> tuple[Path | None, tuple[str, ...]]:
    if cwd and os.path.isdir(cwd):
        return Path(cwd), ()
    if cwd:
        return None, (f"session cwd `{cwd}` no longer exists; resuming from the current directory",)
    return None, ()


def resolve_for_delete(
    reference: str, from_harness: str | None = None, root: str | None = None
) -> Discovered:
    """The one session ``delete`` would remove, in one harness or in every store (or, with
    ``root``, in the store of ``from_harness`` rooted there: a copy written under ``--out``).

    Anything that names more than one session is ambiguous: a title several sessions share, or
    (without ``from_harness``) an id that two stores both hold.
    """
    if root is not None:
        if from_harness is None:
            raise BadInput("--root names the store of one harness; pass --from <harness> too")
        harness = harnesses.get(from_harness)
        store = harness.store(Path(root))
        if store is None or not os.path.lexists(root):
            raise BadInput(f"no {harness.id} store at {scrub(root)}")
        return find_session(reference, store.discover(), harness.id, unique_title=True)
    scope = harnesses.get(from_harness).id if from_harness else None
    # An exact id wins over every title and prefix: the stores' direct lookups decide it
    # without listing every session (thousands, in a large Cursor store).
    with_id = sessions_with_id(reference, [scope] if scope else ())
    sessions = with_id if with_id else discover([scope] if scope else ())
    if scope is None:
        exact = {(s.harness, s.meta_id): s for s in sessions if s.meta_id == reference}
        if len(exact) > 1:
            raise BadInput(
                f"`{scrub(reference)}` is the id of sessions in "
                + ", ".join(sorted(h for h, _ in exact))
                + "; pass --from <harness> to choose one"
            )
    return find_session(reference, sessions, scope, unique_title=True)


def delete_session(
    session: Discovered, *, force: bool = False, root: str | None = None
) -> str | None:
    """Remove one session from its store (the one rooted at ``root``, when given); every store
    backs up what it removes first.

    Returns the id of that backup (what ``txcript restore`` takes to undo the delete).
    """
    from txcript.shared import backups

    store = harnesses.get(session.harness).store(None if root is None else Path(root))
    if store is None:
        raise BadInput(f"{session.harness} has no store on this machine")
    store.delete(session.reference, force=force)
    taken = [
        b
        for b in backups.list_backups()
        if b.harness == session.harness and b.operation == "delete" and b.session == session.meta_id
    ]
    return taken[0].id if taken else None
