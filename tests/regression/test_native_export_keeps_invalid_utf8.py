"""A store file holding bytes that are not UTF-8 exports as itself, not as an internal error.

Found by the store fuzz (tests/hostile/test_fuzz_stores.py): Claude Code and Codex read their
files losslessly (invalid UTF-8 kept as surrogate escapes, so a same-harness save gives the same
bytes), but ``export --format native`` encoded the text strictly and crashed with
``UnicodeEncodeError`` on the first such byte. The native text of a file is its bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import RunCli

sys.path.insert(0, str(Path(__file__).parents[1] / "hostile"))
from hostile_support import UUID_A, claude_lines, codex_lines, codex_rollout_path

from txcript.harnesses.claude_code.store import encode_project

BAD_LINE = b'{"type": "note", "text": "caf\xe9 \xff"}\n'


def _assert_exports_as_its_bytes(run_cli: RunCli, harness: str, path: Path, out: Path) -> None:
    result = run_cli("export", UUID_A, "--from", harness, "--format", "native", "--out", str(out))
    assert result.code == 0, result.stderr
    assert out.read_bytes() == path.read_bytes()


def test_a_claude_code_file_with_invalid_utf8_exports_byte_for_byte(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    path = isolated_home / ".claude/projects" / encode_project("/tmp") / f"{UUID_A}.jsonl"
    path.parent.mkdir(parents=True)
    good = claude_lines(UUID_A).encode()
    path.write_bytes(good + BAD_LINE)
    _assert_exports_as_its_bytes(run_cli, "claude_code", path, tmp_path / "out.jsonl")


def test_a_codex_rollout_with_invalid_utf8_exports_byte_for_byte(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    path = codex_rollout_path(isolated_home / ".codex", UUID_A)
    path.parent.mkdir(parents=True)
    path.write_bytes(codex_lines(UUID_A).encode() + BAD_LINE)
    _assert_exports_as_its_bytes(run_cli, "codex", path, tmp_path / "out.jsonl")
