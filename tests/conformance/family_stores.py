"""Every harness's fixture stores, laid out at its default place under one HOME, for the tests
that run over all harnesses at once (``doctor``, the golden exports).

A harness's conformance declaration already builds a real store for each of its format
generations; these helpers reuse them, so a new harness reaches those tests by declaring its
families and nothing more. Importable from any test: it puts this directory on ``sys.path``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from contracts import declaration, registered, store_root  # noqa: E402
from declare import Family  # noqa: E402

from txcript import harnesses  # noqa: E402
from txcript.harnesses.declare import HarnessInfo  # noqa: E402


def families(exclude: set[str] = frozenset()) -> Iterator[tuple[HarnessInfo, Family]]:  # type: ignore[assignment]
    """Every declared family of every built harness that keeps a store, in registry order,
    except the harnesses in ``exclude``."""
    for info in registered():
        if info.id in exclude or not info.has_store or info.root is None:
            continue
        conf = declaration(info.id)
        if conf is not None:
            for family in conf.families:
                yield info, family


def has_default_place(info: HarnessInfo) -> bool:
    """Does the store live somewhere under HOME by default (not only a file the user names)?"""
    return info.root is not None and info.root.home is not None  # "" is the home itself


def build_at_home(info: HarnessInfo, family: Family, home: Path) -> Path:
    """Lay ``family`` out where ``info``'s store lives under ``home`` (for a store with no
    default place, where the suite puts it: name it with the root variable); returns the root."""
    root = store_root(info, home)
    root.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        family.build(root)
    return root


def quiet_family(info: HarnessInfo, scratch: Path) -> tuple[Family, int] | None:
    """The first family of ``info`` whose store lists and loads without a single warning, with
    its session count (None when every family warns on purpose): the one a test that pins every
    warning it sees can add without a line about it."""
    conf = declaration(info.id)
    if conf is None:
        return None
    harness = harnesses.get(info.id)
    for index, family in enumerate(conf.families):
        home = scratch / f"{info.id}-{index}"
        root = build_at_home(info, family, home)
        store = harness.store(root)
        assert store is not None
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            found = store.discover()
            for session in found:
                harness.to_common(store.load(session.reference))
        if found and not seen:
            return family, len(found)
    return None
