"""The public library API, used as a user's script uses it: ``import txcript`` and nothing else.

Every store here is real: files and SQLite databases laid out under the test's HOME, either by
the harnesses' own fixture families (what the conformance suite builds) or by ``txcript.save``.
Only the set-up reaches past the public names; every call under test is one of ``__all__``.
"""

from __future__ import annotations

import sys
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import txcript

sys.path.insert(0, str(Path(__file__).parents[1] / "conformance"))
from family_stores import build_at_home, quiet_family

from txcript import harnesses as _registry

SAMPLE = Path(txcript.__file__).parent / "demo" / "sample-session.json"
#: Three harnesses with three store shapes: a JSONL file per project, a dated rollout tree,
#: and a chat file per project hash.
THREE = ("claude_code", "codex", "gemini")


def sample() -> txcript.Transcript:
    return txcript.loads(SAMPLE.read_text(encoding="utf-8"))


def texts(transcript: txcript.Transcript) -> list[str]:
    """What each message says, in order (the text blocks, joined): what a copy must keep."""
    out = []
    for message in transcript.messages:
        content = message.content
        if isinstance(content, str):
            out.append(content)
        else:
            out.append("".join(getattr(block, "text", "") or "" for block in content))
    return out


@pytest.mark.parametrize("harness", THREE)
def test_a_fixture_store_lists_and_loads_through_the_public_api(
    harness: str, isolated_home: Path, tmp_path: Path
) -> None:
    info = _registry.info(harness)
    chosen = quiet_family(info, tmp_path / "probe")
    assert chosen is not None, f"{harness} declares no family that lists without a warning"
    family, count = chosen
    build_at_home(info, family, isolated_home)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a listing of a sound store warns of nothing
        sessions = list(txcript.list_sessions(harness))
    assert len(sessions) == count
    assert all(isinstance(s, txcript.Session) and s.harness == harness for s in sessions)
    created = [s.created for s in sessions]
    assert created == sorted(created, reverse=True), "newest first"
    for session in sessions:
        assert session.created.tzinfo is not None
        assert session.updated is None or session.updated.tzinfo is not None
        transcript = txcript.load(session.id, harness=harness)
        assert isinstance(transcript, txcript.Transcript)
        # The listing is a cheap scan, but it says what a full load says.
        assert transcript.meta.id == session.id
        assert transcript.meta.title == session.title
        assert transcript.meta.cwd == session.cwd


@pytest.mark.parametrize("harness", THREE)
def test_save_writes_a_copy_that_lists_loads_and_resumes(harness: str, tmp_path: Path) -> None:
    project = tmp_path / "acme"
    project.mkdir()
    original = sample()

    saved = txcript.save(original, harness, cwd=project)

    assert isinstance(saved, txcript.Saved)
    assert saved.harness == harness
    assert saved.id != original.meta.id, "a live copy gets a fresh id: it never overwrites"
    assert Path(saved.location.split("#")[0]).exists()
    assert saved.id in " ".join(saved.resume.argv)
    assert saved.resume.env == {}
    listed = {s.id: s for s in txcript.list_sessions(harness)}
    assert saved.id in listed
    assert listed[saved.id].cwd == str(project)
    copy = txcript.load(saved.id)
    assert texts(copy) == texts(original)
    assert copy.meta.cwd == str(project)


def test_save_under_out_is_a_faithful_copy_refused_over_itself(tmp_path: Path) -> None:
    original = sample()
    out = tmp_path / "export"

    saved = txcript.save(original, "claude_code", out=out)

    assert saved.id == original.meta.id, "a copy under out keeps its id"
    assert saved.resume.env == {"CLAUDE_CONFIG_DIR": str(out.absolute())}
    assert Path(saved.location).is_relative_to(out)
    with pytest.raises(txcript.errors.BadInput, match="already holds"):
        txcript.save(original, "claude_code", out=out)
    again = txcript.save(original, "claude_code", out=out, replace=True)
    assert again.location == saved.location


