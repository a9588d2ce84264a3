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
from typing import Any

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


def _type_billing(
    stores: Path, keys: bytes, before: Callable[[], None] = lambda: None, code: int = 0
) -> bytes:
    """Open the picker, run ``before`` once it lists both sessions, type ``billing``, press
    ``keys`` once it shows its one match; what it wrote from then on (it must exit ``code``)."""
    process, leader = _spawn(stores)
    try:
        _read_until(leader, b"2/2")
        before()
        os.write(leader, b"billing")
        _read_until(leader, b"1 match")
        os.write(leader, keys)
        tail = _drain(leader, process)
        assert process.wait(20) == code, tail
    finally:
        os.close(leader)
    return tail


def test_type_move_and_enter_continues_the_pick(stores: Path) -> None:
    tail = _type_billing(stores, b"\x1b[B\x1b[A\r")  # down, up (clamped), Enter
    assert (stores / "argv").read_text().splitlines() == [f"--resume={FIRST}"]
    assert b"\x1b[?1049l" in tail  # the alternate screen was left


@pytest.mark.parametrize("key", [b"\x1b", b"\x03"], ids=["esc", "ctrl-c"])
def test_escape_cancels_exits_130_and_restores_the_terminal(stores: Path, key: bytes) -> None:
    """Esc or ctrl-c leaves with 130, as fzf does (it exited 0, as if a pick had run)."""
    process, leader = _spawn(stores)
    try:
        before = termios.tcgetattr(leader)
        _read_until(leader, b"2/2")
        os.write(leader, key)
        tail = _drain(leader, process)
        assert process.wait(20) == 130, tail
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

    tail = _type_billing(stores, b"\x1b", before=damage, code=130)
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


# ------------------------------------------------------ one row per session, scroll, preview


def _many(root: Path, count: int) -> list[str]:
    """``count`` sessions that each mention the invoice once, newest last; and one talkative
    session (the oldest) that mentions it on forty lines."""
    ids = [f"{n:08x}-0000-4000-8000-{n:012x}" for n in range(1, count + 1)]
    talkative = "7a1c0000-0000-4000-8000-00000000abcd"
    lines = [("user" if i % 2 == 0 else "assistant", f"invoice line {i}") for i in range(40)]
    save_claude(root, transcript(talkative, lines, title="Talkative", day=0))
    for day, session_id in enumerate(ids, start=1):
        save_claude(
            root,
            transcript(
                session_id,
                [("user", "hello"), ("assistant", f"the invoice of day {day}"), ("user", "ok")],
                day=day,
            ),
        )
    return [*reversed(ids), talkative]


def _picker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    from txcript.cli.picker import _Picker
    from txcript.search import DEFAULT_ORIGINS, indexed_sessions, open_index

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    index = open_index()
    return _Picker(indexed_sessions(index), index, DEFAULT_ORIGINS)


def test_one_row_per_session_scrolls_to_every_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a row per matching line, capped at the window, so one talkative session
    hid the others. Now each session is one row (its best line), and the cursor scrolls to the
    last of them, matches beyond the first page fetched as it goes."""
    from txcript.cli import picker as module

    monkeypatch.setattr(module, "PAGE", 5)
    newest_first = _many(tmp_path / "claude", 12)
    state = _picker(tmp_path, monkeypatch)
    try:
        state.refresh("invoice", 4)
        assert len({session.meta_id for session, _ in state.rows}) == len(state.rows)
        for _ in range(40):
            state.move(1, 4)
        assert [session.meta_id for session, _ in state.rows] == newest_first
        assert state.rows[state.selected][0].meta_id == newest_first[-1]  # the talkative one
        drawn = "".join(text for _, text in state.render(100, 4))
        assert drawn.count("\n") == 5 and "Talkative" in drawn  # the summary and 4 rows in view
        state.refresh("invoice line", 4)  # a new pattern: back to the best match
        assert (state.selected, state.top) == (0, 0)
    finally:
        state.index.close()


def test_the_preview_shows_the_hit_in_context_and_its_message_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_claude(
        tmp_path / "claude",
        transcript(
            FIRST,
            [("user", "start here"), ("assistant", "the zebra is here"), ("user", "after it")],
        ),
    )
    state = _picker(tmp_path, monkeypatch)
    try:
        state.refresh("zebra", 5)
        row = "".join(text for _, text in state.render(120, 5)).split("\n")[1]
        assert "#2" in row  # the hit's message, as `view` numbers it
        shown = state.preview(100, 6)
        text = "".join(part for _, part in shown)
        assert text.splitlines()[0].startswith(f"── txcript view {FIRST}#2 ")
        assert [line.split()[0] for line in text.splitlines()[1:]] == ["#1", "#2", "#3"]
        assert "start here" in text and "after it" in text
        assert [part for style, part in shown if "match" in style] == ["zebra"]
    finally:
        state.index.close()


def test_scrolling_in_a_real_terminal_reaches_the_oldest_match(tmp_path: Path) -> None:
    """In a 20-line terminal, 30 matching sessions: page down to the last and Enter."""
    newest_first = _many(tmp_path / "claude", 30)
    (tmp_path / "work").mkdir()
    process, leader = _spawn(tmp_path)
    try:
        _read_until(leader, b"/31")
        os.write(leader, b"invoice")
        _read_until(leader, b" matches")
        os.write(leader, b"\x1b[6~" * 8)  # page down, past the end
        time.sleep(0.5)
        os.write(leader, b"\r")
        tail = _drain(leader, process)
        assert process.wait(20) == 0, tail
    finally:
        os.close(leader)
    assert (tmp_path / "argv").read_text().splitlines() == [f"--resume={newest_first[-1]}"]
