"""The harness registry: every harness declared once, as data, and built on first use.

Each entry of ``registry.json`` beside this module declares one harness, read into a
:class:`~txcript.harnesses.declare.HarnessInfo`: id, name, aliases, flags, executables, id
grammar, default root and its variables, resume template, and where the harness's layers live.
Adding a harness is adding its package and one entry there (``docs/adding-a-harness.md``). The
entries are static data, so ``txcript --help`` and the option help text import no harness at
all, and ``list`` imports only the layers of the harnesses that keep a store; :func:`get` builds
the one :class:`~txcript.harnesses.base.Harness` for an entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.errors import BadInput, UnknownHarness
from txcript.harnesses.declare import HarnessInfo, Root

if TYPE_CHECKING:
    from txcript.harnesses.base import Harness

__all__ = ["REGISTRY", "HarnessInfo", "Root", "canonical_id", "get", "ids", "info"]


def _declared() -> tuple[HarnessInfo, ...]:
    # A data file, read once per process (json is loaded by the first command that lists anyway).
    import json

    entries = json.loads(Path(__file__).with_name("registry.json").read_text(encoding="utf-8"))
    return tuple(HarnessInfo.from_entry(harness_id, e) for harness_id, e in entries.items())


#: Every harness, in the order of ``registry.json``: the order ``txcript harnesses`` shows.
REGISTRY: tuple[HarnessInfo, ...] = _declared()
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
    return [i.id for i in REGISTRY if i.implemented]


def _suggestion(name: str) -> str:
    """`` — did you mean X?`` for an implemented harness whose id extends ``name``."""
    close = [i for i in _working_ids() if i != name and (i.startswith(name) or name.startswith(i))]
    return f"; did you mean {' or '.join(close)}?" if close else ""


def canonical_id(name: str) -> str:
    return info(name).id


def get(name: str) -> Harness[Any]:
    """The implementation of a harness; :class:`BadInput` if it is known but not built yet."""
    found = info(name)
    if not found.implemented:
        raise BadInput(
            f"harness `{found.id}` ({found.name}) is not supported yet{_suggestion(found.id)}"
            f" (supported: {', '.join(_working_ids())})"
        )
    harness = _instances.get(found.id)
    if harness is None:
        from txcript.harnesses.base import Harness

        harness = _instances[found.id] = Harness(found)
    return harness


def implemented() -> list[Harness[Any]]:
    """Every implemented harness, in registry order."""
    return [get(i.id) for i in REGISTRY if i.implemented]


def with_stores() -> list[Harness[Any]]:
    """Implemented harnesses that keep sessions on disk (no other harness is imported)."""
    return [get(i.id) for i in REGISTRY if i.implemented and i.has_store]


def ids(*, store: bool = False, write: bool = False) -> list[str]:
    """The ids of the implemented, listed harnesses (with a store, that can write one), from
    the descriptors alone."""
    return [
        i.id
        for i in REGISTRY
        if i.implemented and i.listed and (i.has_store or not store) and (i.can_write or not write)
    ]
