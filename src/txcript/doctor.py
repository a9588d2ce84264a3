"""``txcript doctor``: what txcript finds on this machine, and whether every session survives.

Everything here only reads: stores are scanned and loaded through their own read paths (SQLite
read modes that create nothing beside a database), and the deep checks run in memory. The report
is meant to be pasted into a bug report, so it never holds message text, titles, working
directories or any path below a store root: sessions are named by harness and id, and a failure's
reason is the exception's class and its message with quoted values, paths and controls removed.

The deep checks, per loaded session ``native`` of harness ``H``:

* **codec fixpoint** — ``c = H.to_common(native)``; the copy ``H.from_common(c)``, rendered with
  ``H.to_text`` and re-read with ``H.from_text``, converts back to exactly ``c``, modulo the
  changes writers make on purpose (:data:`NORMALIZATIONS`): a FAIL means data is at risk;
* **round trip** — ``H.to_text(native)`` re-read with ``H.from_text`` renders to the very same
  text, and reads as the same conversation as the session loaded from the store.

A harness that cannot be written (a read-only source) skips the fixpoint; it is not a failure.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import msgspec

from txcript import harnesses
from txcript._version import __version__
from txcript.diagnostics import TranscriptWarning
from txcript.errors import TxcriptError
from txcript.harnesses.base import Discovered, Harness
from txcript.model import ToolResult, ToolUse, Transcript
from txcript.pairing import NO_RESULT, answer_open_calls
from txcript.shared import backups, dirs
from txcript.shared.cache import metadata_cache_off
from txcript.shared.files import regular_files_size
from txcript.shared.jsonutil import try_loads
from txcript.shared.text import scrub
from txcript.shared.timeutil import format_rfc3339, now

#: Checks a session can fail, in the order they run.
CHECKS = ("load", "fixpoint", "round_trip")
#: Optional extras and the modules that provide them (any one is enough).
EXTRAS: dict[str, tuple[str, ...]] = {
    "zstd": ("compression.zstd", "zstandard"),
    "mcp": ("mcp",),
}
_REASON_LIMIT = 160

#: Called before each session is checked: (harness id, sessions done, sessions in all).
Progress = Callable[[str, int, int], None]


# ------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class StoreFinding:
    """One harness's store as found, without reading any session in full."""

    harness: str
    name: str
    root: str | None
    exists: bool
    sessions: int
    newest: datetime | None
    newest_age_seconds: int | None
    #: Is the harness's app running (only for harnesses whose store refuses writes then)?
    app_running: bool | None
    #: Each executable that starts the harness, and where it is on PATH (None: not found).
    executables: dict[str, str | None]
    #: Warnings the scan raised (files it skipped), and the first of them, sanitized.
    warnings: int
    first_warning: str | None
    #: Why the store could not be scanned, sanitized; None when it could.
    error: str | None

    def as_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "name": self.name,
            "root": self.root,
            "exists": self.exists,
            "sessions": self.sessions,
            "newest": None if self.newest is None else format_rfc3339(self.newest),
            "newest_age_seconds": self.newest_age_seconds,
            "app_running": self.app_running,
            "executables": dict(self.executables),
            "warnings": self.warnings,
            "first_warning": self.first_warning,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class Failure:
    """One session that failed one check."""

    harness: str
    id: str
    check: str
    reason: str

    def as_json(self) -> dict[str, str]:
        return {"harness": self.harness, "id": self.id, "check": self.check, "reason": self.reason}


@dataclass(slots=True)
class Tally:
    """How one harness's sessions fared in the deep checks."""

    harness: str
    sessions: int = 0
    loaded: int = 0
    fixpoint_checked: int = 0
    fixpoint_passed: int = 0
    round_trip_checked: int = 0
    round_trip_passed: int = 0
    warnings: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "sessions": self.sessions,
            "loaded": self.loaded,
            "fixpoint": {"checked": self.fixpoint_checked, "passed": self.fixpoint_passed},
            "round_trip": {"checked": self.round_trip_checked, "passed": self.round_trip_passed},
            "warnings": self.warnings,
        }


