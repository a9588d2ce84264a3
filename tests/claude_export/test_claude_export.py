"""The Claude account export: a ZIP with a branched conversation and attachments, read exactly."""

from __future__ import annotations

import json
import os
import uuid
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from export_fixtures import (
    BRANCHED,
    MARKED,
    OLD,
    ZIP_NAME,
    branched,
    document,
    marked,
    old_style,
    put_folder,
    put_zip,
)

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.errors import BadInput, TxcriptError, Unconvertible
from txcript.harnesses.claude_export.codec import NAMESPACE

H = harnesses.get("claude_export")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def at(minute: int, second: int = 0) -> datetime:
    return datetime(2026, 3, 1, 10, minute, second, tzinfo=UTC)


def minted(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{BRANCHED}:{key}"))


SEARCH = minted("m3:1")
EXPECTED = {
    BRANCHED: m.Transcript(
        meta=m.Meta(id=BRANCHED, timestamp=at(0), title="Why does the parser fail?"),
        messages=(
            m.Message(
                role="user",
                content=(
                    m.Text(text="Why does the parser fail on line 3?"),
                    m.Artifact(
                        artifact=m.ArtifactRef(
                            id=minted("m1:attachments:0"),
                            name="parser.log",
                            source=m.TextSource(text="line 3: unexpected", media_type="text/plain"),
                        )
                    ),
                    m.Artifact(
                        artifact=m.ArtifactRef(
                            id=minted("m1:files:0"),
                            name="screenshot.png",
                            source=m.PathSource(path="screenshot.png"),
                        )
                    ),
                ),
                timestamp=at(0, 1),
            ),
            # The later branch (m3): the edited-away answer (m2) is not on it.
            m.Message(
                role="assistant",
                content=(
                    m.Thinking(text="Search first."),
                    m.ToolUse(
                        id=SEARCH,
                        tool=m.Raw(
                            tool_name="web_search", input={"query": "parser line 3 unexpected"}
                        ),
                    ),
                ),
                timestamp=at(0, 4),
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id=SEARCH, content="A stray tab."),),
                timestamp=at(0, 4),
            ),
            m.Message(
                role="assistant",
                content=(
                    m.ToolUse(
                        id="toolu_fetch",
                        tool=m.Raw(
                            tool_name="web_fetch", input={"url": "https://example.invalid/tabs"}
                        ),
                    ),
                ),
                timestamp=at(0, 4),
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="toolu_fetch", content="404", is_error=True),),
                timestamp=at(0, 4),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="A tab on line 3 confuses the lexer."),),
                timestamp=at(0, 4),
            ),
        ),
    ),
    # The conversation marks its older branch as current; no name: the first prompt's line.
    MARKED: m.Transcript(
        meta=m.Meta(id=MARKED, timestamp=at(10), title="Name three primes"),
        messages=(
            m.Message(
                role="user",
                content=(m.Text(text="Name three primes\nand be brief"),),
                timestamp=at(0, 1),
            ),
            m.Message(role="assistant", content=(m.Text(text="2, 3, 5"),), timestamp=at(0, 2)),
        ),
    ),
    OLD: m.Transcript(
        meta=m.Meta(id=OLD, timestamp=datetime(2025, 6, 1, 8, tzinfo=UTC), title="Hello"),
        messages=(
            m.Message(
                role="user",
                content=(m.Text(text="hello"),),
                timestamp=datetime(2025, 6, 1, 8, 0, 1, tzinfo=UTC),
            ),
            m.Message(
                role="assistant",
                content=(m.Text(text="hi"),),
                timestamp=datetime(2025, 6, 1, 8, 0, 2, tzinfo=UTC),
            ),
        ),
    ),
}


def said(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, TranscriptWarning)]


def listed(root: Path) -> tuple[list[object], list[str]]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        found = H.store(root).discover()
    return found, said(record)


def test_each_conversation_of_the_zip_reads_as_exactly_this_transcript(tmp_path: Path) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    store = H.store(export)
    found, _ = listed(export)
    by_id = {d.meta_id: d for d in found}  # type: ignore[attr-defined]
    assert sorted(by_id) == sorted(EXPECTED)
    for conversation_id, expected in EXPECTED.items():
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            transcript = H.to_common(store.load(by_id[conversation_id].reference))
        assert transcript == expected, conversation_id
        if conversation_id == BRANCHED:
            assert said(record) == [
                f"claude_export conversation {BRANCHED}: content not read was left out "
                "(1 voice_note)"
            ]
        else:
            assert said(record) == []


