"""The three layers every harness implements, and the values its store hands back.

* **codec** — ``to_common(native) -> Transcript`` and ``from_common(Transcript) -> native``: pure
  and deterministic (no clock, no randomness, no I/O).
* **text form** — ``from_text(str) -> native`` and ``to_text(native) -> str``: the harness's
  portable text, parsed and rendered without I/O.
* **store** — ``discover``/``load``/``save``/``delete``/``fingerprints`` over the harness's files or
  database. Discovery returns cheap metadata only.

``native`` is the harness's faithful record set (its *native body*): everything a same-harness
round trip needs, including what Common has no field for.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import msgspec

if TYPE_CHECKING:  # Common and the id rules load when a harness is used, not to list names
    from txcript.harnesses.declare import HarnessInfo
    from txcript.model import Meta, Transcript
    from txcript.shared.ids import IdGrammar

NativeT = TypeVar("NativeT")


class Discovered(msgspec.Struct, frozen=True, gc=False):
    """One session found by a store's cheap scan."""

    harness: str
    reference: str
    meta_id: str
    timestamp: datetime
    title: str | None = None
    cwd: str | None = None
    model: str | None = None
    git_branch: str | None = None
    updated_at: datetime | None = None
    message_count: int | None = None
    #: The id of the session this one was spawned by (a sub-agent chat), listed on its own.
    parent: str | None = None
    #: The account the session belongs to, where a store keeps several (Cowork's).
    account: str | None = None
    #: Where the session came from within its harness, for a harness that keeps sessions of
    #: several sources in one store (Hermes: ``cli``, ``telegram``, ``cron`` …).
    kind: str | None = None
    #: Other harnesses that keep a (poorer) copy of this session under the same id, such as
    #: Cursor's agent transcripts of a Cursor desktop chat: listed once, from here.
    also_in: tuple[str, ...] = ()

    @classmethod
    def from_meta(
        cls,
        harness: str,
        reference: str,
        meta: Meta,
        *,
        updated_at: datetime | None = None,
        message_count: int | None = None,
        parent: str | None = None,
        account: str | None = None,
        kind: str | None = None,
    ) -> Discovered:
        """The listing entry for a session whose Meta the store derived cheaply."""
        return cls(
            harness=harness,
            reference=reference,
            meta_id=meta.id,
            timestamp=meta.timestamp,
            title=meta.title,
            cwd=meta.cwd,
            model=meta.model,
            git_branch=meta.git_branch,
            updated_at=updated_at,
            message_count=message_count,
            parent=parent,
            account=account,
            kind=kind,
        )


class Saved(msgspec.Struct, frozen=True, gc=False):
    """Where a store wrote a session: ``id`` is what the harness resumes by."""

    id: str
    reference: str
    location: str
    #: What the user should know about the copy (e.g. that the harness may prune it).
    notes: tuple[str, ...] = ()
    #: The backup that undoes this write (``txcript restore <id>``), where the store took one.
    backup: str | None = None


class Store(Protocol[NativeT]):
    root: Path

    def discover(self) -> list[Discovered]: ...

    def load(self, reference: str) -> NativeT: ...

    def save(self, native: NativeT, *, force: bool = False) -> Saved:
        """Write a session where the harness finds it. ``force`` overrides a store's refusal to
        write while its app is running (file stores have none and ignore it)."""
        ...

    def delete(self, reference: str, *, force: bool = False) -> None: ...

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]: ...

    def location(self, reference: str) -> str: ...


def root_change_token(harness: Harness[Any], root: Path) -> str:
    """``harness.change_token(root)``: a token that moves whenever any session of the store
    rooted at ``root`` may have changed, so whatever was taken from it under a token still
    holds while the token stands; ``""`` when the store has none, or it fails (a token is only
    a shortcut)."""
    try:
        token = harness.change_token(root)
    except Exception:
        return ""
    return token if isinstance(token, str) else ""