@dataclass(frozen=True, slots=True)
class Warned:
    """A session that loaded, but whose reader skipped or repaired something (with a warning)."""

    harness: str
    id: str
    count: int
    #: The first warning, sanitized.
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"harness": self.harness, "id": self.id, "count": self.count, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class DeepReport:
    tallies: tuple[Tally, ...]
    failures: tuple[Failure, ...]
    #: Sessions that pass but whose read warned; they do not fail the run.
    warned: tuple[Warned, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "harnesses": [t.as_json() for t in self.tallies],
            "failures": [f.as_json() for f in self.failures],
            "warnings": [w.as_json() for w in self.warned],
        }


@dataclass(frozen=True, slots=True)
class Report:
    txcript: str
    python: str
    platform: str
    stores: tuple[StoreFinding, ...]
    extras: dict[str, bool]
    data_dir: str
    data_dir_exists: bool
    data_dir_bytes: int
    backups: int
    backups_bytes: int
    deep: DeepReport | None = None

    @property
    def ok(self) -> bool:
        """No store failed to scan, and (deep) every session passed."""
        scanned = all(s.error is None for s in self.stores)
        return scanned and (self.deep is None or self.deep.passed)

    def as_json(self) -> dict[str, Any]:
        return {
            "txcript": self.txcript,
            "python": self.python,
            "platform": self.platform,
            "ok": self.ok,
            "stores": [s.as_json() for s in self.stores],
            "extras": dict(self.extras),
            "data_dir": {
                "path": self.data_dir,
                "exists": self.data_dir_exists,
                "bytes": self.data_dir_bytes,
            },
            "backups": {"count": self.backups, "bytes": self.backups_bytes},
            "deep": None if self.deep is None else self.deep.as_json(),
        }


# ------------------------------------------------------------------------------ sanitizing

# A quoted value may be session content (a title, a role, a tool name): it goes whole.
_QUOTED = re.compile(r"`[^`]*`?|\"[^\"]*\"?|'[^']*'|«[^»]*»?")
# Anything that looks like a path (it could name a project or a file below the store root):
# absolute (``/…``, ``~/…``, ``C:\…``, ``\\server``) or with two separators or more.
_PATHLIKE = re.compile(
    r"(?:(?<![\w.-])(?:[A-Za-z]:)?[/\\~]|[^\s/\\]*[/\\][^\s/\\]*[/\\])[^\s:;,()\[\]]*"
)


def sanitize(message: str, roots: Iterable[str] = ()) -> str:
    """``message`` as one short line that names no value, path or content from a session."""
    for root in sorted((r for r in roots if r), key=len, reverse=True):
        message = message.replace(root, "<root>")
    message = _QUOTED.sub("…", message)
    message = _PATHLIKE.sub("<path>", message)
    message = " ".join(scrub(message).split())
    if len(message) > _REASON_LIMIT:
        message = message[: _REASON_LIMIT - 1].rstrip() + "…"
    return message


def explain(exc: BaseException, roots: Iterable[str] = ()) -> str:
    """An exception as ``Class: sanitized message`` (or only the class when it says nothing)."""
    text = sanitize(str(exc), roots)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ------------------------------------------------------------------------------- survey


def _executables(harness: Harness[Any]) -> dict[str, str | None]:
    return {name: shutil.which(name) for name in harness.executables}


def _app_running(harness: Harness[Any]) -> bool | None:
    """Whether the harness's app runs, for harnesses whose store refuses writes while it does."""
    if not harness.provides("refuse_while_running"):
        return None
    try:
        harness.refuse_while_running()
    except TxcriptError:
        return True
    except Exception:  # the process table could not be read: unknown, not "running"
        return None
    return False


def _newest(found: Sequence[Discovered]) -> datetime | None:
    times = [d.updated_at or d.timestamp for d in found]
    return max(times) if times else None


def extras() -> dict[str, bool]:
    found = {}
    for extra, modules in EXTRAS.items():
        present = False
        for module in modules:
            try:
                present = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):
                present = False
            if present:
                break
        found[extra] = present
    return found


