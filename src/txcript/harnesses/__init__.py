"""The harness registry: ids, aliases, and lazy access to each harness's implementation.

Harness modules are imported only when asked for: the registry's descriptors (id, name,
aliases, whether it keeps a store and can write one) are static data, so ``txcript --help``
and the option help text import no harness at all, and ``list`` imports only the harnesses
that keep a store. ``tests/test_harness_registry.py`` checks each descriptor against its class.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from txcript.errors import BadInput, UnknownHarness

if TYPE_CHECKING:
    from txcript.harnesses.base import Harness


_FIELDS = ("id", "name", "aliases", "implementation", "has_store", "can_write", "listed")


class HarnessInfo:
    """One registry entry: frozen, compared by value.

    A plain slotted class because ``txcript --help`` defines it and must not import msgspec:
    it defines in ~0.05 ms, a NamedTuple in ~0.4 ms (typing compiles each string annotation)
    and a dataclass in ~1 ms.
    """

    __slots__ = _FIELDS
    id: str
    name: str
    aliases: tuple[str, ...]
    #: ``module:Class`` of the implementation, or None while it is not implemented.
    implementation: str | None
    #: The class's ``has_store``, ``can_write`` and ``listed``, known without importing it.
    has_store: bool
    can_write: bool
    listed: bool

    def __init__(
        self,
        id: str,
        name: str,
        aliases: tuple[str, ...],
        implementation: str | None,
        has_store: bool = False,
        can_write: bool = False,
        listed: bool = True,
    ) -> None:
        values = (id, name, aliases, implementation, has_store, can_write, listed)
        for field, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, field, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen HarnessInfo")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen HarnessInfo")

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, field) for field in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if type(other) is not HarnessInfo:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in _FIELDS)
        return f"HarnessInfo({shown})"


REGISTRY: tuple[HarnessInfo, ...] = (
    HarnessInfo(
        "cursor_desktop",
        "Cursor desktop",
        ("cursordesktop", "cursor_ide"),
        "txcript.harnesses.cursor_desktop:CursorDesktop",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo(
        "cursor",
        "Cursor CLI",
        ("cursor_cli", "cursorcli"),
        "txcript.harnesses.cursor_cli:CursorCli",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo(
        "cursor_transcripts",
        "Cursor agent transcripts",
        ("cursor_agent_transcripts",),
        "txcript.harnesses.cursor_cli:CursorTranscripts",
        has_store=True,
    ),
    HarnessInfo(
        "claude_code",
        "Claude Code",
        ("claude", "claudecode"),
        "txcript.harnesses.claude_code:ClaudeCode",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo(
        "codex",
        "Codex",
        (),
        "txcript.harnesses.codex:Codex",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo(
        "opencode",
        "OpenCode",
        ("open_code",),
        "txcript.harnesses.opencode:OpenCode",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo(
        "gemini",
        "Gemini CLI",
        ("gemini_cli",),
        "txcript.harnesses.gemini:Gemini",
        has_store=True,
        can_write=True,
    ),
    HarnessInfo("pi", "pi", (), None),
    HarnessInfo("grok", "Grok CLI", ("grok_cli", "grokcli", "grok_build"), None),
    HarnessInfo("simple", "Simple document", ("simple_json",), "txcript.harnesses.simple:Simple"),
    HarnessInfo("common", "Common JSON", (), "txcript.harnesses.common:CommonFormat", listed=False),
)
_BY_NAME: dict[str, HarnessInfo] = {}
for _info in REGISTRY:
    for _name in (_info.id, *_info.aliases):
        _BY_NAME[_name] = _info
        _BY_NAME[_name.replace("_", "-")] = _info
_instances: dict[str, Harness[Any]] = {}


def info(name: str) -> HarnessInfo:
    """Look up a harness by id or alias (trimmed, case-insensitive, ``-`` for ``_``)."""
    found = _BY_NAME.get(name.strip().lower())
    if found is None:
        raise UnknownHarness(name, _working_ids())
    return found


def _working_ids() -> list[str]:
    return [i.id for i in REGISTRY if i.implementation is not None]


def _suggestion(name: str) -> str:
    """`` — did you mean X?`` for an implemented harness whose id extends ``name``."""
    close = [i for i in _working_ids() if i != name and (i.startswith(name) or name.startswith(i))]
    return f"; did you mean {' or '.join(close)}?" if close else ""


def canonical_id(name: str) -> str:
    return info(name).id


def get(name: str) -> Harness[Any]:
    """The implementation of a harness; :class:`BadInput` if it is known but not built yet."""
    found = info(name)
    if found.implementation is None:
        raise BadInput(
            f"harness `{found.id}` ({found.name}) is not supported yet{_suggestion(found.id)}"
            f" (supported: {', '.join(_working_ids())})"
        )
    harness = _instances.get(found.id)
    if harness is None:
        module_name, _, class_name = found.implementation.partition(":")
        harness = getattr(importlib.import_module(module_name), class_name)()
        _instances[found.id] = harness
    return harness


def implemented() -> list[Harness[Any]]:
    """Every implemented harness, in registry order."""
    return [get(i.id) for i in REGISTRY if i.implementation is not None]


def with_stores() -> list[Harness[Any]]:
    """Implemented harnesses that keep sessions on disk (no other harness is imported)."""
    return [get(i.id) for i in REGISTRY if i.implementation is not None and i.has_store]


def ids(*, store: bool = False, write: bool = False) -> list[str]:
    """The ids of the implemented, listed harnesses (with a store, that can write one), from
    the descriptors alone."""
    return [
        i.id
        for i in REGISTRY
        if i.implementation is not None
        and i.listed
        and (i.has_store or not store)
        and (i.can_write or not write)
    ]
