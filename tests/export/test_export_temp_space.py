"""A read-only export needs no temp space: rows come back in rowid order without SQLite sorting
their values through a temp file (which failed when the temp dir's disk was full).

A full disk is played by a file-size limit on the exporting process (``RLIMIT_FSIZE``): every
write to a regular file beyond a few KiB fails with ``EFBIG``, as writes to a full disk fail with
``ENOSPC``. SQLite skips a missing temp dir (it falls back to ``/var/tmp``, ``/tmp`` …), so the
temp dirs pointing nowhere are not what makes the old export fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).parents[1]
CID = "5e55e55e-0000-4000-8000-00000000b16b"
BUBBLES = 300
#: Each value is larger than SQLite's sorter keeps in memory (its page cache, 2 MiB by default)
#: when added up, so a sort by rowid had to spill to a temp file.
TEXT_SIZE = 20_000


def _fixtures() -> ModuleType:
    if "dbfixtures" in sys.modules:
        return sys.modules["dbfixtures"]
    spec = importlib.util.spec_from_file_location(
        "dbfixtures", TESTS / "cursor_desktop/dbfixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dbfixtures"] = module
    spec.loader.exec_module(module)
    return module


def _bubble_id(i: int) -> str:
    """Ids whose key order is not their insertion (rowid) order."""
    return f"b{(i * 7919) % BUBBLES:04d}"


def _store(home: Path) -> Path:
    db = _fixtures()
    user = home / "CursorUser"
    state = db.StateDB(user / "globalStorage" / "state.vscdb", journal="delete")
    # No fullConversationHeadersOnly: the messages follow the rows' rowid order.
    composer = {"_v": 17, "composerId": CID, "createdAt": db.T0, "name": "long"}
    session = db.Session(CID, db.js(composer), header=db.Header(CID, db.head_3_16(CID, db.T0)))
    for i in range(BUBBLES):
        text = f"message {i:04d} " + "x" * TEXT_SIZE
        maker = db.user_bubble if i % 2 == 0 else db.assistant_bubble
        session.bubbles.append((_bubble_id(i), maker(_bubble_id(i), text)))
        key = f"checkpointId:{CID}:{_bubble_id(i)}"
        session.aux.append((key, db.js({"n": i, "pad": "y" * 2000})))
    state.session(session)
    state.close()
    return user


def _disk_full() -> None:
    """In the child: no regular file may grow past 64 KiB (pipes are not limited)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


@pytest.mark.parametrize("export_format", ["common", "native"])
def test_export_needs_no_temp_space(isolated_home: Path, export_format: str) -> None:
    user = _store(isolated_home)
    database = user / "globalStorage" / "state.vscdb"
    before = database.read_bytes()
    gone = str(isolated_home / "no-such-dir")
    env = dict(os.environ, CURSOR_DESKTOP_USER_DIR=str(user), SQLITE_TMPDIR=gone, TMPDIR=gone)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "txcript", "export", CID, "--format", export_format],
        capture_output=True,
        env=env,
        timeout=120,
        preexec_fn=_disk_full,
    )
    assert done.returncode == 0, done.stderr.decode()
    document = json.loads(done.stdout)
    if export_format == "common":
        texts = [m["content"][0]["text"].split(" ")[1] for m in document["messages"]]
        assert texts == [f"{i:04d}" for i in range(BUBBLES)]
    else:
        keys = [row["key"] for row in document["bubbles"]]
        assert keys == [f"bubbleId:{CID}:{_bubble_id(i)}" for i in range(BUBBLES)]
        aux = [row["key"] for row in document["aux"]]
        assert aux == [f"checkpointId:{CID}:{_bubble_id(i)}" for i in range(BUBBLES)]
    assert database.read_bytes() == before
    assert not Path(gone).exists()
