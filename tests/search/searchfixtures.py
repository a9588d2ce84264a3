"""Real stores with known sessions for the search tests (written through the harness stores)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from txcript import harnesses
from txcript import model as m
from txcript.harnesses.base import Discovered
from txcript.search import find
from txcript.search import index as index_module

ONE = "11111111-1111-4111-8111-111111111111"
TWO = "22222222-2222-4222-8222-222222222222"
THREE = "33333333-3333-4333-8333-333333333333"

BASE = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def stores_under(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point Claude Code, Cursor desktop and txcript's cache at empty dirs under ``tmp_path``."""
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(tmp_path / "Cursor" / "User"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def transcript(
    session_id: str, texts: list[tuple[str, str]], *, title: str | None = None, day: int = 0
) -> m.Transcript:
    start = BASE + timedelta(days=day)
    messages = tuple(
        m.Message(role=role, content=(m.Text(text),), timestamp=start + timedelta(minutes=i))  # type: ignore[arg-type]
        for i, (role, text) in enumerate(texts)
    )
    meta = m.Meta(id=session_id, timestamp=start, cwd="/work/acme", title=title)
    return m.Transcript(meta=meta, messages=messages)


def save_claude(root: Path, item: m.Transcript) -> Path:
    harness = harnesses.get("claude_code")
    store = harness.store(root)
    assert store is not None
    saved = store.save(harness.from_common(item), force=True)
    return Path(saved.reference)


def ids(pattern: str = "") -> list[str]:
    """The ids of every session ``find`` gives for ``pattern``, in its order."""
    return [match.session.meta_id for match in find(pattern, limit=100)]


class Counted:
    """What the index read (sessions turned into lines) and what one store of files listed
    again (:meth:`discover_references`, each reference shown by ``label``); a whole discovery
    of that store fails the test."""

    def __init__(
        self,
        monkeypatch: pytest.MonkeyPatch,
        store_class: Any,
        label: Callable[[str], str] = str,
    ) -> None:
        self.read: list[str] = []
        self.listed: list[list[str]] = []
        real_read = index_module._read_lines
        real_list = store_class.discover_references

        def read(session: Discovered) -> object:
            self.read.append(session.meta_id)
            return real_read(session)

        def listed(store: object, references: Iterable[str]) -> list[Discovered]:
            refs = list(references)
            self.listed.append([label(ref) for ref in refs])
            return real_list(store, refs)  # type: ignore[no-any-return]

        def whole(store: object) -> list[Discovered]:
            raise AssertionError(f"a query must not discover the whole {store_class.__name__}")

        monkeypatch.setattr(index_module, "_read_lines", read)
        monkeypatch.setattr(store_class, "discover_references", listed)
        monkeypatch.setattr(store_class, "discover", whole)

    def take(self) -> tuple[list[str], list[list[str]]]:
        """What was read and listed since the last take, sorted."""
        out = (sorted(self.read), [sorted(refs) for refs in self.listed])
        self.read.clear()
        self.listed.clear()
        return out
