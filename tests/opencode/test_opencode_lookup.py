"""Direct lookup in the OpenCode store: one key range of each database's ``session`` table and
the file store's info files named after the id; it names what a full discovery names, in every
generation and with the same session in a database and a file store."""

from __future__ import annotations

from pathlib import Path

import opencode_fixtures as f
import pytest

from lookup_checks import assert_same_answers
from txcript.harnesses.opencode.store import OpenCodeStore


def generations(data: Path) -> Path:
    return f.every_generation(data)


def shadowed(data: Path) -> Path:
    f.storage_layout(data, f.MAIN_ID, "Stale file copy")
    f.build_db(data / "opencode.db", f.CURRENT_DDL, [f.main_session()])
    f.build_db(data / "opencode-beta.db", f.CURRENT_DDL, [f.main_session()], credentials=False)
    return data


@pytest.mark.parametrize("layout", [generations, shadowed])
def test_ids_and_prefixes_resolve_like_discovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: object
) -> None:
    data = layout(tmp_path / "opencode")  # type: ignore[operator]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    store = OpenCodeStore(data)
    listed = store.discover()
    assert listed
    ids = [d.meta_id for d in listed]
    direct = [*ids, *(f"{i}#1" for i in ids)]
    others = ["ses_", "ses_3f00aa11bb2", "nothing", *(d.title for d in listed if d.title)]
    for session_id in ids:
        for length in (6, 14, 20):
            prefix = session_id[:length]
            (direct if sum(i.startswith(prefix) for i in ids) == 1 else others).append(prefix)
    assert_same_answers(monkeypatch, OpenCodeStore, direct, others)
    assert_same_answers(monkeypatch, OpenCodeStore, direct, others, scope="opencode")
    for session in listed:
        assert store.lookup(session.meta_id) == [session]
