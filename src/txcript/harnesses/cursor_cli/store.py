"""The Cursor CLI store: ``<chats>/<md5 of the workspace path>/<chat uuid>/`` directories.

**Root.** ``~/.cursor`` with the chats under ``chats/``; ``CURSOR_CHATS_DIR`` (ours, the agent
documents no override) names the chats directory itself. A store opened on another root (for
``continue --out DIR``) keeps its chats under ``DIR/chats``.

**Reading** goes through :mod:`txcript.shared.sqlite`: ``store.db`` is a WAL database whose newest
commits (including the root blob ``latestRootBlobId`` names) can live only in ``store.db-wal``,
with no ``-shm`` beside it. Such a store is read from a private snapshot, so the newest state is
seen and nothing in the chat directory is created or changed. ``meta.json`` and
``prompt_history.json`` are read with size caps.

**Discovery** walks two directory levels without following directory symlinks, skips names
starting with ``.`` (txcript's own temporary directories), and reads only the ``meta`` table and
``meta.json``; the blobs are read only when those leave a Meta field undecided (a build without
``workspacePath``, no title, no start time, no model), so what it lists is exactly what a load
gives. A chat that cannot be read is skipped with a warning.

**Noticing changes.** A chat's fingerprint (:meth:`CursorCliStore.fingerprints`) is the
``"<mtime ns>:<size>"`` of every file its listing or its load reads (``store.db``, its ``-wal``
and ``-journal``, ``meta.json``, ``prompt_history.json``) and the workspace its bucket resolves
to from the current directory (a chat without ``workspacePath`` takes its cwd from there). A
search index that keeps listings (:class:`~txcript.harnesses.base.ListsByFile`) lists a chat
again only when that moved.

**Saving** validates the id, the bucket and the cwd first, then builds the whole directory in a
temporary directory beside its target and renames it into place: a reader sees the chat whole or
not at all. An existing chat is refused unless ``force``, and then it is backed up first
(:func:`txcript.shared.backups.create_files`) and replaced by rename.

**Deleting** refuses anything that is not a chat directory two levels under the chats root
(symlinks resolved), backs the directory up, then renames it aside and removes it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

from txcript.diagnostics import skipped, warn
from txcript.errors import BadInput, StoreError, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.shared import backups
from txcript.shared import sqlite as shared_sqlite
from txcript.shared.files import MAX_SIDE_FILE_BYTES, file_key, preflight_write, read_regular
from txcript.shared.gcpause import without_gc
from txcript.shared.ids import UUID_IDS, check_session_id, id_problem
from txcript.shared.text import shown
from txcript.shared.timeutil import from_epoch_ms
from txcript.shared.workdir import filing_directory

from . import codec, head
from .native import DEFAULT_SCHEMA, HARNESS, Blob, Cell, CursorChat, MetaRow, bucket_of

BUSY_TIMEOUT_ENV = "TXCRIPT_BUSY_TIMEOUT"
#: The root override (declared in the registry) names the chats directory itself.
ENV_CHATS = "CURSOR_CHATS_DIR"
DB_NAME, META_JSON, PROMPTS_JSON = "store.db", "meta.json", "prompt_history.json"
#: Every file a saved chat directory holds.
_CHAT_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", META_JSON, PROMPTS_JSON)
#: Every file a chat's listing or load reads (``-shm`` holds no data and readers write to it).
_READ_FILES = (DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-journal", META_JSON, PROMPTS_JSON)


def chats_dir(root: Path) -> Path:
    """The chats directory of a store root (``CURSOR_CHATS_DIR`` is one already)."""
    override = os.environ.get(ENV_CHATS)
    if override and Path(override) == root:
        return root
    return root / "chats"


def _busy_timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(BUSY_TIMEOUT_ENV, "5")))
    except ValueError:
        return 5.0


def _cell(value: object) -> Cell:
    if isinstance(value, shared_sqlite.InvalidText):
        return value.raw
    if value is None or isinstance(value, str | bytes | int | float):
        return value
    return None


def _modified_ms(db: Path) -> int | None:
    times = []
    for path in (db, Path(str(db) + "-wal")):
        with contextlib.suppress(OSError):
            times.append(path.stat().st_mtime_ns // 1_000_000)
    return max(times) if times else None


def _read_side(path: Path) -> bytes | None:
    if not os.path.lexists(path):
        return None
    return read_regular(path, limit=MAX_SIDE_FILE_BYTES)


def known_workspaces() -> dict[str, str]:
    """Workspaces a bucket's md5 can be matched to: the current directory and its parents."""
    try:
        here = Path.cwd()
    except OSError:
        return {}
    return {bucket_of(str(c)): str(c) for c in reversed((here, *here.parents))}


