"""Kimi Code sessions → Common exactly: both state shapes, undo and clear replayed; read-only."""

from __future__ import annotations

import warnings
from datetime import timedelta
from pathlib import Path

import pytest
from kimi_fixtures import GONE_ID, KEY, T0, V1_ID, V2_ID, WORK_DIR, build_store

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, Unconvertible
from txcript.harnesses.kimi.store import KimiCodeStore, work_dir_key
from txcript.shared.timeutil import from_epoch_ms

H = harnesses.get("kimi")


def at(offset_ms: int) -> object:
    return from_epoch_ms(T0) + timedelta(milliseconds=offset_ms)


def load(root: Path, ident: str) -> m.Transcript:
    return H.to_common(KimiCodeStore(root).load(str(root / "sessions" / KEY / ident)))


def test_a_v2_session_with_an_undo_gives_exactly_this_common(tmp_path: Path) -> None:
    build_store(tmp_path)
    with pytest.warns(TranscriptWarning) as said:
        got = load(tmp_path, V2_ID)
    assert len(said) == 1 and "telepathy.sync" in str(said[0].message)
    assert got == m.Transcript(
        meta=m.Meta(id=V2_ID, timestamp=at(0), cwd=WORK_DIR, title="Add the health endpoint"),
        messages=(
            m.Message("user", (m.Text("Add a /health endpoint"),), at(1000)),
            m.Message(
                "assistant",
                (
                    m.Thinking("A tiny route.", signature="sig-k"),
                    m.Text("Writing it."),
                    m.ToolUse("tc_1", m.Write(file_path="app/health.py", content="ok")),
                    m.ToolUse("tc_2", m.Bash(command="pytest -q")),
                ),
                at(3000),
                model="kimi-k2-turbo",
                usage=m.Usage(
                    input_tokens=1000,
                    output_tokens=50,
                    cache_read_input_tokens=700,
                    cache_creation_input_tokens=0,
                ),
            ),
            m.Message(
                "user",
                (m.ToolResult("tc_1", "written"), m.ToolResult("tc_2", "1 failed", is_error=True)),
                at(4000),
            ),
            m.Message("assistant", (m.Text("One test fails."),), at(6000), model="kimi-k2-turbo"),
            # the undone turn ("now add tests" and its answer) is gone
            m.Message("user", (m.Text("now add good tests"),), at(20_000)),
            m.Message(
                "assistant",
                (m.Text("Good tests added."),),
                at(21_000),
                model="kimi-k2-thinking",
                usage=m.Usage(input_tokens=100, output_tokens=20),
            ),
        ),
    )


def test_the_earlier_state_shape_and_a_clear(tmp_path: Path) -> None:
    build_store(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        got = load(tmp_path, V1_ID)
    assert got == m.Transcript(
        meta=m.Meta(id=V1_ID, timestamp=at(0), cwd=WORK_DIR, title="What does main.py do?"),
        messages=(
            m.Message("user", (m.Text("Start over: list the routes"),), at(4000)),
            m.Message("assistant", (m.Text("/health and /items."),), at(5000)),
        ),
    )


def test_discovery_skips_tombstones_and_agrees_with_load(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = KimiCodeStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        found = store.discover()
        assert sorted(d.meta_id for d in found) == sorted([V1_ID, V2_ID])
        assert GONE_ID not in {d.meta_id for d in found}
        for entry in found:
            meta = H.meta_of(store.load(entry.reference))
            assert (entry.meta_id, entry.timestamp, entry.title, entry.cwd) == (
                meta.id,
                meta.timestamp,
                meta.title,
                meta.cwd,
            )
    (v2,) = [d for d in found if d.meta_id == V2_ID]
    assert v2.updated_at == at(60_000)


def test_it_is_a_read_only_source_with_a_clear_error(tmp_path: Path) -> None:
    build_store(tmp_path)
    store = KimiCodeStore(tmp_path)
    with pytest.raises(Unconvertible, match="kimi migrate"):
        store.save(store.load(str(tmp_path / "sessions" / KEY / V2_ID)))
    with pytest.raises(BadInput, match="nothing was deleted"):
        store.delete(str(tmp_path / "sessions" / KEY / V2_ID))
    assert not H.provides("from_common")


def test_ids_and_resume() -> None:
    assert H.resume_command(V2_ID) == ["kimi", "--session", V2_ID]
    with pytest.raises(BadInput):
        H.check_id("../session_x")
    assert H.adopt_id("claude-1").startswith("session_")


@pytest.mark.parametrize(
    ("work_dir", "slug"),
    [("/home/dev/api", "api"), ("/home/dev/My Repo!/", "myrepo"), ("/", "")],
)
def test_work_dir_keys(work_dir: str, slug: str) -> None:
    key = work_dir_key(work_dir)
    assert key.startswith(f"wd_{slug}_") and len(key.rsplit("_", 1)[1]) == 12