@pytest.mark.parametrize("shape", ["zip", "folder", "json"])
def test_a_zip_a_folder_and_a_bare_json_list_the_same_conversations(
    tmp_path: Path, shape: str
) -> None:
    if shape == "zip":
        root = put_zip(tmp_path / ZIP_NAME)
    elif shape == "folder":
        root = put_folder(tmp_path / "export")
    else:
        root = tmp_path / "conversations.json"
        root.write_bytes(document())
    found, warned = listed(root)
    assert [(d.meta_id, d.title, d.timestamp) for d in found] == [  # type: ignore[attr-defined]
        (e.meta.id, e.meta.title, e.meta.timestamp)
        for e in sorted(EXPECTED.values(), key=lambda t: t.meta.timestamp, reverse=True)
    ]
    assert warned == [f"{root}: 1 element(s) of conversations.json are not conversations"]
    said: list[str] = []
    for discovered in found:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TranscriptWarning)
            loaded = H.to_common(H.store(root).load(discovered.reference))  # type: ignore[attr-defined]
        said += [str(w.message) for w in caught]
        assert loaded.meta == EXPECTED[discovered.meta_id].meta  # type: ignore[attr-defined]
    # (One fixture conversation holds a voice note, which is not read.)
    assert [s.split(": ", 1)[1] for s in said] == ["content not read was left out (1 voice_note)"]


def test_a_conversation_moved_in_the_export_is_still_found_by_its_id(tmp_path: Path) -> None:
    root = tmp_path / "conversations.json"
    root.write_bytes(document())
    found, _ = listed(root)
    reference = next(d.reference for d in found if d.meta_id == OLD)  # type: ignore[attr-defined]
    root.write_bytes(b"[" + json.dumps(branched()).encode() + b", " + document()[1:])
    assert H.to_common(H.store(root).load(reference)) == EXPECTED[OLD]


def test_the_text_form_is_the_conversation_object_exactly(tmp_path: Path) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    found, _ = listed(export)
    native = H.store(export).load(found[0].reference)  # type: ignore[attr-defined]
    text = H.to_text(native)
    assert text.encode() in document()  # the element's bytes, as the export holds them
    assert H.from_text(text) == native
    assert H.from_text(f"[{text}]").data == native.data


def test_an_export_of_several_conversations_is_no_one_document() -> None:
    with pytest.raises(BadInput, match="holds 4 conversations"):
        H.from_text(document().decode())


# ------------------------------------------------------------------------------ read-only


def test_nothing_is_ever_written_into_an_export(tmp_path: Path) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    store = H.store(export)
    found, _ = listed(export)
    with pytest.raises(Unconvertible, match="read-only"):
        store.save(store.load(found[0].reference))  # type: ignore[attr-defined]
    with pytest.raises(BadInput, match="read-only"):
        store.delete(found[0].reference)  # type: ignore[attr-defined]
    with pytest.raises(Unconvertible, match="read-only"):
        H.from_common(EXPECTED[OLD])
    assert sorted(p.name for p in tmp_path.iterdir()) == [ZIP_NAME, "txcript-data"] or sorted(
        p.name for p in tmp_path.iterdir()
    ) == [ZIP_NAME]


# ------------------------------------------------------------------------------------ CLI


def test_the_cli_lists_views_exports_and_continues_a_conversation_of_the_zip(
    tmp_path: Path, run_cli: RunCli
) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    before = export.read_bytes()
    rows = run_cli("list", "--from", "claude_export", str(export), "--json")
    assert rows.code == 0, rows.stderr
    assert [r["id"] for r in json.loads(rows.stdout)] == [MARKED, BRANCHED, OLD]
    table = run_cli("list", "--from", "claude_export", str(export))
    assert "Why does the parser fail?" in table.stdout
    viewed = run_cli("view", BRANCHED[:8], "--from", "claude_export", str(export))
    assert viewed.code == 0, viewed.stderr
    assert "A tab on line 3 confuses the lexer." in viewed.stdout
    assert "Old answer" not in viewed.stdout
    exported = run_cli(
        "export", BRANCHED, "--from", "claude_export", str(export), "--format", "common"
    )
    assert exported.code == 0, exported.stderr
    assert m.from_json(exported.stdout) == EXPECTED[BRANCHED]
    work = tmp_path / "work"
    work.mkdir()
    claude_root = tmp_path / "claude"
    continued = run_cli(
        "continue",
        BRANCHED,
        "--from",
        "claude_export",
        str(export),
        "--with",
        "claude_code",
        "--out",
        str(claude_root),
        "--json",
    )
    assert continued.code == 0, continued.stderr
    copy = harnesses.get("claude_code")
    store = copy.store(claude_root)
    transcript = copy.to_common(store.load(store.discover()[0].reference))
    assert [
        (b.tool_use_id, b.is_error)
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    ] == [(SEARCH, False), ("toolu_fetch", True)]
    assert export.read_bytes() == before


