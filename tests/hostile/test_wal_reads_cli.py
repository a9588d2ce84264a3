"""Item 7 of the hostile-store review, at the CLI: a WAL database with a ``-wal`` and no ``-shm``.

Such a database (a closed app, a copied store) keeps its newest commit only in the ``-wal``. A
plain read-only open would create a ``-shm`` beside the app's database; ``immutable=1`` would
miss the newest commit. ``txcript list``, ``view`` and ``export`` must show the newest commit and
leave the directory exactly as it was: same names (no ``-shm``), same bytes, same mtimes. One
test per SQLite store: Cursor desktop ``state.vscdb``, a Cursor CLI ``store.db``, OpenCode's
``opencode.db``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

from conftest import RunCli

_TESTS = Path(__file__).parents[1]
for _fixtures in ("cursor_desktop", "cursor_cli", "opencode"):
    sys.path.insert(0, str(_TESTS / _fixtures))
import cursor_cli_fixtures as cli_fx  # noqa: E402
import dbfixtures as desk_fx  # noqa: E402
import opencode_fixtures as oc_fx  # noqa: E402

WAL_CID = "5a1e0000-0000-4000-8000-000000000a11"
WAL_TITLE = "Only in the WAL"
WAL_TEXT = "this reply was committed to the -wal only"


def _listing(directory: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each entry of ``directory``: size, mtime in ns, bytes (the whole directory, no filter)."""
    out = {}
    for name in sorted(os.listdir(directory)):
        path = directory / name
        status = os.lstat(path)
        out[name] = (status.st_size, status.st_mtime_ns, path.read_bytes())
    return out


def _read_three_ways(
    run_cli: RunCli, env: dict[str, str], harness: str, session_id: str, directory: Path
) -> tuple[list[dict[str, object]], str, str]:
    """``list --json``, ``view`` and ``export``; the directory is unchanged after each."""
    before = _listing(directory)
    assert not any(name.endswith("-shm") for name in before)
    listed = run_cli("list", "--json", "--from", harness, env=env)
    assert listed.code == 0, listed.stderr
    assert _listing(directory) == before
    viewed = run_cli("view", session_id, "--from", harness, env=env)
    assert viewed.code == 0, viewed.stderr
    assert _listing(directory) == before
    exported = run_cli("export", session_id, "--from", harness, env=env)
    assert exported.code == 0, exported.stderr
    assert _listing(directory) == before
    rows = json.loads(listed.stdout)
    return rows if isinstance(rows, list) else rows["sessions"], viewed.stdout, exported.stdout


def _ids(rows: list[dict[str, object]]) -> set[object]:
    return {row.get("id") for row in rows}


# --------------------------------------------------------------------------- Cursor desktop


