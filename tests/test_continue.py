"""``continue``: write a copy into a harness's store, then hand the terminal to the harness."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from conftest import RunCli
from test_simple import EXPORTED
from txcript.shared.ids import UUID_IDS


def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A stand-in for the harness binary that records its argv and working directory."""
    log = tmp_path / "launched.json"
    script = tmp_path / "fake-claude"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"open({str(log)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, log


def document(tmp_path: Path, cwd: str | None) -> Path:
    doc = json.loads(EXPORTED)
    if cwd is None:
        doc.pop("cwd")
    else:
        doc["cwd"] = cwd
    path = tmp_path / "session.json"
    path.write_text(json.dumps(doc))
    return path


def test_continue_writes_a_fresh_copy_and_launches_the_harness_in_its_cwd(
    run_cli: RunCli, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script, log = recorder(tmp_path)
    claude = tmp_path / "claude"
    env = {
        "CLAUDE_CONFIG_DIR": str(claude),
        "TRANSCRIPT_CLAUDE_CODE_RESUME_CMD": f"{script} --resume {{id}}",
    }
    result = run_cli("continue", str(document(tmp_path, str(project))), "--with", "claude", env=env)
    assert result.code == 0, result.stderr
    launched = json.loads(log.read_text())
    assert launched["cwd"] == str(project)
    assert launched["argv"][0] == "--resume"
    new_id = launched["argv"][1]
    assert new_id != "sess-1"
    (written,) = claude.glob("projects/*/*.jsonl")
    assert written.stem == new_id
    assert f"resuming: {script} --resume {new_id} (in {project})" in result.stderr


def test_a_missing_cwd_falls_back_to_the_current_directory_with_a_note(
    run_cli: RunCli, tmp_path: Path
) -> None:
    claude = tmp_path / "claude"
    env = {"CLAUDE_CONFIG_DIR": str(claude)}
    path = document(tmp_path, "/no/such/dir/anywhere")
    result = run_cli(
        "continue", str(path), "--with", "claude_code", "--no-resume", "--json", env=env
    )
    assert result.code == 0, result.stderr
    assert "session cwd `/no/such/dir/anywhere` does not exist here" in result.stderr
    row = json.loads(result.stdout)
    assert set(row) == {"harness", "id", "location", "resume_command", "cwd", "env"}
    assert row["harness"] == "claude_code"
    assert row["resume_command"] == ["claude", f"--resume={row['id']}"]
    lines = [json.loads(line) for line in Path(row["location"]).read_text().splitlines()]
    assert {line.get("cwd") for line in lines if "cwd" in line} == {str(Path.cwd())}


def test_out_writes_a_faithful_copy_and_does_not_launch(run_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "export-root"
    result = run_cli(
        "continue",
        str(document(tmp_path, "/home/dev/repo")),
        "--with",
        "claude_code",
        "--out",
        str(out),
    )
    assert result.code == 0, result.stderr
    mapped = UUID_IDS.adopt("sess-1")  # a faithful copy maps a non-UUID id to its UUIDv5
    assert f"resume with: CLAUDE_CONFIG_DIR={out} claude --resume={mapped}" in result.stdout
    assert f"session id `sess-1` is not a UUID; the copy is `{mapped}`" in result.stderr
    (written,) = out.glob(f"projects/*/{mapped}.jsonl")
    assert "/home/dev/repo" in written.read_text()


def test_a_range_cutting_a_tool_pair_is_refused_and_nothing_is_written(
    run_cli: RunCli, tmp_path: Path
) -> None:
    claude = tmp_path / "claude"
    path = document(tmp_path, None)
    result = run_cli(
        "continue",
        f"{path}#2",
        "--with",
        "claude_code",
        "--no-resume",
        env={"CLAUDE_CONFIG_DIR": str(claude)},
    )
    assert result.code == 2
    assert result.stderr == (
        "txcript: error: range #2 cuts a tool call away from its result — "
        "nearest valid range is #2-3\n"
    )
    assert not claude.exists()


def test_documents_need_with_and_simple_is_not_a_target(run_cli: RunCli, tmp_path: Path) -> None:
    path = document(tmp_path, None)
    missing = run_cli("continue", str(path))
    assert missing.code == 2 and "pass --with <harness>" in missing.stderr
    refused = run_cli("continue", str(path), "--with", "simple")
    assert refused.code == 2  # a refused target is bad input
    assert refused.stderr.startswith(
        "txcript: error: cannot convert to simple: simple is an interchange input"
    )


def test_a_harness_that_cannot_be_launched_is_found_before_writing(
    run_cli: RunCli, tmp_path: Path
) -> None:
    env = {
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "TRANSCRIPT_CLAUDE_CODE_RESUME_CMD": "no-such-claude-binary {id}",
    }
    result = run_cli("continue", str(document(tmp_path, None)), "--with", "claude_code", env=env)
    assert result.code == 1
    assert result.stderr.splitlines()[-1] == (
        "txcript: error: `no-such-claude-binary` is not on PATH, so nothing was written; install "
        "Claude Code, or pass --no-resume to write the copy without launching it"
    )
    assert not (tmp_path / "claude").exists()
