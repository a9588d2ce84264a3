"""``txcript archive``: a static site of many sessions, rebuilt incrementally.

The site is ``index.html`` (every session, sortable and filterable) plus one self-contained page
per session under ``sessions/<harness>/``. A manifest beside them records, per session, the
store's fingerprint at the time its page was written. A re-run renders only sessions whose
fingerprint changed (or that are new, or whose page is missing), and only when the renderer
itself is unchanged; everything else is left byte for byte as it was.

An archive only grows: a session that no longer matches (deleted from its store, or outside a
narrower ``--from``/``--cwd``/``--since``) keeps its page and its index row. A directory that is
neither empty nor an archive is refused, so ``--out`` can never overwrite someone's files.

A new archive gets its manifest before its first page, and the manifest is kept up to date as
pages are written (every :data:`SAVE_EVERY` pages, and when the run is interrupted): a run cut
short (Ctrl-C, a crash) can be run again into the same directory, and goes on from there.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from txcript import harnesses
from txcript._version import __version__
from txcript.diagnostics import warn
from txcript.errors import BadInput, TxcriptError
from txcript.harnesses.base import Discovered
from txcript.render import html, present
from txcript.shared.files import write_atomic
from txcript.shared.text import scrub
from txcript.shared.timeutil import format_rfc3339

MANIFEST = "txcript-archive.json"
INDEX = "index.html"
_FORMAT = 1
#: The manifest is saved after this many pages, so a run killed outright loses little work.
SAVE_EVERY = 50
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")

Progress = Callable[[int, int], None]


class Entry(msgspec.Struct, frozen=True):
    """One archived session: where it came from, its page, and its index row."""

    harness: str
    reference: str
    fingerprint: str
    page: str
    session_id: str
    title: str
    cwd: str
    started: str
    messages: int


class Manifest(msgspec.Struct):
    format: int
    renderer: str
    entries: list[Entry] = msgspec.field(default_factory=list)


@dataclass
class ArchiveResult:
    out: Path
    #: Sessions that matched this run, pages (re)written, pages left as they were.
    matched: int = 0
    written: int = 0
    unchanged: int = 0
    #: Sessions that could not be read (each was warned about); their old page, if any, stays.
    failed: int = 0
    #: Sessions in the index in all, this run's and earlier runs'.
    indexed: int = 0
    index_written: bool = False
    failures: list[str] = field(default_factory=list)

    @property
    def index(self) -> Path:
        return self.out / INDEX


def renderer_version() -> str:
    return f"{__version__}+{html.renderer_fingerprint()}"


def _key(harness: str, reference: str) -> tuple[str, str]:
    return harness, reference


def page_path(harness: str, session_id: str, reference: str) -> str:
    """``sessions/<harness>/<id>-<hash>.html``: safe on every file system, stable per session."""
    slug = _UNSAFE.sub("_", session_id)[:80].strip("._") or "session"
    digest = hashlib.sha256(f"{harness}\0{reference}".encode()).hexdigest()[:10]
    return f"sessions/{harness}/{slug}-{digest}.html"


def _load_manifest(out: Path) -> Manifest | None:
    """The archive's manifest; None for a new or empty directory; refuse anything else."""
    if out.exists() and not out.is_dir():
        raise BadInput(f"{out} exists and is not a directory")
    path = out / MANIFEST
    if not path.exists():
        if out.is_dir() and any(out.iterdir()):
            raise BadInput(
                f"{out} is not empty and is not a txcript archive (no {MANIFEST}); "
                "choose a new or empty directory"
            )
        return None
    try:
        manifest = msgspec.json.decode(path.read_bytes(), type=Manifest)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise BadInput(f"{path} is not a readable txcript archive manifest: {exc}") from None
    if manifest.format != _FORMAT:
        raise BadInput(
            f"{path} has archive format {manifest.format}; this txcript writes {_FORMAT}"
        )
    return manifest


def _fingerprints(sessions: Iterable[Discovered]) -> dict[tuple[str, str], str]:
    """Every session's change cursor, one batched store call per harness; "" means unknown."""
    by_harness: dict[str, list[str]] = {}
    for session in sessions:
        by_harness.setdefault(session.harness, []).append(session.reference)
    found: dict[tuple[str, str], str] = {}
    for harness_id, references in by_harness.items():
        store = harnesses.get(harness_id).store()
        if store is None:
            continue
        try:
            cursors = store.fingerprints(references)
        except Exception as exc:  # no cursor only costs a re-render
            warn(f"{harness_id}: no change cursors ({type(exc).__name__}: {exc}); re-rendering")
            continue
        for reference in references:
            found[_key(harness_id, reference)] = cursors.get(reference, "")
    return found


