"""Cursor's agent transcripts list by file (:class:`txcript.harnesses.base.ListsByFile`): a
transcript's fingerprint covers its file and the workspace its project resolves to from the
current directory, and the transcripts it names list exactly as a full discovery lists them."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from test_cursor_transcripts import write_transcripts

from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.base import Discovered, lists_by_file
from txcript.harnesses.cursor_cli.transcripts import TranscriptStore, slug_of


@pytest.fixture
def root(tmp_path: Path, workspace: Path) -> Path:
    """Both forms in a project the current directory resolves, both in one it does not, and a
    file that is no transcript."""
    root = tmp_path / ".cursor"
    write_transcripts(root, str(workspace))
    write_transcripts(root, "/somewhere/else")
    stranger = root / "projects" / slug_of("/somewhere/else") / "agent-transcripts" / "x.txt"
    stranger.write_text("not a transcript\n")
    return root


def by_reference(found: list[Discovered]) -> list[Discovered]:
    return sorted(found, key=lambda d: d.reference)


def quietly(call: object, *args: object) -> list[Discovered]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # the stranger file
        return by_reference(call(*args))  # type: ignore[operator]


def test_the_named_transcripts_list_as_discovery_does(root: Path, workspace: Path) -> None:
    store = TranscriptStore(root)
    assert lists_by_file(store) is store
    files = store.fingerprinted()
    whole = quietly(store.discover)
    assert len(files) == 5 and len(whole) == 4
    assert quietly(store.discover_references, list(files)) == whole
    for reference in files:
        alone = [d for d in whole if d.reference == reference]
        assert quietly(store.discover_references, [reference]) == alone
    assert {d.cwd for d in whole} == {str(workspace), None}
    assert store.fingerprints(files) == files


def test_a_touched_transcript_moves_only_its_own_fingerprint(root: Path) -> None:
    store = TranscriptStore(root)
    before = store.fingerprinted()
    path = sorted(before)[0]
    later = os.stat(path).st_mtime + 5
    os.utime(path, (later, later))
    after = store.fingerprinted()
    assert [r for r in before if after[r] != before[r]] == [path]


def test_another_current_directory_moves_the_transcripts_it_resolved(
    root: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TranscriptStore(root)
    before = store.fingerprinted()
    monkeypatch.chdir(tmp_path)
    after = store.fingerprinted()
    moved = sorted(r for r in before if after[r] != before[r])
    assert moved == sorted(r for r in before if f"/{slug_of(str(workspace))}/" in r)
    assert len(moved) == 2
    assert {d.cwd for d in quietly(store.discover_references, moved)} == {None}


def test_a_transcript_gone_since_is_not_listed(root: Path) -> None:
    store = TranscriptStore(root)
    files = store.fingerprinted()
    path = sorted(files)[0]
    os.unlink(path)
    assert quietly(store.discover_references, [path]) == []
    assert store.fingerprints([path]) == {path: ""}
