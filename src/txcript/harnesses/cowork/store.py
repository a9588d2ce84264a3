"""The Cowork store: ``<root>/<org uuid>/<account uuid>/local_<id>.json`` and its task folder.

**Root.** Claude desktop's data directory + ``local-agent-mode-sessions`` (macOS ``~/Library/
Application Support/Claude``, Windows ``%APPDATA%\\Claude``, else ``~/.config/Claude``);
``COWORK_SESSIONS_DIR`` (txcript's, the app has no override) names it instead.

**Discovery** reads the trees whose two directory names are UUIDs (``skills-plugin/`` and the
like are not accounts), and each one's ``agent/`` directory. A ``local_*.json`` record is a task
when it has every field Claude desktop requires; the others are counted in one warning. The
transcript is found, never rebuilt from the cwd (Claude Code truncates and hashes long project
names): ``local_<id>/.claude/projects/*/<cliSessionId>.jsonl``. Its metadata comes from the
same head scan as Claude Code's discovery, so what is listed is what a load gives. A listing is
kept in the metadata cache under the fingerprints of the record and the transcript.

**Saving** writes into the task's own account tree when it came from one, else into the account
whose newest task is the most recently active (none → an error: Cowork has not been used here).
The transcript goes first, then the task folder's ``outputs/`` and ``uploads/``, the record —
what makes the task visible — last; a failure undoes every step. An existing task is refused
unless ``force``, and then backed up first. ``audit.jsonl`` is never written (its key lives in
the app's keychain, and a task without one is accepted). Claude desktop reads its records only
at startup, so the copy shows after it is quit and opened again.

**Deleting** takes a record directly in an account tree of this root (symlinks resolved), backs
up the record and its task folder, then removes both.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.harnesses.cowork.native import (
    HARNESS,
    TASK_DIRS,
    CoworkTask,
    record_problem,
    record_value,
)
from txcript.model import Meta
from txcript.shared.cache import metadata_cache
from txcript.shared.files import (
    MAX_SESSION_FILE_BYTES,
    MAX_SIDE_FILE_BYTES,
    Undo,
    decode_lossless,
    file_key,
    modified_at,
    preflight_write,
    read_regular,
)
from txcript.shared.ids import COWORK_IDS, UUID_IDS
from txcript.shared.text import shown

# A listing of tasks that have not changed reads only the metadata cache: the Claude Code codec
# and the backups are imported when a task is read or written.

AGENT = "agent"
PROJECTS = (".claude", "projects")
#: A file written this recently (ns) may change again without its fingerprint moving.
_SETTLED_NS = 2_000_000_000
NOTE = (
    "Claude desktop reads its Cowork tasks only when it starts: quit it and open it again to "
    "see the copy"
)


def new_session_id() -> str:
    """A fresh Cowork task id (``local_`` and a random UUID)."""
    import uuid

    return f"local_{uuid.uuid4()}"


def _is_uuid(name: str) -> bool:
    return UUID_IDS.problem(name) is None


def _subdirs(directory: Path) -> list[Path]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return sorted(
        Path(entry.path)
        for entry in entries
        if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
    )


class _Tree:
    """One place records live: an account directory, or its ``agent/`` directory."""

    __slots__ = ("account", "agent", "org", "path")

    def __init__(self, org: str, account: str, agent: bool, path: Path) -> None:
        self.org, self.account, self.agent, self.path = org, account, agent, path


def transcript_path(folder: Path, value: dict[str, Any] | None) -> Path | None:
    """The transcript of a task folder: ``.claude/projects/*/<cliSessionId>.jsonl`` (the first
    ``*.jsonl`` of a record without ``cliSessionId``); None when there is none."""
    projects = folder.joinpath(*PROJECTS)
    cli_id = value.get("cliSessionId") if value is not None else None
    for project in _subdirs(projects):
        if isinstance(cli_id, str) and cli_id:
            candidate = project / f"{cli_id}.jsonl"
            if os.path.isfile(candidate):
                return candidate
            continue
        try:
            names = sorted(e.name for e in os.scandir(project) if e.name.endswith(".jsonl"))
        except OSError:
            continue
        if names:
            return project / names[0]
    return None


def _key(path: Path | None) -> str:
    if path is None:
        return "-"
    try:
        return file_key(os.stat(path))
    except OSError:
        return ""


class CoworkStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def trees(self) -> list[_Tree]:
        out = []
        for org in _subdirs(self.root):
            if not _is_uuid(org.name):
                continue
            for account in _subdirs(org):
                if not _is_uuid(account.name):
                    continue
                out.append(_Tree(org.name, account.name, False, account))
                agent = account / AGENT
                if agent.is_dir() and not agent.is_symlink():
                    out.append(_Tree(org.name, account.name, True, agent))
        return out

    def _records(self, id_prefix: str = "") -> list[tuple[_Tree, Path]]:
        found = []
        for tree in self.trees():
            try:
                entries = list(os.scandir(tree.path))
            except OSError:
                continue
            for entry in sorted(entries, key=lambda e: e.name):
                name = entry.name
                if not (name.startswith("local_") and name.endswith(".json")):
                    continue
                if not name[: -len(".json")].startswith(id_prefix):
                    continue
                with contextlib.suppress(OSError):
                    if not entry.is_dir():
                        found.append((tree, Path(entry.path)))
        return found

    def discover(self) -> list[Discovered]:
        return self._listed(self._records(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The tasks whose id (the record's file stem) starts with ``id_prefix``, listed exactly
        as :meth:`discover` lists them."""
        return self._listed(self._records(id_prefix), complete=False)

    def _listed(self, records: list[tuple[_Tree, Path]], *, complete: bool) -> list[Discovered]:
        cache = metadata_cache()
        scope = f"{HARNESS}:{self.root}"
        references = [str(path) for _, path in records]
        known = cache.entries(scope, None if complete else references)
        fresh: dict[str, tuple[str, bytes]] = {}
        settled = time.time_ns() - _SETTLED_NS
        invalid: list[str] = []
        out: list[Discovered] = []
        for tree, path in records:
            reference = str(path)
            entry = known.get(reference)
            meta: Meta | None = None
            key = ""
            try:
                if entry is None:
                    raise LookupError
                key = self._fingerprint(path)
                if not key or "+" not in key or entry[0] != key:
                    raise LookupError
                meta = _meta_decoder.decode(entry[1])
            except (LookupError, msgspec.DecodeError, msgspec.ValidationError):
                try:
                    meta, key, written = self._scan(path)
                except TxcriptError as exc:
                    warn(f"skipping the Cowork task {path}: {exc}")
                    continue
                if meta is None:
                    invalid.append(path.name)
                elif key and written < settled:
                    with contextlib.suppress(msgspec.EncodeError, UnicodeEncodeError):
                        fresh[reference] = (key, msgspec.json.encode(meta))
            if meta is None:
                continue
            out.append(
                Discovered.from_meta(
                    HARNESS,
                    reference,
                    meta,
                    updated_at=_updated(path),
                    account=tree.account,
                )
            )
        if invalid:
            warn(
                f"skipping {len(invalid)} Cowork record(s) that Claude desktop would not show "
                f"(missing or mistyped required fields), e.g. {invalid[0]}"
            )
        present = set(references)
        gone = [r for r in known if r not in present] if complete else []
        cache.update(scope, fresh, gone)
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    def _scan(self, path: Path) -> tuple[Meta | None, str, int]:
        """The Meta of a record and its transcript (None for a record the app would not show),
        the fingerprint it was read under, and the newest mtime (ns) of the two files."""
        data = read_regular(path, limit=MAX_SIDE_FILE_BYTES)
        value = record_value(data)
        if record_problem(value) is not None:
            return None, "", 0
        from txcript.harnesses.cowork import codec
        from txcript.shared.formats.claude_jsonl.meta import scan_head
        from txcript.shared.jsonutil import try_loads

        transcript = transcript_path(path.with_suffix(""), value)
        key = self._fingerprint(path, transcript)
        claude = None
        written = os.stat(path).st_mtime_ns
        if transcript is not None:
            body = read_regular(transcript, limit=MAX_SESSION_FILE_BYTES)
            claude = scan_head(body, transcript.stem, try_loads).meta()
            written = max(written, os.stat(transcript).st_mtime_ns)
        return codec.record_meta(path.stem, value, claude), key, written

    def _fingerprint(self, record: Path, transcript: Path | None = None) -> str:
        """``"<record key>+<transcript key>"`` (``-`` for no transcript; ``""`` when unknown)."""
        first = _key(record)
        if not first or first == "-":
            return ""
        if transcript is None:
            value = None
            with contextlib.suppress(TxcriptError):
                value = record_value(read_regular(record, limit=MAX_SIDE_FILE_BYTES))
            transcript = transcript_path(record.with_suffix(""), value)
        second = _key(transcript)
        return f"{first}+{second}" if second else ""

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> CoworkTask:
        from txcript.shared.formats.claude_jsonl.native import ClaudeSession, parse_lines

        path = Path(reference)
        if not os.path.lexists(path):
            raise BadInput(f"reading {reference}: no such Cowork task record")
        data = read_regular(path, limit=MAX_SIDE_FILE_BYTES)
        value = record_value(data)
        transcript = None
        found = transcript_path(path.with_suffix(""), value)
        if found is not None:
            lines, final_newline = parse_lines(
                decode_lossless(read_regular(found, limit=MAX_SESSION_FILE_BYTES))
            )
            transcript = ClaudeSession(found.stem, lines, final_newline)
        tree = path.parent
        agent = tree.name == AGENT
        account = tree.parent if agent else tree
        return CoworkTask(
            task_id=path.stem,
            record=data,
            value=value,
            transcript=transcript,
            org=account.parent.name,
            account=account.name,
            agent=agent,
            project=found.parent.name if found is not None else None,
        )

    # -- save -------------------------------------------------------------------------------
    def _tree_for(self, native: CoworkTask) -> Path:
        if native.org is not None and native.account is not None:
            if not (_is_uuid(native.org) and _is_uuid(native.account)):
                raise BadInput(
                    f"Cowork task {native.task_id}: its org and account "
                    f"`{shown(native.org)}/{shown(native.account)}` are not UUIDs"
                )
            account = self.root / native.org / native.account
            return account / AGENT if native.agent else account
        youngest: tuple[float, Path] | None = None
        for tree in self.trees():
            if tree.agent:
                continue
            newest = 0.0
            for _, record in self._records_of(tree):
                newest = max(newest, _last_activity(record))
            if youngest is None or newest > youngest[0]:
                youngest = (newest, tree.path)
        if youngest is None:
            raise BadInput(
                f"no Cowork account under {self.root} (expected <org uuid>/<account uuid>/ "
                "directories): open a Cowork task in Claude desktop once, then try again"
            )
        return youngest[1]

    def _records_of(self, tree: _Tree) -> list[tuple[_Tree, Path]]:
        try:
            names = sorted(e.name for e in os.scandir(tree.path))
        except OSError:
            return []
        return [
            (tree, tree.path / n) for n in names if n.startswith("local_") and n.endswith(".json")
        ]

    def save(self, native: CoworkTask, *, force: bool = False) -> Saved:
        task_id = COWORK_IDS.check(native.task_id, "Cowork")
        problem = record_problem(native.value)
        if problem is not None:
            raise BadInput(f"Cowork task {task_id}: Claude desktop would not show it ({problem})")
        tree = self._tree_for(native)
        record = tree / f"{task_id}.json"
        folder = tree / task_id
        targets = [record, *(folder / name / ".keep" for name in TASK_DIRS)]
        transcript: Path | None = None
        data = b""
        if native.transcript is not None:
            from txcript.shared.formats.claude_jsonl.native import render_text
            from txcript.shared.formats.claude_jsonl.projects import encode_project

            cli_id = UUID_IDS.check(native.transcript.session_id, "Claude Code")
            cwd = native.value.get("cwd") if native.value else None
            project = native.project or encode_project(cwd if isinstance(cwd, str) else "") or "-"
            transcript = folder.joinpath(*PROJECTS, project, f"{cli_id}.jsonl")
            targets.append(transcript)
            try:
                data = render_text(native.transcript).encode("utf-8", errors="surrogateescape")
            except UnicodeEncodeError as exc:
                raise StoreError(f"writing {transcript}: text is not encodable ({exc})") from None
        preflight_write(self.root, targets, store="Cowork")
        exists = os.path.lexists(record) or os.path.lexists(folder)
        if exists and not force:
            raise BadInput(
                f"a Cowork task {task_id} already exists at {record}; refusing to overwrite it "
                "(pass --force to replace it)"
            )
        from txcript.shared import backups

        backup = None
        if exists:
            present = [p for p in (record, folder) if os.path.lexists(p)]
            backup = backups.create_files(
                present, harness=HARNESS, operation="save", session=task_id
            )
        undo = Undo()
        try:
            if transcript is not None:
                undo.make_dirs(transcript.parent)
                undo.write(transcript, data)
            for name in TASK_DIRS:
                undo.make_dirs(folder / name)
            undo.make_dirs(tree)
            undo.write(record, native.record)
        except BaseException:
            undo.run()
            if backup is not None:
                backups.discard(backup)
            raise
        return Saved(
            id=task_id,
            reference=str(record),
            location=str(record),
            notes=(NOTE,),
            backup=None if backup is None else backup.id,
        )

    # -- delete -----------------------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        real = Path(os.path.realpath(reference))
        root = Path(os.path.realpath(self.root))
        tree = real.parent
        account = tree.parent if tree.name == AGENT else tree
        in_tree = (
            account.parent.parent == root
            and _is_uuid(account.name)
            and _is_uuid(account.parent.name)
        )
        if not in_tree or not real.name.startswith("local_") or real.suffix != ".json":
            raise BadInput(f"{reference} is not a task record of the Cowork store {self.root}")
        if not real.is_file():
            raise BadInput(f"no Cowork task at {reference}")
        folder = real.with_suffix("")
        removing = [real]
        if os.path.lexists(folder):
            if folder.is_symlink() or not folder.is_dir():
                raise StoreError(
                    f"refusing to delete {reference}: its task folder {folder} is not a "
                    "directory of the store; nothing was deleted"
                )
            removing.append(folder)
        import shutil

        from txcript.shared import backups

        backup = backups.create_files(
            removing, harness=HARNESS, operation="delete", session=real.stem
        )
        moved: list[tuple[Path, Path]] = []
        try:
            for path in removing:
                aside = path.with_name(f".txcript-deleting-{path.name}")
                os.rename(path, aside)
                moved.append((path, aside))
        except OSError as exc:
            for path, aside in reversed(moved):
                with contextlib.suppress(OSError):
                    os.rename(aside, path)
            backups.discard(backup)
            raise StoreError(
                f"deleting {exc.filename or reference}: {exc.strerror or exc}; nothing was deleted"
            ) from None
        for _, aside in moved:
            if aside.is_dir():
                shutil.rmtree(aside, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    aside.unlink()

    # -- change cursors ---------------------------------------------------------------------
    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        return {reference: self._fingerprint(Path(reference)) for reference in references}


_meta_decoder: msgspec.json.Decoder[Meta | None] = msgspec.json.Decoder(Meta | None)


def _updated(record: Path) -> Any:
    with contextlib.suppress(OSError):
        return modified_at(os.stat(record))
    return None


def _last_activity(record: Path) -> float:
    """A record's ``lastActivityAt`` (its mtime in ms when it has none); 0 when unreadable."""
    try:
        value = record_value(read_regular(record, limit=MAX_SIDE_FILE_BYTES))
        stated = value.get("lastActivityAt") if value is not None else None
        if type(stated) in (int, float):
            return float(stated)  # type: ignore[arg-type]
        return os.stat(record).st_mtime_ns / 1e6
    except (OSError, TxcriptError):
        return 0.0
