"""What a harness is, as data: the one declaration the registry keeps for each harness.

A :class:`HarnessInfo` names everything the rest of txcript needs to know about a harness without
importing it: its id and aliases, whether it keeps a store and can write one, the programs that
start it, the shape of its ids, where its store lives (:class:`Root`), how it resumes a session,
and where its layers live (:data:`CAPABILITIES`). :class:`txcript.harnesses.base.Harness` turns a
declaration into the working harness, importing each layer on first use.

These are plain slotted classes with no imports beyond the standard library's cheapest modules,
because ``txcript --help`` reads the registry and must not import msgspec: a slotted class
defines in ~0.05 ms, a NamedTuple in ~0.4 ms and a dataclass in ~1 ms.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Every layer function a harness can provide, with the module of its package that holds it
#: unless the declaration says otherwise. The first four are required of every harness, and
#: ``open_store`` of every harness that keeps a store; the rest are optional, and a harness has
#: one only where its declaration names it in ``layers``.
CAPABILITIES: dict[str, str] = {
    # codec: native body <-> Common, pure
    "to_common": "codec",
    "from_common": "codec",
    "meta_of": "codec",
    # text form, no I/O
    "from_text": "text",
    "to_text": "text",
    "to_text_chunks": "text",
    "sniff": "text",
    "sniff_lines": "text",
    # store
    "open_store": "store",
    "store_present": "store",
    "change_token": "store",
    "new_session_id": "store",
    "refuse_while_running": "store",
    "store_database": "store",
    "snapshot": "store",
    "undo_backup": "store",
    "backup_committed": "store",
}
REQUIRED: tuple[str, ...] = ("to_common", "from_common", "from_text", "to_text")


def home_dir() -> Path | None:
    """The user's home (``HOME``; on Windows ``USERPROFILE`` first), or None when unset."""
    if os.name == "nt":
        profile = os.environ.get("USERPROFILE")
        if profile:
            return Path(profile)
    home = os.environ.get("HOME")
    return Path(home) if home else None


class _Frozen:
    """Slotted, frozen, compared by value over its slots."""

    __slots__: tuple[str, ...] = ()
    #: The fields in declaration order (``__slots__`` is kept sorted by the linter).
    _fields: tuple[str, ...] = ()

    def _set(self, **values: object) -> None:
        for field, value in values.items():
            object.__setattr__(self, field, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, field) for field in self._fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({shown})"


class Root(_Frozen):
    """Where a harness keeps its store by default, and the variables that move it.

    ``env`` set and non-empty wins (joined with ``env_suffix`` when the variable names a home the
    store sits under). Else ``xdg`` — a variable and the path under it, such as
    ``("XDG_DATA_HOME", "opencode")`` — when that variable is set. Else the path under the
    user's home for this system: ``darwin`` on macOS, ``windows`` on Windows, ``home``
    elsewhere (each a ``/``-separated relative path; the first two default to ``home``). A
    ``home`` of None is a store with no default place (a file the user names, such as an
    account export): only ``env`` names it.

    ``app_reads_env`` says that the harness's own program honours ``env`` too, so a copy written
    under another root is resumed by setting it (``CODEX_HOME=… codex resume …``); otherwise the
    variable is txcript's alone.
    """

    _fields = ("home", "env", "env_suffix", "xdg", "darwin", "windows", "app_reads_env")
    __slots__ = _fields
    env: str | None
    env_suffix: str
    xdg: tuple[str, str] | None
    home: str | None
    darwin: str | None
    windows: str | None
    app_reads_env: bool

    def __init__(
        self,
        home: str | None,
        *,
        env: str | None = None,
        env_suffix: str = "",
        xdg: tuple[str, str] | None = None,
        darwin: str | None = None,
        windows: str | None = None,
        app_reads_env: bool = False,
    ) -> None:
        self._set(
            env=env,
            env_suffix=env_suffix,
            xdg=xdg,
            home=home,
            darwin=darwin,
            windows=windows,
            app_reads_env=app_reads_env,
        )

    def under(self, home: Path, system: str = sys.platform) -> Path | None:
        """The default root under ``home`` on ``system`` (a ``sys.platform`` value); None for a
        store with no default place."""
        if self.home is None:
            return None
        if system == "darwin":
            relative = self.darwin or self.home
        elif system in ("win32", "cygwin"):
            relative = self.windows or self.home
        else:
            relative = self.home
        return home.joinpath(*relative.split("/"))

    def resolve(self) -> Path | None:
        """The root on this machine now, or None when there is no home to put it under."""
        if self.env:
            override = os.environ.get(self.env)
            if override:
                return Path(override, self.env_suffix) if self.env_suffix else Path(override)
        if self.xdg is not None:
            base = os.environ.get(self.xdg[0])
            if base:
                return Path(base).joinpath(*self.xdg[1].split("/"))
        home = home_dir()
        return None if home is None else self.under(home)


