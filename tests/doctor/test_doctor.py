"""``txcript doctor``: the survey, the deep checks over real stores of every harness, privacy."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import doctor_stores as ds
import pytest

from conftest import RunCli
from txcript import doctor, harnesses

EXPECTED_SESSIONS = {
    "cursor_desktop": 4,
    "cursor": 1,
    "cursor_transcripts": 2,
    "claude_code": 3,
    "codex": 5,
    "opencode": 5,
    "gemini": 3,
    "goose": 1,
    "crush": 1,
    "droid": 1,
    "antigravity": 1,
    "cowork": 2,
    # every other harness: the conformance family the doctor stores lay out for it
    **{harness: count for harness, (_, count) in ds.generic().items()},
}
TOTAL = sum(EXPECTED_SESSIONS.values())
#: Stores with no default place (a file the user names): listed, never found under a HOME.
NO_DEFAULT_PLACE = ("claude_export",)
#: The fixtures' own deliberate defects: a truncated line each, kept and skipped with a warning.
FIXTURE_WARNINGS = [
    {
        "harness": "claude_code",
        "id": ds.claude.SID,
        "count": 1,
        "reason": "claude_code line 13: not valid JSON; skipped",
    },
    {
        "harness": "codex",
        "id": ds.codex.SESSION_ID,
        "count": 1,
        "reason": "<path>: line 21 of the Codex rollout is not valid JSON; skipped",
    },
]
TOP_KEYS = [
    "txcript",
    "python",
    "platform",
    "ok",
    "stores",
    "extras",
    "data_dir",
    "backups",
    "deep",
]
STORE_KEYS = [
    "harness",
    "name",
    "root",
    "exists",
    "sessions",
    "newest",
    "newest_age_seconds",
    "app_running",
    "executables",
    "warnings",
    "first_warning",
    "error",
]


def deep_json(run_cli: RunCli, *extra: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("doctor", "--deep", "--json", *extra)
    return done.code, json.loads(done.stdout), done.stderr


def tallies(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["harness"]: t for t in report["deep"]["harnesses"]}


# ------------------------------------------------------------------------------ deep: all pass


def test_deep_json_over_stores_of_every_fixture_passes_and_changes_nothing(
    run_cli: RunCli, isolated_home: Path
) -> None:
    ds.build_all(isolated_home)
    before = ds.snapshot(isolated_home)
    code, report, stderr = deep_json(run_cli)
    assert (code, stderr) == (0, "")  # no progress line when stderr is not a terminal
    assert ds.snapshot(isolated_home) == before  # nothing written, nothing created beside a DB
    assert list(report) == TOP_KEYS
    assert report["ok"] is True
    assert [list(s) for s in report["stores"]] == [STORE_KEYS] * (
        len(EXPECTED_SESSIONS) + len(NO_DEFAULT_PLACE)
    )
    stores = {s["harness"]: s for s in report["stores"]}
    for harness in NO_DEFAULT_PLACE:
        unplaced = stores.pop(harness)
        assert (unplaced["root"], unplaced["exists"], unplaced["sessions"]) == (None, False, 0)
    assert {h: s["sessions"] for h, s in stores.items()} == EXPECTED_SESSIONS
    assert all(s["exists"] and s["error"] is None for s in stores.values())
    assert all(s["warnings"] == 0 and s["first_warning"] is None for s in stores.values())
    assert stores["claude_code"]["root"] == str(isolated_home / ".claude")
    assert stores["cursor_desktop"]["app_running"] in (True, False)
    assert stores["codex"]["app_running"] is None
    assert stores["cursor"]["executables"] == {"agent": None, "cursor-agent": None}
    deep = report["deep"]
    assert list(deep) == ["passed", "harnesses", "failures", "warnings"]
    assert deep["passed"] is True and deep["failures"] == []
    assert deep["warnings"] == FIXTURE_WARNINGS
    for harness, tally in tallies(report).items():
        if harness in NO_DEFAULT_PLACE:
            assert tally["sessions"] == 0
            continue
        count = EXPECTED_SESSIONS[harness]
        read_only = harnesses.info(harness).source_only
        checked = 0 if read_only else count  # a read-only source: load only
        assert tally == {
            "harness": harness,
            "sessions": count,
            "loaded": count,
            "fixpoint": {"checked": checked, "passed": checked},
            "round_trip": {"checked": checked, "passed": checked},
            "warnings": 1 if harness in ("claude_code", "codex") else 0,
        }
    assert report["data_dir"] == {
        "path": str(isolated_home / ".local" / "share" / "txcript"),
        "exists": False,
        "bytes": 0,
    }
    assert report["backups"] == {"count": 0, "bytes": 0}


@pytest.mark.parametrize("generation", sorted(ds.cursor_desktop_generations()))
def test_every_cursor_desktop_generation_passes(
    generation: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "User"
    ds.cursor_desktop_generations()[generation](root / "globalStorage" / "state.vscdb")
    monkeypatch.setenv("CURSOR_DESKTOP_USER_DIR", str(root))
    before = ds.snapshot(tmp_path)
    report = doctor.diagnose(deep=True)
    assert ds.snapshot(tmp_path) == before
    assert report.deep is not None and report.deep.failures == ()
    [tally] = [t for t in report.deep.tallies if t.harness == "cursor_desktop"]
    assert tally.sessions > 0
    assert tally.loaded == tally.fixpoint_passed == tally.round_trip_passed == tally.sessions


# --------------------------------------------------------------------------- deep: a failure


def test_a_broken_file_is_one_failure_with_its_reason(run_cli: RunCli, isolated_home: Path) -> None:
    built = ds.build_all(isolated_home)
    # A Cursor CLI chat whose database lost its blob table: it lists, but cannot be loaded.
    chat_db = built["cursor"]["kitchen_sink"] / "store.db"
    with sqlite3.connect(chat_db) as conn:
        conn.execute("DROP TABLE blobs")
    conn.close()
    # A Claude Code line cut short: read around it with a warning, which does not fail the run.
    parallel = built["claude_code"]["parallel"]
    lines = parallel.read_text().splitlines(keepends=True)
    lines[3] = lines[3][:40] + "\n"
    parallel.write_text("".join(lines))
    before = ds.snapshot(isolated_home)
    code, report, _ = deep_json(run_cli)
    assert code == 1
    assert ds.snapshot(isolated_home) == before
    assert report["ok"] is False and report["deep"]["passed"] is False
    assert report["deep"]["failures"] == [
        {
            "harness": "cursor",
            "id": ds.cursor_cli.CHAT_ID,
            "check": "load",
            "reason": "StoreUnreadable: <path> is not a Cursor CLI store (no blobs/meta tables)",
        }
    ]
    assert {(w["harness"], w["id"]) for w in report["deep"]["warnings"]} == {
        ("claude_code", ds.claude.SID),
        ("claude_code", ds.CLAUDE_PARALLEL_ID),
        ("codex", ds.codex.SESSION_ID),
    }
    assert tallies(report)["cursor"]["loaded"] == 0
    assert tallies(report)["claude_code"]["round_trip"] == {"checked": 3, "passed": 3}
    human = run_cli("doctor", "--deep")
    assert human.code == 1
    assert (
        f"  FAIL cursor {ds.cursor_cli.CHAT_ID} load: StoreUnreadable: <path> is not a Cursor "
        "CLI store (no blobs/meta tables)\n" in human.stdout
    )
    assert human.stdout.endswith(f"1 of {TOTAL} sessions failed\n")


def test_a_store_that_cannot_be_scanned_is_reported_and_exits_1(
    run_cli: RunCli, isolated_home: Path
) -> None:
    db = ds.cursor_desktop_root(isolated_home) / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 100)
    done = run_cli("doctor", "--json")
    assert done.code == 1
    report = json.loads(done.stdout)
    [desktop] = [s for s in report["stores"] if s["harness"] == "cursor_desktop"]
    assert desktop["exists"] is True and desktop["sessions"] == 0
    assert desktop["error"] is not None and desktop["error"].startswith("StoreUnreadable: ")
    assert str(isolated_home) not in desktop["error"]
    assert report["ok"] is False and report["deep"] is None


# ---------------------------------------------------------------------------------- privacy


def test_no_message_text_title_or_cwd_reaches_the_output(
    run_cli: RunCli, isolated_home: Path
) -> None:
    built = ds.build_all(isolated_home)
    # Break the private session too, so its path (holding the sentinel) meets an error message.
    secret = built["claude_code"]["sentinel"]
    secret.write_text(secret.read_text() + f'{{"type":"user","message":"{ds.SENTINEL}\n')
    for args in (
        ("doctor",),
        ("doctor", "--json"),
        ("doctor", "--deep"),
        ("doctor", "--deep", "--json"),
    ):
        done = run_cli(*args)
        assert ds.SENTINEL not in done.stdout + done.stderr, args
        assert ds.CLAUDE_SENTINEL_ID in done.stdout or "--deep" not in args


def test_reasons_name_no_quoted_value_and_no_path() -> None:
    root = "/home/u/.claude"
    message = (
        f"reading {root}/projects/-home-u-{ds.SENTINEL}/x.jsonl: unknown role `{ds.SENTINEL}` "
        f'in "{ds.SENTINEL} title"; see C:\\Users\\{ds.SENTINEL}\\a and ~/{ds.SENTINEL}/b'
    )
    reason = doctor.explain(ValueError(message + "\x1b]0;pwned\x07\n" + "x" * 300), [root])
    assert ds.SENTINEL not in reason and "\x1b" not in reason and "\n" not in reason
    assert reason.startswith(
        "ValueError: reading <path>: unknown role … in …; see <path> and <path>"
    )
    assert len(reason) <= len("ValueError: ") + 160
    assert doctor.explain(KeyError()) == "KeyError"
    assert doctor.sanitize(f"skipping {root}: not a directory", [root]) == (
        "skipping <root>: not a directory"
    )
    assert doctor.sanitize("no blobs/meta tables") == "no blobs/meta tables"


# ------------------------------------------------------------------------------- the survey


def test_human_survey_names_each_store_and_finds_a_claude_on_path(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    ds.claude.put(isolated_home / ".claude", ds.claude.realistic_records())
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
    path = f"{bin_dir}{os.pathsep}{os.path.dirname(sys.executable)}"
    done = run_cli("doctor", env={"PATH": path})
    assert (done.code, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("txcript ") and lines[1] == "stores:"
    [claude_line] = [line for line in lines if line.startswith("  claude_code ")]
    assert claude_line.endswith(f"{isolated_home / '.claude'}  1 session, newest just now")
    assert f"claude: {claude}" in done.stdout
    assert "codex: not on PATH" in done.stdout
    [codex_line] = [line for line in lines if line.startswith("  codex ")]
    assert codex_line.endswith(f"{isolated_home / '.codex'}  (absent)")
    assert lines[-3].startswith("optional extras: zstd ")
    assert lines[-1] == "backups: 0, 0 B in total"
    assert "deep check" not in done.stdout
    report = json.loads(run_cli("doctor", "--json", env={"PATH": path}).stdout)
    [found] = [s for s in report["stores"] if s["harness"] == "claude_code"]
    assert found["executables"] == {"claude": str(claude)}
    assert found["newest_age_seconds"] is not None and found["newest_age_seconds"] >= 0


def test_missing_stores_are_absent_not_failures_and_nothing_is_created(
    run_cli: RunCli, isolated_home: Path
) -> None:
    code, report, _ = deep_json(run_cli)
    assert code == 0 and report["ok"] is True
    assert all(not s["exists"] and s["sessions"] == 0 for s in report["stores"])
    assert all(s["newest"] is None and s["error"] is None for s in report["stores"])
    assert report["deep"]["failures"] == [] and report["deep"]["warnings"] == []
    assert list(isolated_home.iterdir()) == []


def test_backups_are_counted_with_their_size(run_cli: RunCli, isolated_home: Path) -> None:
    backups = isolated_home / ".local" / "share" / "txcript" / "backups"
    backups.mkdir(parents=True)
    (backups / "20260101T000000000000Z-codex-save.files").mkdir()
    (backups / "20260101T000000000000Z-codex-save.files" / "0").write_bytes(b"x" * 1000)
    (backups / "20260101T000000000000Z-codex-save.json").write_bytes(b"{}" * 12)
    report = json.loads(run_cli("doctor", "--json").stdout)
    assert report["backups"] == {"count": 1, "bytes": 1024}
    assert report["data_dir"]["exists"] is True and report["data_dir"]["bytes"] == 1024


def test_a_bad_flag_exits_2_with_one_line(run_cli: RunCli) -> None:
    done = run_cli("doctor", "--deeep")
    assert done.code == 2
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith("txcript: error: ")


def test_the_progress_line_shows_on_a_terminal_only(isolated_home: Path) -> None:
    from cli_helpers import run_on_pty

    ds.build_all(isolated_home)
    code, received = run_on_pty(["doctor", "--deep", "--json"], {"HOME": str(isolated_home)})
    assert code == 0
    assert f"\r\x1b[2Kdoctor: checking cursor_desktop 0/{TOTAL}".encode() in received
    assert f"doctor: checked {TOTAL}/{TOTAL}".encode() in received
    text = received.decode().replace("\r\n", "\n")
    body = text[text.index("{") :]
    assert json.loads(body)["deep"]["passed"] is True


def test_a_file_the_scan_skips_is_counted_with_its_first_warning(
    run_cli: RunCli, isolated_home: Path
) -> None:
    if doctor.extras()["zstd"]:
        pytest.skip("a zstd decoder is installed: compressed rollouts are read")
    built = ds.build_all(isolated_home)
    bare = built["codex"]["bare"]
    bare.rename(bare.with_name(bare.name + ".zst"))
    report = json.loads(run_cli("doctor", "--json").stdout)
    [codex] = [s for s in report["stores"] if s["harness"] == "codex"]
    assert (codex["sessions"], codex["warnings"]) == (4, 1)
    assert codex["first_warning"] == (
        "skipped 1 compressed Codex rollout(s) under <root>: install the … package to read "
        ".jsonl.zst files"
    )
    assert report["extras"]["zstd"] is False and report["ok"] is True
    human = run_cli("doctor")
    assert "1 warning while scanning, first: skipped 1 compressed Codex rollout(s)" in human.stdout


def test_a_store_root_that_is_a_file_is_a_failure_not_an_empty_store(
    run_cli: RunCli, isolated_home: Path
) -> None:
    """A file where Claude Code keeps its config dir used to show as present with 0 sessions
    and no note, so doctor said all was well about a store the harness cannot use."""
    (isolated_home / ".claude").write_text("not a directory")
    done = run_cli("doctor", "--json")
    assert done.code == 1
    report = json.loads(done.stdout)
    [claude] = [s for s in report["stores"] if s["harness"] == "claude_code"]
    assert (claude["exists"], claude["sessions"]) == (True, 0)
    assert claude["error"] == "store root is not a directory"
    assert report["ok"] is False
    human = run_cli("doctor")
    assert human.code == 1 and "cannot be read: store root is not a directory" in human.stdout
