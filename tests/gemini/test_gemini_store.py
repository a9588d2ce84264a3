"""The Gemini CLI store: discovery of both project-dir kinds, sub-agents, lossless saves, safety."""

from __future__ import annotations

import json
import os
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from gemini_fixtures import (
    LEGACY_ID,
    LOG_ID,
    PARENT_ID,
    PROJECT_HASH,
    ROOT_PATH,
    SLUG,
    SUBAGENT_ID,
    build_store,
    legacy_text,
    log_text,
    put,
    snapshot,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, StoreError
from txcript.harnesses.gemini.store import GeminiStore

H = harnesses.get("gemini")
default_root = H.default_root
ID = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / ".gemini"


def store(root: Path) -> GeminiStore:
    opened = H.store(root)
    assert isinstance(opened, GeminiStore)
    return opened


def quiet_load(s: GeminiStore, reference: str) -> m.Transcript:
    with warnings.catch_warnings():
        warnings.simplefilter("error", TranscriptWarning)
        return H.to_common(s.load(reference))


def sample(session_id: str = ID, *, when: datetime | None = None) -> m.Transcript:
    t0 = when or datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
    return m.Transcript(
        meta=m.Meta(
            id=session_id,
            timestamp=t0,
            cwd="/work/My Repo!",
            title="hello there",
            model="gemini-3-pro",
        ),
        messages=(
            m.Message("user", (m.Text("hello there"),), t0),
            m.Message(
                "assistant",
                (m.Text("hi"), m.ToolUse("c1", m.Bash(command="ls"))),
                t0 + timedelta(seconds=1),
                model="gemini-3-pro",
                usage=m.Usage(input_tokens=10, output_tokens=3),
            ),
            m.Message("user", (m.ToolResult("c1", "a.txt"),), t0 + timedelta(seconds=2)),
        ),
    )


# ------------------------------------------------------------------------------- discovery


def test_root_is_dot_gemini_under_home_or_gemini_cli_home(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert default_root() == isolated_home / ".gemini"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "alt"))
    assert default_root() == tmp_path / "alt" / ".gemini"


def test_discovery_lists_each_session_once_with_the_meta_load_gives(root: Path) -> None:
    paths = build_store(root)
    before = snapshot(root)
    s = store(root)
    found = {d.meta_id: d for d in s.discover()}
    assert sorted(found) == sorted([LEGACY_ID, LOG_ID, SUBAGENT_ID])
    # The same legacy chat sits in the sha256 dir and the slug dir: the slug copy is listed.
    assert found[LEGACY_ID].reference == str(paths["legacy_slug"])
    for entry in found.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TranscriptWarning)
            meta = H.to_common(s.load(entry.reference)).meta
        assert (entry.meta_id, entry.timestamp, entry.title, entry.cwd, entry.model) == (
            meta.id,
            meta.timestamp,
            meta.title,
            meta.cwd,
            meta.model,
        )
        assert entry.cwd == ROOT_PATH
    assert found[LOG_ID].title == "Parser fix" and found[LOG_ID].parent is None
    # The sub-agent chat is its own session, linked to the chat that spawned it.
    sub = found[SUBAGENT_ID]
    assert sub.parent == PARENT_ID and sub.title == "Investigate the codebase"
    assert snapshot(root) == before


def test_the_later_copy_wins_when_the_hash_dir_was_updated_after_the_slug_dir(root: Path) -> None:
    paths = build_store(root)
    newer = json.loads(legacy_text())
    newer["lastUpdated"] = "2025-09-02T00:00:00.000Z"
    paths["legacy_hash"].write_text(json.dumps(newer))
    found = {d.meta_id: d for d in store(root).discover()}
    assert found[LEGACY_ID].reference == str(paths["legacy_hash"])


