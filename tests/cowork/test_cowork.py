"""Cowork: an account with two tasks read exactly, discovery, the writer's record, delete."""

from __future__ import annotations

import json
import os
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cowork_fixtures import (
    ACCOUNT,
    CLI_TASK,
    CREATED_MS,
    CWD,
    DITTO,
    MANIFEST,
    ORG,
    OTHER_ACCOUNT,
    TASK,
    account_with_two_tasks,
    put_task,
    record,
)
from hypothesis import HealthCheck, given, settings

from conftest import RunCli
from desktop_strategies import cowork_transcripts
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput
from txcript.harnesses.cowork.codec import cli_session_id
from txcript.shared.ids import COWORK_IDS

H = harnesses.get("cowork")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def at(seconds: float) -> datetime:
    return datetime(2026, 8, 20, 9, 0, tzinfo=UTC) + timedelta(seconds=seconds)


EXPECTED_TASK = m.Transcript(
    meta=m.Meta(
        id=TASK,
        timestamp=at(0),
        cwd=CWD,
        title="Summarise the quarterly report",
        cli_version="2.1.37",
        model="claude-opus-4-8",
    ),
    messages=(
        # The uploaded-files manifest is the user's own text: kept.
        m.Message(
            role="user",
            content=(m.Text(text=f"{MANIFEST}\nSummarise report.pdf"),),
            timestamp=at(2),
        ),
        m.Message(
            role="assistant",
            content=(
                m.ToolUse(
                    id="toolu_ls",
                    tool=m.Raw(tool_name="mcp__workspace__bash", input={"command": "ls uploads"}),
                ),
            ),
            timestamp=at(3),
            model="claude-opus-4-8",
            stop_reason="tool_use",
            usage=m.Usage(input_tokens=10, output_tokens=5),
        ),
        m.Message(
            role="user",
            content=(m.ToolResult(tool_use_id="toolu_ls", content="report.pdf"),),
            timestamp=at(4),
        ),
        m.Message(
            role="assistant",
            content=(m.Text(text="Revenue rose 4%."),),
            timestamp=at(5),
            model="claude-opus-4-8",
            stop_reason="end_turn",
            usage=m.Usage(input_tokens=20, output_tokens=7),
        ),
    ),
)
EXPECTED_DITTO = m.Transcript(
    # No title or model in the record: the transcript's ai-title and first model.
    meta=m.Meta(
        id=DITTO,
        timestamp=at(9),
        cwd="/Users/dev/notes",
        title="Tidy notes",
        cli_version="2.1.37",
        model="claude-sonnet-4-6",
    ),
    messages=(
        m.Message(role="user", content=(m.Text(text="Tidy the notes"),), timestamp=at(10)),
        m.Message(
            role="assistant",
            content=(m.Text(text="Done."),),
            timestamp=at(11),
            model="claude-sonnet-4-6",
            stop_reason="end_turn",
            usage=m.Usage(input_tokens=3, output_tokens=1),
        ),
    ),
)


def said(record_: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record_ if issubclass(w.category, TranscriptWarning)]


