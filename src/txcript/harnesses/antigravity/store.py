"""The Antigravity store: ``<root>/conversations/<uuid>.db`` beside ``<root>/brain/<uuid>/``.

**Root.** The CLI's data directory, ``~/.gemini/antigravity-cli`` (the app documents no
override; ``ANTIGRAVITY_CLI_DIR`` is txcript's). The IDE's ``~/.gemini/antigravity-ide`` and the
older app's ``~/.gemini/antigravity`` have the same layout: point the variable at one to read it.

**Reading** goes through :mod:`txcript.shared.sqlite`, so a database the CLI has open, or one
whose newest commits live only in its ``-wal``, is read whole without a byte beside it created or
changed. Every table is carried (rows in rowid order, storage classes kept); the brain folder's
regular files are read for a load only (never followed through a symlink, each size-capped).

**Discovery** lists the ``.db`` files of ``conversations/`` (names starting with ``.`` are
txcript's temporary files) whose database has a ``steps`` table; any other database there is
counted in one warning. The older app's conversations, ``*.pb`` in ``conversations/`` and
``implicit/``, are encrypted and cannot be read: they are counted in one warning too. A
conversation's listing is kept in the metadata cache under the fingerprint of its database and
``-wal``, so an untouched one is only ``stat``-ed.

**Saving** checks the id (a UUID) and every path first, then builds the brain folder and the
database beside their targets and renames them into place, the brain first: without the folder
the CLI hangs on resume, and without the database it starts a new conversation, so the copy
becomes resumable only once both are there. A conversation that exists is refused unless
``force``, and then backed up (:func:`txcript.shared.backups.create_files`) and replaced.

**Deleting** takes only a ``.db`` directly under ``conversations/`` (symlinks resolved) that is an
Antigravity conversation, and its brain folder when that is a real directory under ``brain/``;
both are backed up first, then moved aside and removed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreError, StoreUnreadable, TxcriptError
from txcript.harnesses.base import Discovered, Saved
from txcript.model import Meta
from txcript.shared.cache import metadata_cache
from txcript.shared.files import (
    MAX_SIDE_FILE_BYTES,
    file_key,
    modified_at,
    preflight_write,
    read_regular,
    sqlite_files,
)
from txcript.shared.ids import UUID_IDS, id_problem
from txcript.shared.text import shown

# A listing of conversations that have not changed reads only the metadata cache: the codec,
# the body's classes, SQLite and the backups are imported when a database is read or written.
if TYPE_CHECKING:
    import sqlite3

    from txcript.harnesses.antigravity.native import BrainFile, Cell, Conversation, Table

HARNESS = "antigravity"

CONVERSATIONS, BRAIN, IMPLICIT = "conversations", "brain", "implicit"
BUSY_TIMEOUT_ENV = "TXCRIPT_BUSY_TIMEOUT"
#: A database written this recently (ns) may change again within its file system's mtime
#: resolution without its fingerprint moving, so its listing is not cached yet.
_SETTLED_NS = 2_000_000_000
#: The most brain files a load carries (a folder with more is cut, with a warning).
_MAX_BRAIN_FILES = 10_000


def _busy_timeout() -> float:
    try:
        return max(0.0, float(os.environ.get(BUSY_TIMEOUT_ENV, "5")))
    except ValueError:
        return 5.0


def _cell(value: object) -> Cell:
    from txcript.shared.sqlite import InvalidText

    if isinstance(value, InvalidText):
        return value.raw
    if value is None or isinstance(value, str | bytes | int | float):
        return value
    return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class NotAConversation(StoreUnreadable):
    """A database in ``conversations/`` that is not an Antigravity conversation."""


def _read_tables(db: Path) -> tuple[tuple[Table, ...], tuple[str, ...], int]:
    import sqlite3

    from txcript.harnesses.antigravity.native import Table
    from txcript.shared import sqlite as shared_sqlite

    label = str(db)
    info = shared_sqlite.inspect(db, label)
    if info is None:
        raise BadInput(f"no Antigravity conversation at {db}")

    def work(conn: sqlite3.Connection) -> tuple[tuple[Table, ...], tuple[str, ...], int]:
        entries = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
        ).fetchall()
        names = [
            str(name)
            for kind, name, _ in entries
            if kind == "table" and isinstance(name, str) and not name.startswith("sqlite_")
        ]
        if "steps" not in names:
            raise NotAConversation(f"{label} is not an Antigravity conversation (no steps table)")
        tables = []
        for name in names:
            columns = tuple(
                str(row[1]) for row in conn.execute(f"PRAGMA table_info({_quoted(name)})")
            )
            try:
                cursor = conn.execute(f"SELECT * FROM {_quoted(name)} ORDER BY rowid")
            except sqlite3.OperationalError:  # a WITHOUT ROWID table: its key order
                cursor = conn.execute(f"SELECT * FROM {_quoted(name)}")
            rows = tuple(tuple(_cell(value) for value in row) for row in cursor)
            tables.append(Table(name, columns, rows))
        schema = tuple(
            str(sql) for kind, name, sql in entries if not str(name).startswith("sqlite_")
        )
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        return tuple(tables), schema, version

    return shared_sqlite.read(db, info, work, label=label, busy_timeout=_busy_timeout())


def _fingerprint(db: Path) -> str:
    """``"<mtime ns>:<size>"`` of the database and its ``-wal`` (``-`` for a missing one); ``""``
    when the database cannot be examined."""
    parts = []
    for path in (db, Path(f"{db}-wal")):
        try:
            parts.append(file_key(os.stat(path)))
        except FileNotFoundError:
            if path == db:
                return ""
            parts.append("-")
        except OSError:
            return ""
    return "+".join(parts)


def _updated_at(db: Path) -> Any:
    times = []
    for path in (db, Path(f"{db}-wal")):
        with contextlib.suppress(OSError):
            times.append(os.stat(path))
    return modified_at(max(times, key=lambda s: s.st_mtime_ns)) if times else None


class AntigravityStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.conversations = root / CONVERSATIONS
        self.brain = root / BRAIN

    def location(self, reference: str) -> str:
        return reference

    # -- discovery --------------------------------------------------------------------------
    def _databases(self, id_prefix: str = "") -> list[str]:
        try:
            entries = list(os.scandir(self.conversations))
        except OSError:
            return []
        found = []
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(".db"):
                continue
            if not name[: -len(".db")].startswith(id_prefix):
                continue
            with contextlib.suppress(OSError):
                if not entry.is_dir():
                    found.append(entry.path)
        return sorted(found)

    def _encrypted(self) -> int:
        count = 0
        for directory in (self.conversations, self.root / IMPLICIT):
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            count += sum(
                1 for e in entries if e.name.endswith(".pb") and not e.name.startswith(".")
            )
        return count

    def discover(self) -> list[Discovered]:
        encrypted = self._encrypted()
        if encrypted:
            # (Named by the store, not its path: the same store warns the same wherever it is.)
            warn(
                f"skipping {encrypted} encrypted Antigravity conversation file(s) (*.pb): the "
                "older app's format cannot be read"
            )
        return self._listed(self._databases(), complete=True)

    def lookup(self, id_prefix: str) -> list[Discovered]:
        """The conversations whose id (the database's file stem) starts with ``id_prefix``,
        listed exactly as :meth:`discover` lists them."""
        return self._listed(self._databases(id_prefix), complete=False)

    def fingerprinted(self) -> dict[str, str]:
        return {reference: _fingerprint(Path(reference)) for reference in self._databases()}

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        return self._listed([r for r in references if os.path.isfile(r)], complete=False)

    def _listed(self, references: list[str], *, complete: bool) -> list[Discovered]:
        cache = metadata_cache()
        scope = f"{HARNESS}:{self.conversations}"
        known = cache.entries(scope, None if complete else references)
        fresh: dict[str, tuple[str, bytes]] = {}
        settled = time.time_ns() - _SETTLED_NS
        foreign = 0
        out: list[Discovered] = []
        for reference in references:
            db = Path(reference)
            key = _fingerprint(db)
            entry = known.get(reference)
            meta: Meta | None
            try:
                if not key or entry is None or entry[0] != key:
                    raise LookupError
                meta = _meta_decoder.decode(entry[1])
            except (LookupError, msgspec.DecodeError, msgspec.ValidationError):
                from txcript.harnesses.antigravity import codec

                try:
                    meta = codec.meta_of(self._conversation(db, with_brain=False))
                except NotAConversation:
                    meta = None
                except TxcriptError as exc:
                    warn(f"skipping the Antigravity conversation {db}: {exc}")
                    continue
                if key and _settled(db, settled):
                    with contextlib.suppress(msgspec.EncodeError, UnicodeEncodeError):
                        fresh[reference] = (key, msgspec.json.encode(meta))
            if meta is None:
                foreign += 1
                continue
            out.append(Discovered.from_meta(HARNESS, reference, meta, updated_at=_updated_at(db)))
        if foreign:
            warn(
                f"skipping {foreign} database(s) in {self.conversations} that are not "
                "Antigravity conversations"
            )
        present = set(references)
        gone = [r for r in known if r not in present] if complete else []
        cache.update(scope, fresh, gone)
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    # -- load -------------------------------------------------------------------------------
    def _conversation(self, db: Path, *, with_brain: bool) -> Conversation:
        from txcript.harnesses.antigravity.native import Conversation

        tables, schema, version = _read_tables(db)
        conversation_id = db.stem
        brain = self._brain_files(self.brain / conversation_id) if with_brain else ()
        return Conversation(conversation_id, tables, schema, version, brain)

    def load(self, reference: str) -> Conversation:
        db = Path(reference)
        if not os.path.lexists(db):
            raise BadInput(f"reading {reference}: no such Antigravity conversation")
        return self._conversation(db, with_brain=True)

    @staticmethod
    def _brain_files(directory: Path) -> tuple[BrainFile, ...]:
        from txcript.harnesses.antigravity.native import BrainFile

        if directory.is_symlink() or not directory.is_dir():
            return ()
        out: list[BrainFile] = []
        skipped = 0
        for current, dirs, files in os.walk(directory, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                full = Path(current) / name
                if full.is_symlink() or len(out) >= _MAX_BRAIN_FILES:
                    skipped += 1
                    continue
                try:
                    data = read_regular(full, limit=MAX_SIDE_FILE_BYTES)
                except TxcriptError:
                    skipped += 1
                    continue
                out.append(BrainFile(full.relative_to(directory).as_posix(), data))
        if skipped:
            warn(f"{directory}: {skipped} file(s) of the brain folder are not carried")
        return tuple(out)

    # -- save -------------------------------------------------------------------------------
    def save(self, native: Conversation, *, force: bool = False) -> Saved:
        conversation_id = UUID_IDS.check(native.conversation_id, "Antigravity")
        for brain_file in native.brain:
            problem = _brain_path_problem(brain_file.path)
            if problem is not None:
                raise BadInput(
                    f"brain file `{shown(brain_file.path)}` of conversation {conversation_id}: "
                    f"{problem}"
                )
        db = self.conversations / f"{conversation_id}.db"
        brain = self.brain / conversation_id
        targets = [
            *sqlite_files(db),
            *sqlite_files(self.conversations / ".txcript-new.db"),
            self.brain / ".txcript-new" / "file",
            *(brain / f.path for f in native.brain),
        ]
        preflight_write(self.root, targets, store="Antigravity")
        exists = os.path.lexists(db) or os.path.lexists(brain)
        if exists and not force:
            raise BadInput(
                f"an Antigravity conversation {conversation_id} already exists at {db}; "
                "refusing to overwrite it (pass --force to replace it)"
            )
        if exists:
            from txcript.shared import backups

            backups.check_settings()
        import tempfile

        created = [d for d in (self.root, self.conversations, self.brain) if not os.path.lexists(d)]
        temp_brain: Path | None = None
        temp_db: Path | None = None
        try:
            self.conversations.mkdir(parents=True, exist_ok=True)
            self.brain.mkdir(parents=True, exist_ok=True)
            temp_brain = Path(tempfile.mkdtemp(prefix=".txcript-", dir=self.brain))
            _build_brain(temp_brain, native)
            handle, name = tempfile.mkstemp(
                prefix=".txcript-", suffix=".db", dir=self.conversations
            )
            os.close(handle)
            os.unlink(name)
            temp_db = Path(name)
            _build_database(temp_db, native)
            _install(temp_brain, temp_db, brain, db, conversation_id, replacing=exists)
        except OSError as exc:
            _clean(temp_brain, temp_db, created)
            raise StoreError(f"writing {db}: {exc.strerror or exc}") from None
        except BaseException:
            _clean(temp_brain, temp_db, created)
            raise
        return Saved(
            id=conversation_id,
            reference=str(db),
            location=str(db),
            notes=(f"its brain folder is {brain}",),
        )

    # -- delete -----------------------------------------------------------------------------
    def delete(self, reference: str, *, force: bool = False) -> None:
        real = Path(os.path.realpath(reference))
        conversations = Path(os.path.realpath(self.conversations))
        if real.parent != conversations or real.suffix != ".db" or real.name.startswith("."):
            raise BadInput(
                f"{reference} is not a conversation database of the Antigravity store "
                f"{self.conversations}"
            )
        if not real.is_file():
            raise BadInput(f"no Antigravity conversation at {reference}")
        _read_tables(real)  # refuses a database that is not a conversation
        conversation_id = real.stem
        brain = self.brain / conversation_id
        brains = Path(os.path.realpath(self.brain))
        removing = [path for path in sqlite_files(real) if os.path.lexists(path)]
        if os.path.lexists(brain):
            if brain.is_symlink() or Path(os.path.realpath(brain)).parent != brains:
                raise StoreError(
                    f"refusing to delete {reference}: its brain folder {brain} is a symbolic "
                    "link; nothing was deleted"
                )
            removing.append(brain)
        import shutil

        from txcript.shared import backups

        backup = backups.create_files(
            removing, harness=HARNESS, operation="delete", session=conversation_id
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
            if aside.is_dir() and not aside.is_symlink():
                shutil.rmtree(aside, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    aside.unlink()

    # -- change cursors ---------------------------------------------------------------------
    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        return {reference: _fingerprint(Path(reference)) for reference in references}


_meta_decoder: msgspec.json.Decoder[Meta | None] = msgspec.json.Decoder(Meta | None)


def _settled(db: Path, settled: int) -> bool:
    for path in (db, Path(f"{db}-wal")):
        try:
            if os.stat(path).st_mtime_ns >= settled:
                return False
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return True


def _brain_path_problem(path: str) -> str | None:
    parts = path.split("/")
    for part in parts:
        problem = id_problem(part)
        if problem is not None:
            return f"a path component is not usable ({problem})"
    return None


def _build_brain(directory: Path, conversation: Conversation) -> None:
    for brain_file in conversation.brain:
        target = directory.joinpath(*brain_file.path.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as handle:
            handle.write(brain_file.data)
            handle.flush()
            os.fsync(handle.fileno())


def _build_database(db: Path, conversation: Conversation) -> None:
    import sqlite3

    try:
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN")
            for statement in conversation.schema:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {int(conversation.user_version)}")
            for table in conversation.tables:
                if not table.rows:
                    continue
                columns = ", ".join(_quoted(c) for c in table.columns)
                marks = ", ".join("?" * len(table.columns))
                conn.executemany(
                    f"INSERT INTO {_quoted(table.name)} ({columns}) VALUES ({marks})",
                    list(table.rows),
                )
            conn.execute("COMMIT")
        finally:
            conn.close()
    except (sqlite3.Error, ValueError, OverflowError) as exc:
        raise StoreError(f"writing {db}: {exc}") from None
    for leftover in ("-wal", "-shm"):
        if os.path.lexists(f"{db}{leftover}"):
            raise StoreError(f"writing {db}: SQLite left {db.name}{leftover} behind")


def _install(
    temp_brain: Path,
    temp_db: Path,
    brain: Path,
    db: Path,
    conversation_id: str,
    *,
    replacing: bool,
) -> None:
    """Rename the built brain folder, then the built database, into place. A conversation
    being replaced is backed up and moved aside first, and put back if a rename fails."""
    import shutil

    from txcript.shared import backups

    aside: list[tuple[Path, Path]] = []
    backup = None
    if replacing:
        present = [p for p in (*sqlite_files(db), brain) if os.path.lexists(p)]
        backup = backups.create_files(
            present, harness=HARNESS, operation="save", session=conversation_id
        )
    try:
        if replacing:
            for path in (*sqlite_files(db), brain):
                if os.path.lexists(path):
                    moved = path.with_name(f".txcript-replaced-{path.name}")
                    os.rename(path, moved)
                    aside.append((path, moved))
        os.rename(temp_brain, brain)
        try:
            os.rename(temp_db, db)
        except OSError:
            os.rename(brain, temp_brain)
            raise
    except OSError:
        for path, moved in reversed(aside):
            with contextlib.suppress(OSError):
                os.rename(moved, path)
        if backup is not None:
            backups.discard(backup)
        raise
    for _, moved in aside:
        if moved.is_dir() and not moved.is_symlink():
            shutil.rmtree(moved, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                moved.unlink()


def _clean(temp_brain: Path | None, temp_db: Path | None, created: list[Path]) -> None:
    import shutil

    if temp_brain is not None:
        shutil.rmtree(temp_brain, ignore_errors=True)
    if temp_db is not None:
        for path in sqlite_files(temp_db):
            with contextlib.suppress(OSError):
                path.unlink()
    for directory in sorted(created, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            directory.rmdir()