def cwd_problem(cwd: str) -> str | None:
    """Why ``cwd`` cannot be a chat's workspace path, or None."""
    if not cwd:
        return "it is empty"
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in cwd):
        return "it contains a control character"
    if not (cwd.startswith("/") or PureWindowsPath(cwd).is_absolute()):
        return "it is not an absolute path"
    return None


class CursorCliStore:
    def __init__(self, root: Path, chats: Path | None = None) -> None:
        self.root = root
        self.chats = chats if chats is not None else chats_dir(root)
        self._workspaces: dict[str, str] | None = None

    def resolve_bucket(self, bucket: str) -> str | None:
        """The workspace whose md5 is ``bucket`` (see :func:`known_workspaces`), or None."""
        if self._workspaces is None:
            self._workspaces = known_workspaces()
        return self._workspaces.get(bucket)

    # -- reading ----------------------------------------------------------------------------
    def _read_db(self, db: Path, *, with_blobs: bool) -> dict[str, Any]:
        label = str(db)
        info = shared_sqlite.inspect(db, label)
        if info is None:
            raise BadInput(f"no Cursor CLI chat at {db.parent} (no {DB_NAME})")

        def work(conn: sqlite3.Connection) -> dict[str, Any]:
            if not with_blobs:  # listing: the meta rows only (a missing table is an error too)
                rows = conn.execute("SELECT key, value FROM meta ORDER BY rowid")
                return {"meta": [(k, _cell(v)) for k, v in rows], "blobs": [], "version": 0}
            tables = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
            if "blobs" not in tables or "meta" not in tables:
                raise StoreUnreadable(f"{label} is not a Cursor CLI store (no blobs/meta tables)")
            others = sorted(str(t) for t in tables if t not in ("blobs", "meta"))
            if others:
                warn(f"{label}: table(s) {', '.join(others)} are not read and not carried")
            meta = [
                (key, _cell(value))
                for key, value in conn.execute("SELECT key, value FROM meta ORDER BY rowid")
            ]
            blobs = conn.execute(
                "SELECT id, CAST(data AS BLOB), typeof(data) FROM blobs ORDER BY rowid"
            ).fetchall()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            schema = tuple(str(tables[name]) for name in ("blobs", "meta"))
            return {"meta": meta, "blobs": blobs, "version": version, "schema": schema}

        return shared_sqlite.read(db, info, work, label=label, busy_timeout=_busy_timeout())

    @without_gc
    def _chat(self, directory: Path, *, with_blobs: bool) -> CursorChat:
        db = directory / DB_NAME
        cells = self._read_db(db, with_blobs=with_blobs)
        meta: list[MetaRow] = []
        for key, value in cells["meta"]:
            if isinstance(key, str):
                meta.append(MetaRow(key, value))
            else:
                warn(f"{db}: a meta row whose key is not text; skipped")
        blobs: list[Blob] = []
        for blob_id, data, kind in cells["blobs"]:
            if not isinstance(blob_id, str):
                warn(f"{db}: a blob whose id is not text; skipped")
                continue
            blobs.append(Blob(blob_id, data if isinstance(data, bytes) else b"", kind == "text"))
        bucket = directory.parent.name
        return CursorChat(
            chat_id=directory.name,
            blobs=tuple(blobs),
            meta=tuple(meta),
            bucket=bucket,
            meta_json=_read_side(directory / META_JSON),
            prompt_history=_read_side(directory / PROMPTS_JSON) if with_blobs else None,
            schema=cells.get("schema", DEFAULT_SCHEMA),
            user_version=int(cells["version"]),
            resolved_cwd=self.resolve_bucket(bucket),
            modified_ms=_modified_ms(db),
        )

    def _chat_dirs(self, id_prefix: str = "") -> Iterator[Path]:
        """Chat directories (only those whose name starts with ``id_prefix``)."""
        for bucket in _subdirs(self.chats):
            for chat in _subdirs(bucket):
                if chat.name.startswith(id_prefix) and os.path.isfile(chat / DB_NAME):
                    yield chat

    def discover(self) -> list[Discovered]:
        return self._listed(self._chat_dirs())

    def fingerprinted(self) -> dict[str, str]:
        """Every chat directory :meth:`discover` looks at, with its fingerprint now (see
        :class:`txcript.harnesses.base.ListsByFile`)."""
        return self.fingerprints(str(directory) for directory in self._chat_dirs())

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The chats among ``references`` (directories :meth:`fingerprinted` named), each
        exactly as :meth:`discover` lists it; one whose database is gone since is not listed."""
        return self._listed(Path(r) for r in references if os.path.isfile(Path(r, DB_NAME)))

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The chats whose id starts with ``id_prefix``, found by directory name (the agent
        names each chat's directory after its id) and listed exactly as :meth:`discover`."""
        found = self._listed(self._chat_dirs(id_prefix))
        return [d for d in found if d.meta_id.startswith(id_prefix)]

    def _listed(self, directories: Iterable[Path]) -> list[Discovered]:
        found: list[Discovered] = []
        for directory in directories:
            try:
                chat = self._chat(directory, with_blobs=False)
                meta = head.cheap_meta(
                    head.read_head(chat.meta, chat.meta_json, str(directory)), chat
                )
                if meta is None:
                    meta = codec.to_common(self._chat(directory, with_blobs=True)).meta
            except TxcriptError as exc:
                skipped(directory, exc, "the Cursor CLI chat")
                continue
            updated = None if chat.modified_ms is None else from_epoch_ms(chat.modified_ms)
            found.append(Discovered.from_meta(HARNESS, str(directory), meta, updated_at=updated))
        return found

    def load(self, reference: str) -> CursorChat:
        directory = Path(reference)
        if not directory.is_dir():
            raise BadInput(f"no Cursor CLI chat at {reference}")
        return self._chat(directory, with_blobs=True)

    # -- writing ----------------------------------------------------------------------------
    def target(self, chat: CursorChat) -> Path:
        check_session_id(chat.chat_id)
        UUID_IDS.check(chat.chat_id, "Cursor CLI")  # the agent's chat ids; never an option
        facts = head.read_head(chat.meta, chat.meta_json, codec.label_of(chat))
        cwd = facts.workspace_path
        if cwd is not None:
            problem = cwd_problem(cwd)
            if problem is not None:
                raise BadInput(f"cwd `{shown(cwd)}` cannot be a Cursor CLI workspace ({problem})")
        # (A chat with no workspace path is kept, as the agent keeps one, under the md5 of the
        # directory it is filed from.)
        bucket = chat.bucket or bucket_of(filing_directory(cwd))
        problem = id_problem(bucket)
        if problem is not None or bucket.startswith("."):
            raise BadInput(f"bucket `{shown(bucket)}` is not usable as a directory name")
        return self.chats / bucket / chat.chat_id

    def save(self, native: CursorChat, *, force: bool = False) -> Saved:
        target = self.target(native)
        # The chat is built in a temporary directory beside ``target`` and renamed onto it.
        chats = Path(os.path.abspath(self.chats))
        root = Path(os.path.abspath(self.root))
        preflight_write(
            root if chats.is_relative_to(root) else chats,
            [target.parent / ".txcript-new", *(target / name for name in _CHAT_FILES)],
            store="Cursor CLI",
        )
        if os.path.lexists(target) and not force:
            raise BadInput(
                f"a Cursor CLI chat {shown(native.chat_id)} already exists at {target}; "
                "refusing to overwrite it (pass --force to replace it)"
            )
        if os.path.lexists(target):
            backups.check_settings()  # replacing takes a backup
        created: list[Path] = []
        current = target.parent
        while not os.path.lexists(current) and current.parent != current:
            created.append(current)
            current = current.parent
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temp = Path(tempfile.mkdtemp(prefix=".txcript-", dir=target.parent))
        except OSError as exc:
            raise StoreError(f"writing {target}: {exc.strerror or exc}") from None
        try:
            _build(temp, native)
            _install(temp, target, native.chat_id)
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            for directory in created:
                with contextlib.suppress(OSError):
                    directory.rmdir()
            raise
        return Saved(id=native.chat_id, reference=str(target), location=str(target))

    # -- delete / fingerprints --------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        real = Path(os.path.realpath(reference))
        chats = Path(os.path.realpath(self.chats))
        if real.parent.parent != chats or real.name.startswith("."):
            raise BadInput(f"{reference} is not a chat directory of the Cursor CLI store {chats}")
        if not (real / DB_NAME).is_file():
            raise BadInput(f"no Cursor CLI chat at {reference}")
        chat = self._chat(real, with_blobs=False)
        session = head.read_head(chat.meta, chat.meta_json, str(real)).agent_id or real.name
        backup = backups.create_files([real], harness=HARNESS, operation="delete", session=session)
        aside = real.with_name(f".txcript-deleting-{real.name}")
        try:
            os.rename(real, aside)
        except OSError as exc:
            backups.discard(backup)
            raise StoreError(
                f"deleting {real}: {exc.strerror or exc}; nothing was deleted"
            ) from None
        shutil.rmtree(aside, ignore_errors=True)

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """Each chat directory's fingerprint (see the module's *Noticing changes*); ``""`` when
        it has no database or a file it reads cannot be examined."""
        out: dict[str, str] = {}
        for reference in references:
            parts = []
            for name in _READ_FILES:
                try:
                    parts.append(file_key(os.stat(Path(reference, name))))
                except FileNotFoundError:
                    parts.append("-")
                except OSError:
                    parts = []
                    break
            if not parts or parts[0] == "-":
                out[reference] = ""
                continue
            workspace = self.resolve_bucket(Path(reference).parent.name)
            out[reference] = "+".join(parts) + ("" if workspace is None else f"@{workspace}")
        return out

    def location(self, reference: str) -> str:
        return reference


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


