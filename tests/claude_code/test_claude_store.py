"""The Claude Code store: discovery, load/save, path safety, delete, fingerprints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from claude_fixtures import (
    CWD,
    MODEL,
    SID,
    VERSION,
    assistant,
    claude_transcripts,
    jsonl,
    put,
    realistic_records,
    store,
    text,
    tool_result,
    tool_use,
    user,
    when,
)
from hypothesis import HealthCheck, given, settings

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.errors import BadInput, StoreError
from txcript.harnesses.claude_code import reader, writer
from txcript.harnesses.claude_code import store as store_module
from txcript.harnesses.claude_code.native import ClaudeSession, SideFile
from txcript.harnesses.claude_code.store import ClaudeCodeStore, encode_project
from txcript.shared import backups
from txcript.shared.ids import UUID_IDS

pytestmark = pytest.mark.filterwarnings("ignore::txcript.diagnostics.TranscriptWarning")

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def one_message(session_id: str, cwd: str | None = "/repo", *, raw: bool = False) -> ClaudeSession:
    """A one-prompt session; its id is the UUID ``session_id`` maps to unless ``raw``."""
    return writer.from_common(
        m.Transcript(
            meta=m.Meta(
                id=session_id if raw else UUID_IDS.adopt(session_id), timestamp=T0, cwd=cwd
            ),
            messages=(m.Message(role="user", content=(m.Text(text="hi"),), timestamp=T0),),
        )
    )


def with_uuid_id(transcript: m.Transcript) -> m.Transcript:
    """The transcript with the UUID its id maps to (what the store accepts)."""
    meta = msgspec.structs.replace(transcript.meta, id=UUID_IDS.adopt(transcript.meta.id))
    return msgspec.structs.replace(transcript, meta=meta)


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# ---------------------------------------------------------------------------------- round trip


def test_store_round_trip_is_lossless_on_disk(tmp_path: Path) -> None:
    """Unknown records, a non-JSON line, CRLF, bad UTF-8 and no final newline all survive."""
    body = jsonl(realistic_records()).encode() + (
        b'{"type":"mystery-record","x":1}\r\n'
        b'{"type":"user","message":{"role":"user","content":"caf\xe9 \xff"}}\n'
        b"   \n"
        b'{"type":"worktree-state","path":"/x"}'
    )
    side = {
        "subagents/agent-ab12.jsonl": b'{"type":"user","isSidechain":true}\n',
        "subagents/agent-ab12.meta.json": b'{"agentType":"Explore"}',
        "tool-results/toolu_01.txt": b"\x00binary\xffbytes",
    }
    source = put(tmp_path / "src", body, side=side)
    first = store(tmp_path / "src").load(str(source))
    assert first.session_id == SID
    assert [s.path for s in first.side_files] == sorted(side)

    target = store(tmp_path / "dst")
    saved = target.save(first)
    assert Path(saved.reference) == (
        tmp_path / "dst" / "projects" / "-Users-dev-src-app" / f"{SID}.jsonl"
    )
    assert saved.id == SID and saved.location == saved.reference
    assert Path(saved.reference).read_bytes() == body
    for relative, data in side.items():
        assert (Path(saved.reference).parent / SID / relative).read_bytes() == data
    second = target.load(saved.reference)
    assert second == first


def test_windows_cwd_is_encoded_into_the_project_directory(tmp_path: Path) -> None:
    saved = store(tmp_path).save(one_message("w1", "C:\\Users\\dev\\repo"))
    assert Path(saved.reference).parent.name == "C--Users-dev-repo"
    assert Path(saved.reference).parent.parent == tmp_path / "projects"


@pytest.mark.parametrize(
    ("cwd", "name"),
    [
        ("/Users/a/src/app", "-Users-a-src-app"),
        ("/x/.worktrees/y", "-x--worktrees-y"),
        ("C:\\Users\\dev\\repo", "C--Users-dev-repo"),
        ("/home/u/my_proj v2", "-home-u-my-proj-v2"),
        ("/tmp/é😀", "-tmp----"),
    ],
)
def test_project_directory_encoding(cwd: str, name: str) -> None:
    assert encode_project(cwd) == name


def test_a_session_without_cwd_lands_in_an_encoded_project_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "work dir"
    here.mkdir()
    monkeypatch.chdir(here)
    saved = store(tmp_path / "root").save(one_message("n1", None))
    assert Path(saved.reference).parent == tmp_path / "root" / "projects" / encode_project(
        str(here)
    )


def test_an_overlong_project_name_reuses_the_directory_claude_code_made(tmp_path: Path) -> None:
    cwd = "/deep/" + "a" * 300
    existing = tmp_path / "projects" / (encode_project(cwd)[:200] + "-1x2y3z")
    existing.mkdir(parents=True)
    saved = store(tmp_path).save(one_message("long", cwd))
    assert Path(saved.reference).parent == existing


def test_saving_over_an_existing_session_replaces_it(tmp_path: Path) -> None:
    target = store(tmp_path)
    target.save(one_message("same"))
    saved = target.save(one_message("same"))
    assert len(target.discover()) == 1
    assert not [p for p in Path(saved.reference).parent.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------------- discovery


def test_discovery_extracts_every_meta_field(tmp_path: Path) -> None:
    path = put(tmp_path, realistic_records())
    mtime_ns = 1_786_000_000_123_456_789
    os.utime(path, ns=(mtime_ns, mtime_ns))
    found = store(tmp_path).discover()
    assert len(found) == 1
    session = found[0]
    assert session.harness == "claude_code"
    assert session.reference == str(path)
    assert session.meta_id == SID
    assert session.timestamp == when("09:30:00.900")
    assert session.title == "off-by-one"
    assert session.cwd == CWD
    assert session.model == MODEL
    assert session.git_branch == "main"
    assert session.updated_at == datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC)
    meta, _ = store(tmp_path).scan(path) or (None, None)
    assert meta == m.Meta(
        id=SID,
        timestamp=when("09:30:00.900"),
        cwd=CWD,
        git_branch="main",
        title="off-by-one",
        cli_version=VERSION,
        model=MODEL,
    )


def discovery_cases() -> dict[str, list[object]]:
    late_model = [user("u1", None, "09:00:00", "a")] + [
        user(f"u{i}", f"u{i - 1}", "09:00:01", f"more {i}") for i in range(2, 40)
    ]
    late_model.append(assistant("a1", "u39", "09:01:00", [text("x")], model="claude-late"))
    return {
        "realistic": realistic_records(),
        "summary first, old cli": [
            {"type": "summary", "summary": "Old summary", "leafUuid": "zzz"},
            user("u1", None, "09:00:00", "hi", version="1.0.98", gitBranch=""),
        ],
        "no assistant": [
            user("u1", None, "09:00:00", "hi"),
            {"type": "agent-name", "agentName": "helper"},
        ],
        "timestamp only later": [
            {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}},
            {
                "type": "user",
                "uuid": "u1",
                "parentUuid": None,
                "sessionId": "other",
                "message": {"role": "user", "content": "x"},
            },
            assistant("a1", "u1", "09:00:03", [text("y")], model="<synthetic>"),
            assistant("a2", "a1", "09:00:04", [text("z")]),
        ],
        "late model and titles": [
            *late_model,
            {"type": "custom-title", "customTitle": "renamed"},
            '{"type":"custom-title","customTitle": broken',
            '{"type": "custom-title", "customTitle": "spaced"}',
            {"type": "summary", "summary": "S"},
        ],
        "title only in the tail": [
            *late_model,
            *(user(f"t{i}", None, "09:02:00", [tool_result("t", "y" * 500)]) for i in range(400)),
            {"type": "ai-title", "aiTitle": "the title at the very end"},
        ],
        "summary word in content": [
            user("u1", None, "09:00:00", [text('the "summary" key')]),
            assistant("a1", "u1", "09:00:01", [tool_use("t", "X", {"summary": "not a title"})]),
        ],
    }


@pytest.mark.parametrize("case", list(discovery_cases()))
def test_discovery_meta_equals_load_meta(tmp_path: Path, case: str) -> None:
    path = put(tmp_path, discovery_cases()[case])  # type: ignore[arg-type]
    target = store(tmp_path)
    found = target.discover()
    assert len(found) == 1
    scanned = target.scan(path)
    assert scanned is not None
    loaded = reader.to_common(target.load(str(path))).meta
    assert scanned[0] == loaded
    assert (found[0].meta_id, found[0].timestamp, found[0].title, found[0].cwd) == (
        loaded.id,
        loaded.timestamp,
        loaded.title,
        loaded.cwd,
    )
    assert (found[0].model, found[0].git_branch) == (loaded.model, loaded.git_branch)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(claude_transcripts().map(with_uuid_id))
def test_discovery_meta_equals_load_meta_for_written_sessions(transcript: m.Transcript) -> None:
    with tempfile.TemporaryDirectory() as directory:
        target = store(Path(directory))
        saved = target.save(writer.from_common(transcript))
        found = target.discover()
        loaded = reader.to_common(target.load(saved.reference))
        assert loaded.meta == transcript.meta
        assert [(d.meta_id, d.timestamp, d.title, d.cwd, d.model, d.git_branch) for d in found] == [
            (
                transcript.meta.id,
                transcript.meta.timestamp,
                transcript.meta.title,
                transcript.meta.cwd,
                transcript.meta.model,
                transcript.meta.git_branch,
            )
        ]
        scanned = target.scan(Path(saved.reference))
        assert scanned is not None and scanned[0] == loaded.meta


def test_discovery_parses_only_the_lines_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records: list[object] = [
        user("u1", None, "09:00:00", "go"),
        assistant("a1", "u1", "09:00:01", [text("ok")]),
    ]
    for i in range(2, 300):
        records.append(user(f"u{i}", None, "09:00:02", [tool_result("t", "x" * 1000)]))
    records.append({"type": "custom-title", "customTitle": "late title"})
    path = put(tmp_path, records)
    parsed: list[str] = []
    real = store_module.try_loads

    def counting(line: str) -> object:
        parsed.append(line)
        return real(line)

    monkeypatch.setattr(store_module, "try_loads", counting)
    found = store(tmp_path).discover()
    assert found[0].title == "late title"
    assert len(parsed) <= 3
    monkeypatch.undo()
    assert store(tmp_path).scan(path) is not None


def test_discovery_skips_what_is_not_a_session(tmp_path: Path) -> None:
    real = put(tmp_path, realistic_records())
    project = real.parent
    (project / "notes.txt").write_text("not a session")
    (project / "empty.jsonl").write_text("")
    (project / "bookkeeping.jsonl").write_text(
        jsonl([{"type": "summary", "summary": "s", "leafUuid": "x"}])
    )
    (project / "agent-1a2b.jsonl").write_text(
        jsonl([user("s1", None, "09:00:00", "sub", isSidechain=True)])
    )
    (project / "garbage.jsonl").write_bytes(b"\xff\xfe not json\n")
    (project / "dir.jsonl").mkdir()
    nested = project / SID / "subagents" / "agent-x.jsonl"
    nested.parent.mkdir(parents=True)
    nested.write_text(jsonl([user("x", None, "09:00:00", "inner")]))
    (tmp_path / "projects" / "loose.jsonl").write_text(jsonl([user("u", None, "09:00:00", "x")]))
    found = store(tmp_path).discover()
    assert [d.reference for d in found] == [str(real)]


def test_a_missing_root_gives_an_empty_list(tmp_path: Path) -> None:
    assert store(tmp_path / "nowhere").discover() == []


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="permissions do not bind root")
def test_unreadable_files_are_skipped(tmp_path: Path) -> None:
    put(tmp_path, realistic_records())
    locked = put(tmp_path, realistic_records(), session_id="locked")
    locked.chmod(0)
    try:
        assert [d.meta_id for d in store(tmp_path).discover()] == [SID]
    finally:
        locked.chmod(0o644)


def test_a_symlink_loop_in_the_projects_dir_does_not_hang(tmp_path: Path) -> None:
    real = put(tmp_path, realistic_records())
    (real.parent / "loop").symlink_to(tmp_path / "projects", target_is_directory=True)
    (tmp_path / "projects" / "back").symlink_to(tmp_path / "projects", target_is_directory=True)
    (real.parent / "self.jsonl").symlink_to(real.parent / "self.jsonl")
    found = store(tmp_path).discover()
    assert [d.reference for d in found] == [str(real)]


def test_symlinked_session_files_are_listed(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(jsonl([user("u1", None, "09:00:00", "linked")]))
    project = tmp_path / "root" / "projects" / "-repo"
    project.mkdir(parents=True)
    (project / "linked.jsonl").symlink_to(outside)
    assert [d.meta_id for d in store(tmp_path / "root").discover()] == ["linked"]


def test_discovery_is_sorted_newest_first(tmp_path: Path) -> None:
    put(tmp_path, [user("u", None, "08:00:00", "old")], session_id="old")
    put(tmp_path, [user("u", None, "10:00:00", "new")], session_id="new", cwd="/other")
    assert [d.meta_id for d in store(tmp_path).discover()] == ["new", "old"]


# -------------------------------------------------------------------------------- path safety


@pytest.mark.parametrize(
    "hostile", ["../../pwned", "/tmp/abs-pwned", "a/b", "..", "", "a\\b", "c:d"]
)
def test_hostile_session_ids_are_refused_before_writing(tmp_path: Path, hostile: str) -> None:
    root = tmp_path / "root"
    with pytest.raises(BadInput, match="not a valid Claude Code id"):
        store(root).save(one_message(hostile, raw=True))
    assert not root.exists()
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("side", ["../escape.txt", "subagents/../../x", "other/x", "subagents/"])
def test_side_files_outside_the_session_directory_are_refused(tmp_path: Path, side: str) -> None:
    native = one_message("ok")
    hostile = ClaudeSession(native.session_id, native.lines, True, (SideFile(side, b"x"),))
    with pytest.raises(BadInput):
        store(tmp_path / "root").save(hostile)
    assert not (tmp_path / "root").exists()


def test_side_files_are_not_written_through_a_symlinked_session_directory(
    tmp_path: Path,
) -> None:
    """Review finding: when ``<project>/<id>`` already existed as a symlink, the side-file
    writes followed it out of the store. A path through a symlink is now refused, and nothing
    is written on either side of the link."""
    root = tmp_path / "root"
    native = one_message("ok")
    first = store(root).save(native)
    project = Path(first.reference).parent
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / native.session_id).symlink_to(outside, target_is_directory=True)
    with_side = ClaudeSession(
        native.session_id, native.lines, True, (SideFile("subagents/agent-1.jsonl", b"{}\n"),)
    )
    before = Path(first.reference).read_bytes()
    with pytest.raises(StoreError, match="is a symbolic link"):
        store(root).save(with_side)
    assert list(outside.iterdir()) == []
    assert Path(first.reference).read_bytes() == before


# ------------------------------------------------------------------------------------- delete


def test_delete_round_trip(tmp_path: Path) -> None:
    target = store(tmp_path)
    saved = target.save(one_message("11111111-2222-4333-8444-555555555555"))
    assert len(target.discover()) == 1
    target.delete(saved.reference)
    assert target.discover() == []
    with pytest.raises(BadInput):
        target.delete(saved.reference)


def test_delete_refuses_files_outside_the_root(tmp_path: Path) -> None:
    target = store(tmp_path / "root")
    target.save(one_message("inside"))
    foreign = tmp_path / "foreign.jsonl"
    foreign.write_text(jsonl([user("u", None, "09:00:00", "keep me")]))
    with pytest.raises(StoreError, match="outside"):
        target.delete(str(foreign))
    assert foreign.exists()
    link = tmp_path / "root" / "projects" / "-repo" / "link.jsonl"
    link.symlink_to(foreign)
    with pytest.raises(StoreError, match="outside"):
        target.delete(str(link))
    assert foreign.exists() and link.is_symlink()
    with pytest.raises(BadInput):
        target.delete(str(tmp_path / "root" / "projects" / "-repo" / "missing.jsonl"))
    with pytest.raises(StoreError, match="not a session file"):
        target.delete(str(tmp_path / "root" / "projects" / "-repo"))


# ---------------------------------------------------------------------- fingerprints and root


def test_fingerprints_are_mtime_ns_and_size(tmp_path: Path) -> None:
    path = put(tmp_path, realistic_records())
    os.utime(path, ns=(5, 1_700_000_000_000_000_001))
    missing = str(tmp_path / "gone.jsonl")
    prints = store(tmp_path).fingerprints([str(path), missing])
    assert prints == {str(path): f"1700000000000000001:{path.stat().st_size}", missing: ""}


def test_default_root_honours_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    assert harnesses.get("claude_code").default_root() == isolated_home / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "")
    assert harnesses.get("claude_code").default_root() == isolated_home / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert harnesses.get("claude_code").default_root() == tmp_path / "cfg"
    harness = harnesses.get("claude")
    live = harness.store()
    assert isinstance(live, ClaudeCodeStore)
    assert live.projects == tmp_path / "cfg" / "projects"


def test_registry_and_resume_command(monkeypatch: pytest.MonkeyPatch) -> None:
    harness = harnesses.get("claude-code")
    assert harness.id == "claude_code" and harness.has_store and harness.can_write
    assert harness.resume_command(SID) == ["claude", f"--resume={SID}"]
    monkeypatch.setenv("TRANSCRIPT_CLAUDE_CODE_RESUME_CMD", "claude -r {id} --fork-session")
    assert harness.resume_command(SID) == ["claude", "-r", SID, "--fork-session"]


def test_written_session_is_found_and_reads_back(tmp_path: Path) -> None:
    transcript = m.Transcript(
        meta=m.Meta(id=SID, timestamp=T0, cwd="/repo", title="t", model="claude-opus-4-8"),
        messages=(
            m.Message(role="user", content=(m.Text(text="hi"),), timestamp=T0),
            m.Message(
                role="assistant",
                content=(m.Text(text="hello"),),
                timestamp=T0,
                model="claude-opus-4-8",
            ),
        ),
    )
    target = store(tmp_path)
    saved = target.save(writer.from_common(transcript))
    found = target.discover()
    assert [(d.meta_id, d.title, d.cwd, d.model) for d in found] == [
        (SID, "t", "/repo", "claude-opus-4-8")
    ]
    assert reader.to_common(target.load(saved.reference)) == transcript


# ----------------------------------------------------------------- delete keeps a backup

SIDE = {
    "subagents/agent-ab12.jsonl": b'{"type":"user","isSidechain":true}\n',
    "subagents/agent-ab12.meta.json": b'{"agentType":"Explore"}',
    "tool-results/toolu_01.txt": b"\x00binary\xffbytes",
}
#: A session file with an unknown record, a line that is not JSON, CRLF and invalid UTF-8.
RAW_BODY = jsonl(realistic_records()).encode() + (
    b'{"type":"mystery-record","x":1}\r\n{"type":"user","message":{"content":"caf\xe9"}}'
)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Backups (every delete takes one) go under the test's own directory."""
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative path → bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files_under(root)}


