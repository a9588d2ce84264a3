"""What ``txcript doctor --deep`` found in the stores the suite builds, each with its story."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import doctor_stores as ds

from conftest import RunCli


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
