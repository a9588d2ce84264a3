"""Bringing the index in step with the stores, reading as little of them as it can.

Per store, cheapest first:

* its change token is the one the index recorded after a complete listing: nothing in it was
  written since, and the sessions held are used as they are (no discovery at all);
* a store of files (:class:`txcript.harnesses.base.ListsByFile`) gives every file's fingerprint
  (one stat each); only the files whose fingerprint moved are listed and read again;
* any other store is discovered (:func:`txcript.sessions.store_listing`), and sessions whose
  fingerprint moved are read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from txcript.diagnostics import noticed
from txcript.search.index import Index, Progress


def refresh(
    index: Index, harness_names: Sequence[str] = (), progress: Progress | None = None
) -> list[str]:
    """Bring ``index`` in step with the stores of ``harness_names`` (every store when empty);
    the ids of the harnesses whose sessions it now holds as they are. A store that cannot be
    read is an error when named, else skipped with a warning (its sessions stay in the index,
    unused this time)."""
    from txcript.harnesses.base import lists_by_file, root_token
    from txcript.sessions import chosen_harnesses, existing_root, guarded, store_listing

    explicit = bool(harness_names)
    current: list[str] = []
    for harness in chosen_harnesses(harness_names):
        root = existing_root(harness)
        if root is None:
            index.forget(harness.id)
            continue
        # (Taken before anything is read, and without importing the store's code.)
        token = root_token(harness, root)
        if token is not None and index.recorded(harness.id) == (token, True):
            current.append(harness.id)
            continue
        by_file = lists_by_file(harness.store(root))
        if by_file is not None:
            files = guarded(harness, by_file.fingerprinted, explicit=explicit)
            if files is None:
                continue
            changed = index.changed_files(harness.id, files)
            with noticed() as said:
                found = (
                    guarded(
                        harness, partial(by_file.discover_references, changed), explicit=explicit
                    )
                    if changed
                    else []
                )
            if found is None:
                continue
            index.update_files(
                harness.id, files, changed, found, progress=progress, vouched=not said
            )
            current.append(harness.id)
            continue
        with noticed() as said:
            listing = store_listing(harness, root, explicit=explicit)
        if listing is None:
            continue
        # A listing that warned is not vouched for: the warning must come again next time.
        listed = {harness.id: token} if token is not None and not said else {}
        index.update(listing, scope=[harness.id], progress=progress, listed=listed)
        current.append(harness.id)
    return current