@dataclass(slots=True)
class _Scanned:
    harness: Harness[Any]
    store: Any
    finding: StoreFinding
    found: list[Discovered] = field(default_factory=list)


def _scan(harness: Harness[Any], moment: datetime) -> _Scanned:
    root = harness.default_root()
    store = None if root is None else harness.store(root)
    # A root every machine has (a home several apps keep data under) holds the store only where
    # the harness finds its storage there.
    exists = root is not None and os.path.lexists(root) and harness.store_present(root)
    found: list[Discovered] = []
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TranscriptWarning)
        # (A store with no default place is a file the user names, such as an account export.)
        names_a_file = harness.info.root is not None and harness.info.root.home is None
        if root is not None and exists and not os.path.isdir(root) and not names_a_file:
            # A file (or a dangling link) where the harness keeps its store: the harness itself
            # cannot start there either, so it is a failure, not an empty store.
            error = "store root is not a directory"
        elif store is not None and exists:
            try:
                found = store.discover()
            except Exception as exc:  # one broken store must not hide the others
                error = explain(exc, [str(root)])
    newest = _newest(found)
    said = [str(w.message) for w in caught if issubclass(w.category, TranscriptWarning)]
    finding = StoreFinding(
        harness=harness.id,
        name=harness.name,
        root=None if root is None else str(root),
        exists=exists,
        sessions=len(found),
        newest=newest,
        newest_age_seconds=None if newest is None else int((moment - newest).total_seconds()),
        app_running=_app_running(harness),
        executables=_executables(harness),
        warnings=len(said),
        first_warning=sanitize(said[0], [str(root)]) if said else None,
        error=error,
    )
    return _Scanned(harness, store, finding, found)


def _survey(moment: datetime) -> tuple[list[_Scanned], dict[str, Any]]:
    scanned = [_scan(h, moment) for h in harnesses.with_stores()]
    data = dirs.data_dir()
    backup_dir = backups.backup_dir()
    manifests = list(backup_dir.glob("*.json")) if backup_dir.is_dir() else []
    rest = {
        "txcript": __version__,
        "python": platform.python_version(),
        "platform": sys.platform,
        "extras": extras(),
        "data_dir": str(data),
        "data_dir_exists": data.is_dir(),
        "data_dir_bytes": regular_files_size(data) if data.is_dir() else 0,
        "backups": len(manifests),
        "backups_bytes": regular_files_size(backup_dir) if backup_dir.is_dir() else 0,
    }
    return scanned, rest


# ------------------------------------------------------------------------------ deep checks

#: What writers change on purpose, each documented where the writer is; the fixpoint compares
#: modulo these (``doctor --help`` lists them).
NORMALIZATIONS = (
    "JSON tool output is stored as its compact text where the app keeps only strings",
    "a tool call left without a result while the conversation goes on gets an error result "
    "saying none was recorded (in the app's own words where it has some), so the copy resumes",
    "a tool call and its result take one time where the app keeps them in one record (the "
    "result's in Cursor desktop's bubbles, the call's in Kimi CLI's steps)",
)


def _flattened(left: Any, right: Any) -> bool:
    """Is ``right`` the compact text a writer makes of the JSON tool output ``left``?

    Writers flatten JSON output to its text where the native app stores only strings (the
    Common spec's writing rule); that is a documented change, not a loss.
    """
    return not isinstance(left, str) and isinstance(right, str) and try_loads(right) == left


def _differs(left: Any, right: Any, where: str) -> str | None:
    """Where two values first differ, named by field and index only (never by content)."""
    if left == right:
        return None
    if type(left) is not type(right):
        return f"{where} changes kind ({type(left).__name__} → {type(right).__name__})"
    if isinstance(left, ToolResult) and _flattened(left.content, right.content):
        left = msgspec.structs.replace(left, content=right.content)
        if left == right:
            return None
    if isinstance(left, msgspec.Struct):
        fields = (
            (f"{where}.{n}", getattr(left, n), getattr(right, n)) for n in left.__struct_fields__
        )
        return next((d for w, a, b in fields if (d := _differs(a, b, w))), None)
    if isinstance(left, tuple | list):
        if len(left) != len(right):
            return f"{where} has {len(right)} items instead of {len(left)}"
        items = ((f"{where}[{i}]", a, b) for i, (a, b) in enumerate(zip(left, right, strict=True)))
        return next((d for w, a, b in items if (d := _differs(a, b, w))), None)
    return f"{where} differs"


