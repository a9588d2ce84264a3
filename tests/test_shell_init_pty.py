"""``txcript init bash|zsh``, in a real interactive shell on a pty: the key opens the picker over
the prompt, Enter continues the pick in its harness with the terminal handed over (its stdin and
stdout are the terminal), and the prompt comes back when the harness exits; Esc goes back to the
prompt with nothing run."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from cli_helpers import claude_session

pytestmark = pytest.mark.skipif(os.name != "posix", reason="shell integration needs a Unix pty")

BILLING = "12121212-1212-4121-8121-121212121212"
AUTH = "34343434-3434-4343-8343-343434343434"
PROMPT = b"ready$ "
SHELLS = {
    "bash": ["bash", "--norc", "--noprofile", "-i"],
    "zsh": ["zsh", "-f", "-i"],
}


def _read_until(leader: int, needle: bytes, seconds: float = 30.0, then: bytes = b"") -> bytes:
    """What the terminal showed until ``needle`` (and ``then`` after it, when given)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen or then not in seen[seen.index(needle) + len(needle) :]:
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {needle!r}; the terminal so far: {seen[-800:]!r}")
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                seen += os.read(leader, 65536)
            except OSError:
                break
    return seen


@pytest.fixture
def home(tmp_path: Path, isolated_home: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "txcript"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m txcript "$@"\n')
    stand_in = bin_dir / "claude"  # records what it was given, and whether it has the terminal
    stand_in.write_text(
        "#!/bin/sh\n"
        "[ -t 0 ] && a=stdin-tty\n"
        "[ -t 1 ] && b=stdout-tty\n"
        f'printf "%s\\n" "$@" $a $b > {tmp_path}/argv\n'
    )
    for script in (launcher, stand_in):
        script.chmod(0o755)
    claude_session(isolated_home / ".claude", BILLING, text="refactor the billing module")
    claude_session(isolated_home / ".claude", AUTH, text="the auth bug is back", title="Auth")
    return tmp_path


def _shell(home: Path, shell: str) -> tuple[subprocess.Popen[bytes], int]:
    if shutil.which(shell) is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {shell} is not installed (.ci/run installs it)")
        pytest.skip(f"{shell} is not installed")
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    env = {
        **os.environ,
        "PATH": f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "TXCRIPT_CACHE_DIR": str(home / "cache"),
        "TERM": "xterm-256color",
        "COLUMNS": "100",
        "LINES": "24",
        "PS1": PROMPT.decode(),
    }
    process = subprocess.Popen(
        SHELLS[shell],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=home,
        start_new_session=True,
        # The pty is the shell's controlling terminal (its /dev/tty), as a terminal makes it.
        preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
    )
    os.close(follower)
    os.write(leader, f'eval "$(txcript init {shell})"; echo init-$((40+2))\r'.encode())
    _read_until(leader, b"init-42", then=PROMPT)  # keys typed before the prompt are echoed
    return process, leader


def _leave(process: subprocess.Popen[bytes], leader: int) -> None:
    """The prompt is back and works: it runs a command, then exits."""
    try:
        os.write(leader, b"echo back-$((6*7))\r")
        _read_until(leader, b"back-42")
        os.write(leader, b"exit\r")
        assert process.wait(30) == 0
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()


@pytest.mark.parametrize("shell", list(SHELLS))
def test_the_key_opens_the_picker_and_enter_hands_the_terminal_to_the_harness(
    home: Path, shell: str
) -> None:
    process, leader = _shell(home, shell)
    os.write(leader, b"\x18\x12")  # ctrl-x ctrl-r
    _read_until(leader, b"2/2")
    os.write(leader, b"billing")
    _read_until(leader, b"1 match")
    os.write(leader, b"\r")
    deadline = time.monotonic() + 30
    while not (home / "argv").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    _leave(process, leader)
    assert (home / "argv").read_text().splitlines() == [
        f"--resume={BILLING}",
        "stdin-tty",
        "stdout-tty",
    ]


@pytest.mark.parametrize("shell", list(SHELLS))
def test_escape_goes_back_to_the_prompt(home: Path, shell: str) -> None:
    process, leader = _shell(home, shell)
    os.write(leader, b"\x18\x12")
    _read_until(leader, b"2/2")
    os.write(leader, b"\x1b")
    time.sleep(1)
    _leave(process, leader)
    assert not (home / "argv").exists()


@pytest.mark.parametrize("shell", list(SHELLS))
def test_another_key_can_open_it(home: Path, shell: str) -> None:
    process, leader = _shell(home, shell)
    os.write(
        leader, f'eval "$(txcript init {shell} --key alt-s)"; echo rebound-$((1+1))\r'.encode()
    )
    _read_until(leader, b"rebound-2", then=PROMPT)
    os.write(leader, b"\x1bs")  # alt-s
    _read_until(leader, b"2/2")
    os.write(leader, b"\x1b")
    time.sleep(1)
    _leave(process, leader)