def _cursor_desktop_with_wal(user_dir: Path, scratch: Path) -> Path:
    """A 3.16 database whose last commit (one whole session) lives only in ``-wal``."""
    built = desk_fx.app_3_16(scratch / "state.vscdb", journal="wal")
    conn = sqlite3.connect(built, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        writer = desk_fx.StateDB.__new__(desk_fx.StateDB)  # rows into the open connection
        writer.conn, writer.headers, writer.path = conn, "app", built
        created = desk_fx.T0 + 86_400_000
        bids = ["w-user", "w-text"]
        session = desk_fx.Session(
            cid=WAL_CID,
            composer_data=desk_fx.composer_3_16(WAL_CID, WAL_TITLE, created, "m", bids),
            bubbles=[
                ("w-user", desk_fx.user_bubble("w-user", "hello", "2026-08-18T06:30:36.299Z")),
                ("w-text", desk_fx.assistant_bubble("w-text", WAL_TEXT, "2026-08-18T06:30:40Z")),
            ],
            header=desk_fx.Header(
                WAL_CID,
                desk_fx.head_3_16(WAL_CID, created, name=WAL_TITLE),
                created_at=created,
                last_updated_at=created + 5000,
                recency=created + 9000,
            ),
        )
        conn.execute("BEGIN")
        writer.session(session)
        conn.execute("COMMIT")
        target = user_dir / "globalStorage"
        target.mkdir(parents=True)
        shutil.copyfile(built, target / "state.vscdb")
        shutil.copyfile(f"{built}-wal", target / "state.vscdb-wal")
    finally:
        conn.close()
    return target / "state.vscdb"


def test_cursor_desktop_reads_the_wal_commit_and_creates_no_shm(
    run_cli: RunCli, tmp_path: Path
) -> None:
    user = tmp_path / "Cursor" / "User"
    database = _cursor_desktop_with_wal(user, tmp_path / "scratch")
    assert sorted(os.listdir(database.parent)) == ["state.vscdb", "state.vscdb-wal"]
    uri = database.as_uri() + "?immutable=1"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as main_only:
        keys = [k for (k,) in main_only.execute("SELECT key FROM cursorDiskKV")]
    assert f"composerData:{WAL_CID}" not in keys  # the fixture is what it claims
    env = {"CURSOR_DESKTOP_USER_DIR": str(user), "TXCRIPT_CACHE_DIR": str(tmp_path / "cache")}
    rows, viewed, exported = _read_three_ways(
        run_cli, env, "cursor_desktop", WAL_CID, database.parent
    )
    assert WAL_CID in _ids(rows) and desk_fx.CID_A in _ids(rows)
    assert WAL_TEXT in viewed
    assert WAL_TEXT in exported and json.loads(exported)["id"] == WAL_CID


# ------------------------------------------------------------------------------- Cursor CLI


def _query(text: str) -> bytes:
    block = {"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}
    return cli_fx.encode({"role": "user", "content": [block]})


def test_cursor_cli_reads_the_wal_commit_and_creates_no_shm(
    run_cli: RunCli, tmp_path: Path
) -> None:
    chats = tmp_path / "chats"
    prompt = cli_fx.encode(
        {
            "role": "user",
            "content": [{"type": "text", "text": "<user_query>\nfirst\n</user_query>"}],
        }
    )
    first = cli_fx.graph([prompt], [[cli_fx.user_node("first"), cli_fx.text_step("Fixed")]])
    again = cli_fx.encode(
        {
            "role": "user",
            "content": [{"type": "text", "text": "<user_query>\nagain\n</user_query>"}],
        }
    )
    reply = cli_fx.encode(
        {"id": "msg-w", "role": "assistant", "content": [{"type": "text", "text": WAL_TEXT}]}
    )
    second = cli_fx.graph(
        [prompt, again, reply], [[cli_fx.user_node("first")], [cli_fx.user_node("again")]]
    )
    directory = cli_fx.write_chat(
        chats,
        [prompt, *first.nodes, first.root],
        cli_fx.meta_value(cli_fx.meta_row(first.root_id, workspacePath=cli_fx.CWD)),
        wal_blobs=[again, reply, *second.nodes, second.root],
        wal_meta=cli_fx.meta_value(cli_fx.meta_row(second.root_id, workspacePath=cli_fx.CWD)),
    )
    assert sorted(os.listdir(directory)) == ["store.db", "store.db-wal"]
    env = {"CURSOR_CHATS_DIR": str(chats), "TXCRIPT_CACHE_DIR": str(tmp_path / "cache")}
    rows, viewed, exported = _read_three_ways(run_cli, env, "cursor_cli", cli_fx.CHAT_ID, directory)
    assert cli_fx.CHAT_ID in _ids(rows)
    assert WAL_TEXT in viewed and "again" in viewed
    assert WAL_TEXT in exported


# --------------------------------------------------------------------------------- OpenCode


def test_opencode_reads_the_wal_commit_and_creates_no_shm(run_cli: RunCli, tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    database = oc_fx.build_db(
        data / "opencode.db",
        oc_fx.CURRENT_DDL,
        [oc_fx.main_session()],
        [oc_fx.untitled_session()],
    )
    assert sorted(os.listdir(data)) == ["opencode.db", "opencode.db-wal"]
    env = {"OPENCODE_DB": str(database), "TXCRIPT_CACHE_DIR": str(tmp_path / "cache")}
    rows, viewed, exported = _read_three_ways(run_cli, env, "opencode", oc_fx.UNTITLED_ID, data)
    assert {oc_fx.MAIN_ID, oc_fx.UNTITLED_ID} <= _ids(rows)
    assert "hello" in viewed
    assert json.loads(exported)["id"] == oc_fx.UNTITLED_ID
