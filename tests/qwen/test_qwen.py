"""Qwen Code chats → Common exactly (the branch walked from the leaf), and the writer's shape."""

from __future__ import annotations

import json
import os
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from qwen_fixtures import (
    COMPRESSED_ID,
    CWD,
    LINEAR_ID,
    PROJECT,
    REWOUND_ID,
    build_store,
    compressed_records,
    line,
    linear_records,
    rewound_records,
    text_of,
    write_chat,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, Malformed
from txcript.harnesses.qwen.store import QwenStore, project_id

H = harnesses.get("qwen")


def at(second: int) -> datetime:
    return datetime(2026, 11, 2, 10, 0, second, tzinfo=UTC)


def quiet(records: list[dict[str, object]]) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return H.to_common(H.from_text(text_of(records)))


def test_a_linear_chat_gives_exactly_this_common_and_one_warning_for_the_unknown_record() -> None:
    with pytest.warns(TranscriptWarning) as said:
        got = H.to_common(H.from_text(text_of(linear_records())))
    assert len(said) == 1
    assert "1 records left out" in str(said[0].message)
    assert "galaxy_brain" in str(said[0].message)
    assert got == m.Transcript(
        meta=m.Meta(
            id=LINEAR_ID,
            timestamp=at(0),
            cwd=CWD,
            git_branch="main",
            title="Tests and lint",
            cli_version="0.24.4",
            model="qwen3-coder-plus",
        ),
        messages=(
            m.Message("user", (m.Text("Run the tests\nthen lint"),), at(0)),
            m.Message(
                "assistant",
                (
                    m.Thinking("Tests first.", signature="c2lnLTE="),
                    m.Text("Running them."),
                    m.ToolUse("call_1", m.Bash(command="npm test", timeout_ms=120000)),
                    m.ToolUse("call_2", m.Read(file_path="/home/dev/acme/.eslintrc")),
                ),
                at(2),
                model="qwen3-coder-plus",
                usage=m.Usage(input_tokens=1200, output_tokens=60, cache_read_input_tokens=800),
            ),
            m.Message(
                "user",
                (
                    m.ToolResult("call_1", "12 passing"),
                    m.ToolResult(
                        "call_2", "File not found: /home/dev/acme/.eslintrc", is_error=True
                    ),
                ),
                at(3),
            ),
            m.Message(
                "assistant",
                (m.Text("Tests pass; there is no lint config."),),
                at(5),
                model="qwen3-coder-plus",
                usage=m.Usage(input_tokens=1300, output_tokens=20, cache_read_input_tokens=0),
            ),
        ),
    )


def test_a_rewound_branch_stays_out_of_the_conversation_but_in_the_file() -> None:
    got = quiet(rewound_records())
    assert got == m.Transcript(
        meta=m.Meta(
            id=REWOUND_ID,
            timestamp=at(0),
            cwd=CWD,
            git_branch="main",
            title="Rename foo to bar",
            cli_version="0.24.4",
            model="qwen3-coder-plus",
        ),
        messages=(
            m.Message("user", (m.Text("Rename foo to bar"),), at(0)),
            m.Message(
                "assistant",
                (
                    m.Text("Renaming."),
                    m.ToolUse(
                        "call_new",
                        m.Edit(
                            file_path="/home/dev/acme/a.py",
                            old_string="foo",
                            new_string="bar",
                            replace_all=True,
                        ),
                    ),
                ),
                at(4),
                model="qwen3-coder-plus",
            ),
            m.Message("user", (m.ToolResult("call_new", "edited 3"),), at(5)),
        ),
    )
    native = H.from_text(text_of(rewound_records()))
    assert "call_old" in H.to_text(native)  # the dead branch is carried, byte for byte


def test_a_compression_replaces_the_context_before_it() -> None:
    got = quiet(compressed_records())
    assert [(x.role, x.content, x.timestamp) for x in got.messages] == [
        ("user", (m.Text("Summary: we did a lot."),), at(2)),
        ("assistant", (m.Text("Got it."),), at(2)),
        ("user", (m.Text("Next step"),), at(3)),
    ]
    assert got.meta.title == "Long work"


def test_fragments_of_one_record_are_joined_as_qwen_joins_them() -> None:
    records = linear_records()[:1]
    first = {
        **records[0],
        "uuid": "a1",
        "parentUuid": "u1",
        "type": "assistant",
        "model": "qwen3-coder-plus",
        "message": {"role": "model", "parts": [{"text": "part one "}]},
    }
    second = {
        **first,
        "timestamp": "2026-11-02T10:00:09.000Z",
        "message": {"role": "model", "parts": [{"text": "part two"}]},
    }
    got = quiet([*records, first, second])
    assert got.messages[1].content == (m.Text("part one "), m.Text("part two"))
    assert got.messages[1].timestamp == at(9)


def test_a_missing_parent_ends_the_walk_with_one_warning() -> None:
    records = rewound_records()
    records[-1] = {**records[-1], "parentUuid": "nowhere"}
    with pytest.warns(TranscriptWarning, match="history gap") as said:
        got = H.to_common(H.from_text(text_of(records)))
    assert len(said) == 1
    assert [x.content for x in got.messages] == [(m.ToolResult("call_new", "edited 3"),)]


def test_lines_that_are_not_records_are_kept_and_counted_once() -> None:
    text = text_of(rewound_records()) + "{not json\n" + line({"hello": 1}) + "\n"
    with pytest.warns(TranscriptWarning) as said:
        H.to_common(H.from_text(text))
    assert len(said) == 1 and "2 records left out" in str(said[0].message)
    assert H.to_text(H.from_text(text)) == text


def test_a_text_with_no_record_is_refused() -> None:
    with pytest.raises(Malformed):
        H.from_text(line({"role": "user", "content": "hi"}) + "\n")


def test_the_text_form_is_recognised_by_its_first_lines() -> None:
    values = [json.loads(x) for x in text_of(linear_records()).splitlines()[:3]]
    assert H.sniff_lines(values)
    claude = {
        "type": "user",
        "uuid": "u",
        "parentUuid": None,
        "sessionId": "s",
        "cwd": "/",
        "message": {"role": "user", "content": "hi"},
    }
    assert not H.sniff_lines([claude])


# ------------------------------------------------------------------------------- the store


def test_discovery_lists_every_chat_with_the_metadata_a_load_gives(tmp_path: Path) -> None:
    build_store(tmp_path)
    (tmp_path / "projects" / PROJECT / "chats" / "notes.jsonl").write_text("{}\n")
    store = QwenStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        found = store.discover()
        assert sorted(d.meta_id for d in found) == sorted([LINEAR_ID, REWOUND_ID, COMPRESSED_ID])
        for entry in found:
            meta = H.to_common(store.load(entry.reference)).meta
            assert (entry.meta_id, entry.timestamp, entry.title, entry.cwd, entry.model) == (
                meta.id,
                meta.timestamp,
                meta.title,
                meta.cwd,
                meta.model,
            )
            assert entry.git_branch == meta.git_branch == "main"


def test_a_copy_is_written_where_qwen_resume_finds_it_and_reads_back_the_same(
    tmp_path: Path,
) -> None:
    source = quiet(rewound_records())
    copy = m.Transcript(
        meta=m.Meta(
            id="0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            timestamp=source.meta.timestamp,
            cwd=CWD,
            title="Rename foo to bar",
            model="qwen3-coder-plus",
        ),
        messages=source.messages,
    )
    store = QwenStore(tmp_path)
    saved = store.save(H.from_common(copy))
    path = Path(saved.location)
    assert path == tmp_path / "projects" / PROJECT / "chats" / f"{copy.meta.id}.jsonl"
    records = [json.loads(x) for x in path.read_text().splitlines()]
    assert [r["type"] for r in records] == ["user", "assistant", "tool_result", "system"]
    assert [r["parentUuid"] for r in records[1:]] == [r["uuid"] for r in records[:-1]]
    assert {r["sessionId"] for r in records} == {copy.meta.id}
    assert {r["cwd"] for r in records} == {CWD}
    assert records[2]["message"]["parts"][0]["functionResponse"]["name"] == "edit"
    assert records[-1]["subtype"] == "custom_title"
    assert H.to_common(store.load(saved.reference)) == m.Transcript(
        meta=m.Meta(
            id=copy.meta.id,
            timestamp=copy.meta.timestamp,
            cwd=CWD,
            title="Rename foo to bar",
            cli_version="unknown",
            model="qwen3-coder-plus",
        ),
        messages=source.messages,
    )
    with pytest.raises(BadInput, match="refusing to overwrite"):
        store.save(H.from_common(copy))


def test_a_copy_without_a_working_directory_is_filed_under_the_current_directory(
    tmp_path: Path, workspace: Path
) -> None:
    """It was refused ("pass --cwd"), even with ``--out``: like every writer, Qwen Code files a
    session with no cwd under the directory it is written from (tests/test_writers_without_cwd.py
    runs that for every writer)."""
    from txcript.harnesses.qwen.store import project_id

    copy = m.Transcript(meta=m.Meta(id="0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", timestamp=at(0)))
    saved = QwenStore(tmp_path).save(H.from_common(copy))
    assert Path(saved.reference).parent.parent.name == project_id(str(workspace))


@pytest.mark.parametrize("bad", ["../x", "a/b", "-x", "not-a-uuid"])
def test_a_hostile_id_is_refused_before_any_byte(tmp_path: Path, bad: str) -> None:
    copy = m.Transcript(meta=m.Meta(id=bad, timestamp=at(0), cwd=CWD))
    with pytest.raises(BadInput):
        QwenStore(tmp_path).save(H.from_common(copy))
    assert not any(tmp_path.iterdir())


def test_delete_backs_the_chat_up_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    path = write_chat(tmp_path / "qwen", REWOUND_ID, rewound_records())
    store = QwenStore(tmp_path / "qwen")
    store.delete(str(path))
    assert not path.exists()
    assert store.discover() == []
    with pytest.raises(BadInput):
        store.delete(str(path))


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [("/home/a/my.app", "-home-a-my-app"), ("C:\\Users\\Dev\\App", "c--users-dev-app")],
)
def test_project_ids_are_qwens(cwd: str, expected: str) -> None:
    assert project_id(cwd) == expected