def tree(root: Path) -> set[str]:
    """Every file and directory under ``root`` (relative paths), ``root`` itself included."""
    if not root.exists():
        return set()
    return {".", *(p.relative_to(root).as_posix() for p in root.rglob("*"))}


def test_cli_delete_backs_the_session_up_and_restore_brings_it_back_byte_identical(
    run_cli: RunCli, tmp_path: Path, data_dir: Path
) -> None:
    """Regression: ``delete`` removed a Claude Code session with no backup, although cli.md says
    a delete happens "after writing a backup", so a mistaken delete could not be undone. It now
    copies the ``.jsonl`` and the side directories it removes (``subagents/``,
    ``tool-results/``) into a ``files`` backup first, and ``txcript restore <id>`` puts every
    byte back where it was: the session is listed again and its files are identical."""
    root = tmp_path / "claude"
    path = put(root, RAW_BODY, side=SIDE)
    before = snapshot(root)
    env = {"CLAUDE_CONFIG_DIR": str(root)}
    deleted = run_cli("delete", SID, "--from", "claude_code", "--yes", env=env)
    assert deleted.code == 0, deleted.stderr
    assert snapshot(root) == {}
    assert not (path.parent / SID).exists()  # the side directories went with the session
    listed = run_cli("list", "--from", "claude_code", "--json", env=env)
    assert json.loads(listed.stdout) == []
    shown = json.loads(run_cli("restore", "--json").stdout)
    assert [(b["operation"], b["session"], b["kind"], b["harness"]) for b in shown] == [
        ("delete", SID, "files", "claude_code")
    ]
    assert Path(shown[0]["path"]).is_relative_to(data_dir)
    restored = run_cli("restore", shown[0]["id"], "--yes", env=env)
    assert restored.code == 0, restored.stderr
    assert snapshot(root) == before
    listed = run_cli("list", "--from", "claude_code", "--json", env=env)
    assert [row["id"] for row in json.loads(listed.stdout)] == [SID]


