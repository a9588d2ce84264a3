"""Sessions carried between harnesses through their real stores keep every message in order."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.shared.jsonutil import dumps_compact

sys.path.insert(0, str(Path(__file__).parents[1] / "claude_code"))
from claude_fixtures import parallel_batches

EXAMPLE = Path(__file__).parents[1] / "cursor_desktop" / "data" / "example-session.json"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def signature(
    transcript: m.Transcript, *, result_errors: bool = True, thinking_as_text: bool = False
) -> list[tuple[str, list[Any]]]:
    """Per message: the role and every block's meaning (ids, texts, typed tools, results).

    Structured tool output is compared as its compact JSON text: harnesses whose result slot
    holds only text flatten it (by design), and that is the form the contracts compare.
    """
    out = []
    for message in transcript.messages:
        blocks: list[Any] = []
        for block in message.content:
            if isinstance(block, m.Text):
                blocks.append(("text", block.text))
            elif isinstance(block, m.Thinking):
                kind = "text" if thinking_as_text else "thinking"
                blocks.append((kind, block.text))
            elif isinstance(block, m.ToolUse):
                blocks.append(("use", block.id, block.tool))
            elif isinstance(block, m.ToolResult):
                content = block.content
                text = content if isinstance(content, str) else dumps_compact(content)
                error = block.is_error if result_errors else None
                blocks.append(("result", block.tool_use_id, error, text))
            else:
                blocks.append((type(block).__name__,))
        out.append((message.role, blocks))
    return out


def hop(transcript: m.Transcript, harness_id: str, root: Path) -> m.Transcript:
    """Write ``transcript`` into ``harness_id``'s store at ``root`` and read it back."""
    harness = harnesses.get(harness_id)
    store = harness.store(root)
    saved = store.save(harness.from_common(transcript), force=True)
    found = [d for d in store.discover() if d.reference == saved.reference]
    assert len(found) == 1, f"{harness_id} does not list the session it just wrote"
    return harness.to_common(store.load(saved.reference))


def cursor_source() -> m.Transcript:
    cursor = harnesses.get("cursor_desktop")
    return cursor.to_common(cursor.from_text(EXAMPLE.read_text()))


def test_cursor_to_claude_code_and_back_keeps_every_message(tmp_path: Path) -> None:
    source = cursor_source()
    in_claude = hop(source, "claude_code", tmp_path / "claude")
    assert signature(in_claude) == signature(source)
    back = hop(in_claude, "cursor_desktop", tmp_path / "cursor")
    assert signature(back) == signature(source)
    # The typed arguments survive every hop.
    uses = [b for msg in back.messages for b in msg.content if isinstance(b, m.ToolUse)]
    assert uses[0].tool == m.Bash(command="npm test", workdir="/Users/dev/acme", timeout_ms=120000)
    assert uses[1].tool == m.Read(file_path="/Users/dev/acme/config.yaml", offset=1, limit=50)


def test_cursor_to_codex_to_claude_code_to_cursor_keeps_every_message(tmp_path: Path) -> None:
    """Every ``is_error`` survives (Codex writes any tool's failure in its exec envelope). One
    documented loss on this route is asserted rather than hidden:

    * Codex keeps reasoning text but no Anthropic signature, and Claude Code's API rejects
      unsigned thinking blocks on resume, so from Claude Code on that reasoning is plain text
      (docs/formats/claude-code.md).
    """
    source = cursor_source()
    current = source
    through_claude = False
    for index, harness_id in enumerate(("codex", "claude_code", "cursor_desktop")):
        current = hop(current, harness_id, tmp_path / f"{index}-{harness_id}")
        through_claude = through_claude or harness_id == "claude_code"
        expected = signature(source, thinking_as_text=through_claude)
        assert signature(current) == expected, f"after {harness_id}"
    shell_results = [
        b
        for msg in current.messages
        for b in msg.content
        if isinstance(b, m.ToolResult) and b.tool_use_id.startswith("toolu_")
    ]
    assert [r.is_error for r in shell_results] == [False]


