"""Every OpenCode store generation: older schema, channel database, both file layouts, de-dup."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import opencode_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)


def _everything(root: Path) -> dict[str, tuple[str, m.Transcript]]:
    harness = harnesses.get("opencode")
    store = harness.store(root)
    assert store is not None
    out = {}
    for found in store.discover():
        transcript = harness.to_common(store.load(found.reference))
        meta = transcript.meta
        assert (found.meta_id, found.timestamp, found.title, found.cwd, found.model) == (
            meta.id,
            meta.timestamp,
            meta.title,
            meta.cwd,
            meta.model,
        )
        assert found.meta_id not in out, "a session is listed twice"
        out[found.meta_id] = (store.location(found.reference), transcript)
    return out


def _old(session_id: str, title: str) -> m.Transcript:
    start = -86_400_000
    return m.Transcript(
        meta=m.Meta(
            id=session_id,
            timestamp=at(start),
            cwd="/work/repo",
            title=title,
            cli_version="1.2.10",
            model="claude-opus-4",
        ),
        messages=(
            m.Message(role="user", content=(m.Text(text="hi"),), timestamp=at(start + 1000)),
            m.Message(
                role="assistant",
                content=(m.Text(text="[error] APIError: overloaded"),),
                timestamp=at(start + 2000),
                model="claude-opus-4",
                stop_reason="error",
            ),
        ),
    )


FILES = m.Transcript(
    meta=m.Meta(
        id=f.FILES_ID,
        timestamp=at(-2 * 86_400_000),
        cwd="/work/files",
        title="File store",
        cli_version="0.15.0",
        model="claude-3-7-sonnet",
    ),
    messages=(
        m.Message(
            role="user", content=(m.Text(text="list the files"),), timestamp=at(-2 * 86_400_000 + 1)
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="a.txt and b.txt"),),
            timestamp=at(-2 * 86_400_000 + 2),
            model="claude-3-7-sonnet",
            stop_reason="end_turn",
            usage=m.Usage(input_tokens=9, output_tokens=4),
        ),
    ),
)

OLDEST = m.Transcript(
    meta=m.Meta(
        id=f.OLDEST_ID,
        timestamp=at(-3 * 86_400_000),
        cwd="/work/oldest",
        title="Oldest layout",
        cli_version="0.5.2",
        model="claude-3-5-sonnet",
    ),
    messages=(
        m.Message(
            role="user", content=(m.Text(text="hello from 0.5"),), timestamp=at(-3 * 86_400_000 + 1)
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="[error] UnknownError: boom"),),
            timestamp=at(-3 * 86_400_000 + 2),
            model="claude-3-5-sonnet",
            stop_reason="error",
        ),
    ),
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    data = tmp_path / "opencode"
    return f.every_generation(data)


def test_every_generation_reads_to_exact_common_and_nothing_changes(root: Path) -> None:
    before = f.snapshot(root)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = _everything(root)
    assert {k: v[1] for k, v in found.items()} == {
        f.OLD_ID: _old(f.OLD_ID, "Old schema session"),
        f.CHANNEL_ID: _old(f.CHANNEL_ID, "From stable"),
        f.FILES_ID: FILES,
        f.OLDEST_ID: OLDEST,
    }
    assert found[f.CHANNEL_ID][0].startswith(str(root / "opencode-stable.db"))
    assert found[f.FILES_ID][0].endswith(f"{f.FILES_ID}.json")
    assert f.snapshot(root) == before


def test_a_session_in_the_database_and_a_file_store_is_listed_once_from_the_database(
    tmp_path: Path,
) -> None:
    data = tmp_path / "opencode"
    f.storage_layout(data, f.MAIN_ID, "Stale file copy")
    f.build_db(data / "opencode.db", f.CURRENT_DDL, [f.main_session()])
    f.build_db(data / "opencode-beta.db", f.CURRENT_DDL, [f.main_session()], credentials=False)
    found = _everything(data)
    assert list(found) == [f.MAIN_ID]
    location, transcript = found[f.MAIN_ID]
    assert location == f"{data / 'opencode.db'} session {f.MAIN_ID}"
    assert transcript.meta.title == "Fix the parser"