def test_a_delete_whose_backup_fails_removes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (same finding): with no backup step there was nothing to refuse on. When the
    backup cannot be written (here the data directory is a regular file), the delete is now
    refused with one line and the session file and its side files all stay."""
    root = tmp_path / "claude"
    path = put(root, RAW_BODY, side=SIDE)
    before = snapshot(root)
    blocker = tmp_path / "data-is-a-file"
    blocker.write_text("")
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(blocker))
    with pytest.raises(StoreError, match=r"backing up .*nothing was written") as caught:
        store(root).delete(str(path))
    assert "\n" not in str(caught.value)
    assert snapshot(root) == before


def test_delete_leaves_symlinked_side_directories_and_their_targets_alone(
    tmp_path: Path, data_dir: Path
) -> None:
    """A side directory that is a symlink is not part of the session's body (load skips it), so
    delete neither follows it nor removes it; the real side directory goes."""
    root = tmp_path / "claude"
    path = put(root, RAW_BODY, side={"tool-results/x.txt": b"x"})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keep.jsonl").write_bytes(b"keep")
    (path.parent / SID / "subagents").symlink_to(outside, target_is_directory=True)
    store(root).delete(str(path))
    assert not path.exists() and not (path.parent / SID / "tool-results").exists()
    assert (path.parent / SID / "subagents").is_symlink()
    assert (outside / "keep.jsonl").read_bytes() == b"keep"
    (backup,) = backups.list_backups()
    assert backup.files == (str(path), str(path.parent / SID / "tool-results"))


# ---------------------------------------------------------------- all-or-nothing saves


def with_sides(session_id: str, sides: dict[str, bytes]) -> ClaudeSession:
    native = one_message(session_id, cwd=CWD)
    return ClaudeSession(
        session_id, native.lines, True, tuple(SideFile(k, v) for k, v in sides.items())
    )


def test_a_save_whose_session_file_cannot_be_written_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    """Regression: save wrote the side files first and never removed them when the session
    file itself then failed, so a failed ``continue`` (exit 1) still left ``<id>/subagents/…``
    and ``<id>/tool-results/…`` in the store. Here a directory sits where the ``.jsonl`` must
    go: the save fails with one line and every file and directory it made is gone again."""
    root = tmp_path / "claude"
    (root / "projects" / encode_project(CWD) / f"{SID}.jsonl").mkdir(parents=True)
    before = tree(root)
    with pytest.raises(StoreError) as caught:
        store(root).save(with_sides(SID, SIDE))
    assert "\n" not in str(caught.value)
    assert tree(root) == before


def test_a_failed_re_save_puts_the_previous_side_files_back(tmp_path: Path) -> None:
    """Saving over an existing session overwrites its side files; when the session file then
    fails (here its name is a symlink to a directory), the side files it overwrote get their
    previous bytes back and the ones it added are removed."""
    root = tmp_path / "claude"
    project = root / "projects" / encode_project(CWD)
    (project / SID / "subagents").mkdir(parents=True)
    (project / SID / "subagents" / "agent-ab12.jsonl").write_bytes(b"old\n")
    (tmp_path / "a-directory").mkdir()
    (project / f"{SID}.jsonl").symlink_to(tmp_path / "a-directory")
    before = snapshot(root)
    with pytest.raises(StoreError):
        store(root).save(with_sides(SID, SIDE))
    assert snapshot(root) == before
    assert tree(root / "projects" / encode_project(CWD) / SID) == {".", "subagents"} | {
        "subagents/agent-ab12.jsonl"
    }


SAVE_WITH_A_FILE_SIZE_LIMIT = r"""
import resource, signal, sys
from pathlib import Path
from txcript.errors import StoreError
from txcript.harnesses.claude_code.native import ClaudeSession, SideFile
from txcript.harnesses.claude_code.store import ClaudeCodeStore
from txcript.harnesses.claude_code.text import from_text