@pytest.mark.parametrize("harness_id", ["claude_code", "codex", "cursor_desktop"])
def test_native_text_documents_are_recognised_without_from(
    harness_id: str, tmp_path: Path, run_cli: RunCli
) -> None:
    """JSONL text forms are not one JSON document; their first lines identify them."""
    harness = harnesses.get(harness_id)
    path = tmp_path / "session.txt"
    path.write_text(harness.to_text(harness.from_common(cursor_source())))
    result = run_cli("export", str(path), "--format", "common")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["meta"]["title"] == "Run the tests, then check config.yaml"


# ------------------------------------------------ parallel calls through every store and back


def _exchange(transcript: m.Transcript) -> dict[str, list[Any]]:
    """Texts, calls and results (with ``is_error``), each kind in order, whatever the grouping."""
    blocks = [block for _, blocks in signature(transcript) for block in blocks]
    return {kind: [b for b in blocks if b[0] == kind] for kind in ("text", "use", "result")}


def test_claude_parallel_batches_through_codex_and_cursor_back_to_claude_keep_every_call(
    tmp_path: Path,
) -> None:
    """Claude Code → Codex → Cursor desktop → Claude Code keeps every call, every result and
    every ``is_error`` (including non-shell tools, which Codex marks only in the exec envelope).

    Message by message through Codex. Cursor desktop stores one bubble per call with its result
    on it, so a batch comes back as one call and its result at a time; from there on the order of
    texts, calls and results (each in order) and every ``is_error`` are compared.
    """
    claude_root = tmp_path / "claude-src"
    parallel_batches(claude_root)
    claude = harnesses.get("claude_code")
    store = claude.store(claude_root)
    assert store is not None
    (found,) = store.discover()
    source = claude.to_common(store.load(found.reference))
    uses = [b for msg in source.messages for b in msg.content if isinstance(b, m.ToolUse)]
    results = [b for msg in source.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert len(uses) == len(results) == 5
    assert [msg.role for msg in source.messages] == [
        "user",
        *["assistant", "user"] * 2,
        "assistant",
    ]
    assert [r.tool_use_id for r in source.messages[2].content if isinstance(r, m.ToolResult)] == [
        "toolu_1",
        "toolu_2",
        "toolu_3",
    ]

    in_codex = hop(source, "codex", tmp_path / "codex")
    assert signature(in_codex) == signature(source)
    in_cursor = hop(in_codex, "cursor_desktop", tmp_path / "cursor")
    assert _exchange(in_cursor) == _exchange(source)
    back = hop(in_cursor, "claude_code", tmp_path / "claude-back")
    assert _exchange(back) == _exchange(source)
    errors = {
        b.tool_use_id: b.is_error
        for msg in back.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }
    assert errors == {
        "toolu_1": True,
        "toolu_2": False,
        "toolu_3": False,
        "toolu_4": True,
        "toolu_5": False,
    }


def test_cursor_to_hermes_to_codex_keeps_every_call_result_and_error(tmp_path: Path) -> None:
    """Cursor desktop → Hermes → Codex, through each real store: every call, every result and
    every ``is_error`` arrive, message by message. Hermes keeps no error flag on a result, so a
    failure is stored as Hermes's own ``{"error": …}`` result and read back as one; structured
    output becomes its JSON text (Hermes's result cell holds text)."""
    source = cursor_source()
    results = [b for msg in source.messages for b in msg.content if isinstance(b, m.ToolResult)]
    assert [r.is_error for r in results] == [False, True]
    in_hermes = hop(source, "hermes", tmp_path / "hermes")
    assert signature(in_hermes) == signature(source)
    in_codex = hop(in_hermes, "codex", tmp_path / "codex")
    assert signature(in_codex) == signature(source)
    assert [
        b.is_error for msg in in_codex.messages for b in msg.content if isinstance(b, m.ToolResult)
    ] == [r.is_error for r in results]
