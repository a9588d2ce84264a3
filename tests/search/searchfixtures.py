"""Real stores with known sessions for the search tests (written through the harness stores)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from txcript import harnesses
from txcript import model as m

BASE = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


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
