"""Item 4 of the hostile-store review: special files neither hang nor exhaust memory.

Every store file and document is opened only when it is a regular file (``O_NONBLOCK`` +
``fstat``) and read under a documented cap; a file that breaks a rule is skipped with a warning
and the command goes on. Each run is bounded by a timeout, so a regression fails instead of
hanging CI.
"""

from __future__ import annotations

import json
import os
import select
import termios
import threading
from pathlib import Path

import pytest
from hostile_support import (
    UUID_A,
    UUID_B,
    claude_lines,
    codex_lines,
    codex_rollout_path,
    one_line_error,
    run_limited,
    simple_doc,
    snapshot,
    write_json,
)

from cli_helpers import empty_cursor_database

TIMEOUT = 30


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    return {
        "HOME": str(isolated_home),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "CURSOR_DESKTOP_USER_DIR": str(tmp_path / "cursor"),
        "TXCRIPT_DATA_DIR": str(tmp_path / "data"),
        "TXCRIPT_CACHE_DIR": str(tmp_path / "cache"),
    }


def _roots(env: dict[str, str]) -> tuple[Path, ...]:
    keys = (
        "HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "CURSOR_DESKTOP_USER_DIR",
        "TXCRIPT_DATA_DIR",
    )
    return tuple(Path(env[k]) for k in keys)


def _snap(env: dict[str, str]) -> dict[str, tuple[object, ...]]:
    return snapshot(*_roots(env), exclude=(Path(env["TXCRIPT_CACHE_DIR"]),))


def _special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        raise AssertionError(kind)


def _good_claude(env: dict[str, str]) -> None:
    path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-tmp" / f"{UUID_A}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(claude_lines(UUID_A))


def _good_codex(env: dict[str, str]) -> Path:
    path = codex_rollout_path(Path(env["CODEX_HOME"]), UUID_B)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(codex_lines(UUID_B))
    return path


def _list(env: dict[str, str], *extra: str) -> tuple[int, list[dict[str, object]], str]:
    done = run_limited(["list", "--json", *extra], env, timeout=TIMEOUT)
    stderr = done.stderr.decode()
    rows = json.loads(done.stdout) if done.returncode == 0 else []
    return done.returncode, rows, stderr


