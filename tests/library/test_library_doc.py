"""``docs/library.md`` runs: its Python blocks, in order, in one namespace, as a user pasting
them into a session would run them, against a Claude Code store under a temporary HOME."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import txcript

DOC = Path(__file__).parents[2] / "docs" / "library.md"
SAMPLE = Path(txcript.__file__).parent / "demo" / "sample-session.json"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_guide_has_an_example_for_every_function() -> None:
    code = "\n".join(blocks())
    for name in txcript.__all__:
        if name[0].islower() and name not in ("errors", "__version__"):
            assert f"txcript.{name}(" in code, f"docs/library.md shows no call of {name}"


def test_every_example_in_the_guide_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # The reader's own store: one Claude Code session from this week.
    txcript.save(txcript.loads(SAMPLE.read_text(encoding="utf-8")), "claude_code", cwd=tmp_path)
    namespace: dict[str, object] = {}
    for number, block in enumerate(blocks(), 1):
        try:
            exec(compile(block, f"docs/library.md block {number}", "exec"), namespace)
        except Exception as error:  # any failure: say which block it was
            raise AssertionError(f"docs/library.md block {number} fails: {error!r}") from error
    printed = capsys.readouterr().out
    assert "Fix the flaky date parser test" in printed
    assert "resume with: codex resume" in printed
    assert (tmp_path / "session.md").read_text(encoding="utf-8").startswith("#")