root, body, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
parsed = from_text(Path(body).read_text())
native = ClaudeSession(
    "3f1c2a4e-8b7d-4e21-9a6b-0c5d2e7f9a11",
    parsed.lines,
    True,
    (SideFile("subagents/agent-ab12.jsonl", b"small\n"), SideFile("tool-results/t.txt", b"x")),
)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    ClaudeCodeStore(Path(root)).save(native)
except StoreError as exc:
    print(exc)
    sys.exit(1)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_save_that_runs_out_of_file_space_on_the_session_file_leaves_nothing(
    tmp_path: Path,
) -> None:
    """The same regression with a real write failure: in a subprocess ``RLIMIT_FSIZE`` lets the
    small side files through but not the session file (writes past it fail with ``EFBIG``).
    The save fails with one line and leaves no file or directory behind."""
    root = tmp_path / "claude"
    root.mkdir()
    big = [user("u1", None, "09:00:00", "x" * 20_000)]
    body = tmp_path / "body.jsonl"
    body.write_text(jsonl(big))
    done = subprocess.run(
        [sys.executable, "-c", SAVE_WITH_A_FILE_SIZE_LIMIT, str(root), str(body), "4096"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.splitlines()) == 1 and f"{SID}" in done.stdout, done.stdout
    assert tree(root) == {"."}


def test_a_spilled_result_reads_the_same_through_the_store_and_as_a_path(
    run_cli: RunCli, isolated_home: Path
) -> None:
    """Regression: a 23k-character result read whole through the store (from its side file)
    and as its 2.2k preview when the same session file was given as a path. The record's own
    ``toolUseResult.content`` holds the full output too, and the document reader takes it: one
    rule, whatever the path. A Write's ``toolUseResult.content`` (the file it wrote) is never
    taken for its result."""
    full = "".join(f"test {n} passed\n" for n in range(1500))
    preview = (
        "<persisted-output>\nOutput too large (23KB). Full output saved to: "
        f"/home/dev/.claude/projects/-repo/{SID}/tool-results/toolu_01.txt\n\n"
        f"Preview (first 2KB):\n{full[:2000]}\n</persisted-output>"
    )
    records = [
        user("u1", None, "09:00:00", "run the suite, then write the notes"),
        assistant("a1", "u1", "09:00:01", [tool_use("toolu_01", "Bash", {"command": "t"})]),
        user(
            "u2",
            "a1",
            "09:00:02",
            [tool_result("toolu_01", preview)],
            toolUseResult={"content": full, "persistedOutputPath": "tool-results/toolu_01.txt"},
        ),
        assistant(
            "a2",
            "u2",
            "09:00:03",
            [tool_use("toolu_02", "Write", {"file_path": "/repo/n.md", "content": "notes"})],
            message_id="m2",
        ),
        user(
            "u3",
            "a2",
            "09:00:04",
            [tool_result("toolu_02", "File created successfully at: /repo/n.md")],
            toolUseResult={"type": "create", "filePath": "/repo/n.md", "content": "notes"},
        ),
    ]
    path = put(
        isolated_home / ".claude", records, side={"tool-results/toolu_01.txt": full.encode()}
    )
    by_store = run_cli("export", SID, "--format", "common")
    by_path = run_cli("export", str(path), "--format", "common")
    assert by_store.code == by_path.code == 0, (by_store, by_path)
    assert json.loads(by_store.stdout)["messages"] == json.loads(by_path.stdout)["messages"]
    results = [
        block["content"]
        for message in json.loads(by_path.stdout)["messages"]
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert results == [full, "File created successfully at: /repo/n.md"]
