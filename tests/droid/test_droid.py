"""Factory droid: the exact Common output of each layout, discovery, writing, and its quirks."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from pathlib import Path

import droid_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput

H = harnesses.get("droid")


def at(second: int) -> datetime:
    return datetime(2026, 11, 2, 10, 0, second, 250000, tzinfo=UTC)


def _store(root: Path):  # type: ignore[no-untyped-def]
    store = H.store(root)
    assert store is not None
    return store


def _load(root: Path, path: Path) -> m.Transcript:
    return H.to_common(_store(root).load(str(path)))


def test_the_per_project_session_reads_exactly(tmp_path: Path) -> None:
    path = f.build_project(tmp_path)
    with pytest.warns(TranscriptWarning) as said:
        transcript = _load(tmp_path, path)
    # The one record of an unknown kind is counted in one warning, never dropped silently.
    assert [str(w.message) for w in said] == [
        f"droid session {f.MAIN_ID}: 1 records of unknown kinds (mission_checkpoint) kept in "
        "the file but left out of the conversation"
    ]
    model = f.MODEL
    assert transcript == m.Transcript(
        meta=m.Meta(
            id=f.MAIN_ID,
            timestamp=at(1),
            cwd=f.PROJECT,
            title="Fix the failing test",
            model=model,
        ),
        messages=(
            m.Message(role="user", content=(m.Text("Fix the failing test"),), timestamp=at(1)),
            m.Message(
                role="assistant",
                content=(
                    m.Thinking("Run the tests first.", signature="sig-1"),
                    m.Text("Running the tests and reading the config."),
                    m.ToolUse("toolu_01", m.Bash(command="npm test", timeout_ms=120000)),
                    m.ToolUse("toolu_02", m.Read(file_path=f"{f.PROJECT}/jest.config.js")),
                    m.ToolUse(
                        "toolu_03",
                        m.Raw(tool_name="Grep", input={"pattern": "TODO", "path": f.PROJECT}),
                    ),
                ),
                timestamp=at(2),
                model=model,
            ),
            m.Message(
                role="user",
                content=(
                    m.ToolResult("toolu_01", "1 failing: sum adds", is_error=True),
                    m.ToolResult("toolu_02", "module.exports = {}"),
                    m.ToolResult("toolu_03", "src/a.ts:3: TODO"),
                ),
                timestamp=at(3),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        "toolu_04",
                        m.Write(
                            file_path=f"{f.PROJECT}/src/sum.ts",
                            content="export const sum = (a, b) => a + b;\n",
                        ),
                    ),
                ),
                timestamp=at(4),
                model=model,
            ),
            m.Message(
                role="user", content=(m.ToolResult("toolu_04", "File created"),), timestamp=at(5)
            ),
            m.Message(
                role="assistant",
                content=(m.Text("Fixed: sum now adds."),),
                timestamp=at(6),
                model=model,
            ),
        ),
    )


def test_the_older_flat_layout_reads_exactly(tmp_path: Path) -> None:
    path = f.build_flat(tmp_path)
    assert _load(tmp_path, path) == m.Transcript(
        meta=m.Meta(id=f.FLAT_ID, timestamp=at(10), title="Explain the build", model="gpt-5"),
        messages=(
            m.Message(role="user", content=(m.Text("Explain the build"),), timestamp=at(10)),
            m.Message(
                role="assistant",
                content=(m.Text("It uses esbuild."),),
                timestamp=at(11),
                model="gpt-5",
            ),
        ),
    )


def test_discovery_lists_both_layouts_and_names_a_sub_agents_parent(tmp_path: Path) -> None:
    f.build_project(tmp_path)
    f.build_flat(tmp_path)
    store = _store(tmp_path)
    found = store.discover()
    assert {d.meta_id for d in found} == {f.MAIN_ID, f.FLAT_ID, f.SUB_ID}
    parents = {d.meta_id: d.parent for d in found}
    assert parents[f.SUB_ID] == f.MAIN_ID and parents[f.MAIN_ID] is None
    assert [d.meta_id for d in store.lookup(f.FLAT_ID[:8])] == [f.FLAT_ID]


def test_a_copy_is_filed_under_its_project_key_byte_for_byte(tmp_path: Path) -> None:
    path = f.build_project(tmp_path / "a")
    native = _store(tmp_path / "a").load(str(path))
    saved = _store(tmp_path / "b").save(native)
    copy = Path(saved.reference)
    assert copy == tmp_path / "b" / "sessions" / f.PROJECT_KEY / f"{f.MAIN_ID}.jsonl"
    assert copy.read_bytes() == path.read_bytes()
    settings = f"{f.MAIN_ID}.settings.json"
    assert (copy.parent / settings).read_bytes() == (path.parent / settings).read_bytes()


def test_the_writer_gives_droid_the_header_chain_and_settings_it_needs(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        source = _load(tmp_path, f.build_project(tmp_path / "src"))
    native = H.from_common(source)
    records = [json.loads(line.text) for line in native.lines]
    header = records[0]
    assert header == {
        "type": "session_start",
        "id": f.MAIN_ID,
        "title": "Fix the failing test",
        "owner": "unknown",
        "version": 2,
        "isSessionTitleManuallySet": False,
        "cwd": f.PROJECT,
    }
    messages = records[1:]
    assert [r.get("parentId") for r in messages] == [None, *(r["id"] for r in messages[:-1])]
    assert messages[1]["message"]["content"][2] == {
        "type": "tool_use",
        "id": "toolu_01",
        "name": "Execute",
        "input": {"command": "npm test", "timeout": 120},
    }
    assert messages[2]["message"]["content"][0]["is_error"] is True
    assert json.loads(native.settings or "{}") == {"model": f.MODEL}
    assert H.to_common(native) == source


def test_an_execute_with_droid_only_arguments_stays_raw() -> None:
    from txcript.harnesses.droid.tools import to_tool

    args = {"command": "rm -rf build", "riskLevel": "medium", "riskLevelReason": "deletes"}
    assert to_tool("Execute", args) == m.Raw(tool_name="Execute", input=args)
    assert to_tool("Execute", {"command": "ls", "summary": "List the files"}) == m.Bash(
        command="ls", description="List the files"
    )


def test_the_text_form_carries_the_settings_file(tmp_path: Path) -> None:
    native = _store(tmp_path).load(str(f.build_project(tmp_path)))
    text = H.to_text(native)
    assert text.splitlines()[-1].startswith('{"type": "txcript_settings"')
    assert H.from_text(text) == native
    plain = (tmp_path / "sessions" / f.PROJECT_KEY / f"{f.MAIN_ID}.jsonl").read_text()
    assert H.from_text(plain).settings is None


def test_text_that_is_not_a_droid_session_is_refused() -> None:
    with pytest.raises(BadInput, match="first record is not `session_start`"):
        H.from_text('{"type":"user","message":{}}\n')


def test_delete_backs_both_files_up_and_restore_puts_them_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from txcript.shared import backups

    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    path = f.build_project(tmp_path / "root")
    before = path.read_bytes()
    store = _store(tmp_path / "root")
    store.delete(str(path))
    assert not path.exists() and not path.with_name(f"{f.MAIN_ID}.settings.json").exists()
    (backup,) = [b for b in backups.list_backups() if b.harness == "droid"]
    backups.restore(backup)
    assert path.read_bytes() == before


def test_the_cwd_becomes_droids_project_key() -> None:
    from txcript.harnesses.droid.store import project_key

    assert project_key("/Users/a/app") == "-Users-a-app"
    assert project_key("/srv//x/") == "-srv-x"
    assert project_key("C:\\Users\\a") == "-C--Users-a"


def test_a_structured_result_is_written_as_its_json_text() -> None:
    """Regression: a Common result holding a JSON object (Cursor desktop's ``{"error": …}``) was
    written as that object; droid then dropped the whole session on resume and started an empty
    one. A result that is neither text nor a list of content blocks is now its compact JSON."""
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(1)),
        messages=(
            m.Message(
                role="assistant",
                content=(m.ToolUse("c1", m.Read(file_path="/x")),),
                timestamp=at(1),
            ),
            m.Message(
                role="user",
                content=(m.ToolResult("c1", {"error": "ENOENT"}, is_error=True),),
                timestamp=at(2),
            ),
        ),
    )
    records = [json.loads(line.text) for line in H.from_common(transcript).lines]
    result = records[2]["message"]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": '{"error":"ENOENT"}',
        "is_error": True,
    }


def test_a_slash_command_is_the_users_text() -> None:
    """Regression: a user's slash command (a Common Command, as Gemini records ``/memory``) was
    written as a tool call in a user message, which droid replayed to the model as such. It is
    the user's text now, with its output, as droid records a command it ran itself."""
    transcript = m.Transcript(
        meta=m.Meta(id=f.MAIN_ID, timestamp=at(1)),
        messages=(
            m.Message(
                role="user",
                content=(
                    m.ToolUse("cmd-1", m.Command(command="/memory", args="show")),
                    m.ToolResult("cmd-1", "3 memories"),
                ),
                timestamp=at(1),
            ),
        ),
    )
    records = [json.loads(line.text) for line in H.from_common(transcript).lines]
    assert records[1]["message"]["content"] == [
        {"type": "text", "text": "/memory show"},
        {"type": "text", "text": "3 memories"},
    ]


def test_an_untouched_session_is_listed_from_the_cache_and_a_changed_one_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from txcript.harnesses.droid import store as droid_store

    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    path = f.build_project(tmp_path / "root")
    old = 1_700_000_000_000_000_000
    for p in path.parent.iterdir():
        os.utime(p, ns=(old, old))
    first = _store(tmp_path / "root").discover()
    scans: list[Path] = []
    real_scan = droid_store.DroidStore.scan

    def counting(self: droid_store.DroidStore, scanned: Path):  # type: ignore[no-untyped-def]
        scans.append(scanned)
        return real_scan(self, scanned)

    monkeypatch.setattr(droid_store.DroidStore, "scan", counting)
    assert _store(tmp_path / "root").discover() == first
    assert scans == []
    settings = path.with_name(f"{f.MAIN_ID}.settings.json")
    settings.write_text('{"model": "gpt-5"}')
    os.utime(settings, ns=(old + 10**9, old + 10**9))
    relisted = {d.meta_id: d.model for d in _store(tmp_path / "root").discover()}
    assert scans == [path] and relisted[f.MAIN_ID] == "gpt-5"