def files(root: Path) -> dict[str, bytes]:
    """Every file of the store (txcript's own data directory, where backups go, left out)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith("txcript-data/")
    }


def test_an_account_with_two_tasks_reads_as_exactly_these_transcripts(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    store = H.store(tmp_path)
    assert H.to_common(store.load(str(paths["task"]))) == EXPECTED_TASK
    assert H.to_common(store.load(str(paths["ditto"]))) == EXPECTED_DITTO


def test_discovery_lists_both_tasks_with_their_account_and_skips_what_is_not_a_task(
    tmp_path: Path,
) -> None:
    paths = account_with_two_tasks(tmp_path)
    with warnings.catch_warnings(record=True) as record_:
        warnings.simplefilter("always")
        found = H.store(tmp_path).discover()
    assert [d.reference for d in found] == [str(paths["ditto"]), str(paths["task"])]
    for listed, expected in zip(found, (EXPECTED_DITTO, EXPECTED_TASK), strict=True):
        meta = expected.meta
        assert (listed.meta_id, listed.timestamp, listed.title, listed.cwd, listed.model) == (
            meta.id,
            meta.timestamp,
            meta.title,
            meta.cwd,
            meta.model,
        )
        assert listed.account == ACCOUNT
    assert said(record_) == [
        "skipping 1 Cowork record(s) that Claude desktop would not show (missing or mistyped "
        "required fields), e.g. local_broken.json"
    ]


def test_the_listing_shows_the_task_title_and_the_account(tmp_path: Path, run_cli: RunCli) -> None:
    account_with_two_tasks(tmp_path)
    env = {"COWORK_SESSIONS_DIR": str(tmp_path)}
    shown = run_cli("list", "--from", "cowork", env=env)
    assert shown.code == 0, shown.stderr
    assert f"Summarise the quarterly report · account {ACCOUNT[:8]}" in shown.stdout
    assert f"Tidy notes · account {ACCOUNT[:8]}" in shown.stdout
    rows = json.loads(run_cli("list", "--from", "claude_desktop", "--json", env=env).stdout)
    assert [(r["id"], r["title"], r["account"]) for r in rows] == [
        (DITTO, "Tidy notes", ACCOUNT),
        (TASK, "Summarise the quarterly report", ACCOUNT),
    ]


def test_a_missing_root_lists_nothing(tmp_path: Path) -> None:
    assert H.store(tmp_path / "absent").discover() == []


def test_fingerprints_follow_the_transcript(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    store = H.store(tmp_path)
    before = store.fingerprints([str(paths["task"])])[str(paths["task"])]
    transcript = next((tmp_path / ORG / ACCOUNT / TASK).rglob(f"{CLI_TASK}.jsonl"))
    with transcript.open("a") as handle:
        handle.write('{"type":"summary","summary":"later"}\n')
    after = store.fingerprints([str(paths["task"])])[str(paths["task"])]
    assert before and after and before != after


# -------------------------------------------------------------------------------- writing


def copy_of(transcript: m.Transcript, task_id: str) -> m.Transcript:
    return m.Transcript(
        meta=m.Meta(id=task_id, timestamp=at(30), cwd="/work/app"), messages=transcript.messages
    )


def test_a_written_task_has_a_record_claude_desktop_shows_and_the_transcript(
    tmp_path: Path,
) -> None:
    (tmp_path / ORG / ACCOUNT).mkdir(parents=True)
    task_id = "local_" + str(uuid.uuid4())
    saved = H.store(tmp_path).save(H.from_common(copy_of(EXPECTED_TASK, task_id)))
    record_path = tmp_path / ORG / ACCOUNT / f"{task_id}.json"
    assert saved.id == task_id and saved.reference == str(record_path)
    written = json.loads(record_path.read_text())
    cli_id = cli_session_id(task_id)
    assert written["sessionId"] == task_id and written["cliSessionId"] == cli_id
    assert written["processName"] == "txcript-" + cli_id.replace("-", "")[:8]
    assert written["hostLoopMode"] is True and written["isArchived"] is False
    assert written["cwd"] == "/work/app"
    assert written["createdAt"] == CREATED_MS + 30_000
    assert written["lastActivityAt"] == CREATED_MS + 30_000  # (no message is later than the start)
    assert written["initialMessage"] == f"{MANIFEST}\nSummarise report.pdf"
    folder = tmp_path / ORG / ACCOUNT / task_id
    transcript = folder / ".claude" / "projects" / "-work-app" / f"{cli_id}.jsonl"
    assert transcript.is_file()
    assert (folder / "outputs").is_dir() and (folder / "uploads").is_dir()
    assert not (folder / "audit.jsonl").exists()
    lines = [json.loads(x) for x in transcript.read_text().splitlines()]
    assert {x["sessionId"] for x in lines if x["type"] in ("user", "assistant")} == {cli_id}
    back = H.to_common(H.store(tmp_path).load(saved.reference))
    assert back.messages == EXPECTED_TASK.messages
    assert "quit it and open it again" in saved.notes[0]


def test_a_foreign_id_gets_the_local_prefix() -> None:
    uuid_id = "3f1c2a4e-0000-4000-8000-000000000001"
    assert H.from_common(copy_of(EXPECTED_TASK, uuid_id)).task_id == f"local_{uuid_id}"
    foreign = H.from_common(copy_of(EXPECTED_TASK, "x1")).task_id
    assert foreign.startswith("local_") and COWORK_IDS.problem(foreign) is None
    assert H.from_common(copy_of(EXPECTED_TASK, TASK)).task_id == TASK


def test_save_picks_the_most_recently_active_account(tmp_path: Path) -> None:
    account_with_two_tasks(tmp_path)
    newer = tmp_path / ORG / OTHER_ACCOUNT
    put_task(
        newer,
        "local_recent",
        record("local_recent", CLI_TASK, created=1, last=CREATED_MS + 10**9),
        None,
    )
    saved = H.store(tmp_path).save(H.from_common(copy_of(EXPECTED_TASK, "local_copy")))
    assert Path(saved.reference).parent == newer


def test_with_no_account_a_save_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "skills-plugin").mkdir()
    with pytest.raises(BadInput, match="no Cowork account"):
        H.store(tmp_path).save(H.from_common(copy_of(EXPECTED_TASK, "local_copy")))
    assert [p.name for p in tmp_path.iterdir()] == ["skills-plugin"]


def test_an_existing_task_is_refused_unless_forced(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    store = H.store(tmp_path)
    native = store.load(str(paths["task"]))
    before = files(tmp_path)
    with pytest.raises(BadInput, match="already exists"):
        store.save(native)
    assert files(tmp_path) == before
    saved = store.save(native, force=True)
    assert saved.backup is not None
    assert files(tmp_path) == before


def test_the_store_round_trip_keeps_the_account_and_every_byte(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path / "a")
    for name in ("task", "ditto"):
        first = H.store(tmp_path / "a").load(str(paths[name]))
        saved = H.store(tmp_path / "b").save(first)
        again = H.store(tmp_path / "b").load(saved.reference)
        assert again == first
        relative = paths[name].relative_to(tmp_path / "a")
        assert Path(saved.reference) == tmp_path / "b" / relative


def test_continue_into_cowork_says_the_app_must_be_started_again(
    tmp_path: Path, run_cli: RunCli
) -> None:
    root = tmp_path / "cowork"
    (root / ORG / ACCOUNT).mkdir(parents=True)
    example = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
    result = run_cli(
        "continue",
        str(example),
        "--with",
        "cowork",
        "--no-resume",
        env={"COWORK_SESSIONS_DIR": str(root)},
    )
    assert result.code == 0, result.stderr
    assert (
        "txcript: note: Claude desktop reads its Cowork tasks only when it starts" in result.stderr
    )
    records = list((root / ORG / ACCOUNT).glob("local_*.json"))
    assert len(records) == 1


# --------------------------------------------------------------------------------- delete


def test_delete_removes_the_record_and_the_task_folder(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    store = H.store(tmp_path)
    store.delete(str(paths["ditto"]))
    assert not paths["ditto"].exists() and not paths["ditto"].with_suffix("").exists()
    assert paths["task"].exists()
    with pytest.raises(BadInput):
        store.delete(str(paths["ditto"]))


def test_delete_stays_inside_the_root(tmp_path: Path) -> None:
    outside = account_with_two_tasks(tmp_path / "other")["task"]
    root = tmp_path / "root"
    (root / ORG / ACCOUNT).mkdir(parents=True)
    with pytest.raises(BadInput, match="not a task record"):
        H.store(root).delete(str(outside))
    link = root / ORG / ACCOUNT / f"{TASK}.json"
    link.symlink_to(outside)
    with pytest.raises(BadInput, match="not a task record"):
        H.store(root).delete(str(link))
    assert outside.exists()


def test_a_task_folder_that_is_a_link_is_not_followed_by_delete(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    folder = paths["task"].with_suffix("")
    kept = tmp_path / "kept"
    os.rename(folder, kept)
    folder.symlink_to(kept)
    with pytest.raises(Exception, match="not a directory of the store"):
        H.store(tmp_path).delete(str(paths["task"]))
    assert kept.is_dir() and paths["task"].exists()


# ---------------------------------------------------------------------------- the codec


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cowork_transcripts())
def test_codec_fixpoint_through_common_loses_nothing(transcript: m.Transcript) -> None:
    native = H.from_common(transcript)
    assert H.to_common(native) == transcript
    assert H.to_common(H.from_text(H.to_text(native))) == transcript


@settings(max_examples=40, deadline=None)
@given(cowork_transcripts())
def test_from_common_is_deterministic(transcript: m.Transcript) -> None:
    assert H.to_text(H.from_common(transcript)) == H.to_text(H.from_common(transcript))


def test_the_text_form_round_trips_a_stored_task(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path)
    native = H.store(tmp_path).load(str(paths["task"]))
    text = H.to_text(native)
    assert H.from_text(text) == native
    assert H.to_text(H.from_text(text)) == text


# ------------------------------------------------------------------------------- hostile


def test_records_of_the_wrong_shape_or_that_are_no_files_are_skipped_with_warnings(
    tmp_path: Path,
) -> None:
    paths = account_with_two_tasks(tmp_path, noise=False)
    account = tmp_path / ORG / ACCOUNT
    (account / "local_text.json").write_text("not json")
    (account / "local_types.json").write_text(
        json.dumps({**record("local_types", CLI_TASK, created=1, last=1), "createdAt": "yesterday"})
    )
    os.mkfifo(account / "local_fifo.json")
    with warnings.catch_warnings(record=True) as record_:
        warnings.simplefilter("always")
        found = H.store(tmp_path).discover()
    assert sorted(d.reference for d in found) == sorted(str(p) for p in paths.values())
    messages = said(record_)
    assert len(messages) == 2
    assert "FIFO" in messages[0] and "local_fifo.json" in messages[0]
    assert messages[1].startswith("skipping 2 Cowork record(s)")


def test_the_audit_log_and_its_key_are_never_carried(tmp_path: Path) -> None:
    paths = account_with_two_tasks(tmp_path / "a", noise=False)
    folder = paths["task"].with_suffix("")
    (folder / ".audit-key").write_text("SECRET-KEY-7f3a")
    native = H.store(tmp_path / "a").load(str(paths["task"]))
    assert "SECRET-KEY-7f3a" not in H.to_text(native) and "hmac" not in H.to_text(native)
    saved = H.store(tmp_path / "b").save(native)
    copied = Path(saved.reference).with_suffix("")
    assert not (copied / ".audit-key").exists() and not (copied / "audit.jsonl").exists()


def test_a_write_refused_at_the_record_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record goes last; when it cannot be written, the transcript and the task's folders
    written before it are taken back."""
    from txcript.errors import StoreError
    from txcript.shared import files as shared_files

    (tmp_path / ORG / ACCOUNT).mkdir(parents=True)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    real = shared_files.write_atomic

    def failing(path: Path, data: bytes, **kwargs: object) -> None:
        if path.suffix == ".json":
            raise StoreError(f"writing {path}: no space left on device")
        real(path, data, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(shared_files, "write_atomic", failing)
    with pytest.raises(StoreError, match="no space left"):
        H.store(tmp_path).save(H.from_common(copy_of(EXPECTED_TASK, "local_copy")))
    after = sorted(
        p.relative_to(tmp_path).as_posix()
        for p in tmp_path.rglob("*")
        if not p.relative_to(tmp_path).as_posix().startswith("txcript-data")
    )
    assert after == before