def _closed_forms(common: Transcript) -> list[Transcript]:
    """``common``, and what it is with its open calls closed as a writer closes them (per
    message, or per block for a writer that keeps each block on its own)."""
    forms = [common]
    for blockwise in (False, True):
        closed = answer_open_calls(common, blockwise=blockwise)
        if all(closed != form for form in forms):
            forms.append(closed)
    return forms


def _aligned(back: Transcript, expected: Transcript) -> Transcript:
    """``back`` with what :data:`NORMALIZATIONS` allow put as ``expected`` has it: each tool
    call's message given back its time where it took the time of one of its calls' results,
    and each result's where it took its call's (a call and its result in one record), and
    each error result standing where ``expected`` closes an open call given the words of
    :data:`~txcript.pairing.NO_RESULT`."""
    if len(back.messages) != len(expected.messages):
        return back
    result_times: dict[str, set[datetime]] = {}
    call_times: dict[str, set[datetime]] = {}
    for message in expected.messages:
        for block in message.content:
            if isinstance(block, ToolResult):
                result_times.setdefault(block.tool_use_id, set()).add(message.timestamp)
            elif isinstance(block, ToolUse):
                call_times.setdefault(block.id, set()).add(message.timestamp)
    messages = list(back.messages)
    for index, (got, wanted) in enumerate(zip(back.messages, expected.messages, strict=True)):
        if got.timestamp != wanted.timestamp:
            calls = [b.id for b in wanted.content if isinstance(b, ToolUse)]
            answered = [b.tool_use_id for b in wanted.content if isinstance(b, ToolResult)]
            if any(got.timestamp in result_times.get(call, ()) for call in calls) or any(
                got.timestamp in call_times.get(call, ()) for call in answered
            ):
                got = msgspec.structs.replace(got, timestamp=wanted.timestamp)
        if len(got.content) == len(wanted.content):
            content = tuple(
                _closing(have, want) for have, want in zip(got.content, wanted.content, strict=True)
            )
            if content != got.content:
                got = msgspec.structs.replace(got, content=content)
        messages[index] = got
    return msgspec.structs.replace(back, messages=tuple(messages))


def _closing(have: Any, want: Any) -> Any:
    """``want`` where both close the same open call with an error result, else ``have``."""
    if (
        isinstance(want, ToolResult)
        and want.content == NO_RESULT
        and want.is_error
        and isinstance(have, ToolResult)
        and have.is_error
        and have.tool_use_id == want.tool_use_id
    ):
        return want
    return have


def _normalized_difference(expected: Transcript, back: Transcript, where: str) -> str | None:
    """Where ``back`` differs from ``expected`` beyond :data:`NORMALIZATIONS`, or None. The
    difference reported is from the form of ``expected`` with as many messages as ``back`` (the
    one the copy took), else from ``expected`` as it is."""
    reported: str | None = None
    for form in _closed_forms(expected):
        if where == "messages":
            found = _differs(form.messages, _aligned(back, form).messages, where)
        else:
            found = _differs(form, _aligned(back, form), where)
        if found is None:
            return None
        if reported is None or len(form.messages) == len(back.messages):
            reported = found
    return reported


