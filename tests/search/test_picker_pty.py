"""The picker in a real pseudo-terminal: type, move, Enter continues; Esc leaves the terminal
as it found it."""

from __future__ import annotations

import os
import pty
import select
import sqlite3
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from searchfixtures import save_claude, transcript

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the picker needs a Unix terminal")

FIRST = "12121212-1212-4121-8121-121212121212"
SECOND = "34343434-3434-4343-8343-343434343434"
THIRD = "56565656-5656-4565-8565-565656565656"


def _spawn(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    leader, follower = pty.openpty()
    os.set_blocking(leader, False)
    recorder = tmp_path / "bin" / "claude"
    recorder.parent.mkdir()
    recorder.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/argv\n')
    recorder.chmod(0o755)
    env = dict(
        os.environ,
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        TXCRIPT_CACHE_DIR=str(tmp_path / "cache"),
        PATH=f"{recorder.parent}:{os.environ['PATH']}",
        TERM="xterm-256color",
        COLUMNS="100",
        LINES="20",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "txcript", "query", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=tmp_path,
        start_new_session=True,
    )
    os.close(follower)
    return process, leader


def _read_until(leader: int, needle: bytes, seconds: float = 20.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"never saw {needle!r}; screen so far: {seen[-800:]!r}")
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                seen += os.read(leader, 65536)
            except OSError:
                break
    return seen


def _drain(leader: int, process: subprocess.Popen[bytes]) -> bytes:
    seen = b""
    deadline = time.monotonic() + 20
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if ready:
            try:
                seen += os.read(leader, 65536)
            except OSError:
                break
    return seen


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    save_claude(root, transcript(FIRST, [("user", "refactor the billing module")], day=1))
    save_claude(root, transcript(SECOND, [("user", "the auth bug is back")], title="Auth", day=2))
    (tmp_path / "work").mkdir()
    return tmp_path


def _type_billing(stores: Path, keys: bytes, before: Callable[[], None] = lambda: None) -> bytes:
    """Open the picker, run ``before`` once it lists both sessions, type ``billing``, press
    ``keys`` once it shows its one match; what it wrote from then on (it must exit 0)."""
    process, leader = _spawn(stores)
    try:
        _read_until(leader, b"2/2")
        before()
        os.write(leader, b"billing")
        _read_until(leader, b"1 matches")
        os.write(leader, keys)
        tail = _drain(leader, process)
        assert process.wait(20) == 0, tail
    finally:
        os.close(leader)
    return tail


def test_type_move_and_enter_continues_the_pick(stores: Path) -> None:
    tail = _type_billing(stores, b"\x1b[B\x1b[A\r")  # down, up (clamped), Enter
    assert (stores / "argv").read_text().splitlines() == [f"--resume={FIRST}"]
    assert b"\x1b[?1049l" in tail  # the alternate screen was left


def test_escape_cancels_and_restores_the_terminal(stores: Path) -> None:
    process, leader = _spawn(stores)
    try:
        before = termios.tcgetattr(leader)
        _read_until(leader, b"2/2")
        os.write(leader, b"\x1b")
        tail = _drain(leader, process)
        assert process.wait(20) == 0, tail
        assert termios.tcgetattr(leader)[3] == before[3]  # local modes (echo, icanon) are back
    finally:
        os.close(leader)
    assert not (stores / "argv").exists()
    assert b"\x1b[?1049l" in tail


def test_sigterm_exits_cleanly_and_restores_the_terminal(stores: Path) -> None:
    process, leader = _spawn(stores)
    try:
        _read_until(leader, b"2/2")
        process.terminate()
        tail = _drain(leader, process)
        assert process.wait(20) == 0, tail
    finally:
        os.close(leader)
    assert b"\x1b[?1049l" in tail


def test_every_row_fits_the_terminal_and_shows_its_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picker's rows, as drawn: on an 80-column terminal a hit line has 9 cells, and it
    was cut from its start, so no row showed its match; a wide (CJK) title took 48 cells of
    its 24 and pushed the line off the screen; and the line was scrubbed without keeping its
    offsets, so after an escape sequence the highlight fell on the wrong characters (or on
    none). Each row now fits the width, shows the line from just before its match, and
    highlights exactly the matched word."""
    from prompt_toolkit.utils import get_cwidth

    from txcript.cli.picker import _Picker
    from txcript.search import DEFAULT_ORIGINS, indexed_sessions, open_index

    root = tmp_path / "claude"
    wide = "数据库迁移问题修复" * 6
    save_claude(root, transcript(FIRST, [("user", "\x1b[31mred\x1b[0m then the zebra word")]))
    save_claude(root, transcript(SECOND, [("user", f"{wide} zebra")], title=wide, day=1))
    long = "a long line of words that goes on and on and on before the zebra appears at last"
    save_claude(root, transcript(THIRD, [("user", long)], day=2))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    index = open_index()
    try:
        picker = _Picker(indexed_sessions(index), index, DEFAULT_ORIGINS)
        for width in (80, 100, 160):
            picker.refresh("zebra", 10)
            drawn = picker.render(width)
            rows = "".join(text for _, text in drawn).split("\n")[1:4]
            assert all(get_cwidth(row) <= width for row in rows), (width, rows)
            assert not any("\x1b" in row for row in rows)
            assert [text for style, text in drawn if "match" in style] == ["zebra"] * 3
    finally:
        index.close()


def test_the_pick_continues_even_beside_a_file_named_as_its_id(stores: Path) -> None:
    """Enter ran ``continue <id>``, whose REF is a file first when one of that name exists:
    a file in the current directory named as the picked session's id (a Gemini id may be any
    file name, ``notes.json`` say) was read as the document to continue instead, and the pick
    failed as malformed, or continued something else. The pick is looked up as a session."""
    (stores / FIRST).write_text("not a session document\n")
    _type_billing(stores, b"\r")
    assert (stores / "argv").read_text().splitlines() == [f"--resume={FIRST}"]


def test_damage_met_while_typing_goes_on_with_one_warning(stores: Path) -> None:
    """The picker reads the index as the user types, long after opening it, and met damage
    there with no fallback: prompt_toolkit printed the DatabaseError's traceback over the
    screen and waited for Enter. Like ``txcript query``, it now goes on over an index built
    again, and the one warning is printed once the screen is left."""

    def damage() -> None:
        conn = sqlite3.connect(stores / "cache" / "search.sqlite3")
        conn.execute("UPDATE body SET said = x'00112233'")  # no zstd frame: the parts are lost
        conn.commit()
        conn.close()

    tail = _type_billing(stores, b"\x1b", before=damage)
    assert b"Traceback" not in tail
    left = tail.rindex(b"\x1b[?1049l")
    assert tail[left:].count(b"txcript: warning: search cache damaged") == 1


@given(
    st.text(alphabet="ab 数é\x1b[3m🎉\t\u0301", max_size=80),
    st.integers(min_value=0, max_value=80),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=0, max_value=40),
)
def test_a_fitted_hit_line_fits_and_shows_a_match_that_fits(
    text: str, at: int, length: int, width: int
) -> None:
    """A row's hit line never takes more cells than it is given (a cut of a width under three
    once gave "……"), and a match narrower than half of them is shown whole (one ending on the
    last cell once lost its last character to the cut's "…")."""
    from prompt_toolkit.utils import get_cwidth

    from txcript.cli.picker import _fitted
    from txcript.shared.text import scrub

    at = min(at, len(text))
    end = min(at + length, len(text))
    runs = _fitted(text, ((at, end),) if at < end else (), width)
    assert get_cwidth("".join(part for part, _ in runs)) <= width
    matched = "".join(part for part, is_match in runs if is_match)
    target = scrub(text, keep_offsets=True)[at:end]
    if width >= 3 and at < end and get_cwidth(target) + 2 <= width // 2:
        assert matched == target
