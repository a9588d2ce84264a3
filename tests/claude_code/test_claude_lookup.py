"""Direct lookup in the Claude Code store: an id or id prefix is found by file name, and names
the same session (or gives the same error) as a full discovery."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_fixtures import assistant, put, text, user

from conftest import RunCli
from lookup_checks import assert_same_answers, by_resolve
from txcript.harnesses.claude_code.store import ClaudeCodeStore

FIRST = "aaaa1111-0000-4000-8000-000000000001"
SECOND = "aaaa2222-0000-4000-8000-000000000002"
TWICE = "bbbb0000-0000-4000-8000-000000000003"
TITLED = "cccc0000-0000-4000-8000-000000000004"


def session(sid: str, clock: str, title: str | None = None, cwd: str = "/w/app") -> list[object]:
    records: list[object] = [
        user("u1", None, clock, "hello", sessionId=sid, cwd=cwd),
        assistant("a1", "u1", clock, [text("hi")], sessionId=sid, cwd=cwd),
    ]
    if title is not None:
        records.append({"type": "custom-title", "customTitle": title, "sessionId": sid})
    return records


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    put(root, session(FIRST, "09:00:00", "first"), session_id=FIRST, cwd="/w/app")
    put(root, session(SECOND, "09:05:00", "second"), session_id=SECOND, cwd="/w/app")
    # One id in two project directories: the newer copy wins, and it is not ambiguous.
    put(root, session(TWICE, "08:00:00", "old copy", cwd="/w/a"), session_id=TWICE, cwd="/w/a")
    put(root, session(TWICE, "10:00:00", "new copy", cwd="/w/b"), session_id=TWICE, cwd="/w/b")
    # A title that is another session's id prefix, and a title with a range-like suffix.
    put(root, session(TITLED, "09:10:00", "Fix the parser #2"), session_id=TITLED, cwd="/w/app")
    # A file discovery warns about: a direct lookup by another id never reads it.
    (root / "projects" / "-w-app" / "garbage.jsonl").write_bytes(b"not json at all\n")
    return root


def test_ids_and_prefixes_resolve_like_discovery(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    direct = [FIRST, SECOND, TWICE, "aaaa1", "bbbb", TITLED[:6], f"{FIRST}#1", f"{TWICE}#2-"]
    others = [
        "aaaa",  # two ids: ambiguous, same error
        "first",  # a title
        "new copy",
        "Fix the parser #2",  # a whole-input title that looks like a range
        "Fix the parser #2#1-2",
        "nothing-like-it",
        "zzzz#1",
        "garbage",
    ]
    assert_same_answers(monkeypatch, ClaudeCodeStore, direct, others)
    assert_same_answers(monkeypatch, ClaudeCodeStore, direct, others, scope="claude_code")


def test_the_newest_copy_of_an_id_wins(root: Path) -> None:
    answer = by_resolve(TWICE)
    assert not isinstance(answer, str)
    assert answer[0].title == "new copy"


def test_a_lookup_reads_only_the_files_it_names(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.warns() as seen:
        import warnings

        warnings.warn("marker", UserWarning, stacklevel=1)
        by_resolve(FIRST)
    assert [str(w.message) for w in seen] == ["marker"]  # no "skipping …garbage.jsonl"
    store = ClaudeCodeStore(root)
    assert [d.meta_id for d in store.lookup("aaaa")] == [SECOND, FIRST]
    assert store.lookup("../") == []
    assert store.lookup(f"{FIRST}.jsonl") == []


def test_cli_export_by_prefix_and_an_ambiguous_prefix(root: Path, run_cli: RunCli) -> None:
    done = run_cli("export", "aaaa1", "--format", "common")
    assert done.code == 0, done.stderr
    assert f'"id":"{FIRST}"' in done.stdout.replace(" ", "")
    assert "garbage" not in done.stderr  # the direct lookup never read it
    ambiguous = run_cli("export", "aaaa")
    assert ambiguous.code == 2
    assert "`aaaa` prefixes the ids of 2 sessions" in ambiguous.stderr
    assert "garbage.jsonl" in ambiguous.stderr  # the full discovery did, and said so