def fixpoint_problem(harness: Harness[Any], common: Transcript) -> str | None:
    """Why ``common`` is not a fixpoint of the codec, or None.

    The copy ``from_common(common)`` must convert back to ``common`` exactly, modulo
    :data:`NORMALIZATIONS`, and rendered as text and re-read, to the same messages.
    """
    copy = harness.from_common(common)
    found = _normalized_difference(common, harness.to_common(copy), "")
    if found is not None:
        return "copy converts back differently: " + found.removeprefix(".")
    reread = harness.from_text(harness.to_text(copy))
    if reread == copy:  # the codec is deterministic: the same body converts the same
        return None
    found = _normalized_difference(common, harness.to_common(reread), "messages")
    return None if found is None else "copy re-read from its text differs: " + found


def round_trip_problem(harness: Harness[Any], native: Any, common: Transcript) -> str | None:
    """Why the loaded session's text does not re-read as the same session, or None.

    Only the messages are compared: metadata a store adds from beside the text (an id from the
    file name, a directory from a project registry) is not in the text form.
    """
    text = harness.to_text(native)
    again = harness.from_text(text)
    second = harness.to_text(again)
    if second != text:
        at = next((i for i, (a, b) in enumerate(zip(text, second, strict=False)) if a != b), None)
        at = min(len(text), len(second)) if at is None else at
        return f"text changes when re-read and rendered again (first at character {at})"
    if again == native:
        return None
    found = _differs(common.messages, harness.to_common(again).messages, "messages")
    return None if found is None else "re-read text reads differently: " + found


def _problem(check: Callable[[], str | None], roots: Sequence[str]) -> str | None:
    """What a check found (sanitized), with any exception it raised as its reason."""
    try:
        found = check()
    except Exception as exc:
        return explain(exc, roots)
    return None if found is None else sanitize(found, roots)


def _check(
    scanned: _Scanned,
    session: Discovered,
    tally: Tally,
    failures: list[Failure],
    warned: list[Warned],
) -> None:
    harness, roots = scanned.harness, [scanned.finding.root or ""]

    def fail(check: str, reason: str) -> None:
        failures.append(Failure(harness.id, session.meta_id, check, reason))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TranscriptWarning)
        try:
            native = scanned.store.load(session.reference)
            common = harness.to_common(native)
        except Exception as exc:
            fail("load", explain(exc, roots))
            return
        finally:
            said = [str(w.message) for w in caught if issubclass(w.category, TranscriptWarning)]
            tally.warnings += len(said)
            if said:
                reason = sanitize(said[0], roots)
                warned.append(Warned(harness.id, session.meta_id, len(said), reason))
        tally.loaded += 1
        if not harness.can_write:
            return  # a read-only source: there is no copy to convert back, nor a save
        tally.fixpoint_checked += 1
        problem = _problem(lambda: fixpoint_problem(harness, common), roots)
        if problem is None:
            tally.fixpoint_passed += 1
        else:
            fail("fixpoint", problem)
        tally.round_trip_checked += 1
        problem = _problem(lambda: round_trip_problem(harness, native, common), roots)
        if problem is None:
            tally.round_trip_passed += 1
        else:
            fail("round_trip", problem)


def _deep(scanned: Sequence[_Scanned], progress: Progress | None) -> DeepReport:
    total = sum(len(s.found) for s in scanned)
    done = 0
    tallies: list[Tally] = []
    failures: list[Failure] = []
    warned: list[Warned] = []
    for entry in scanned:
        tally = Tally(entry.harness.id, sessions=len(entry.found))
        tallies.append(tally)
        for session in entry.found:
            if progress is not None:
                progress(entry.harness.id, done, total)
            _check(entry, session, tally, failures, warned)
            done += 1
    if progress is not None and total:
        progress("", done, total)
    return DeepReport(tuple(tallies), tuple(failures), tuple(warned))


# ----------------------------------------------------------------------------------- entry


def diagnose(*, deep: bool = False, progress: Progress | None = None) -> Report:
    """What txcript finds on this machine; with ``deep``, every local session checked.

    The metadata cache is left out: the stores are what is checked, and the check leaves
    nothing behind."""
    with metadata_cache_off():
        moment = now()
        scanned, rest = _survey(moment)
        report = _deep(scanned, progress) if deep else None
    return Report(stores=tuple(s.finding for s in scanned), deep=report, **rest)