@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize(
    ("where", "needle"),
    [
        ("claude_session", "is a "),
        ("claude_side_file", "leaving out side file"),
        ("codex_rollout", "is a "),
        ("codex_index", "ignoring thread names"),
    ],
)
def test_a_special_store_file_is_skipped_with_a_warning_and_the_rest_is_listed(
    env: dict[str, str], kind: str, where: str, needle: str
) -> None:
    """A FIFO hung ``list``; a link to ``/dev/zero`` allocated until the kernel killed it."""
    _good_claude(env)
    _good_codex(env)
    claude_dir = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-tmp"
    targets = {
        "claude_session": claude_dir / f"{UUID_B}.jsonl",
        "claude_side_file": claude_dir / UUID_A / "subagents" / "agent-1.jsonl",
        "codex_rollout": codex_rollout_path(Path(env["CODEX_HOME"]), UUID_A),
        "codex_index": Path(env["CODEX_HOME"]) / "session_index.jsonl",
    }
    _special(targets[where], kind)
    before = _snap(env)
    if where == "claude_side_file":
        done = run_limited(["export", UUID_A, "--format", "native"], env, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        assert needle in done.stderr.decode()
    else:
        code, rows, stderr = _list(env)
        assert code == 0, stderr
        assert {row["id"] for row in rows} == {UUID_A, UUID_B}
        assert needle in stderr and "warning" in stderr
    assert _snap(env) == before


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_special_cursor_database_is_refused_without_blocking(
    env: dict[str, str], kind: str
) -> None:
    _good_claude(env)
    _special(Path(env["CURSOR_DESKTOP_USER_DIR"]) / "globalStorage" / "state.vscdb", kind)
    before = _snap(env)
    code, rows, stderr = _list(env)
    assert code == 0 and [row["id"] for row in rows] == [UUID_A]
    assert "skipping cursor_desktop" in stderr
    done = run_limited(["list", "--from", "cursor_desktop"], env, timeout=TIMEOUT)
    assert done.returncode == 2
    assert "is not a database" in done.stderr.decode()
    assert _snap(env) == before


@pytest.mark.parametrize("kind", ["fifo", "zero", "nested", "huge"])
def test_a_hostile_workspace_json_is_left_out_and_continue_goes_on(
    env: dict[str, str], tmp_path: Path, kind: str
) -> None:
    """``workspace.json`` as a FIFO hung ``continue``; as ``/dev/zero`` it exhausted memory; a
    100k-level nesting was an ``internal error``. It is now left out with a warning."""
    manifest = Path(env["CURSOR_DESKTOP_USER_DIR"]) / "workspaceStorage" / "abc" / "workspace.json"
    if kind == "nested":
        manifest.parent.mkdir(parents=True)
        manifest.write_text('{"folder":' + "[" * 100_000 + "]" * 100_000 + "}")
    elif kind == "huge":
        manifest.parent.mkdir(parents=True)
        with manifest.open("wb") as handle:
            handle.truncate(65 << 20)  # sparse: over the 64 MiB cap without using the disk
    else:
        _special(manifest, kind)
    doc = write_json(tmp_path / "doc.json", simple_doc(UUID_A, cwd=str(tmp_path)))
    empty_cursor_database(Path(env["CURSOR_DESKTOP_USER_DIR"]))
    done = run_limited(
        ["continue", str(doc), "--with", "cursor_desktop", "--no-resume", "--force"],
        env,
        timeout=TIMEOUT,
    )
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    if kind in ("fifo", "zero", "huge"):
        assert "ignoring workspace abc" in stderr
    assert "internal error" not in stderr


def _reader(path: Path, sink: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as handle:
            sink.append(handle.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_export_out_onto_a_fifo_writes_into_it_and_keeps_it(
    env: dict[str, str], tmp_path: Path
) -> None:
    _good_claude(env)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = _reader(fifo, received)
    done = run_limited(["export", UUID_A, "--out", str(fifo)], env, timeout=TIMEOUT)
    reader.join(TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert json.loads(received[0])["id"] == UUID_A
    assert fifo.is_fifo()


def test_convert_out_onto_a_fifo_without_reader_refuses_instead_of_blocking(
    env: dict[str, str], tmp_path: Path
) -> None:
    doc = write_json(tmp_path / "doc.json", simple_doc())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    before = _snap(env) | snapshot(tmp_path, exclude=(Path(env["TXCRIPT_CACHE_DIR"]),))
    done = run_limited(
        ["convert", "--from", "simple", "--to", "common", str(doc), "--out", str(fifo)],
        env,
        timeout=TIMEOUT,
    )
    assert done.returncode == 1
    assert "is a FIFO with no reader" in done.stderr.decode()
    assert fifo.is_fifo()
    assert _snap(env) | snapshot(tmp_path, exclude=(Path(env["TXCRIPT_CACHE_DIR"]),)) == before


def test_out_onto_a_device_writes_into_it_and_out_dash_is_stdout(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``--out`` onto a device replaced the device with a regular file (as root, ``--out
    /dev/null`` replaced the system's ``/dev/null``). The device here is a private pty, never a
    shared one, so a regression cannot damage the machine the tests run on."""
    doc = write_json(tmp_path / "doc.json", simple_doc())
    args = ["convert", "--from", "simple", "--to", "common", str(doc)]
    master, slave = os.openpty()
    try:
        device = Path(os.ttyname(slave))
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.OPOST  # no newline translation: the bytes arrive as written
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        to_device = run_limited([*args, "--out", str(device)], env, timeout=TIMEOUT)
        assert to_device.returncode == 0, to_device.stderr
        assert to_device.stdout == b""
        assert device.is_char_device()
        received = b""
        while select.select([master], [], [], 2)[0]:
            received += os.read(master, 1 << 16)
            if received.endswith(b"}\n"):
                break
        assert json.loads(received)["meta"]["id"] == UUID_A
    finally:
        os.close(slave)
        os.close(master)
    dash = run_limited([*args, "--out", "-"], env, timeout=TIMEOUT)
    assert dash.returncode == 0 and json.loads(dash.stdout)["meta"]["id"] == UUID_A
    assert not (Path.cwd() / "-").exists()


def test_a_document_over_its_cap_is_refused_before_it_is_read(
    env: dict[str, str], tmp_path: Path
) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate((512 << 20) + 1)  # sparse
    done = run_limited(["view", str(big)], env, timeout=TIMEOUT)
    assert done.returncode == 2
    assert "over the 512 MiB limit" in done.stderr.decode()


def test_a_document_fifo_the_user_names_is_read_like_stdin(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``txcript view <(cat doc.json)`` hands over a pipe: it is the user's input and is read."""
    fifo = tmp_path / "doc-pipe"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as handle:
            handle.write(json.dumps(simple_doc()))

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = run_limited(["view", str(fifo)], env, timeout=TIMEOUT)
    writer.join(TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "hello" in done.stdout.decode()


def test_a_compressed_rollout_is_read_through_the_regular_file_rules(
    env: dict[str, str],
) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = codex_rollout_path(Path(env["CODEX_HOME"]), UUID_B)
    path.parent.mkdir(parents=True)
    Path(str(path) + ".zst").write_bytes(
        zstandard.ZstdCompressor().compress(codex_lines(UUID_B).encode())
    )
    fifo = codex_rollout_path(Path(env["CODEX_HOME"]), UUID_A)
    _special(Path(str(fifo) + ".zst"), "fifo")
    code, rows, stderr = _list(env, "--from", "codex")
    assert code == 0, stderr
    assert [row["id"] for row in rows] == [UUID_B]
    assert "is a FIFO" in stderr
    done = run_limited(["view", UUID_B], env, timeout=TIMEOUT)
    assert done.returncode == 0 and "hello" in done.stdout.decode()


def test_one_line_error_helper_rejects_tracebacks() -> None:
    from conftest import CliResult

    with pytest.raises(AssertionError):
        one_line_error(CliResult(1, "", "txcript: error: internal error: OSError: x\n"), 1)
