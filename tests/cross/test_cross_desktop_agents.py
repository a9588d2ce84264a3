"""Sessions carried through the desktop agents' real stores keep every call, result and is_error:
Cursor desktop → Antigravity → Claude Code, Claude account export → Claude Code, and Cowork."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from test_cross_harness import cursor_source, hop, signature

from txcript import harnesses
from txcript import model as m
from txcript.shared.jsonutil import dumps_compact

sys.path.insert(0, str(Path(__file__).parents[1] / "claude_export"))
sys.path.insert(0, str(Path(__file__).parents[1] / "cowork"))
import export_fixtures
from cowork_fixtures import ACCOUNT, ORG


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))


def exchange(transcript: m.Transcript) -> list[tuple[object, ...]]:
    """Every call (id, tool) and result (id, is_error, output as text) in order. Structured
    output is compared as its compact JSON text: a slot that holds only text keeps that."""
    out: list[tuple[object, ...]] = []
    for message in transcript.messages:
        for block in message.content:
            if isinstance(block, m.ToolUse):
                out.append(("call", block.id, block.tool))
            elif isinstance(block, m.ToolResult):
                content = block.content
                text = content if isinstance(content, str) else dumps_compact(content)
                out.append(("result", block.tool_use_id, block.is_error, text))
    return out


def test_cursor_desktop_to_antigravity_to_claude_code_keeps_every_call_result_and_error(
    tmp_path: Path,
) -> None:
    source = cursor_source()
    assert any(r[0] == "result" and r[2] for r in exchange(source))  # (there is an error)
    in_agy = hop(source, "antigravity", tmp_path / "agy")
    assert signature(in_agy) == signature(source)
    in_claude = hop(in_agy, "claude_code", tmp_path / "claude")
    assert signature(in_claude) == signature(source)
    assert exchange(in_claude) == exchange(source)


def test_claude_export_to_claude_code_keeps_every_call_result_and_error(tmp_path: Path) -> None:
    export = export_fixtures.put_zip(tmp_path / export_fixtures.ZIP_NAME)
    source_harness = harnesses.get("claude_export")
    store = source_harness.store(export)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = {d.meta_id: d for d in store.discover()}
        source = source_harness.to_common(store.load(found[export_fixtures.BRANCHED].reference))
    assert [r[2] for r in exchange(source) if r[0] == "result"] == [False, True]
    in_claude = hop(source, "claude_code", tmp_path / "claude")
    assert exchange(in_claude) == exchange(source)
    # The attachment's extracted text reaches Claude Code as readable text of the prompt.
    prompt = in_claude.messages[0].content
    assert any(isinstance(b, m.Text) and "line 3: unexpected" in b.text for b in prompt)


def test_cursor_desktop_to_cowork_to_antigravity_keeps_every_call_result_and_error(
    tmp_path: Path,
) -> None:
    source = cursor_source()
    cowork_root = tmp_path / "cowork"
    (cowork_root / ORG / ACCOUNT).mkdir(parents=True)
    in_cowork = hop(source, "cowork", cowork_root)
    assert exchange(in_cowork) == exchange(source)
    # A Cowork id (local_…) is no Antigravity id: a copy gets one, as `continue --out` gives it.
    adopted = harnesses.get("antigravity").adopt_id(in_cowork.meta.id)
    renamed = m.Transcript(
        meta=m.Meta(id=adopted, timestamp=in_cowork.meta.timestamp, cwd=in_cowork.meta.cwd),
        messages=in_cowork.messages,
    )
    in_agy = hop(renamed, "antigravity", tmp_path / "agy")
    assert exchange(in_agy) == exchange(source)
