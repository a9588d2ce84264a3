"""Sessions for the render tests: harness fixture modules, and a real Claude Code store with a
few sessions for the archive."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).parents[1]
IDS = (
    "11111111-aaaa-4aaa-8aaa-000000000001",
    "22222222-bbbb-4bbb-8bbb-000000000002",
    "33333333-cccc-4ccc-8ccc-000000000003",
)


def fixture_module(name: str, relative: str) -> ModuleType:
    """A harness's fixture module from its own test directory (test modules are no package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TESTS / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def claude_fixtures() -> ModuleType:
    return fixture_module("claude_fixtures", "claude_code/claude_fixtures.py")


def put_sessions(home: Path, ids: tuple[str, ...] = IDS) -> list[Path]:
    """One Claude Code session file per id under ``home``'s default store, a day apart."""
    claude = claude_fixtures()
    template = claude.jsonl(claude.realistic_records())
    paths = []
    for day, session_id in enumerate(ids, start=1):
        text = template.replace(claude.SID, session_id).replace("2026-08-21", f"2026-08-{day:02d}")
        paths.append(claude.put(home / ".claude", text, session_id=session_id))
    return paths


def append_prompt(path: Path, text: str) -> None:
    """The user goes on with a session: one more user record at its end."""
    claude = claude_fixtures()
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if _is_json(line)]
    last = [r for r in records if r.get("type") in ("user", "assistant")][-1]
    record = claude.user("f" * 8 + "-0000-4000-8000-000000000099", last["uuid"], "09:40:00", text)
    record["sessionId"] = last["sessionId"]
    record["timestamp"] = last["timestamp"]
    with path.open("a", encoding="utf-8") as handle:
        handle.write(claude.line(record) + "\n")


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
