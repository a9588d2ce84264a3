"""Hermes: a home with a newest-schema state.db, both log formats under sessions/ and a
version-6 database under a profile; a version-6 database alone."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from declare import Conformance, Family, HopLimit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "hermes"))
import hermes_fixtures


def home(root: Path) -> None:
    hermes_fixtures.write_home(root)


def version_6(root: Path) -> None:
    hermes_fixtures.write_v6(root / "state.db")


def _as_hermes_holds(items: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Hermes keeps reasoning text without a signature, and one reasoning per assistant row."""
    out: list[tuple[Any, ...]] = []
    for item in items:
        if item[0] == "thinking":
            if out and out[-1][0] == "thinking":
                out[-1] = ("thinking", out[-1][1] + item[1], False)
                continue
            item = ("thinking", item[1], False)
        out.append(item)
    return out


CONFORMANCE = Conformance(
    harness="hermes",
    families=(
        Family("home-with-logs-and-profile", home, sessions=5),
        Family("schema-v6", version_6, sessions=1),
    ),
    representable=hermes_fixtures.conversations(),
    hop_limit=HopLimit(
        "a Hermes assistant row keeps one reasoning text and no signature, so a message's "
        "thinking comes back as one unsigned block",
        _as_hermes_holds,
    ),
)