def root_token(harness: Harness[Any], root: Path) -> tuple[str, str] | None:
    """The store's root and :func:`root_change_token`, as caches record them (None when the
    store has no token now)."""
    token = root_change_token(harness, root)
    return (str(root), token) if token else None


class LooksUp(Protocol):
    """A store that can find sessions by id without discovering every session (optional)."""

    def lookup(self, id_prefix: str) -> list[Discovered] | None:
        """The sessions whose id starts with ``id_prefix`` (an exact id included), each exactly
        as :meth:`Store.discover` lists it and in its order; None when this store cannot tell
        without a full discovery."""
        ...


class ListsByFile(Protocol):
    """A store whose sessions are files, each listed on its own (optional). A search index
    keeps every session's listing with its fingerprint; such a store tells it, with one stat per
    file, which files changed, and lists only those again."""

    def fingerprinted(self) -> dict[str, str]:
        """Every file :meth:`Store.discover` looks at, with its fingerprint now (``""`` when
        unknown): a file whose fingerprint is the one it was listed under lists the same."""
        ...

    def discover_references(self, references: Iterable[str]) -> list[Discovered]:
        """The sessions among ``references``, each exactly as :meth:`Store.discover` lists it."""
        ...


def lists_by_file(store: object) -> ListsByFile | None:
    """``store`` when it implements :class:`ListsByFile`, else None."""
    if callable(getattr(store, "fingerprinted", None)) and callable(
        getattr(store, "discover_references", None)
    ):
        return store  # type: ignore[return-value]
    return None


def lookup(store: object, id_prefix: str) -> list[Discovered] | None:
    """``store.lookup(id_prefix)`` for a store that has one, else None (use discovery)."""
    method = getattr(store, "lookup", None)
    if method is None or not id_prefix:
        return None
    found: list[Discovered] | None = method(id_prefix)
    return found


def prefix_bounds(prefix: str) -> tuple[str, str] | None:
    """``(low, high)`` with ``low <= s < high`` exactly for the strings ``s`` that start with
    ``prefix`` (code point order, which is also UTF-8 byte order: SQLite's BINARY collation).

    None when no such bound exists in text (``prefix`` is empty, ends in U+10FFFF only, or holds
    a lone surrogate, which neither a file name read as UTF-8 nor an SQLite key can match).
    """
    if not prefix or any(0xD800 <= ord(ch) <= 0xDFFF for ch in prefix):
        return None
    stem = prefix
    while stem:
        last = ord(stem[-1])
        if last < 0x10FFFF:
            following = last + 1 if last + 1 != 0xD800 else 0xE000
            return prefix, stem[:-1] + chr(following)
        stem = stem[:-1]
    return None