def test_a_sha256_dir_alone_gets_its_cwd_from_the_registry(root: Path) -> None:
    put(root / "projects.json", json.dumps({"projects": {ROOT_PATH: SLUG}}))
    put(root / "tmp" / PROJECT_HASH / "chats" / "session-x.json", legacy_text())
    (only,) = store(root).discover()
    assert only.cwd == ROOT_PATH and only.meta_id == LEGACY_ID


def test_missing_root_lists_nothing_and_foreign_files_are_skipped(root: Path) -> None:
    assert store(root).discover() == []
    put(root / "tmp" / "x" / "chats" / "notes.json", '{"hello": 1}')
    put(root / "tmp" / "x" / "chats" / "broken.jsonl", "not json at all\n")
    put(root / "tmp" / "x" / "logs.json", "[]")
    assert store(root).discover() == []


def test_directory_symlinks_are_not_followed(root: Path, tmp_path: Path) -> None:
    build_store(root)
    (root / "tmp" / "loop").symlink_to(root / "tmp", target_is_directory=True)
    elsewhere = tmp_path / "elsewhere"
    put(elsewhere / "chats" / "session-y.jsonl", log_text())
    (root / "tmp" / "linked").symlink_to(elsewhere, target_is_directory=True)
    assert len(store(root).discover()) == 3


def test_a_fifo_named_like_a_chat_never_blocks_discovery(root: Path) -> None:
    build_store(root)
    os.mkfifo(root / "tmp" / SLUG / "chats" / "session-fifo.jsonl")
    assert len(store(root).discover()) == 3


def test_projects_json_that_is_not_an_object_is_one_warning_when_listing(
    root: Path, run_cli: RunCli
) -> None:
    paths = build_store(root)
    paths["legacy_hash"].unlink()
    (root / "projects.json").write_text("[1, 2]")
    (root / "tmp" / SLUG / ".project_root").unlink()
    result = run_cli(
        "list", "--from", "gemini", "--json", env={"GEMINI_CLI_HOME": str(root.parent)}
    )
    assert result.code == 0, result.stderr
    assert result.stderr.count("warning:") == 1 and "not a JSON object" in result.stderr
    assert {row["id"] for row in json.loads(result.stdout)} == {LEGACY_ID, LOG_ID, SUBAGENT_ID}