def test_the_default_root_follows_qwen_runtime_dir_then_qwen_home(
    monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    assert H.default_root() == isolated_home / ".qwen"
    monkeypatch.setenv("QWEN_HOME", "/srv/qwen-home")
    assert H.default_root() == Path("/srv/qwen-home")
    monkeypatch.setenv("QWEN_RUNTIME_DIR", "/srv/qwen-runtime")
    assert H.default_root() == Path("/srv/qwen-runtime")
    assert H.resume_command(LINEAR_ID) == ["qwen", "--resume", LINEAR_ID]
    assert H.resume_in_cwd


def test_a_qwen_chat_handed_to_txcript_is_read_as_qwen_not_as_claude_code(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """Regression: Qwen's records carry Claude Code's `uuid`/`parentUuid`/`sessionId`/`type`,
    and Claude Code's line sniff (earlier in the registry) took a Qwen chat for its own, so
    `txcript export chat.jsonl` read it as Claude Code and found one message. A Claude Code
    message always holds `content`; a Qwen one holds Gemini `parts`."""
    path = tmp_path / "chat.jsonl"
    path.write_text(text_of(rewound_records()))
    done = run_cli("export", str(path), "--format", "common")
    assert done.code == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["meta"]["id"] == REWOUND_ID
    assert [x["role"] for x in got["messages"]] == ["user", "assistant", "user"]


def test_a_slash_command_the_user_ran_is_written_as_its_prompt_not_dropped() -> None:
    """Regression: a user-side Command (``/memory show``) and its output were dropped by the
    writer; Qwen keeps slash commands out of the model's history, so the copy holds the prompt
    that ran it and the output as the user's text."""
    transcript = m.Transcript(
        meta=m.Meta(id=LINEAR_ID, timestamp=at(0), cwd=CWD, title="t", cli_version="0.24.4"),
        messages=(
            m.Message(
                "user",
                (
                    m.ToolUse("cmd-1", m.Command(command="/memory", args="show")),
                    m.ToolResult("cmd-1", "no memories"),
                ),
                at(0),
            ),
        ),
    )
    back = H.to_common(H.from_common(transcript))
    assert back.messages == (
        m.Message("user", (m.Text("/memory show"), m.Text("no memories")), at(0)),
    )


def test_an_unchanged_chat_is_listed_from_the_metadata_cache_without_being_read(
    tmp_path: Path,
) -> None:
    """The second listing of a file whose (size, mtime) stands is the cached one: a change
    that keeps both (here the title's bytes, swapped in place) is not seen, which proves the
    file was not read; a real change (the mtime moves) is."""
    path = write_chat(tmp_path, REWOUND_ID, rewound_records())
    old = path.stat()
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns - 10**10))
    settled = path.stat()
    store = QwenStore(tmp_path)
    assert [d.title for d in store.discover()] == ["Rename foo to bar"]
    path.write_text(path.read_text().replace("Rename foo to bar", "Rename foo to baz"))
    os.utime(path, ns=(settled.st_atime_ns, settled.st_mtime_ns))
    assert [d.title for d in store.discover()] == ["Rename foo to bar"]
    os.utime(path, ns=(settled.st_atime_ns, settled.st_mtime_ns - 10**9))
    assert [d.title for d in store.discover()] == ["Rename foo to baz"]