class Harness(Generic[NativeT]):
    """A harness: its declaration (:class:`~txcript.harnesses.declare.HarnessInfo`) made to work.

    Every harness is this one class. Each layer function — codec, text form, store — is imported
    from the module its declaration names on first use, so a command loads only the layers it
    calls. A capability the harness does not provide has the default documented on its method.
    """

    def __init__(self, info: HarnessInfo) -> None:
        if not info.implemented:
            raise ValueError(f"harness {info.id!r} is declared but not built")
        self.info = info
        self._functions: dict[str, Callable[..., Any]] = {}

    def __repr__(self) -> str:
        return f"<harness {self.info.id}>"

    # -- identity, from the declaration ----------------------------------------------------
    @property
    def id(self) -> str:
        return self.info.id

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def listed(self) -> bool:
        """Shown by ``txcript harnesses``; pseudo-formats such as ``common`` are not listed."""
        return self.info.listed

    @property
    def has_store(self) -> bool:
        """Keeps sessions on disk (has a store that ``list`` scans)."""
        return self.info.has_store

    @property
    def can_write(self) -> bool:
        """Sessions can be written into its store (``continue --with``)."""
        return self.info.can_write

    @property
    def executables(self) -> tuple[str, ...]:
        """The commands that start the harness (``txcript doctor`` looks for them on PATH)."""
        return self.info.executables

    @property
    def root_env(self) -> str | None:
        """The environment variable that points the harness itself at another store root."""
        return self.info.root_env

    @property
    def resume_in_cwd(self) -> bool:
        """Its resume command finds a session only when started in the session's directory."""
        return self.info.resume_from == "cwd"

    @property
    def id_grammar(self) -> IdGrammar | None:
        """The shape of the ids it resumes by; None when it has no resumable ids of its own."""
        if self.info.ids is None:
            return None
        from txcript.shared import ids

        grammar: IdGrammar = getattr(ids, self.info.ids)
        return grammar

    def provides(self, capability: str) -> bool:
        """Does the harness implement ``capability`` (see :data:`~.declare.CAPABILITIES`)?"""
        return self.info.provides(capability)

    def _layer(self, capability: str) -> Callable[..., Any]:
        function = self._functions.get(capability)
        if function is None:
            module, attribute = self.info.layer(capability)
            function = getattr(importlib.import_module(module), attribute)
            self._functions[capability] = function
        return function

    # -- codec ----------------------------------------------------------------------------
    def to_common(self, native: NativeT) -> Transcript:
        result: Transcript = self._layer("to_common")(native)
        return result

    def from_common(self, transcript: Transcript) -> NativeT:
        """The native body of ``transcript``; :class:`Unconvertible` for a read-only source."""
        if not self.provides("from_common"):
            from txcript.errors import Unconvertible

            raise Unconvertible(self.id, f"{self.name} is a read-only source")
        result: NativeT = self._layer("from_common")(transcript)
        return result

    def meta_of(self, native: NativeT) -> Meta:
        """``to_common(native).meta``; a harness whose metadata needs less than the whole
        conversation reads only that (a long session's messages are then never built)."""
        if self.provides("meta_of"):
            meta: Meta = self._layer("meta_of")(native)
            return meta
        return self.to_common(native).meta

    # -- text form ------------------------------------------------------------------------
    def from_text(self, text: str) -> NativeT:
        result: NativeT = self._layer("from_text")(text)
        return result

    def to_text(self, native: NativeT) -> str:
        result: str = self._layer("to_text")(native)
        return result

    def to_text_chunks(self, native: NativeT) -> Iterable[bytes]:
        """``to_text(native)`` as UTF-8 chunks (the same bytes). A harness whose documents get
        long streams them; the default renders the whole text first, so it fails here, not while
        the chunks are written. Invalid UTF-8 that a store file held (read with
        ``decode_lossless``) is written back as the same bytes."""
        if self.provides("to_text_chunks"):
            chunks: Iterable[bytes] = self._layer("to_text_chunks")(native)
            return chunks
        return (self.to_text(native).encode("utf-8", errors="surrogateescape"),)

    def sniff(self, document: Any) -> bool:
        """Is this parsed JSON value a document in this harness's text form?"""
        return self.provides("sniff") and bool(self._layer("sniff")(document))

    def sniff_lines(self, values: list[Any]) -> bool:
        """For line-based (JSONL) text forms: do these parsed first lines look like ours?"""
        return self.provides("sniff_lines") and bool(self._layer("sniff_lines")(values))

    # -- store ----------------------------------------------------------------------------
    def default_root(self) -> Path | None:
        """Where this harness keeps its sessions on this machine, or None if it has no store."""
        root = self.info.root
        return None if root is None or not self.has_store else root.resolve()

    def store(self, root: Path | None = None) -> Store[NativeT] | None:
        """The store at ``root`` (default: :meth:`default_root`), or None without a store."""
        root = root if root is not None else self.default_root()
        return None if root is None else self.open_store(root)

    def open_store(self, root: Path) -> Store[NativeT] | None:
        """The store rooted at ``root``; None for a harness without a store."""
        if not self.provides("open_store"):
            return None
        opened: Store[NativeT] = self._layer("open_store")(root)
        return opened

    def store_present(self, root: Path) -> bool:
        """Is there anything of the store under the existing ``root``? A harness whose root is a
        directory every machine has (a home holding several apps' data) answers without
        importing its store; any other is present wherever its root exists."""
        if not self.provides("store_present"):
            return True
        present: bool = self._layer("store_present")(root)
        return present

    def change_token(self, root: Path) -> str:
        """The change token of the store rooted at ``root`` (see :func:`root_change_token`), taken
        without opening the store, so a listing kept under it is used without even importing
        the store's code; ``""`` when the store has none."""
        if not self.provides("change_token"):
            return ""
        token: str = self._layer("change_token")(root)
        return token

    def default_resume_command(self, session_id: str) -> list[str]:
        """The declared resume template with ``{id}`` replaced in each token."""
        return [token.replace("{id}", session_id) for token in self.info.resume]

    def refuse_while_running(self) -> None:
        """Raise when the harness's app is running and must not have its store changed under it.

        Stores that the app rewrites from memory (Cursor desktop) refuse; file stores do not.
        """
        if self.provides("refuse_while_running"):
            self._layer("refuse_while_running")()

    def new_session_id(self) -> str:
        """A fresh id for a copy written into this harness's store (a UUIDv4 by default)."""
        if self.provides("new_session_id"):
            fresh: str = self._layer("new_session_id")()
            return fresh
        import uuid

        return str(uuid.uuid4())

    def store_database(self, root: Path | None = None) -> Path | tuple[Path, ...] | None:
        """The database a restore may write to without --force (the configured store's), or
        every one of them for a store of several databases (one per project); None for a store
        that keeps no row backups."""
        if not self.provides("store_database"):
            return None
        opened = self.store(root)
        if opened is None:
            return None
        database: Path | tuple[Path, ...] | None = self._layer("store_database")(opened)
        return database

    def snapshot(self, root: Path | None = None) -> Any:
        """A whole-store snapshot (a backup ``restore`` can put back), where the store has one."""
        if not self.provides("snapshot"):
            from txcript.errors import BadInput

            raise BadInput(f"{self.id} keeps no store that can be snapshotted")
        opened = self.store(root)
        if opened is None:
            from txcript.errors import BadInput

            raise BadInput(f"{self.id} has no store on this machine (is HOME set?)")
        return self._layer("snapshot")(opened)

    def undo_backup(self, backup: Any, *, force: bool = False) -> Any:
        """Undo the one write a row backup guarded; returns the backup of the undo itself."""
        return self._layer("undo_backup")(backup, force=force)

    def backup_committed(self, backup: Any, partial: Path) -> bool:
        """Did the write a row backup guarded commit (``partial`` is its unfinished record)?"""
        return bool(self._layer("backup_committed")(backup, partial))

    # -- ids ------------------------------------------------------------------------------
    def check_id(self, session_id: str) -> str:
        """``session_id`` if it fits this harness's id grammar, else a one-line :class:`BadInput`.

        Every writer calls this before its first byte, and :meth:`resume_command` before it builds
        an argv, so an id that a command line would read as an option never gets that far.
        """
        grammar = self.id_grammar
        if grammar is not None:
            grammar.check(session_id, self.name)
        from txcript.shared.ids import option_safe

        return option_safe(session_id)

    def adopt_id(self, source_id: str) -> str:
        """The id a faithful copy of a session with ``source_id`` gets in this harness's store:
        the same id when it fits the grammar, else a deterministic one that does (UUIDv5)."""
        grammar = self.id_grammar
        return source_id if grammar is None else grammar.adopt(source_id)

    def resume_command(self, session_id: str) -> list[str]:
        """The argv that resumes ``session_id``; ``TRANSCRIPT_<ID>_RESUME_CMD`` overrides it.

        The id is checked first (:meth:`check_id`). The template is split on whitespace first,
        then ``{id}`` is replaced in each token, so an id with spaces stays one argument.
        """
        self.check_id(session_id)
        template = os.environ.get(f"TRANSCRIPT_{self.id.upper()}_RESUME_CMD", "")
        if template.strip():
            return [token.replace("{id}", session_id) for token in template.split()]
        return self.default_resume_command(session_id)
