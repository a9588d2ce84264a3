"""`list --json` takes `updated_at` from Cursor's own `lastUpdatedAt`, not from a file time."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import dbfixtures as fx

from conftest import RunCli


def test_updated_at_is_the_header_last_updated_at(run_cli: RunCli, tmp_path: Path) -> None:
    root = tmp_path / "User"
    (root / "globalStorage").mkdir(parents=True)
    database = fx.app_3_16(root / "globalStorage" / "state.vscdb")
    with sqlite3.connect(database) as conn:
        recorded = dict(conn.execute("SELECT composerId, lastUpdatedAt FROM composerHeaders"))
    result = run_cli("list", "--json", env={"CURSOR_DESKTOP_USER_DIR": str(root)})
    assert result.code == 0, result.stderr
    rows = json.loads(result.stdout)
    checked = 0
    for row in rows:
        millis = recorded.get(row["id"])
        if millis:
            moment = datetime.fromtimestamp(millis / 1000, UTC)
            assert row["updated_at"] == moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            checked += 1
    assert checked >= 2
    # Not the database file's modification time.
    mtime = datetime.fromtimestamp(database.stat().st_mtime, UTC)
    assert all(row["updated_at"] != mtime.isoformat() for row in rows)
