"""``txcript demo``: the main job end to end, in a throwaway sandbox.

The sandbox is a fresh temporary directory holding a Cursor desktop ``User`` dir whose
``state.vscdb`` contains one realistic agent session (thinking, a shell call whose result is an
error, a file read, token usage), a project folder for it, and empty Claude Code / Codex homes.
The user's real stores are never read or written: every store root, ``HOME`` and txcript's own
data directory point into the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import msgspec

from txcript.harnesses import get
from txcript.shared.fileuri import file_uri


@dataclass(frozen=True)
class Sandbox:
    root: Path
    project: Path
    session_id: str
    #: Environment that points every store at the sandbox.
    env: dict[str, str]


def sample_document() -> dict[str, object]:
    """The demo session as a Simple document (package data)."""
    text = resources.files(__package__).joinpath("sample-session.json").read_text("utf-8")
    document: dict[str, object] = json.loads(text)
    return document


def build_sandbox(parent: Path | None = None) -> Sandbox:
    """Create the sandbox and write the sample session into its Cursor desktop store."""
    root = Path(tempfile.mkdtemp(prefix="txcript-demo-", dir=parent))
    project = root / "acme"
    (project / "src" / "dates").mkdir(parents=True)
    (project / "src" / "dates" / "parse.py").write_text(
        "from datetime import date, datetime, timedelta\n\n\n"
        "def parse(text: str, today: date | None = None) -> date:\n"
        "    today = today or datetime.utcnow().date()\n"
        "    if text == 'next monday':\n"
        "        return today + timedelta(days=7 - today.weekday())\n"
        "    raise ValueError(text)\n"
    )
    user_dir = root / "Cursor" / "User"
    workspace = user_dir / "workspaceStorage" / hashlib.md5(str(project).encode()).hexdigest()
    workspace.mkdir(parents=True)
    (workspace / "workspace.json").write_text(json.dumps({"folder": file_uri(str(project))}))
    env = {
        "HOME": str(root / "home"),
        "CURSOR_DESKTOP_USER_DIR": str(user_dir),
        "CLAUDE_CONFIG_DIR": str(root / "claude"),
        "CODEX_HOME": str(root / "codex"),
        "TXCRIPT_DATA_DIR": str(root / "txcript-data"),
    }
    (root / "home").mkdir()
    simple = get("simple")
    cursor = get("cursor_desktop")
    transcript = simple.to_common(sample_document())
    transcript = msgspec.structs.replace(
        transcript, meta=msgspec.structs.replace(transcript.meta, cwd=str(project))
    )
    store = cursor.store(user_dir)
    assert store is not None  # an explicit root always gives a store
    # The sandbox database is ours alone, so a running Cursor elsewhere is no reason to refuse.
    saved = store.save(cursor.from_common(transcript), force=True)
    return Sandbox(root=root, project=project, session_id=saved.id, env=env)