def test_the_export_can_also_be_named_by_its_variable(tmp_path: Path, run_cli: RunCli) -> None:
    export = put_folder(tmp_path / "export")
    result = run_cli("view", MARKED, "--from", "claude_export", env={"CLAUDE_EXPORT": str(export)})
    assert result.code == 0, result.stderr
    assert "2, 3, 5" in result.stdout and "7, 11, 13" not in result.stdout


def test_an_export_is_never_listed_unless_it_is_named(tmp_path: Path, run_cli: RunCli) -> None:
    put_zip(tmp_path / ZIP_NAME)
    result = run_cli("list", "--json")
    assert result.code == 0 and json.loads(result.stdout) == []


def test_continuing_into_the_export_or_without_a_target_is_refused(
    tmp_path: Path, run_cli: RunCli
) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    into = run_cli(
        "continue", OLD, "--from", "claude_export", str(export), "--with", "claude_export"
    )
    assert into.code == 2 and "another harness with --with" in into.stderr
    plain = run_cli("continue", OLD, "--from", "claude_export", str(export))
    assert plain.code == 2 and "Traceback" not in plain.stderr
    example = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"
    target = run_cli("continue", str(example), "--with", "claude_export")
    assert target.code == 2 and "claude_export" in target.stderr


def test_a_path_needs_one_harness(tmp_path: Path, run_cli: RunCli) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    result = run_cli("list", str(export))
    assert result.code == 2 and "--from H" in result.stderr
    missing = run_cli("list", "--from", "claude_export", str(tmp_path / "nope.zip"))
    assert missing.code == 2 and "no Claude export store at" in missing.stderr


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("truncated.json", document()[:-40], "truncated"),
        ("garbage.json", b"\x00\x01 not json", "not a JSON array"),
        ("empty.json", b"", "empty"),
        ("bad.zip", b"PK\x03\x04 not really a zip", "not a readable ZIP"),
    ],
)
def test_a_damaged_export_is_one_line_naming_it(
    tmp_path: Path, run_cli: RunCli, name: str, data: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    result = run_cli("list", "--from", "claude_export", str(path))
    assert result.code != 0
    assert result.stderr.startswith("txcript: error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr and name in result.stderr


def test_a_zip_without_conversations_is_named_so(tmp_path: Path, run_cli: RunCli) -> None:
    import zipfile

    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("photos/a.jpg", b"\xff\xd8")
    result = run_cli("list", "--from", "claude_export", str(path))
    assert result.code == 2 and "holds no conversations.json" in result.stderr


def test_an_unchanged_export_lists_without_being_read_again(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """The listing is kept under the file's change token: while the file is the same (inode,
    size, mtime), ``list`` does not open it. Overwriting it in place with the same size and
    mtime is what only a reader of the cache would not notice. (A listing that warned is never
    kept, so this export has no stray element.)"""
    export = tmp_path / "conversations.json"
    export.write_bytes(json.dumps([branched(), marked(), old_style()]).encode())
    old = 1_700_000_000_000_000_000
    os.utime(export, ns=(old, old))
    env = {"TXCRIPT_DATA_DIR": str(tmp_path / "data")}
    first = run_cli("list", "--from", "claude_export", str(export), "--json", env=env)
    size = export.stat().st_size
    with open(export, "r+b") as handle:
        handle.write(b" " * size)
    os.utime(export, ns=(old, old))
    again = run_cli("list", "--from", "claude_export", str(export), "--json", env=env)
    assert first.code == again.code == 0
    assert json.loads(again.stdout) == json.loads(first.stdout)
    os.utime(export, ns=(old + 10**9, old + 10**9))
    changed = run_cli("list", "--from", "claude_export", str(export), "--json", env=env)
    assert changed.code != 0 and "empty" in changed.stderr


def test_a_load_of_a_missing_conversation_is_bad_input(tmp_path: Path) -> None:
    export = put_zip(tmp_path / ZIP_NAME)
    with pytest.raises(TxcriptError, match="no conversation"):
        H.store(export).load(f"{export}::0::{uuid.uuid4()}")


def test_wrong_json_types_read_as_what_they_hold_without_a_traceback(tmp_path: Path) -> None:
    odd = [
        {
            "uuid": "u-1",
            "name": 7,
            "created_at": 1,
            "chat_messages": [3, {"sender": "human", "content": "x", "text": None}],
        },
        {
            "uuid": "u-2",
            "chat_messages": [
                {
                    "sender": "assistant",
                    "content": [1, {"type": "text", "text": 2}, {"type": "tool_use"}],
                }
            ],
        },
    ]
    root = tmp_path / "conversations.json"
    root.write_text(json.dumps(odd))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        found = H.store(root).discover()
        loaded = {d.meta_id: H.to_common(H.store(root).load(d.reference)) for d in found}
    assert sorted(loaded) == ["u-1", "u-2"]
    (prompt,) = loaded["u-1"].messages  # a plain string content is the message's text
    assert prompt.content == (m.Text(text="x"),) and loaded["u-1"].meta.title == "x"
    (message,) = loaded["u-2"].messages
    (use,) = message.content
    assert isinstance(use, m.ToolUse) and use.tool == m.Raw(tool_name="", input={})
    assert said(record) == [
        "claude_export conversation u-1: content not read was left out (1 malformed message)",
        "claude_export conversation u-2: content not read was left out (1 malformed, "
        "1 malformed text)",
    ]


def test_terminal_escapes_in_a_title_reach_no_terminal(tmp_path: Path, run_cli: RunCli) -> None:
    hostile = {**old_style(), "name": "evil\x1b]52;c;cHduZWQ=\x07 title"}
    root = tmp_path / "conversations.json"
    root.write_text(json.dumps([hostile]))
    shown = run_cli("list", "--from", "claude_export", str(root))
    assert shown.code == 0 and "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "evil" in shown.stdout


def test_doctor_reads_an_export_named_by_its_variable_as_a_store(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """An export is a file, not a directory: doctor lists it as the store it is."""
    export = put_zip(tmp_path / ZIP_NAME, document(stray=False))
    result = run_cli("doctor", "--json", env={"CLAUDE_EXPORT": str(export)})
    report = json.loads(result.stdout)
    (store,) = [s for s in report["stores"] if s["harness"] == "claude_export"]
    assert (store["exists"], store["sessions"], store["error"]) == (True, 3, None)


def test_a_held_listing_imports_neither_the_store_nor_zip_reading(isolated_home: Path) -> None:
    """While the export file is unchanged, ``list`` answers from the listing kept under its
    change token: the store's code (ZIP reading, JSON streaming) is never imported."""
    from test_startup_imports import imported

    export = put_zip(isolated_home / ZIP_NAME, document(stray=False))
    old = 1_700_000_000_000_000_000
    os.utime(export, ns=(old, old))
    first = imported("list", "--from", "claude_export", str(export), home=isolated_home)
    assert "txcript.harnesses.claude_export.store" in first
    again = imported("list", "--from", "claude_export", str(export), home=isolated_home)
    assert "txcript.harnesses.claude_export.locations" in again
    assert "txcript.harnesses.claude_export.store" not in again and "zipfile" not in again


def test_a_folder_the_zip_was_saved_in_is_the_export(tmp_path: Path, run_cli: RunCli) -> None:
    downloads = tmp_path / "downloads"
    put_zip(downloads / ZIP_NAME, document(stray=False))
    (downloads / "holiday.zip").write_bytes(b"PK\x03\x04 not an export")  # another ZIP: ignored
    found, _ = listed(downloads)
    assert sorted(d.meta_id for d in found) == sorted(EXPECTED)  # type: ignore[attr-defined]
    put_zip(downloads / "claude-ai-data-2025-01-01.zip", document(stray=False))
    two = run_cli("list", "--from", "claude_export", str(downloads))
    assert two.code == 2 and "holds 2 Claude exports" in two.stderr
