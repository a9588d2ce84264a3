"""Delete, restore, and the running-app guard, through the library and the real CLI."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import dbfixtures as fx
import pytest
from test_save_hazards import make_body
from test_save_roundtrip import backup_count, db_path, dump, split

from conftest import CliResult, RunCli
from txcript.errors import BadInput
from txcript.harnesses.cursor_desktop import saving, sidebar
from txcript.harnesses.cursor_desktop.store import CursorDesktopStore
from txcript.shared import backups


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    return tmp_path / "txcript-data"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "User"
    fx.app_3_16(db_path(root))
    return root


def env_for(root: Path) -> dict[str, str]:
    return {"CURSOR_DESKTOP_USER_DIR": str(root)}


def one_line_error(result: CliResult, code: int, needle: str) -> None:
    """The command exited ``code`` with one ``txcript: error:`` line containing ``needle``."""
    assert result.code == code, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("txcript: error: "), result.stderr
    assert needle in lines[0], result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------------------------------ library


def test_save_discover_delete_discover_delete_again(tmp_path: Path) -> None:
    """The store contract other harnesses are held to (checklist A.4), with fingerprints."""
    store = CursorDesktopStore(tmp_path / "User")
    saved = store.save(make_body("c1", cwd="/repo"), force=True)
    assert [d.reference for d in store.discover()] == [saved.reference]
    assert store.fingerprints(["c1"])["c1"] != ""
    store.delete(saved.reference, force=True)
    assert store.discover() == []
    assert store.fingerprints(["c1"]) == {"c1": ""}
    with pytest.raises(BadInput, match="no cursor_desktop session `c1`"):
        store.delete(saved.reference, force=True)
    with pytest.raises(BadInput):
        store.load("c1")
    conn = sqlite3.connect(store.database)
    assert conn.execute("SELECT count(*) FROM cursorDiskKV").fetchone() == (0,)
    assert conn.execute("SELECT count(*) FROM composerHeaders").fetchone() == (0,)
    membership = conn.execute(
        "SELECT value FROM ItemTable WHERE key = 'glass.localAgentProjectMembership.v1'"
    ).fetchone()
    conn.close()
    assert membership == ("{}",)  # the project stays (others may use it), the membership goes


@pytest.mark.parametrize("cid", ["unknown", "%", "_", "3f0c9a52", "%:%", "../../pwned", "", ".."])
def test_deleting_what_is_not_there_writes_nothing(root: Path, cid: str) -> None:
    store = CursorDesktopStore(root)
    before = dump(store.database)
    with pytest.raises(BadInput):
        store.delete(cid, force=True)
    assert dump(store.database) == before
    assert backup_count() == 0


def test_delete_without_a_database_creates_nothing(tmp_path: Path) -> None:
    store = CursorDesktopStore(tmp_path / "User")
    (tmp_path / "User" / "globalStorage").mkdir(parents=True)
    with pytest.raises(BadInput, match="no database"):
        store.delete("c1", force=True)
    assert list((tmp_path / "User" / "globalStorage").iterdir()) == []


def test_delete_removes_every_row_of_the_session_and_nothing_else(root: Path) -> None:
    """Regression: delete found aux rows with the store's reader query, which skips NULL values,
    so a session's NULL-valued aux rows (tombstones) survived its deletion. Every row keyed
    for the session goes now, its agentKv checkpoint too, and no other row."""
    conn = sqlite3.connect(db_path(root))
    conn.execute(f"INSERT INTO cursorDiskKV VALUES ('checkpointId:{fx.CID_A}:dead', NULL)")
    conn.execute(f"INSERT INTO cursorDiskKV VALUES ('messageRequestContext:{fx.CID_A}x', 'no')")
    conn.commit()
    conn.close()
    store = CursorDesktopStore(root)
    before = dump(store.database)
    store.delete(fx.CID_A, force=True)
    after = dump(store.database)
    own, others = split(after, fx.CID_A)
    assert own["cursorDiskKV"] == {} and own["composerHeaders"] == {}
    assert others == split(before, fx.CID_A)[1]
    keys = {c[0][1] for c in after["cursorDiskKV"].values()}
    assert f"messageRequestContext:{fx.CID_A}x".encode() in keys
    assert b"agentKv:blob:9f86d081884c7d659a2feaa0c55ad015" in keys


def test_deleting_a_3_7_session_splices_its_head_out_of_the_index(tmp_path: Path) -> None:
    root = tmp_path / "User"
    fx.app_3_7(db_path(root), pretty_index=True)
    store = CursorDesktopStore(root)
    conn = sqlite3.connect(store.database)
    (before,) = conn.execute(
        "SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'"
    ).fetchone()
    conn.close()
    store.delete(fx.CID_37, force=True)
    conn = sqlite3.connect(store.database)
    (after,) = conn.execute(
        "SELECT value FROM ItemTable WHERE key = 'composer.composerHeaders'"
    ).fetchone()
    conn.close()
    heads = json.loads(before)["allComposers"]
    assert json.loads(after)["allComposers"] == heads[:-1]
    # Exactly the last head and the separator before it are cut out; the rest keeps its bytes.
    start = before.index("[")
    array = sidebar.entries(before[start : before.rindex("]") + 1], list)
    assert array is not None
    *_, previous, last = array.entries
    assert after == before[: start + previous.end] + before[start + last.end :]
    assert store.discover() == []


# ------------------------------------------------------------------------------ CLI


def continue_into(run_cli: RunCli, root: Path, tmp_path: Path, *extra: str) -> str:
    document = tmp_path / "doc.json"
    document.write_text(
        json.dumps(
            {
                "id": "src",
                "cwd": str(tmp_path),
                "title": "To delete",
                "messages": [{"role": "user", "content": "hi"}],
            }
        )
    )
    result = run_cli(
        "continue", str(document), "--with", "cursor_desktop", "--no-resume", "--json", *extra,
        env=env_for(root),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    return str(json.loads(result.stdout)["id"])


def test_cli_delete_then_restore_brings_the_session_back_byte_identical(
    run_cli: RunCli, root: Path, tmp_path: Path
) -> None:
    env = env_for(root)
    cid = continue_into(run_cli, root, tmp_path, "--force")
    before = dump(db_path(root))
    deleted = run_cli("delete", cid, "--from", "cursor_desktop", "--yes", "--force", env=env)
    assert deleted.code == 0, deleted.stderr
    shown = json.loads(run_cli("restore", "--json").stdout)
    assert deleted.stdout == (
        f"deleted cursor_desktop session {cid}\n  undo with: txcript restore {shown[0]['id']}\n"
    )
    listed = json.loads(run_cli("list", "--json", env=env).stdout)
    assert cid not in {row["id"] for row in listed} and len(listed) == 4
    again = run_cli("delete", cid, "--from", "cursor_desktop", "--yes", "--force", env=env)
    one_line_error(again, 2, f"no local cursor_desktop session matches `{cid}`")
    shown = json.loads(run_cli("restore", "--json").stdout)
    assert [(b["operation"], b["session"]) for b in shown] == [("delete", cid), ("save", cid)]
    assert shown[0]["database"] == str(db_path(root).resolve())
    human = run_cli("restore").stdout
    assert shown[0]["id"] in human and "delete" in human
    restored = run_cli("restore", shown[0]["id"][:20], "--yes", "--force", env=env)
    assert restored.code == 0, restored.stderr
    assert restored.stdout.startswith(f"undid the delete of cursor_desktop session {cid}\n")
    assert dump(db_path(root)) == before
    assert cid in {row["id"] for row in json.loads(run_cli("list", "--json", env=env).stdout)}
    # The undo is itself backed up (and can be undone in turn).
    assert json.loads(run_cli("restore", "--json").stdout)[0]["operation"] == "undo"


def test_cli_delete_of_an_unknown_or_wildcard_id_is_exit_2_and_writes_nothing(
    run_cli: RunCli, root: Path
) -> None:
    before = dump(db_path(root))
    for ref in ("%", "_", "nope", "%3f0c"):
        result = run_cli("delete", ref, "--from", "cursor_desktop", "--yes", env=env_for(root))
        one_line_error(result, 2, "no local cursor_desktop session matches")
    assert dump(db_path(root)) == before
    assert backup_count() == 0
    unconfirmed = run_cli("delete", fx.CID_A, "--from", "cursor_desktop", env=env_for(root))
    assert unconfirmed.code == 2 and "--yes" in unconfirmed.stderr
    assert dump(db_path(root)) == before


def test_undoing_the_oldest_kept_backup_works_and_keeps_the_undos_own(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: ``restore`` first backed the current state up, and that new backup pruned the
    oldest one beyond ``TXCRIPT_BACKUP_KEEP``, which could be the very backup being restored.
    An undo reads its backup before it writes, and the backup the undo takes is never pruned
    by its own write."""
    monkeypatch.setenv("TXCRIPT_BACKUP_KEEP", "2")
    store = CursorDesktopStore(root)
    after_a = None
    store.delete(fx.CID_A, force=True)
    after_a = dump(store.database)
    store.delete(fx.CID_B, force=True)
    oldest, _ = backups.list_backups()[::-1]
    assert (oldest.operation, oldest.session) == ("delete", fx.CID_A)
    undo = saving.undo(backups.find(oldest.id))
    assert undo is not None and undo.operation == "undo"
    assert [b.id for b in backups.list_backups()][:1] == [undo.id]
    assert len(backups.list_backups()) == 2
    assert fx.CID_A in {d.reference for d in store.discover()}
    assert fx.CID_B not in {d.reference for d in store.discover()}
    assert after_a != dump(store.database)


