"""Reading the current OpenCode database: exact Common output, WAL rows, no file touched."""

from __future__ import annotations

import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import opencode_fixtures as f
import pytest

from conftest import RunCli
from txcript import harnesses
from txcript import model as m

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def at(ms: int) -> datetime:
    return T0 + timedelta(milliseconds=ms)


MODEL = "claude-sonnet-4-5"

MAIN = m.Transcript(
    meta=m.Meta(
        id=f.MAIN_ID,
        timestamp=T0,
        cwd="/work/repo",
        title="Fix the parser",
        cli_version="1.14.2",
        model=MODEL,
    ),
    messages=(
        m.Message(
            role="user",
            content=(
                m.Text(text="fix the failing test"),
                m.Image(source=m.ImageSource(type="base64", media_type="image/png", data=f.IMAGE)),
            ),
            timestamp=at(1000),
        ),
        m.Message(
            role="assistant",
            content=(
                m.Thinking(text="The test probably fails on an off-by-one.", signature="sig-abc"),
                m.Text(text="Let me run the tests."),
                m.ToolUse(
                    id="toolu_01", tool=m.Bash(command="pytest -q", description="Run the tests")
                ),
                m.ToolUse(
                    id="toolu_02", tool=m.Read(file_path="/work/repo/calc.py", offset=1, limit=20)
                ),
            ),
            timestamp=at(2100),
            model=MODEL,
            stop_reason="tool_use",
            usage=m.Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=50),
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(tool_use_id="toolu_01", content="1 failed, 3 passed"),
                m.ToolResult(
                    tool_use_id="toolu_02", content="def total(n):\n    return sum(range(n + 1))"
                ),
            ),
            timestamp=at(2900),
        ),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(
                    id="toolu_03",
                    tool=m.Edit(file_path="/work/repo/calc.py", old_string="n + 1", new_string="n"),
                ),
                # running: in flight, so no result follows
                m.ToolUse(
                    id="toolu_04", tool=m.Raw(tool_name="glob", input={"pattern": "**/*.py"})
                ),
            ),
            timestamp=at(3500),
            model=MODEL,
            stop_reason="tool_use",
            usage=m.Usage(input_tokens=20, output_tokens=5),
        ),
        m.Message(
            role="user",
            content=(
                m.ToolResult(
                    tool_use_id="toolu_03", content="oldString not found in content", is_error=True
                ),
            ),
            timestamp=at(3600),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="Fixed the off-by-one."),),
            timestamp=at(5000),
            model=MODEL,
            stop_reason="end_turn",
            usage=m.Usage(input_tokens=10, output_tokens=8, cache_creation_input_tokens=7),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="[error] APIError: rate limited"),),
            timestamp=at(8000),
            model=MODEL,
            stop_reason="error",
        ),
    ),
)

UNTITLED = m.Transcript(
    meta=m.Meta(id=f.UNTITLED_ID, timestamp=at(60_000), cwd="/work/other", cli_version="1.14.2"),
    messages=(m.Message(role="user", content=(m.Text(text="hello"),), timestamp=at(60_000)),),
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The current schema with events and credentials; the untitled session lives only in -wal."""
    data = tmp_path / "opencode"
    f.build_db(data / "opencode.db", f.CURRENT_DDL, [f.main_session()], [f.untitled_session()])
    return data


def _read_all(root: Path) -> dict[str, m.Transcript]:
    harness = harnesses.get("opencode")
    store = harness.store(root)
    assert store is not None
    out = {}
    for found in store.discover():
        transcript = harness.to_common(store.load(found.reference))
        out[found.meta_id] = transcript
        meta = transcript.meta
        assert (found.meta_id, found.timestamp, found.title, found.cwd, found.model) == (
            meta.id,
            meta.timestamp,
            meta.title,
            meta.cwd,
            meta.model,
        )
    return out


def test_current_schema_reads_to_exact_common_and_touches_nothing(root: Path) -> None:
    before = f.snapshot(root)
    assert sorted(before) == ["opencode.db", "opencode.db-wal"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = _read_all(root)
    assert found == {f.MAIN_ID: MAIN, f.UNTITLED_ID: UNTITLED}
    # no -shm, no new file, no byte changed: the -wal rows were read from a private snapshot
    assert f.snapshot(root) == before


def test_rows_only_in_the_wal_are_listed(root: Path) -> None:
    import sqlite3

    main_only = sqlite3.connect(f"file:{root / 'opencode.db'}?immutable=1", uri=True)
    ids = [row[0] for row in main_only.execute("SELECT id FROM session")]
    main_only.close()
    assert ids == [f.MAIN_ID]  # the untitled session is not in the main file
    assert f.UNTITLED_ID in _read_all(root)


def test_placeholder_title_is_no_title_but_a_real_one_stays() -> None:
    from txcript.harnesses.opencode.codec import is_placeholder_title

    assert is_placeholder_title("New session - 2026-01-01T00:01:00.000Z")
    assert is_placeholder_title("Child session - 2026-01-01T00:01:00.000Z")
    assert not is_placeholder_title("New session - fix the parser")


def test_a_child_session_names_its_parent(tmp_path: Path) -> None:
    child = f.untitled_session()
    child["row"]["parent_id"] = f.MAIN_ID
    f.build_db(tmp_path / "opencode.db", f.CURRENT_DDL, [f.main_session(), child])
    store = harnesses.get("opencode").store(tmp_path)
    assert store is not None
    parents = {d.meta_id: d.parent for d in store.discover()}
    assert parents == {f.MAIN_ID: None, f.UNTITLED_ID: f.MAIN_ID}


def test_archived_sessions_are_not_listed(tmp_path: Path) -> None:
    session = f.main_session()
    session["row"]["time_archived"] = f.T0 + 100
    f.build_db(tmp_path / "opencode.db", f.CURRENT_DDL, [session])
    store = harnesses.get("opencode").store(tmp_path)
    assert store is not None and store.discover() == []


def test_opencode_db_names_one_database(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere" / "mine.db"
    f.build_db(elsewhere, f.CURRENT_DDL, [f.untitled_session()])
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert harnesses.get("opencode").default_root() == root
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    store = harnesses.get("opencode").store()
    assert store is not None
    assert [d.meta_id for d in store.discover()] == [f.UNTITLED_ID]


def test_no_output_or_backup_holds_a_credential(
    root: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    env = {"XDG_DATA_HOME": str(root.parent), "TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    outputs = []
    for args in (
        ("list",),
        ("list", "--json"),
        ("harnesses",),
        ("view", f.MAIN_ID),
        ("export", f.MAIN_ID, "--format", "simple"),
        ("export", f.MAIN_ID, "--format", "common"),
        ("export", f.MAIN_ID, "--format", "native"),
        ("view", f.UNTITLED_ID),
    ):
        result = run_cli(*args, env=env)
        assert result.code == 0, (args, result.stderr)
        outputs.append(result.stdout + result.stderr)
    assert f.MAIN_ID in outputs[0]
    for output in outputs:
        for secret in f.SENTINELS:
            assert secret not in output