class HarnessInfo(_Frozen):
    """One registry entry: a harness declared once, as data.

    ``package`` is where its layers live (None while it is declared but not built). ``layers``
    maps a capability of :data:`CAPABILITIES` to ``"module"`` or ``"module:attribute"``, the
    module relative to ``package`` unless it starts with ``txcript.`` (``"."`` is the package
    itself, for a harness kept in one module); the attribute defaults to the capability's name.
    A required capability missing from ``layers`` is looked up in its default module.

    ``resume`` is the argv template that resumes a session (``{id}`` in any token), run from the
    session's directory when ``resume_from`` is ``"cwd"``. ``ids`` names an
    :class:`~txcript.shared.ids.IdGrammar` of :mod:`txcript.shared.ids`.

    ``app_makes_store``: the store is a database the app creates when it first starts (Cursor
    desktop's ``state.vscdb``, OpenCode's ``opencode.db``): a live copy is refused while it is
    missing (a typo in the root's variable, most often) rather than written where no app reads
    it; ``--out`` creates one (see :func:`txcript.operations.continue_session`).

    ``mirrors`` names the harnesses, richest first, whose sessions this one keeps a readable copy
    of under the same id (Cursor's agent transcripts copy Cursor desktop's and the CLI's chats).
    A session one of them holds is listed and opened from there; the copy is used only when none
    of them holds it (:func:`txcript.sessions.collapse_mirrors`).
    """

    _fields = (
        "id",
        "name",
        "aliases",
        "package",
        "has_store",
        "can_write",
        "listed",
        "source_only",
        "executables",
        "ids",
        "root",
        "resume",
        "resume_from",
        "layers",
        "mirrors",
        "app_makes_store",
    )
    __slots__ = _fields
    id: str
    name: str
    aliases: tuple[str, ...]
    package: str | None
    has_store: bool
    can_write: bool
    listed: bool
    #: A read-only source: it has no ``from_common``, so nothing converts into it.
    source_only: bool
    executables: tuple[str, ...]
    ids: str | None
    root: Root | None
    resume: tuple[str, ...]
    resume_from: str | None
    layers: tuple[tuple[str, str], ...]
    mirrors: tuple[str, ...]
    app_makes_store: bool

    def __init__(
        self,
        id: str,
        name: str,
        aliases: tuple[str, ...] = (),
        package: str | None = None,
        *,
        has_store: bool = False,
        can_write: bool = False,
        listed: bool = True,
        source_only: bool = False,
        executables: tuple[str, ...] = (),
        ids: str | None = None,
        root: Root | None = None,
        resume: tuple[str, ...] = ("txcript",),
        resume_from: str | None = None,
        layers: Mapping[str, str] | None = None,
        mirrors: tuple[str, ...] = (),
        app_makes_store: bool = False,
    ) -> None:
        declared = dict(layers or {})
        unknown = sorted(set(declared) - set(CAPABILITIES))
        if unknown:
            raise ValueError(f"harness {id!r} declares unknown capabilities {unknown}")
        if source_only and can_write:
            raise ValueError(f"harness {id!r} is a read-only source and cannot write")
        if resume_from not in (None, "cwd"):
            raise ValueError(f"harness {id!r}: resume_from is None or 'cwd', not {resume_from!r}")
        self._set(
            id=id,
            name=name,
            aliases=aliases,
            package=package,
            has_store=has_store,
            can_write=can_write,
            listed=listed,
            source_only=source_only,
            executables=executables,
            ids=ids,
            root=root,
            resume=resume,
            resume_from=resume_from,
            layers=tuple(sorted(declared.items())),
            mirrors=mirrors,
            app_makes_store=app_makes_store,
        )

    @classmethod
    def from_entry(
        cls, harness_id: str, entry: Mapping[str, Any], system: str = sys.platform
    ) -> HarnessInfo:
        """The declaration an entry of ``registry.json`` makes (see its keys in
        ``docs/adding-a-harness.md``); ``ValueError`` for a key no declaration has.

        ``resume`` may be one argv, or one per system (``darwin``, ``windows``, ``default``).
        ``why`` says, per field, why it is what it is: it is read by people, not by txcript.
        """
        unknown = sorted(set(entry) - _ENTRY_KEYS)
        if unknown:
            raise ValueError(f"registry entry {harness_id!r} has unknown keys {unknown}")
        root = entry.get("root")
        if root is not None:
            bad = sorted(set(root) - _ROOT_KEYS)
            if bad:
                raise ValueError(f"registry entry {harness_id!r}: unknown root keys {bad}")
            xdg = root.get("xdg")
            root = Root(
                root.get("home"),
                env=root.get("env"),
                env_suffix=root.get("env_suffix", ""),
                xdg=None if xdg is None else (xdg[0], xdg[1]),
                darwin=root.get("darwin"),
                windows=root.get("windows"),
                app_reads_env=root.get("app_reads_env", False),
            )
        resume = entry.get("resume", ["txcript"])
        if isinstance(resume, Mapping):
            kind = "darwin" if system == "darwin" else "windows" if system == "win32" else ""
            resume = resume.get(kind, resume["default"])
        return cls(
            harness_id,
            entry["name"],
            tuple(entry.get("aliases", ())),
            entry.get("package"),
            has_store=entry.get("has_store", False),
            can_write=entry.get("can_write", False),
            listed=entry.get("listed", True),
            source_only=entry.get("source_only", False),
            executables=tuple(entry.get("executables", ())),
            ids=entry.get("ids"),
            root=root,
            resume=tuple(resume),
            resume_from=entry.get("resume_from"),
            layers=entry.get("layers"),
            mirrors=tuple(entry.get("mirrors", ())),
            app_makes_store=entry.get("app_makes_store", False),
        )

    @property
    def implemented(self) -> bool:
        return self.package is not None

    @property
    def root_env(self) -> str | None:
        """The variable that points the harness itself (and txcript) at another store root."""
        root = self.root
        return root.env if root is not None and root.app_reads_env else None

    def provides(self, capability: str) -> bool:
        """Does this harness have ``capability`` (a key of :data:`CAPABILITIES`)?"""
        if not self.implemented:
            return False
        if capability == "from_common":
            return not self.source_only
        if capability in REQUIRED or (capability == "open_store" and self.has_store):
            return True
        return self._declares(capability)

    def _declares(self, capability: str) -> bool:
        return any(name == capability for name, _ in self.layers)

    def layer(self, capability: str) -> tuple[str, str]:
        """The module and attribute that implement ``capability``."""
        target = dict(self.layers).get(capability, CAPABILITIES[capability])
        module, _, attribute = target.partition(":")
        if module == ".":
            module = str(self.package)
        elif not module.startswith("txcript."):
            module = f"{self.package}.{module}"
        return module, attribute or capability


#: The keys an entry of ``registry.json`` may hold: every field of a declaration but its id (the
#: entry's own key), and ``why``.
_ENTRY_KEYS = frozenset(HarnessInfo._fields) - {"id"} | {"why"}
#: The keys the ``root`` of an entry may hold: the fields of a :class:`Root`.
_ROOT_KEYS = frozenset(Root._fields)