# ------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize("name", ["log", "legacy_slug", "subagent"])
def test_store_round_trip_is_byte_lossless(root: Path, tmp_path: Path, name: str) -> None:
    source = build_store(root)[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        first = store(root).load(str(source))
    out = tmp_path / "copy" / ".gemini"
    saved = store(out).save(first)
    second = store(out).load(saved.reference)
    assert second == first
    assert Path(saved.reference).read_bytes() == source.read_bytes()
    assert Path(saved.reference).relative_to(out).parts == source.relative_to(root).parts
    registry = json.loads((out / "projects.json").read_text())
    assert registry == {"projects": {ROOT_PATH: SLUG}}
    assert (out / "tmp" / SLUG / ".project_root").read_text() == ROOT_PATH


def test_save_writes_a_log_gemini_lists_under_a_registered_slug(root: Path) -> None:
    saved = store(root).save(H.from_common(sample()))
    path = Path(saved.reference)
    assert path.relative_to(root).parts == (
        "tmp",
        "my-repo",
        "chats",
        f"session-2026-03-04T05-06-{ID[:8]}.jsonl",
    )
    assert saved.id == ID and H.resume_command(saved.id) == ["gemini", "--resume", ID]
    assert json.loads((root / "projects.json").read_text()) == {
        "projects": {"/work/My Repo!": "my-repo"}
    }
    assert quiet_load(store(root), saved.reference) == sample()
    (listed,) = store(root).discover()
    assert listed.reference == saved.reference and listed.cwd == "/work/My Repo!"


def test_a_second_root_with_the_same_name_gets_the_next_slug_and_others_stay(root: Path) -> None:
    put(root / "projects.json", json.dumps({"projects": {"/old/my-repo": "my-repo"}, "v": 2}))
    put(root / "tmp" / "my-repo" / ".project_root", "/old/my-repo")
    saved = store(root).save(H.from_common(sample()))
    assert Path(saved.reference).relative_to(root).parts[1] == "my-repo-1"
    assert json.loads((root / "projects.json").read_text()) == {
        "projects": {"/old/my-repo": "my-repo", "/work/My Repo!": "my-repo-1"},
        "v": 2,
    }
    assert (root / "tmp" / "my-repo" / ".project_root").read_text() == "/old/my-repo"


def test_saving_never_overwrites_a_chat_without_force(root: Path) -> None:
    s = store(root)
    first = s.save(H.from_common(sample()))
    before = snapshot(root)
    with pytest.raises(BadInput, match="refusing to overwrite"):
        s.save(H.from_common(sample()))
    assert snapshot(root) == before
    changed = sample()
    changed = m.Transcript(meta=changed.meta, messages=changed.messages[:1])
    again = s.save(H.from_common(changed), force=True)
    assert again.reference == first.reference
    assert len(quiet_load(s, again.reference).messages) == 1


@pytest.mark.parametrize(
    "registry", ["{broken", "[1]", '{"projects": []}', '{"projects": {"a": 1}}']
)
def test_a_registry_that_does_not_parse_is_never_touched(root: Path, registry: str) -> None:
    put(root / "projects.json", registry)
    before = snapshot(root)
    with pytest.raises(StoreError, match="refusing to change Gemini's project registry"):
        store(root).save(H.from_common(sample()))
    assert snapshot(root) == before


def test_a_failed_save_leaves_nothing_behind(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    put(root / "projects.json", json.dumps({"projects": {}}))
    before = snapshot(root)
    from txcript.shared import files

    real = files.write_atomic

    def failing(path: Path, data: bytes, **options: bool) -> None:
        if path.suffix == ".jsonl":
            raise StoreError("disk full")
        real(path, data, **options)

    monkeypatch.setattr(files, "write_atomic", failing)
    with pytest.raises(StoreError, match="disk full"):
        store(root).save(H.from_common(sample()))
    assert snapshot(root) == before
    assert sorted(p.name for p in root.rglob("*")) == ["projects.json"]


@pytest.mark.parametrize("bad", ["../../pwned", "/tmp/abs", "a/b", "..", ""])
def test_hostile_session_ids_are_refused_before_anything_is_written(root: Path, bad: str) -> None:
    transcript = sample()
    transcript = m.Transcript(
        meta=m.Meta(id=bad, timestamp=transcript.meta.timestamp, cwd="/r"),
        messages=transcript.messages,
    )
    with pytest.raises(BadInput):
        store(root).save(H.from_common(transcript))
    assert not root.exists()


def test_a_session_without_cwd_is_filed_under_the_current_directory(
    root: Path, workspace: Path
) -> None:
    """It used to be refused ("Gemini files chats by project"), even for ``--out``: Gemini files
    it under the project of the directory it is saved from, where ``gemini --resume`` finds it."""
    transcript = sample()
    meta = m.Meta(id=ID, timestamp=transcript.meta.timestamp)
    saved = store(root).save(H.from_common(m.Transcript(meta=meta, messages=transcript.messages)))
    assert H.to_common(store(root).load(saved.reference)).meta.cwd == str(workspace)


# ---------------------------------------------------------------------------------- delete


def test_delete_backs_up_then_removes_only_that_chat(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "data"))
    paths = build_store(root)
    s = store(root)
    s.delete(str(paths["log"]))
    assert not paths["log"].exists() and paths["subagent"].exists()
    assert LOG_ID not in {d.meta_id for d in s.discover()}
    with pytest.raises(BadInput):
        s.delete(str(paths["log"]))
    outside = put(tmp_path / "outside.jsonl", log_text())
    with pytest.raises(StoreError, match="outside"):
        s.delete(str(outside))
    (root / "tmp" / SLUG / "chats" / "link.jsonl").symlink_to(outside)
    with pytest.raises(StoreError, match="outside"):
        s.delete(str(root / "tmp" / SLUG / "chats" / "link.jsonl"))
    assert outside.exists()


# -------------------------------------------------------------------------------- commands


def test_continue_into_gemini_stamps_a_fresh_date_and_prints_the_resume_command(
    tmp_path: Path, run_cli: RunCli
) -> None:
    doc = tmp_path / "doc.json"
    old = sample(when=datetime(2024, 1, 1, tzinfo=UTC))
    doc.write_text(m.to_json(old))
    repo = tmp_path / "repo"
    repo.mkdir()
    home = tmp_path / "gh"
    (home / ".gemini").mkdir(parents=True)  # (a missing root is created with a note)
    result = run_cli(
        "continue",
        str(doc),
        "--with",
        "gemini",
        "--cwd",
        str(repo),
        "--no-resume",
        "--json",
        env={"GEMINI_CLI_HOME": str(home), "TXCRIPT_DATA_DIR": str(tmp_path / "d")},
    )
    assert result.code == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["resume_command"] == ["gemini", "--resume", shown["id"]]
    header = json.loads(Path(shown["location"]).read_text().splitlines()[0])
    started = datetime.fromisoformat(header["startTime"].replace("Z", "+00:00"))
    assert datetime.now(UTC) - started < timedelta(minutes=5)
    assert header["lastUpdated"] == header["startTime"]
    assert "note:" not in result.stderr


def test_a_faithful_out_copy_keeps_its_old_date_and_says_gemini_may_prune_it(
    tmp_path: Path, run_cli: RunCli
) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text(m.to_json(sample(when=datetime(2024, 1, 1, tzinfo=UTC))))
    out = tmp_path / "out"
    result = run_cli("continue", str(doc), "--with", "gemini", "--out", str(out))
    assert result.code == 0, result.stderr
    assert "note:" in result.stderr and "sessionRetention" in result.stderr
    (chat,) = (out / "tmp").rglob("session-*.jsonl")
    assert json.loads(chat.read_text().splitlines()[0])["startTime"] == "2024-01-01T00:00:00.000Z"
    again = run_cli("continue", str(doc), "--with", "gemini", "--out", str(out))
    assert again.code == 2 and "refusing to overwrite" in again.stderr


def test_hostile_chats_give_one_line_each_and_no_traceback(root: Path, run_cli: RunCli) -> None:
    chats = root / "tmp" / SLUG / "chats"
    put(root / "projects.json", json.dumps({"projects": {ROOT_PATH: SLUG}}))
    lines = log_text().splitlines()
    truncated = put(chats / "session-t.jsonl", "\n".join(lines[:3]) + "\n" + lines[5][:50])
    rewind = put(
        chats / "session-r.jsonl",
        "\n".join([lines[0].replace(LOG_ID, "r-id"), lines[2], '{"$rewindTo": "nope"}']),
    )
    wrong = put(
        chats / "session-w.jsonl",
        "\n".join([lines[0].replace(LOG_ID, "w-id"), lines[2], '{"$set": {"summary": 7}}']),
    )
    for path, expected in (
        (truncated, "not valid JSON"),
        (rewind, "names no earlier message"),
        (wrong, "wrong type"),
    ):
        result = run_cli("export", str(path), "--format", "common")
        assert result.code == 0, result.stderr
        assert "Traceback" not in result.stderr
        (warning,) = [row for row in result.stderr.splitlines() if row]
        assert warning.startswith("txcript: warning:") and expected in warning
    garbage = put(chats / "session-g.jsonl", "\x1b[31mnot a chat\n")
    result = run_cli("export", str(garbage), "--from", "gemini")
    assert result.code == 2 and "Traceback" not in result.stderr
    assert len([row for row in result.stderr.splitlines() if row.startswith("txcript: error")]) == 1


@pytest.mark.parametrize("maker", [legacy_text, log_text])
def test_gemini_documents_are_recognised_without_from(
    maker: object, tmp_path: Path, run_cli: RunCli
) -> None:
    """A legacy chat is an object with a `messages` list, as a Simple document is; its
    sessionId/projectHash shape makes it Gemini's."""
    assert callable(maker)
    path = put(tmp_path / "chat.json", maker())
    result = run_cli("export", str(path), "--format", "common")
    assert result.code == 0, result.stderr
    meta = json.loads(result.stdout)["meta"]
    assert meta["id"] in (LEGACY_ID, LOG_ID) and meta["model"] in (
        "gemini-2.5-pro",
        "auto-gemini-3",
    )


def test_loads_from_each_kind_of_project_dir_give_exactly_this_common(root: Path) -> None:
    paths = build_store(root)
    (root / "tmp" / SLUG / ".project_root").unlink()  # the slug alone, through the registry
    before = snapshot(root)
    s = store(root)
    t = datetime(2026, 2, 10, 9, 0, 40, tzinfo=UTC)
    assert quiet_load(s, str(paths["subagent"])) == m.Transcript(
        meta=m.Meta(
            id=SUBAGENT_ID,
            timestamp=t,
            cwd=ROOT_PATH,
            title="Investigate the codebase",
            model="gemini-3-flash",
        ),
        messages=(
            m.Message("user", (m.Text("Find the parser"),), t),
            m.Message(
                "assistant",
                (m.Text("It is parser.py."),),
                t + timedelta(seconds=5),
                model="gemini-3-flash",
            ),
        ),
    )
    from_hash = quiet_load(s, str(paths["legacy_hash"]))
    from_slug = quiet_load(s, str(paths["legacy_slug"]))
    assert from_hash == from_slug and from_hash.meta.cwd == ROOT_PATH
    assert H.to_common(H.from_text(legacy_text())) == m.Transcript(
        meta=msgspec.structs.replace(from_hash.meta, cwd=None), messages=from_hash.messages
    )
    assert snapshot(root) == before


def test_a_2026_legacy_document_with_part_prompts_reads_like_a_string_one() -> None:
    document = json.loads(legacy_text())
    document["messages"][0]["content"] = [{"text": "List the files\nin the repo"}]
    document["kind"] = "main"
    assert H.to_common(H.from_text(json.dumps(document))) == H.to_common(H.from_text(legacy_text()))


def test_delete_and_restore_through_the_cli_bring_the_chat_back_byte_for_byte(
    root: Path, tmp_path: Path, run_cli: RunCli
) -> None:
    paths = build_store(root)
    original = paths["log"].read_bytes()
    env = {"GEMINI_CLI_HOME": str(root.parent), "TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    deleted = run_cli("delete", LOG_ID, "--from", "gemini", "--yes", env=env)
    assert deleted.code == 0, deleted.stderr
    assert not paths["log"].exists()
    backup_id = deleted.stdout.split("txcript restore ")[1].split()[0]
    restored = run_cli("restore", backup_id, "--yes", env=env)
    assert restored.code == 0, restored.stderr
    assert paths["log"].read_bytes() == original


def _variants() -> dict[str, str]:
    lines = log_text().splitlines()
    legacy = json.loads(legacy_text())
    odd_legacy = dict(legacy, messages=[*legacy["messages"], 7])
    huge = json.loads(lines[5])
    huge["toolCalls"][0]["args"]["limit"] = 2**70
    replaced = {"$set": {"messages": [json.loads(lines[11])], "summary": 3}}
    return {
        "truncated": "\n".join(lines[:5]) + "\n" + lines[5][:60],
        "rewound first prompt": "\n".join([lines[0], lines[2], '{"$rewindTo": "p1"}', lines[11]]),
        "messages replaced": "\n".join([lines[0], lines[2], json.dumps(replaced)]),
        "integer beyond 64 bits": "\n".join([lines[0], lines[2], json.dumps(huge)]),
        "not objects": "\n".join(["", "[1]", '"x"', lines[0], "5", lines[2]]),
        "legacy with a non-object message": json.dumps(odd_legacy, indent=2),
        "legacy with a huge number": legacy_text().replace('"input": 1200', '"input": 1e400'),
        "header only": lines[0],
        "invalid UTF-8 in a tool call": "\n".join([lines[0], lines[2], lines[5]]).replace(
            "def parse", "def \udcffparse"
        ),
        "no final newline, CRLF": "\r\n".join(lines),
    }


@pytest.mark.parametrize("name", sorted(_variants()))
def test_discovery_gives_the_meta_a_full_load_gives_on_odd_files(root: Path, name: str) -> None:
    """Discovery reads chats with a light decoder; whatever the file, it must agree with load."""
    put(root / "projects.json", json.dumps({"projects": {ROOT_PATH: SLUG}}))
    path = root / "tmp" / SLUG / "chats" / "session-odd.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(_variants()[name].encode("utf-8", "surrogateescape"))
    s = store(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)
        listed = s.discover()
        try:
            meta = H.to_common(s.load(str(path))).meta
        except BadInput:
            assert listed == []
            return
    (entry,) = listed
    assert (entry.meta_id, entry.timestamp, entry.title, entry.cwd, entry.model) == (
        meta.id,
        meta.timestamp,
        meta.title,
        meta.cwd,
        meta.model,
    )


def test_an_entry_added_to_the_registry_during_a_save_is_kept(
    root: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a save read ``projects.json``, then rewrote the whole file from what it had
    read, so an entry another program added in between was deleted. The registry is read again
    right before it is written, and only this save's entry is added to it."""
    from txcript.harnesses.gemini import projects

    build_store(root)
    original = projects.claim_slug

    def meanwhile(registry: projects.Registry, tmp: Path, project_root: str) -> str:
        path = root / projects.REGISTRY
        document = json.loads(path.read_text())
        document["projects"]["/elsewhere/other"] = "other"  # Gemini, registering a project
        path.write_text(json.dumps(document))
        return original(registry, tmp, project_root)

    monkeypatch.setattr(projects, "claim_slug", meanwhile)
    transcript = sample()
    meta = m.Meta(id=ID, timestamp=transcript.meta.timestamp, cwd=str(workspace))
    store(root).save(H.from_common(m.Transcript(meta=meta, messages=transcript.messages)))
    listed = json.loads((root / projects.REGISTRY).read_text())["projects"]
    assert listed["/elsewhere/other"] == "other"
    assert str(workspace) in listed


def test_a_save_waits_for_another_saves_registry_and_both_are_kept(
    root: Path, tmp_path: Path
) -> None:
    """Two saves into different projects at once each rewrote the registry from their own read,
    so one entry was lost. A save holds a lock on the store root while it reads and writes the
    registry: here the test holds it, the save waits, and both projects end up registered."""
    import subprocess
    import sys
    import time

    from txcript.harnesses.gemini import projects

    build_store(root)
    before = (root / projects.REGISTRY).read_bytes()
    other = tmp_path / "second-project"
    other.mkdir()
    document = tmp_path / "doc.json"
    document.write_text(m.to_json(sample()))
    env = {**os.environ, "GEMINI_CLI_HOME": str(root.parent), "TXCRIPT_DATA_DIR": str(tmp_path)}
    args = ["continue", str(document), "--with", "gemini", "--cwd", str(other), "--no-resume"]
    with projects.locked(root):
        save = subprocess.Popen([sys.executable, "-m", "txcript", *args], env=env)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            assert save.poll() is None, "the save did not wait for the lock"
            time.sleep(0.1)
        assert (root / projects.REGISTRY).read_bytes() == before
        listed = json.loads(before)
        listed["projects"]["/held/by/the/test"] = "held"
        (root / projects.REGISTRY).write_text(json.dumps(listed))
    assert save.wait(60) == 0
    registered = json.loads((root / projects.REGISTRY).read_text())["projects"]
    assert registered["/held/by/the/test"] == "held" and str(other) in registered
