"""Session text never drives the terminal: one sanitizer for every human output.

An attack corpus (screen clears, window titles, OSC 52 clipboard writes, OSC 8 links, DCS, C1
bytes, BEL, bare CR, BS, DEL, lone ESC) is planted in session titles and messages; `list` and
`view` on a real pty must show the words and never the controls, while `--json` and pipes keep
the text exactly.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import claude_session, run_on_pty
from conftest import RunCli
from strategies import transcripts
from txcript.cli.listing import list_lines
from txcript.cli.output import line_text
from txcript.harnesses.base import Discovered
from txcript.render import view
from txcript.shared.text import scrub, scrub_block

ATTACKS = [
    "\x1b[2J\x1b[H",  # clear the screen, cursor home
    "\x1b]0;owned window title\x07",  # window title, BEL-terminated
    "\x1b]2;another title\x1b\\",  # window title, ST-terminated
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x1bP+q544e\x1b\\",  # DCS request
    "\x9b31m",  # 8-bit CSI
    "\x9d0;c1 title\x9c",  # 8-bit OSC
    "\x07",  # BEL
    "fake\rover",  # bare CR overwriting a line
    "back\x08\x08\x7f",  # BS and DEL
    "\x1bc",  # full terminal reset
    "\x1b",  # lone ESC
    "\x1b[?1049h",  # alternate screen
    "\u202eevil\u202c",  # right-to-left override
]
HOSTILE_TITLE = "Fix " + "".join(ATTACKS[:6]) + " parser"
HOSTILE_TEXT = "run the tests\n" + "\n".join(f"line {n} {a} end" for n, a in enumerate(ATTACKS))

SGR = re.compile(rb"\x1b\[[0-9;]*m")
FORBIDDEN = re.compile(rb"[\x1b\x07\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]")


def assert_terminal_safe(data: bytes, *, colour: bool) -> None:
    """No control bytes but the pty's CRLF (and, with colour, our own SGR sequences)."""
    if colour:
        data = SGR.sub(b"", data)
    data = data.replace(b"\r\n", b"\n")
    found = FORBIDDEN.search(data) or re.search(rb"\r", data)
    assert found is None, data[max(found.start() - 20, 0) : found.end() + 20]


def _store(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "claude"
    claude_session(
        config,
        "6c0a3e55-1d2b-4f7a-9b1e-2f0c9d8e7a61",
        title=HOSTILE_TITLE,
        text=HOSTILE_TEXT,
        reply="done \x1b]0;x\x07 ok",
        cwd="/home/dev/\x1b[31mred",
    )
    return {"CLAUDE_CONFIG_DIR": str(config), "TERM": "xterm-256color"}


def test_list_on_a_terminal_shows_no_control_sequence_from_titles(tmp_path: Path) -> None:
    env = _store(tmp_path)
    for colour in ("always", "never"):
        code, out = run_on_pty(["list", "--color", colour], env, columns=120)
        assert code == 0, out
        assert_terminal_safe(out, colour=colour == "always")
        assert b"Fix click parser" in SGR.sub(b"", out)
    assert b"\x1b" not in run_on_pty(["list", "--color", "never"], env)[1]


def test_view_on_a_terminal_shows_the_words_and_none_of_the_controls(tmp_path: Path) -> None:
    env = _store(tmp_path)
    code, out = run_on_pty(["view", "6c0a3e55", "--no-pager"], env, columns=100, rows=200)
    assert code == 0, out
    assert_terminal_safe(out, colour=False)
    text = out.decode().replace("\r\n", "\n")
    assert "line 9 fake\nover end" in text  # the bare CR became a line break
    assert "line 4 click end" in text  # the link text survives, the link does not
    assert "title=Fix click parser" in text


def test_json_output_escapes_every_control_and_keeps_the_text(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """``--json`` keeps non-ASCII text as is; ``json.dumps`` escapes C0 controls but left DEL
    and the C1 ones (U+009B is an 8-bit CSI) raw, which a terminal showing the JSON obeys."""
    env = _store(tmp_path)
    done = run_cli("query", "'line 6", "--json", env=env)  # the line with the 8-bit CSI
    assert done.code == 0, done.stderr
    assert FORBIDDEN.search(done.stdout.encode()) is None
    (row,) = json.loads(done.stdout)
    assert [hit["line"] for hit in row["hits"]] == [f"line 6 {ATTACKS[6]} end"]
    listed = run_cli("list", "--json", env=env)
    assert FORBIDDEN.search(listed.stdout.encode()) is None
    assert json.loads(listed.stdout)[0]["title"] == HOSTILE_TITLE


def test_json_output_escapes_the_bidirectional_controls(run_cli: RunCli, tmp_path: Path) -> None:
    """Human output turns a right-to-left override into a space; ``--json`` printed it raw,
    so on a bidi-aware terminal the JSON after it showed reversed. It is escaped now, as the
    C1 controls are, and parses back to the same text."""
    env = _store(tmp_path)
    done = run_cli("query", "'line 14", "--json", env=env)
    assert done.code == 0, done.stderr
    assert "\u202e" not in done.stdout and "\\u202eevil\\u202c" in done.stdout
    (row,) = json.loads(done.stdout)
    assert f"line 14 {ATTACKS[14]} end" in [hit["line"] for hit in row["hits"]]


def test_machine_formats_keep_the_text_exactly(run_cli: RunCli, tmp_path: Path) -> None:
    env = _store(tmp_path)
    (row,) = json.loads(run_cli("list", "--json", env=env).stdout)
    assert row["title"] == HOSTILE_TITLE
    assert row["cwd"] == "/home/dev/\x1b[31mred"
    piped = run_cli("view", "6c0a3e55", env=env)
    assert piped.code == 0 and HOSTILE_TEXT in piped.stdout
    exported = json.loads(run_cli("export", "6c0a3e55", "--format", "common", env=env).stdout)
    assert exported["meta"]["title"] == HOSTILE_TITLE


def test_error_messages_and_warnings_are_scrubbed(run_cli: RunCli) -> None:
    result = run_cli("view", "no-such\x1b]0;owned\x07-session\x1b[2J")
    assert result.code == 2
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "no local session matches `no-such-session`" in result.stderr


# ------------------------------------------------------------------------- the property


def _hostile_texts() -> st.SearchStrategy[str]:
    piece = st.one_of(
        st.text(max_size=12), st.sampled_from(ATTACKS), st.characters(max_codepoint=0x9F)
    )
    return st.lists(piece, max_size=8).map("".join)


BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
printable = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters=BIDI_CONTROLS),
    max_size=40,
)


