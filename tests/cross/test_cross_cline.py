"""Claude Code's parallel calls carried through Cline (and Roo, and Kilo) into Codex keep every
call, every result and every ``is_error``, message by message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_cross_harness import _exchange, hop, signature

from txcript import harnesses
from txcript import model as m

for _directory in ("cline", "claude_code"):
    sys.path.insert(0, str(Path(__file__).parents[1] / _directory))
import claude_fixtures  # noqa: E402
import cline_fixtures as cf  # noqa: E402


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))


def _claude_source(tmp_path: Path) -> m.Transcript:
    root = tmp_path / "claude-src"
    claude_fixtures.parallel_batches(root)
    claude = harnesses.get("claude_code")
    store = claude.store(root)
    assert store is not None
    (found,) = store.discover()
    return claude.to_common(store.load(found.reference))


def _errors(transcript: m.Transcript) -> dict[str, bool]:
    return {
        b.tool_use_id: b.is_error
        for msg in transcript.messages
        for b in msg.content
        if isinstance(b, m.ToolResult)
    }


def _adopted(transcript: m.Transcript, harness_id: str) -> m.Transcript:
    """The copy ``continue --out`` writes: the source id, reshaped where the target needs."""
    meta = transcript.meta
    fitting = harnesses.get(harness_id).adopt_id(meta.id)
    return m.Transcript(
        meta=m.Meta(
            id=fitting, timestamp=meta.timestamp, cwd=meta.cwd, title=meta.title, model=meta.model
        ),
        messages=transcript.messages,
    )


@pytest.mark.parametrize("middle", ["cline", "roo", "kilo"])
def test_claude_parallel_calls_through_the_extension_into_codex_keep_every_call(
    middle: str, tmp_path: Path
) -> None:
    source = _claude_source(tmp_path)
    if middle == "kilo":
        cf.empty_kilo_db(tmp_path / middle)  # the Kilo CLI creates its database on first run
    in_middle = hop(_adopted(source, middle), middle, tmp_path / middle)
    if middle == "kilo":
        # kilo.db keeps OpenCode's grouping (a reply's calls with the reply), so from here the
        # texts, calls and results are compared in order, whatever the grouping.
        assert _exchange(in_middle) == _exchange(source)
    else:
        assert signature(in_middle) == signature(source)
    uses = [b.tool for msg in in_middle.messages for b in msg.content if isinstance(b, m.ToolUse)]
    assert uses[:2] == [m.Bash(command="npm test"), m.Read(file_path="/work/app/package.json")]
    in_codex = hop(_adopted(in_middle, "codex"), "codex", tmp_path / "codex")
    assert _exchange(in_codex) == _exchange(source)
    assert _errors(in_codex) == {
        "toolu_1": True,
        "toolu_2": False,
        "toolu_3": False,
        "toolu_4": True,
        "toolu_5": False,
    }
