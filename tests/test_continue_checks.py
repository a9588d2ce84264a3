"""`continue`, `delete` and `list` check what they can before writing anything.

Each test runs the CLI as a subprocess and asserts the exact error line, the exit code, and that
nothing was written where the check applies.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from cli_helpers import claude_session, empty_cursor_database
from conftest import CliResult, RunCli
from test_simple import EXPORTED
from txcript.harnesses import REGISTRY

SID = "5b8e2c1a-3d4f-4a6b-9c8d-7e6f5a4b3c2d"
WORKING = ", ".join(i.id for i in REGISTRY if i.implemented)


def one_line_error(result: CliResult, code: int, line: str) -> None:
    assert result.code == code, result
    assert result.stderr == f"txcript: error: {line}\n", result.stderr


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (empty when it does not exist), to compare before and after."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    data = json.loads(EXPORTED)
    data["cwd"] = str(project)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def claude_env(tmp_path: Path) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}


def empty_path(tmp_path: Path) -> str:
    """A PATH on which no harness binary exists."""
    directory = tmp_path / "empty-bin"
    directory.mkdir(exist_ok=True)
    return str(directory)


def test_a_cwd_that_is_not_a_directory_is_bad_input_and_nothing_is_written(
    run_cli: RunCli, doc: Path, tmp_path: Path, claude_env: dict[str, str]
) -> None:
    missing = tmp_path / "no-such-dir"
    result = run_cli(
        "continue", str(doc), "--with", "claude_code", "--cwd", str(missing), env=claude_env
    )
    one_line_error(result, 2, f"--cwd `{missing}` is not a directory")
    assert not (tmp_path / "claude").exists()
    result = run_cli(
        "continue", str(doc), "--with", "claude_code", "--cwd", str(doc), env=claude_env
    )
    one_line_error(result, 2, f"--cwd `{doc}` is not a directory")
    assert not (tmp_path / "claude").exists()


def test_a_missing_harness_binary_is_found_before_writing(
    run_cli: RunCli, doc: Path, tmp_path: Path, claude_env: dict[str, str]
) -> None:
    env = {**claude_env, "PATH": empty_path(tmp_path)}
    result = run_cli("continue", str(doc), "--with", "claude_code", env=env)
    one_line_error(
        result,
        1,
        "`claude` is not on PATH, so nothing was written; install Claude Code, or pass "
        "--no-resume to write the copy without launching it",
    )
    assert not (tmp_path / "claude").exists()
    written = run_cli("continue", str(doc), "--with", "claude_code", "--no-resume", env=env)
    assert written.code == 0, written.stderr
    assert len(tree(tmp_path / "claude")) == 1


def test_a_launch_that_fails_after_writing_says_the_copy_exists(
    run_cli: RunCli, doc: Path, tmp_path: Path, claude_env: dict[str, str]
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    broken = bin_dir / "claude"
    broken.write_text("#!/no/such/interpreter\n")
    broken.chmod(broken.stat().st_mode | stat.S_IXUSR)
    env = {**claude_env, "PATH": str(bin_dir)}
    result = run_cli("continue", str(doc), "--with", "claude_code", env=env)
    assert result.code == 1
    (written,) = (tmp_path / "claude").glob("projects/*/*.jsonl")
    last = result.stderr.splitlines()[-1]
    assert last == (
        "txcript: error: failed to launch `claude`: No such file or directory; the copy is "
        f"written at {written}; resume it with: cd {tmp_path / 'project'} && claude --resume="
        f"{written.stem}"
    )


def test_a_native_session_file_without_with_goes_to_its_own_harness(
    run_cli: RunCli, tmp_path: Path, claude_env: dict[str, str]
) -> None:
    source = claude_session(tmp_path / "elsewhere", SID, title="native file", cwd=str(tmp_path))
    result = run_cli("continue", str(source), "--no-resume", env=claude_env)
    assert result.code == 0, result.stderr
    (written,) = (tmp_path / "claude").glob("projects/*/*.jsonl")
    assert written.stem != SID
    assert result.stdout.startswith(f"claude_code → claude_code  {written}\n")
    simple = tmp_path / "doc.json"
    simple.write_text(EXPORTED)
    refused = run_cli("continue", str(simple), env=claude_env)
    one_line_error(
        refused,
        2,
        "a simple document has no harness of its own to resume; pass --with <harness> "
        "(e.g. --with claude_code)",
    )


def test_out_keeps_an_existing_copy_unless_replace(
    run_cli: RunCli, doc: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = run_cli("continue", str(doc), "--with", "claude_code", "--out", str(out), "--json")
    assert first.code == 0, first.stderr
    kept = json.loads(first.stdout)["id"]  # the source id, or the UUID it maps to
    before = tree(out)
    again = run_cli("continue", str(doc), "--with", "claude_code", "--out", str(out))
    one_line_error(
        again,
        2,
        f"claude_code under {out} already holds a session `{kept}`; refusing to overwrite it "
        "(pass --replace to replace it)",
    )
    assert tree(out) == before
    replaced = run_cli(
        "continue", str(doc), "--with", "claude_code", "--out", str(out), "--replace"
    )
    assert replaced.code == 0, replaced.stderr


def test_help_explains_force_and_replace(run_cli: RunCli) -> None:
    out = " ".join(run_cli("continue", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "--force Write into the live store even while the app (Cursor) is running." in out
    assert "--replace With --out: replace a session with the same id already in DIR." in out


@pytest.mark.parametrize(
    ("target", "line"),
    [
        (
            "simple",
            "cannot convert to simple: simple is an interchange input; sessions are continued "
            "from documents, not written into them (use `txcript export` to write one)",
        ),
        (
            "common",
            "cannot convert to common: common is an interchange input; sessions are continued "
            "from documents, not written into them (use `txcript export --format common` to "
            "write one)",
        ),
        ("nope", f"unknown harness `nope` (expected one of: {WORKING})"),
    ],
)
def test_refused_targets_are_bad_input_and_write_nothing(
    run_cli: RunCli, doc: Path, isolated_home: Path, target: str, line: str
) -> None:
    before = tree(isolated_home)
    result = run_cli("continue", str(doc), "--with", target, "--no-resume")
    one_line_error(result, 2, line)
    assert tree(isolated_home) == before


def test_an_inverted_time_range_is_bad_input(run_cli: RunCli) -> None:
    result = run_cli("list", "--since", "2026-09-01", "--until", "2026-08-01")
    one_line_error(result, 2, "--since 2026-09-01 is after --until 2026-08-01")


def test_delete_without_from_finds_the_one_session_in_every_store(
    run_cli: RunCli, tmp_path: Path, claude_env: dict[str, str]
) -> None:
    path = claude_session(tmp_path / "claude", SID, title="to delete")
    other = claude_session(
        tmp_path / "claude", "5b8e2c1a-0000-4000-8000-000000000000", title="keep"
    )
    ambiguous = run_cli("delete", "5b8e2c1a", "--yes", env=claude_env)
    assert ambiguous.code == 2 and "prefixes the ids of 2 sessions" in ambiguous.stderr
    assert path.exists() and other.exists()
    result = run_cli("delete", SID[:12], "--yes", env=claude_env)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith(f"deleted claude_code session {SID}\n")
    assert not path.exists() and other.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process names from /proc")
def test_out_into_a_fresh_directory_is_not_refused_while_cursor_runs(
    run_cli: RunCli, doc: Path, tmp_path: Path, isolated_home: Path
) -> None:
    import shutil
    import subprocess
    import time

    sleep = shutil.which("sleep")
    assert sleep is not None
    binary = tmp_path / "bin" / "cursor"
    binary.parent.mkdir()
    shutil.copy(sleep, binary)
    process = subprocess.Popen([str(binary), "30"])
    try:
        deadline = time.monotonic() + 5
        comm = Path(f"/proc/{process.pid}/comm")
        while time.monotonic() < deadline and not (
            comm.exists() and comm.read_text().strip() == "cursor"
        ):
            time.sleep(0.01)
        out = tmp_path / "cursor-out"
        result = run_cli("continue", str(doc), "--with", "cursor_desktop", "--out", str(out))
        assert result.code == 0, result.stderr
        assert (out / "globalStorage" / "state.vscdb").is_file()
        empty_cursor_database(isolated_home / ".config" / "Cursor" / "User")
        live = run_cli("continue", str(doc), "--with", "cursor_desktop", "--no-resume")
        assert live.code == 1 and "Cursor is running" in live.stderr
    finally:
        process.kill()
        process.wait()
    assert os.environ.get("CURSOR_DESKTOP_USER_DIR") is None


def test_a_declared_harness_not_built_yet_is_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """A registry entry without a package is known but refused, with what does work (and, for
    an id another one extends, that one): every declared harness is built today, so one is
    declared here."""
    from txcript import harnesses
    from txcript.errors import BadInput
    from txcript.harnesses.declare import HarnessInfo

    for name, shown in (("nova", "Nova"), ("cursor_next", "Cursor next")):
        monkeypatch.setitem(harnesses._BY_NAME, name, HarnessInfo(name, shown))
    with pytest.raises(BadInput) as plain:
        harnesses.get("nova")
    assert str(plain.value) == f"harness `nova` (Nova) is not supported yet (supported: {WORKING})"
    with pytest.raises(BadInput) as near:
        harnesses.get("cursor_next")
    assert "; did you mean cursor?" in str(near.value)
