"""Listing a file store through the metadata cache: a session whose files are unchanged is only
``stat``-ed, never read.

A store gives :func:`cached_listing` every session reference with its key — :func:`stat_key` of
every file the listing depends on — and a function that lists one reference the cheap way. An
entry is reused only under the same non-empty key; a key is empty (never cached) when a file
cannot be examined or was modified in the last two seconds (its mtime may still move within the
file system's resolution without its size or mtime changing). Only sessions that listed cleanly
are kept, so a damaged file is read again, and warns again, every time.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from txcript.shared.cache import metadata_cache
from txcript.shared.files import file_key

#: A file modified this recently (ns) is not cached yet.
SETTLED_NS = 2_000_000_000
#: A listing entry: the store's ``Discovered`` (a msgspec struct; named by the caller, so this
#: layer imports no harness code).
Entry = TypeVar("Entry", bound=msgspec.Struct)
_decoders: dict[type[Any], msgspec.json.Decoder[Any]] = {}


def stat_key(paths: Iterable[Path | str]) -> str:
    """``"<mtime ns>:<size>"`` of each file (``-`` for a missing one), joined; ``""`` when one
    cannot be examined or changed in the last two seconds."""
    settled = time.time_ns() - SETTLED_NS
    parts = []
    for path in paths:
        try:
            status = os.stat(path)
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return ""
        if status.st_mtime_ns >= settled:
            return ""
        parts.append(file_key(status))
    return "|".join(parts)


def cached_listing(
    scope: str,
    keys: Mapping[str, str],
    list_one: Callable[[str], Entry | None],
    kind: type[Entry],
    *,
    complete: bool,
) -> list[Entry]:
    """The listing of every reference of ``keys`` (in their order), each from the cache when its
    key stands, else from ``list_one`` (None: not a session, or it warned). With ``complete``
    (every session of the store) entries of references that are gone are forgotten."""
    cache = metadata_cache()
    known = cache.entries(scope, None if complete else list(keys))
    decoder = _decoders.get(kind)
    if decoder is None:
        decoder = _decoders[kind] = msgspec.json.Decoder(kind)
    fresh: dict[str, tuple[str, bytes]] = {}
    out: list[Entry] = []
    for reference, key in keys.items():
        held = known.get(reference)
        if key and held is not None and held[0] == key:
            try:
                out.append(decoder.decode(held[1]))
                continue
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
        found = list_one(reference)
        if found is None:
            continue
        out.append(found)
        if key:
            # (text that is not UTF-8 cannot be kept: it is listed afresh each time)
            with contextlib.suppress(msgspec.EncodeError, UnicodeEncodeError):
                fresh[reference] = (key, msgspec.json.encode(found))
    gone = [reference for reference in known if reference not in keys] if complete else []
    cache.update(scope, fresh, gone)
    return out
