"""What each command does, as library calls: the CLI and MCP front ends only parse and print."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from txcript import harnesses
from txcript.errors import BadInput, Unconvertible
from txcript.fragment import Span
from txcript.harnesses.base import Discovered, Harness
from txcript.model import Transcript, to_json
from txcript.render import view
from txcript.sessions import discover, find_session, open_reference, parse_document
from txcript.shared.text import scrub
from txcript.shared.timeutil import format_rfc3339, now

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
) -> list[Discovered]:
    sessions = discover(harness_names, cwd=cwd, since=since, until=until)
    return sessions if limit is None else sessions[:limit]


def session_row(session: Discovered) -> dict[str, Any]:
    """One ``list --json`` entry; absent values are ``null``.

    A sub-agent chat also carries ``parent``: the id of the session that spawned it.
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
    return row


def view_session(reference: str, from_harness: str | None = None) -> str:
    """The text projection of a session or range (no tool-pair check, as ``view`` promises)."""
    opened = open_reference(reference, from_harness)
    return view.render(opened.transcript, opened.span())


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
    if export_format not in EXPORT_FORMATS:
        raise BadInput(
            f"export format `{export_format}` is not supported; use one of "
            + ", ".join(EXPORT_FORMATS)
        )
    opened = open_reference(reference, from_harness)
    if export_format in READING_FORMATS:
        _, span = opened.sliced(check_tool_pairs=True)
        return render_document(
            opened.transcript, export_format, harness=opened.harness.id, span=span, full=full
        )
    same_format = export_format == "native" or opened.harness.id == export_format
    if same_format and opened.request is None:
        # No detour through Common: the harness's own text keeps what Common has no slot for.
        return _with_newline(opened.harness.to_text(opened.native))
    transcript, _ = opened.sliced(check_tool_pairs=True)
    if export_format == "common":
        return to_json(transcript, indent=2) + "\n"
    target = harnesses.get("simple") if export_format == "simple" else opened.harness
    return _with_newline(target.to_text(target.from_common(transcript)))


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

    def as_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "id": self.id,
            "location": self.location,
            "resume_command": self.resume_command,
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
    if not Path(cwd).is_dir():
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
) -> Continued:
    """Write a copy of a session (or range) into a harness's store; the source is never modified.

    Without ``out`` the copy gets a fresh id and start time (so it can never overwrite the source)
    and a cwd that exists on this machine. With ``out`` it is a faithful export into ``out`` as the
    target's store root: id, start time and cwd are kept.
    """
    opened = open_reference(reference, from_harness)
    if opened.document is not None:
        if with_harness is None:
            raise BadInput(
                "a session document has no harness of its own to resume; pass --with <harness> "
                "(e.g. --with claude_code)"
            )
        if from_harness is not None and opened.harness.id in ("simple", "common"):
            raise BadInput(
                "--from scopes the search for a local session; a document is its own input "
                "and takes --with only"
            )
    target = harnesses.get(with_harness) if with_harness else opened.harness
    session = opened.session
    if (
        session is not None
        and target.id == opened.harness.id
        and opened.request is None
        and out is None
        and cwd is None
    ):
        launch_dir, launch_notes = _launch_dir(session.cwd)
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
    if target.id == "simple":
        raise Unconvertible(
            "simple",
            "simple is an interchange input; sessions are continued from Simple documents, "
            "not written into them (use `txcript export` to write one)",
        )
    if not target.can_write:
        raise Unconvertible(target.id, f"writing {target.name} sessions is not supported yet")
    transcript, _ = opened.sliced(check_tool_pairs=True)
    if not transcript.messages:
        raise BadInput(f"{opened.label} has no messages to continue")
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
        if not meta.id:
            meta = msgspec.structs.replace(meta, id=target.new_session_id())
        adopted = target.adopt_id(meta.id)
        if adopted != meta.id:
            notes = (
                f"session id `{meta.id}` is not {_id_shape(target)}; the copy is `{adopted}` "
                "(the same source id always maps to the same id)",
            )
            meta = msgspec.structs.replace(meta, id=adopted)
    transcript = msgspec.structs.replace(transcript, meta=meta)
    store = target.store(Path(out) if out is not None else None)
    if store is None:
        raise Unconvertible(target.id, "it has no store on this machine (is HOME set?)")
    # A faithful copy keeps the source id; never let it replace a session already there (with
    # ``--out`` pointing at the live store, that would be the source itself).
    if out is not None and not force and any(d.meta_id == meta.id for d in store.discover()):
        raise BadInput(
            f"{target.id} under {out} already holds a session `{scrub(meta.id)}`; "
            "refusing to overwrite it (pass --force to replace it)"
        )
    saved = store.save(target.from_common(transcript), force=force)
    launch_dir = Path(meta.cwd) if meta.cwd and Path(meta.cwd).is_dir() else None
    return Continued(
        opened.harness.id,
        target.id,
        saved.id,
        saved.location,
        target.resume_command(saved.id),
        launch_dir,
        written=True,
        notes=notes + saved.notes,
        backup=saved.backup,
    )


def _id_shape(target: Harness[Any]) -> str:
    grammar = target.id_grammar
    return f"a {target.name} id" if grammar is None else grammar.description


def _launch_dir(cwd: str | None) -> tuple[Path | None, tuple[str, ...]]:
    if cwd and Path(cwd).is_dir():
        return Path(cwd), ()
    if cwd:
        return None, (f"session cwd `{cwd}` no longer exists; resuming from the current directory",)
    return None, ()


def resolve_for_delete(reference: str, from_harness: str) -> Discovered:
    """The one session ``delete`` would remove: a title several sessions share is ambiguous."""
    harness = harnesses.get(from_harness)
    return find_session(reference, discover([harness.id]), harness.id, unique_title=True)


def delete_session(session: Discovered, *, force: bool = False) -> str | None:
    """Remove one session from its store; every store backs up what it removes first.

    Returns the id of that backup (what ``txcript restore`` takes to undo the delete).
    """
    from txcript.shared import backups

    store = harnesses.get(session.harness).store()
    if store is None:
        raise BadInput(f"{session.harness} has no store on this machine")
    store.delete(session.reference, force=force)
    taken = [
        b
        for b in backups.list_backups()
        if b.harness == session.harness and b.operation == "delete" and b.session == session.meta_id
    ]
    return taken[0].id if taken else None
