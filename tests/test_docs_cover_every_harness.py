"""Every harness the registry builds is documented where a user looks: a row of README's
harness table linking its format notes, a row of "Where stores live" when it keeps a store, and
a ``docs/formats`` page with a dated "Last verified" line. A harness added without them fails."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from txcript import harnesses

REPO = Path(__file__).parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
BUILT = [h for h in harnesses.implemented() if h.listed and h.id not in ("simple", "common")]


def section(title: str) -> str:
    return README.partition(f"\n## {title}\n")[2].partition("\n## ")[0]


@pytest.mark.parametrize("harness", BUILT, ids=lambda h: h.id)
def test_the_harness_table_links_its_format_notes(harness: Any) -> None:
    row = re.search(rf"^\| `{harness.id}` \| [^\n]*\((docs/formats/[^)]+\.md)\) \|$", README, re.M)
    assert row, f"README's harness table has no row for {harness.id} with its format notes"
    notes = (REPO / row.group(1)).read_text(encoding="utf-8")
    assert re.search(r"Last verified:? \*{0,2}\d{4}-\d{2}-\d{2}", notes), (
        f"{row.group(1)} has no dated 'Last verified' line"
    )


@pytest.mark.parametrize("harness", [h for h in BUILT if h.has_store], ids=lambda h: h.id)
def test_where_its_store_lives_is_in_the_readme(harness: Any) -> None:
    rows = [line for line in section("Where stores live").splitlines() if line.startswith("| ")]
    named = {line.split("|")[1].strip().split(" ")[0] for line in rows}
    wanted = harness.id if harness.id != "cursor_transcripts" else "cursor"
    assert wanted in named, f"README's 'Where stores live' has no row for {harness.id}"
    assert sum(line.startswith(f"| {harness.id} ") for line in rows) <= 1, "one row each"
