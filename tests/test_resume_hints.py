"""Printed hints work as printed: pasted into a shell from another directory, they find the copy.

A stand-in `claude` on PATH behaves like the real one where it matters: it looks for the
session only under the project directory of the cwd it is started in (and under
``CLAUDE_CONFIG_DIR`` when set), and records what it found.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from cli_helpers import claude_session, empty_cursor_database
from conftest import RunCli
from test_simple import EXPORTED
from txcript.harnesses.claude_code.store import encode_project

STAND_IN = """#!{python}
import json, os, sys
sys.path[:0] = {paths!r}
from txcript.harnesses.claude_code.store import encode_project
root = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.environ["HOME"], ".claude")
args = sys.argv[1:]
session = next(a.split("=", 1)[1] for a in args if a.startswith("--resume="))
path = os.path.join(root, "projects", encode_project(os.getcwd()), session + ".jsonl")
with open({log!r}, "w") as log:
    json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd(), "found": os.path.isfile(path)}}, log)
sys.exit(0 if os.path.isfile(path) else 3)
"""


def stand_in_claude(tmp_path: Path) -> tuple[Path, Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "claude-ran.json"
    script = bin_dir / "claude"
    script.write_text(STAND_IN.format(python=sys.executable, paths=sys.path, log=str(log)))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bin_dir, log


def run_hint(hint: str, cwd: Path, env: dict[str, str]) -> int:
    return subprocess.run(["/bin/sh", "-c", hint], cwd=cwd, env=env, timeout=60).returncode


def hint_of(stdout: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith("  resume with: ")]
    return line.removeprefix("  resume with: ")


def test_the_no_resume_hint_finds_the_copy_from_another_directory(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "my project's dir"  # a space and a quote: the hint must quote them
    project.mkdir()
    data = json.loads(EXPORTED)
    data["cwd"] = str(project)
    document = tmp_path / "session.json"
    document.write_text(json.dumps(data))
    bin_dir, log = stand_in_claude(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = run_cli("continue", str(document), "--with", "claude_code", "--no-resume")
    assert result.code == 0, result.stderr
    (written,) = (isolated_home / ".claude").glob("projects/*/*.jsonl")
    hint = hint_of(result.stdout)
    assert hint == f"cd {shlex.quote(str(project))} && claude --resume={written.stem}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run_hint(hint, elsewhere, env) == 0
    assert json.loads(log.read_text())["found"] is True
    # Without the cd, the same command from elsewhere would not find it: the cd is what works.
    assert run_hint(f"claude --resume={written.stem}", elsewhere, env) == 3


def test_the_out_hint_points_the_harness_at_the_directory(run_cli: RunCli, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    data = json.loads(EXPORTED)
    data["cwd"] = str(project)
    document = tmp_path / "session.json"
    document.write_text(json.dumps(data))
    out = tmp_path / "exported"
    bin_dir, log = stand_in_claude(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = run_cli("continue", str(document), "--with", "claude_code", "--out", str(out))
    assert result.code == 0, result.stderr
    (written,) = out.glob("projects/*/*.jsonl")
    hint = hint_of(result.stdout)
    assert hint == f"cd {project} && CLAUDE_CONFIG_DIR={out} claude --resume={written.stem}"
    assert run_hint(hint, tmp_path, env) == 0
    assert json.loads(log.read_text())["found"] is True


def test_the_codex_out_hint_names_codex_home(run_cli: RunCli, tmp_path: Path) -> None:
    document = tmp_path / "session.json"
    document.write_text(EXPORTED)
    out = tmp_path / "codex-out"
    result = run_cli("continue", str(document), "--with", "codex", "--out", str(out), "--json")
    assert result.code == 0, result.stderr
    kept = json.loads(result.stdout)["id"]
    human = run_cli("continue", str(document), "--with", "codex", "--out", str(out), "--replace")
    assert human.code == 0, human.stderr
    assert hint_of(human.stdout) == f"CODEX_HOME={out} codex resume {kept}"


def test_a_cursor_write_prints_the_id_the_sidebar_title_and_the_undo(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    data = json.loads(EXPORTED)
    data["title"] = "Fix the flaky test"
    document = tmp_path / "session.json"
    document.write_text(json.dumps(data))
    user_dir = tmp_path / "Cursor" / "User"
    empty_cursor_database(user_dir)
    env = {"CURSOR_DESKTOP_USER_DIR": str(user_dir)}
    result = run_cli(
        "continue", str(document), "--with", "cursor_desktop", "--no-resume", "--force", env=env
    )
    assert result.code == 0, result.stderr
    (row,) = json.loads(run_cli("list", "--json", env=env).stdout)
    new_id = row["id"]
    lines = result.stdout.splitlines()[1:]
    assert lines[:2] == [f"  id: {new_id}", "  in the sidebar as: Fix the flaky test"]
    assert lines[2] == "  resume with: cursor"
    assert lines[3].startswith("  undo with: txcript ") and len(lines) == 4
    undo = shlex.split(lines[3].removeprefix("  undo with: "))
    assert undo[1] == "restore"  # the row backup of the save, which the database keeps
    done = run_cli(*undo[1:], "--yes", "--force", env=env)  # --force: other runs look like Cursor
    assert done.code == 0, done.stderr
    assert json.loads(run_cli("list", "--json", env=env).stdout) == []


def test_an_in_place_continue_whose_cwd_is_gone_suggests_cwd_dot(
    run_cli: RunCli, tmp_path: Path, isolated_home: Path
) -> None:
    sid = "2d4f6a8c-1b3e-4d5f-8a7b-9c0d1e2f3a4b"
    claude_session(isolated_home / ".claude", sid, cwd=str(tmp_path / "gone"))
    before = sorted(p.name for p in (isolated_home / ".claude").rglob("*"))
    result = run_cli("continue", sid[:8], "--no-resume")
    assert result.code == 0, result.stderr
    assert result.stderr == (
        f"txcript: note: session cwd `{tmp_path / 'gone'}` no longer exists, and Claude Code "
        "finds a session only from its own directory; to continue it here, run: "
        f"txcript continue {sid} --cwd .\n"
    )
    assert result.stdout == f"  resume with: claude --resume={sid}\n"
    assert sorted(p.name for p in (isolated_home / ".claude").rglob("*")) == before
    assert encode_project(str(tmp_path / "gone"))  # the store keyed it by the gone directory