def _render(session: Discovered, fingerprint: str, out: Path) -> Entry:
    from txcript.sessions import load_session

    harness, native = load_session(session)
    transcript = harness.to_common(native)
    meta = transcript.meta
    page = page_path(session.harness, session.meta_id, session.reference)
    view = present.present(transcript, harness=session.harness)
    document = html.render_session(view, index_href="../../" + INDEX)
    target = out / page
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, document.encode("utf-8"))
    return Entry(
        harness=session.harness,
        reference=session.reference,
        fingerprint=fingerprint,
        page=page,
        session_id=meta.id or session.meta_id,
        title=view.title,
        cwd=meta.cwd or "",
        started=format_rfc3339(meta.timestamp),
        messages=len(transcript.messages),
    )


def _index_rows(entries: Iterable[Entry]) -> list[html.IndexRow]:
    ordered = sorted(entries, key=lambda e: (e.started, e.harness, e.session_id), reverse=True)
    return [
        html.IndexRow(
            harness=e.harness,
            session_id=e.session_id,
            title=e.title,
            cwd=e.cwd,
            started_label=e.started[:16].replace("T", " "),
            started=e.started,
            messages=e.messages,
            href=e.page,
        )
        for e in ordered
    ]


def _write_if_changed(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_atomic(path, data)
    return True


def build_archive(
    out: Path, sessions: Sequence[Discovered], *, progress: Progress | None = None
) -> ArchiveResult:
    """Bring the archive in ``out`` up to date with ``sessions``."""
    manifest = _load_manifest(out)
    renderer = renderer_version()
    earlier = [] if manifest is None else manifest.entries
    previous = {_key(e.harness, e.reference): e for e in earlier}
    reusable = manifest is not None and manifest.renderer == renderer
    out.mkdir(parents=True, exist_ok=True)
    entries = dict(previous)

    def save() -> None:
        updated = Manifest(format=_FORMAT, renderer=renderer, entries=list(entries.values()))
        data = msgspec.json.format(msgspec.json.encode(updated), indent=1)
        _write_if_changed(out / MANIFEST, data)

    if manifest is None:
        save()  # the directory is an archive from now on: a run cut short can go on in it
    cursors = _fingerprints(sessions)
    result = ArchiveResult(out=out, matched=len(sessions))
    try:
        _render_all(out, sessions, cursors, previous, entries, reusable, result, progress, save)
    except BaseException:
        save()  # the pages written so far are kept: a run again renders only the rest
        raise
    result.indexed = len(entries)
    index = html.render_index(_index_rows(entries.values()))
    result.index_written = _write_if_changed(out / INDEX, index.encode("utf-8"))
    save()
    return result


def _render_all(
    out: Path,
    sessions: Sequence[Discovered],
    cursors: dict[tuple[str, str], str],
    previous: dict[tuple[str, str], Entry],
    entries: dict[tuple[str, str], Entry],
    reusable: bool,
    result: ArchiveResult,
    progress: Progress | None,
    save: Callable[[], None],
) -> None:
    """Render each session whose page is not up to date into ``entries`` (and ``result``)."""
    for done, session in enumerate(sessions, start=1):
        key = _key(session.harness, session.reference)
        cursor = cursors.get(key, "")
        old = previous.get(key)
        if (
            reusable
            and old is not None
            and cursor
            and old.fingerprint == cursor
            and (out / old.page).is_file()
        ):
            result.unchanged += 1
        else:
            try:
                entries[key] = _render(session, cursor, out)
                result.written += 1
                if result.written % SAVE_EVERY == 0:
                    save()
            except TxcriptError as exc:
                result.failed += 1
                result.failures.append(f"{session.harness} {scrub(session.meta_id)}: {exc}")
                warn(f"not archived: {session.harness} session {scrub(session.meta_id)}: {exc}")
            except Exception as exc:  # one unreadable session must not stop the archive
                result.failed += 1
                detail = f"{type(exc).__name__}: {exc}"
                result.failures.append(f"{session.harness} {scrub(session.meta_id)}: {detail}")
                warn(f"not archived: {session.harness} session {scrub(session.meta_id)}: {detail}")
        if progress is not None:
            progress(done, len(sessions))