def _bind(blob: Blob) -> str | bytes:
    if blob.text:
        with contextlib.suppress(UnicodeDecodeError):
            return blob.data.decode("utf-8")
    return blob.data


def _build(directory: Path, chat: CursorChat) -> None:
    """Write the chat's files into ``directory`` (a fresh temporary directory)."""
    db = directory / DB_NAME
    try:
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN")
            for statement in chat.schema:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {int(chat.user_version)}")
            conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [(row.key, row.value) for row in chat.meta],
            )
            conn.executemany(
                "INSERT INTO blobs (id, data) VALUES (?, ?)",
                [(blob.id, _bind(blob)) for blob in chat.blobs],
            )
            conn.execute("COMMIT")
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, OverflowError) as exc:
        raise StoreError(f"writing {db}: {exc}") from None
    for name, data in ((META_JSON, chat.meta_json), (PROMPTS_JSON, chat.prompt_history)):
        if data is None:
            continue
        try:
            with open(directory / name, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise StoreError(f"writing {directory / name}: {exc.strerror or exc}") from None
    for leftover in ("-wal", "-shm"):
        if os.path.lexists(str(db) + leftover):
            raise StoreError(f"writing {db}: SQLite left {db.name}{leftover} behind")


def _install(temp: Path, target: Path, chat_id: str) -> None:
    """Rename the built directory into place; an existing chat is backed up and replaced."""
    if not os.path.lexists(target):
        try:
            os.rename(temp, target)
        except OSError as exc:
            raise StoreError(f"writing {target}: {exc.strerror or exc}") from None
        return
    backup = backups.create_files([target], harness=HARNESS, operation="save", session=chat_id)
    aside = target.with_name(f".txcript-replaced-{target.name}")
    try:
        os.rename(target, aside)
    except OSError as exc:
        backups.discard(backup)
        raise StoreError(f"replacing {target}: {exc.strerror or exc}") from None
    try:
        os.rename(temp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.rename(aside, target)
        backups.discard(backup)
        raise StoreError(f"replacing {target}: {exc.strerror or exc}") from None
    shutil.rmtree(aside, ignore_errors=True)