def _rendered(lines: list[list[str | tuple[str, str]]], colour: bool) -> bytes:
    return "".join(line_text(parts, colour=colour) + "\n" for parts in lines).encode("utf-8")


def _discovered(ident: str, title: str, cwd: str) -> Discovered:
    return Discovered("claude_code", "ref", ident, datetime(2026, 1, 1, tzinfo=UTC), title, cwd)


@settings(max_examples=200, deadline=None)
@given(
    ident=_hostile_texts(),
    title=_hostile_texts(),
    cwd=_hostile_texts(),
    width=st.none() | st.integers(20, 250),
    colour=st.booleans(),
)
def test_list_output_never_carries_a_control_sequence(
    ident: str, title: str, cwd: str, width: int | None, colour: bool
) -> None:
    lines = list_lines([_discovered(ident, title, cwd)], datetime(2026, 1, 2, tzinfo=UTC), width)
    assert_terminal_safe(_rendered(lines, colour).replace(b"\n", b"\r\n"), colour=colour)


@settings(max_examples=100, deadline=None)
@given(title=printable)
def test_printable_titles_reach_the_list_unchanged_when_they_fit(title: str) -> None:
    title = " ".join(title.split())
    lines = list_lines([_discovered("abc", title, "/")], datetime(2026, 1, 2, tzinfo=UTC), 400)
    assert lines[1][-1] == (title or "/")


@settings(max_examples=100, deadline=None)
@given(transcript=transcripts, extra=_hostile_texts())
def test_view_on_a_terminal_never_carries_a_control_sequence(transcript, extra: str) -> None:  # type: ignore[no-untyped-def]
    text = scrub_block(view.render(transcript) + extra)
    assert_terminal_safe(text.replace("\n", "\r\n").encode("utf-8", "surrogatepass"), colour=False)


@given(text=printable | st.text(alphabet="\t\n", max_size=5))
def test_printable_text_survives_the_sanitizer_unchanged(text: str) -> None:
    assert scrub_block(text) == text
    if "\n" not in text and "\t" not in text:
        assert scrub(text) == text


PURE_SEQUENCES = [a for a in ATTACKS if "\x1b" in a and "click" not in a and a != "\x1b"]


@given(before=printable, attack=st.sampled_from(PURE_SEQUENCES), after=printable)
def test_a_complete_sequence_goes_and_the_text_around_it_stays(
    before: str, attack: str, after: str
) -> None:
    assert scrub_block(before + attack + after) == before + after


@given(text=_hostile_texts())
def test_keeping_offsets_keeps_the_length_and_is_just_as_safe(text: str) -> None:
    kept = scrub(text, keep_offsets=True)
    assert len(kept) == len(text)
    assert_terminal_safe(kept.encode("utf-8", "surrogatepass"), colour=False)


def test_unterminated_sequences_are_scanned_in_linear_time() -> None:
    # Each unterminated OSC used to be scanned to the end of the text: quadratic, so a 60k-char
    # title of `\x9dab` repeated hung the property test above. Now this finishes at once.
    for unit in ("\x9dab", "\x1b]ab", "\x1bPx", "\x9b1", "\x1b[1"):
        text = unit * 300_000
        assert "\x1b" not in scrub_block(text) and "\x9d" not in scrub(text)
