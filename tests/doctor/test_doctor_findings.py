"""What ``txcript doctor --deep`` found in the stores the suite builds, each with its story."""

from __future__ import annotations

import json
import sqlite3
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path

import doctor_stores as ds
import msgspec
import pytest

from conftest import RunCli
from txcript import doctor, harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning


def test_an_opencode_row_that_is_not_json_is_a_clean_refusal_not_a_crash(
    run_cli: RunCli, isolated_home: Path
) -> None:
    """Found by doctor: a message row whose ``data`` is not JSON (a damaged database) made the
    export text form raise ``TypeError``, so ``export --format native`` died with an internal
    error. The row still loads (the reader skips it with a warning, the store keeps it as it is);
    only the export document, which holds objects, refuses it, in one line."""
    built = ds.build_all(isolated_home)
    with sqlite3.connect(built["opencode"]["data"] / "opencode.db") as conn:
        [(message_id,)] = conn.execute("SELECT id FROM message ORDER BY rowid LIMIT 1")
        conn.execute("UPDATE message SET data = ? WHERE id = ?", ('{"trunc', message_id))
    conn.close()
    reason = (
        f"cannot convert to opencode: row {message_id} does not hold JSON, which the export "
        "document cannot carry"
    )
    done = run_cli("doctor", "--deep", "--json")
    assert done.code == 1
    assert json.loads(done.stdout)["deep"]["failures"] == [
        {
            "harness": "opencode",
            "id": ds.opencode.MAIN_ID,
            "check": "round_trip",
            "reason": f"Unconvertible: {reason}",
        }
    ]
    exported = run_cli("export", ds.opencode.MAIN_ID, "--format", "native")
    assert (exported.code, exported.stdout) == (1, "")
    assert exported.stderr.endswith(f"txcript: error: {reason}\n")


def test_a_damaged_gemini_chat_is_named_by_a_warning_not_dropped_without_a_word(
    run_cli: RunCli, isolated_home: Path
) -> None:
    """Found by doctor: a Gemini chat file cut short (both copies of the legacy chat) vanished
    from the list and from doctor's count without any warning, so nothing said it was there.
    Discovery now warns for a file named as Gemini names its chats; stray files stay silent."""
    built = ds.build_all(isolated_home)
    for name in ("legacy_slug", "legacy_hash"):
        path = built["gemini"][name]
        path.write_bytes(path.read_bytes()[:200])
    stray = isolated_home / ".gemini" / "tmp" / ds.gemini.SLUG / "chats" / "notes.json"
    stray.write_text('{"hello": 1}')
    report = json.loads(run_cli("doctor", "--json").stdout)
    [gemini] = [s for s in report["stores"] if s["harness"] == "gemini"]
    assert (gemini["sessions"], gemini["warnings"]) == (2, 2)
    assert gemini["first_warning"].startswith("skipping <path>: malformed gemini transcript")
    listed = run_cli("list", "--from", "gemini")
    assert listed.code == 0
    warnings = [line for line in listed.stderr.splitlines() if line]
    assert len(warnings) == 2
    assert all(w.startswith("txcript: warning: skipping ") for w in warnings)
    assert "notes.json" not in listed.stderr


# ------------------------------------------------------------ deliberate changes are no failure

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _at(seconds: int) -> datetime:
    return AT + timedelta(seconds=seconds)


def _session(harness: str, *middle: m.Message) -> m.Transcript:
    session_id = "ses_abc123" if harness == "opencode" else "7d3c2b1a-0f9e-4d8c-b7a6-958473625140"
    return m.Transcript(
        meta=m.Meta(id=session_id, timestamp=AT, cwd="/repo", title="go"),
        messages=(
            m.Message(role="user", content=(m.Text(text="go"),), timestamp=_at(0)),
            m.Message(
                role="assistant",
                content=(m.ToolUse(id="c1", tool=m.Bash(command="make")),),
                timestamp=_at(1),
            ),
            *middle,
            m.Message(role="assistant", content=(m.Text(text="done"),), timestamp=_at(9)),
        ),
    )


#: A result that came four seconds after its call (Cursor desktop keeps both in one bubble,
#: under the result's time), and a call the session never answered (every writer closes it).
LATE_RESULT = (
    m.Message(
        role="user", content=(m.ToolResult(tool_use_id="c1", content="ok"),), timestamp=_at(5)
    ),
)
NO_RESULT_YET = (m.Message(role="user", content=(m.Text(text="and?"),), timestamp=_at(5)),)


@pytest.mark.parametrize("middle", [LATE_RESULT, NO_RESULT_YET], ids=["late_result", "open_call"])
@pytest.mark.parametrize("writer", harnesses.ids(write=True))
def test_what_writers_change_on_purpose_is_not_a_fixpoint_failure(
    writer: str, middle: tuple[m.Message, ...]
) -> None:
    """Found on a 1,000-session store: 475 sessions FAILed for deliberate choices, a synthetic
    error result for a call that has none, or a call taking its result's time after Cursor →
    Cursor. A FAIL must mean that data is at risk. (Compared with the same session where the
    call is answered at once: whatever else a writer does to it is not what this is about.)"""
    harness = harnesses.get(writer)
    answered_at_once = (
        m.Message(
            role="user", content=(m.ToolResult(tool_use_id="c1", content="ok"),), timestamp=_at(1)
        ),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # (the open call is reported)
        baseline = doctor.fixpoint_problem(harness, _session(writer, *answered_at_once))
        assert doctor.fixpoint_problem(harness, _session(writer, *middle)) == baseline


def test_a_lost_result_or_time_still_fails() -> None:
    expected = _session("claude_code", *LATE_RESULT)
    lost = msgspec.structs.replace(expected, messages=expected.messages[:2] + expected.messages[3:])
    assert doctor._normalized_difference(expected, lost, "") == ".messages has 3 items instead of 4"
    moved = list(expected.messages)
    moved[3] = msgspec.structs.replace(moved[3], timestamp=_at(8))
    later = msgspec.structs.replace(expected, messages=tuple(moved))
    assert doctor._normalized_difference(expected, later, "") == ".messages[3].timestamp differs"


def test_the_help_lists_every_normalization(run_cli: RunCli) -> None:
    shown = " ".join(run_cli("doctor", "--help").stdout.split())
    for normalization in doctor.NORMALIZATIONS:
        assert normalization in shown


def test_a_claude_session_with_an_open_call_passes_the_deep_check(
    run_cli: RunCli, isolated_home: Path
) -> None:
    claude = ds.claude
    records = [
        claude.user("u1", None, "09:00:00", "go"),
        claude.assistant(
            "a1", "u1", "09:00:01", [claude.tool_use("toolu_1", "Bash", {"command": "t"})]
        ),
        claude.user("u2", "a1", "09:00:05", "and?"),
        claude.assistant("a2", "u2", "09:00:06", [claude.text("done")], message_id="m2"),
    ]
    claude.put(isolated_home / ".claude", records)
    done = run_cli("doctor", "--deep", "--json")
    report = json.loads(done.stdout)
    assert report["deep"]["failures"] == [], report["deep"]
    assert done.code == 0