# ------------------------------------------------------------------------------ running app


@pytest.fixture
def fake_cursor(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real process whose executable is named ``cursor`` (a copy of ``sleep``)."""
    sleep = shutil.which("sleep")
    if sleep is None:
        pytest.skip("no sleep executable")
    binary = tmp_path / "bin" / "cursor"
    binary.parent.mkdir()
    shutil.copy(sleep, binary)
    process = subprocess.Popen([str(binary), "30"])
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # until /proc shows the exec'd name
            if Path(f"/proc/{process.pid}/comm").exists() and (
                Path(f"/proc/{process.pid}/comm").read_text().strip() == "cursor"
            ):
                break
            time.sleep(0.01)
        yield process
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="process lookup via /proc (Linux)")
def test_a_running_cursor_blocks_writes_unless_forced(
    run_cli: RunCli,
    root: Path,
    tmp_path: Path,
    fake_cursor: subprocess.Popen[bytes],
) -> None:
    env = env_for(root)
    before = dump(db_path(root))
    document = tmp_path / "doc.json"
    document.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    refused = [
        run_cli("continue", str(document), "--with", "cursor_desktop", "--no-resume", env=env),
        run_cli("delete", fx.CID_A, "--from", "cursor_desktop", "--yes", env=env),
    ]
    for result in refused:
        one_line_error(result, 1, f"Cursor is running (pid {fake_cursor.pid})")
        assert "--force" in result.stderr
    assert dump(db_path(root)) == before
    assert backup_count() == 0
    forced = run_cli("delete", fx.CID_A, "--from", "cursor_desktop", "--yes", "--force", env=env)
    assert forced.code == 0, forced.stderr
    assert backup_count() == 1
    written = run_cli(
        "continue", str(document), "--with", "cursor_desktop", "--no-resume", "--force", env=env
    )
    assert written.code == 0, written.stderr
    undo = run_cli("restore", backups.list_backups()[-1].id, "--yes", env=env)
    assert undo.code == 1 and "Cursor is running" in undo.stderr
    # A copy under --out is not the app's database: the running app does not block it.
    elsewhere = run_cli(
        "continue", str(document), "--with", "cursor_desktop", "--out", str(tmp_path / "o")
    )
    assert elsewhere.code == 0, elsewhere.stderr