def test_list_sessions_filters_by_directory_time_and_count(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    first = txcript.save(sample(), "claude_code", cwd=here)
    second = txcript.save(sample(), "codex", cwd=there)

    assert [s.id for s in txcript.list_sessions(cwd=here)] == [first.id]
    both = {s.id for s in txcript.list_sessions(["claude_code", "codex"])}
    assert both == {first.id, second.id}
    assert len(list(txcript.list_sessions(limit=1))) == 1
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    assert list(txcript.list_sessions(since=tomorrow)) == []
    assert {s.id for s in txcript.list_sessions(since="1d")} == {first.id, second.id}
    assert list(txcript.list_sessions(until="2000-01-01")) == []
    with pytest.raises(txcript.errors.BadInput, match="limit"):
        txcript.list_sessions(limit=-1)  # raised at the call, not when iterated
    with pytest.raises(txcript.errors.BadInput, match="limit"):
        list(txcript.list_sessions(limit="3"))  # type: ignore[arg-type]
    with pytest.raises(txcript.errors.BadInput, match="`garbage` is not a time"):
        list(txcript.list_sessions(since="garbage"))
    with pytest.raises(txcript.errors.BadInput, match="unknown harness"):
        list(txcript.list_sessions("claude_kode"))


def test_list_sessions_warns_through_warnings_and_prints_nothing(
    isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = isolated_home / ".claude" / "projects" / "-work-acme"
    project.mkdir(parents=True)
    (project / "0b7e9f0e-6a7c-4d55-9a49-6b1d3f4c2a10.jsonl").write_bytes(b"\xff\xfe not json\n")

    with pytest.warns(txcript.TranscriptWarning):
        listed = txcript.list_sessions("claude_code")
    # (The warning came at the call, inside the block, not on the first ``next`` after it.)
    assert list(listed) == []
    assert capsys.readouterr() == ("", "")


def test_load_takes_a_prefix_a_title_a_path_and_a_range(tmp_path: Path) -> None:
    saved = txcript.save(sample(), "claude_code", cwd=tmp_path)
    whole = txcript.load(saved.id)

    assert txcript.load(saved.id[:8]) == whole
    assert txcript.load(saved.title or "", harness="claude_code") == whole
    assert txcript.load(Path(saved.location)).meta.id == saved.id
    assert txcript.load(SAMPLE).meta.id == sample().meta.id
    part = txcript.load(f"{saved.id}#2-3")
    assert part.messages == whole.messages[1:3]


def test_load_errors_are_typed(tmp_path: Path) -> None:
    txcript.save(sample(), "claude_code", cwd=tmp_path)

    with pytest.raises(txcript.errors.NotFound) as missing:
        txcript.load("no-such-session")
    assert isinstance(missing.value, txcript.TxcriptError)
    assert "no-such-session" in str(missing.value)
    # Two copies share the sample's title: the newest wins for a title, as in the CLI…
    txcript.save(sample(), "claude_code", cwd=tmp_path)
    assert txcript.load(sample().meta.title or "").meta.title == sample().meta.title
    # …but delete, which removes one session, refuses a title that two share.
    with pytest.raises(txcript.errors.Ambiguous):
        txcript.delete(sample().meta.title or "")
    with pytest.raises(txcript.errors.NotFound):
        txcript.load(tmp_path / "missing.json")


def test_dumps_and_loads_round_trip_every_document_format() -> None:
    transcript = sample()

    common = txcript.dumps(transcript)
    assert txcript.loads(common) == transcript
    simple = txcript.dumps(transcript, "simple")
    assert txcript.loads(simple, harness="simple").meta.title == transcript.meta.title
    native = txcript.dumps(transcript, "native", harness="claude_code")
    assert texts(txcript.loads(native)) == texts(transcript)
    markdown = txcript.dumps(transcript, "markdown")
    assert transcript.meta.title and transcript.meta.title in markdown
    html = txcript.dumps(transcript, "html")
    assert html.lstrip().lower().startswith("<!doctype html")
    with pytest.raises(txcript.errors.BadInput, match="not one of"):
        txcript.dumps(transcript, "pdf")  # type: ignore[arg-type]
    with pytest.raises(txcript.errors.BadInput, match="needs the harness"):
        txcript.dumps(transcript, "native")
    with pytest.raises(txcript.errors.BadInput):
        txcript.loads("{not json")


def test_find_gives_the_session_and_its_lines(tmp_path: Path) -> None:
    saved = txcript.save(sample(), "claude_code", cwd=tmp_path)
    txcript.save(sample(), "codex", cwd=tmp_path)

    matches = txcript.find("reproduce", harness="claude_code")

    assert [m.session.id for m in matches] == [saved.id]
    match = matches[0]
    assert isinstance(match, txcript.Match) and match.score > 0
    assert any("reproduce" in hit.line.lower() for hit in match.hits)
    numbered = [hit.message for hit in match.hits if hit.message is not None]
    assert numbered and all(n >= 1 for n in numbered), "message numbers are 1-based"
    assert txcript.find("zebra-never-said") == []


def test_a_file_store_write_is_undone_by_delete_and_the_delete_by_restore(
    tmp_path: Path,
) -> None:
    saved = txcript.save(sample(), "codex", cwd=tmp_path)
    assert saved.backup is None  # a new file: nothing was there to back up
    written = Path(saved.location)

    backup = txcript.delete(saved.id, "codex")

    assert not written.exists()
    assert [s.id for s in txcript.list_sessions("codex")] == []
    assert backup is not None and backup in [b.id for b in txcript.list_backups()]
    txcript.restore(backup)
    assert written.exists()
    assert [s.id for s in txcript.list_sessions("codex")] == [saved.id]


def test_a_database_write_is_undone_by_restore(isolated_home: Path, tmp_path: Path) -> None:
    info = _registry.info("opencode")
    chosen = quiet_family(info, tmp_path / "probe")
    assert chosen is not None
    root = build_at_home(info, chosen[0], isolated_home)
    database = next(root.rglob("opencode.db"))
    before = {s.id for s in txcript.list_sessions("opencode")}

    saved = txcript.save(sample(), "opencode", cwd=tmp_path)

    assert saved.backup is not None, "a database write takes a row backup"
    assert {s.id for s in txcript.list_sessions("opencode")} == before | {saved.id}
    assert saved.backup in [b.id for b in txcript.list_backups()]
    txcript.restore(saved.backup)
    assert {s.id for s in txcript.list_sessions("opencode")} == before
    assert database.exists()


def test_restore_of_an_unknown_backup_is_not_found() -> None:
    with pytest.raises(txcript.errors.NotFound):
        txcript.restore("20000101-nothing")


def test_list_harnesses_says_what_each_reads_and_writes(isolated_home: Path) -> None:
    entries = {h.id: h for h in txcript.list_harnesses()}

    assert {"claude_code", "codex", "cursor_desktop", "opencode"} <= set(entries)
    claude = entries["claude_code"]
    assert (claude.name, claude.reads, claude.writes) == ("Claude Code", True, True)
    assert claude.root == isolated_home / ".claude"
    assert entries["copilot"].writes is False, "Copilot CLI is read, never written"
    assert all(isinstance(h, txcript.HarnessEntry) for h in entries.values())
