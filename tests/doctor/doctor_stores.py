"""Real stores for every harness, built in a HOME from the fixture builders each harness's tests
use, for ``txcript doctor``. Every store lives where the harness keeps it under that HOME."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).parents[1]
for _directory in (
    "claude_code",
    "codex",
    "cursor_cli",
    "cursor_desktop",
    "gemini",
    "opencode",
    "goose",
    "crush",
    "droid",
    "antigravity",
    "cowork",
):
    if str(TESTS / _directory) not in sys.path:
        sys.path.insert(0, str(TESTS / _directory))

import agy_fixtures as antigravity  # noqa: E402
import claude_fixtures as claude  # noqa: E402
import codex_fixtures as codex  # noqa: E402
import cowork_fixtures as cowork  # noqa: E402
import crush_fixtures as crush  # noqa: E402
import cursor_cli_fixtures as cursor_cli  # noqa: E402
import dbfixtures as cursor_desktop  # noqa: E402
import droid_fixtures as droid  # noqa: E402
import gemini_fixtures as gemini  # noqa: E402
import goose_fixtures as goose  # noqa: E402
import opencode_fixtures as opencode  # noqa: E402
import test_claude_parallel as parallel  # noqa: E402
import test_codex_2026 as codex_2026  # noqa: E402
import test_cursor_transcripts as transcripts  # noqa: E402

from txcript.harnesses import info  # noqa: E402

sys.path.insert(0, str(TESTS / "conformance"))
import family_stores  # noqa: E402

#: Put into session text and titles: it must never appear in doctor's output.
SENTINEL = "SENTINEL-7f3a-private-words"
CLAUDE_PARALLEL_ID = "6c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
CLAUDE_SENTINEL_ID = "7d2e3f4a-5b6c-4d7e-8f90-91a2b3c4d5e6"
CODEX_2026 = "sessions/2026/09/01/rollout-2026-09-01T10-00-00-{id}.jsonl"
CODEX_CHAT_ID = "c4a7e0d2-1b3c-4d5e-8f60-718293a4b5c6"


def cursor_desktop_root(home: Path) -> Path:
    root = info("cursor_desktop").root
    assert root is not None
    return root.under(home)


def _put(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _claude(root: Path) -> dict[str, Path]:
    first, last = parallel.batch("b", "u1", 1, 4, [2, 4, 1, 3])
    records: list[Any] = [
        claude.user("u1", None, "09:00:00.000", "check everything"),
        *first,
        parallel.reply("old", last, "09:02:00.000", "old answer", "msg_old"),
        claude.user("rewind", last, "09:03:00.000", "summarise instead"),
        parallel.reply("new", "rewind", "09:03:05.000", "summary", "msg_new"),
    ]
    records = [{**r, "sessionId": CLAUDE_PARALLEL_ID} for r in records]
    secret = [
        claude.user("s1", None, "09:00:00.000", f"my {SENTINEL} words"),
        claude.assistant("s2", "s1", "09:00:01.000", [claude.text(f"re {SENTINEL}")]),
        {"type": "custom-title", "customTitle": SENTINEL, "sessionId": CLAUDE_SENTINEL_ID},
    ]
    secret = [{**r, "sessionId": CLAUDE_SENTINEL_ID} for r in secret]
    return {
        "realistic": claude.put(root, claude.realistic_records()),
        "parallel": claude.put(root, records, session_id=CLAUDE_PARALLEL_ID),
        "sentinel": claude.put(
            root, secret, session_id=CLAUDE_SENTINEL_ID, cwd=f"/home/dev/{SENTINEL}"
        ),
    }


def _codex(root: Path) -> dict[str, Path]:
    chat = codex_2026.chat_document()
    chat["session"]["id"] = CODEX_CHAT_ID
    return {
        "current": _put(
            root / f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{codex.SESSION_ID}.jsonl",
            codex.current_text(),
        ),
        "bare": _put(
            root / f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{codex.BARE_ID}.jsonl",
            codex.bare_text(),
        ),
        "legacy": _put(
            root / f"sessions/rollout-2025-04-16-{codex.LEGACY_ID}.json", codex.legacy_text()
        ),
        "2026": _put(
            root / CODEX_2026.format(id=codex_2026.SID),
            "".join(codex.line(r) + "\n" for r in codex_2026.rollout_2026()),
        ),
        "chat": _put(root / f"sessions/rollout-2025-03-01-{CODEX_CHAT_ID}.json", json.dumps(chat)),
    }


def build_all(home: Path) -> dict[str, dict[str, Path]]:
    """Every harness's store under ``home``; returns the files built, by harness and fixture."""
    built: dict[str, dict[str, Path]] = {
        "claude_code": _claude(home / ".claude"),
        "codex": _codex(home / ".codex"),
    }
    chats = home / ".cursor" / "chats"
    built["cursor"] = {"kitchen_sink": cursor_cli.kitchen_sink_chat(chats)}
    jsonl, txt = transcripts.write_transcripts(home / ".cursor", "/home/dev/acme")
    built["cursor_transcripts"] = {"jsonl": jsonl, "txt": txt}
    db = cursor_desktop_root(home) / "globalStorage" / "state.vscdb"
    built["cursor_desktop"] = {"3.16": cursor_desktop.app_3_16(db)}
    built["gemini"] = gemini.build_store(home / ".gemini")
    data = home / ".local" / "share" / "opencode"
    opencode.build_db(
        data / "opencode.db",
        opencode.CURRENT_DDL,
        [opencode.main_session()],
        [opencode.untitled_session()],
    )
    opencode.build_db(
        data / "opencode-beta.db", opencode.OLD_DDL, [opencode.old_session()], credentials=False
    )
    opencode.storage_layout(data)
    opencode.oldest_layout(data)
    built["opencode"] = {"data": data}
    # (the generations without the unknown records their own tests count in a warning)
    built["goose"] = {"early": goose.build_early(home / ".local" / "share" / "goose")}
    built["crush"] = {"initial": crush.build_initial(home / ".local" / "share" / "crush")}
    built["droid"] = {"flat": droid.build_flat(home / ".factory")}
    agy = home / ".gemini" / "antigravity-cli"
    built["antigravity"] = {
        "cli": antigravity.write_conversation(agy, antigravity.clean_kitchen_sink())
    }
    built["cowork"] = cowork.account_with_two_tasks(
        home / ".config" / "Claude" / "local-agent-mode-sessions", noise=False
    )
    # Every other harness: the first of its conformance families that warns about nothing.
    for harness_id, (family, _count) in generic().items():
        built[harness_id] = {
            family.name: family_stores.build_at_home(info(harness_id), family, home)
        }
    return built


#: The harnesses :func:`build_all` builds by hand, above.
BY_HAND = (
    "claude_code",
    "codex",
    "cursor",
    "cursor_transcripts",
    "cursor_desktop",
    "gemini",
    "opencode",
    "goose",
    "crush",
    "droid",
    "antigravity",
    "cowork",
)
_generic: dict[str, tuple[family_stores.Family, int]] | None = None


def generic() -> dict[str, tuple[family_stores.Family, int]]:
    """Every other harness with a store at a default place, with the conformance family
    :func:`build_all` lays out for it and the sessions it holds."""
    global _generic
    if _generic is None:
        import tempfile

        _generic = {}
        with tempfile.TemporaryDirectory(prefix="doctor-families-") as scratch:
            for harness in family_stores.registered():
                if harness.id in BY_HAND or not harness.has_store:
                    continue
                if not family_stores.has_default_place(harness):
                    continue
                chosen = family_stores.quiet_family(harness, Path(scratch))
                if chosen is not None:
                    _generic[harness.id] = chosen
    return _generic


#: txcript's own cache: reading a WAL database without its ``-shm`` goes through a private copy
#: made (and removed) there, never beside the database.
CACHE = Path(".cache") / "txcript"


def snapshot(home: Path) -> dict[str, bytes]:
    """Every file under ``home`` with its bytes (directories by name), for byte-identity; only
    txcript's cache directories are left out, and it must hold no file."""
    found: dict[str, bytes] = {}
    for path in sorted(home.rglob("*")):
        key = str(path.relative_to(home))
        if path.relative_to(home).parts[:2] == CACHE.parts:
            assert not path.is_file(), f"left in the cache: {key}"
            continue
        if path == home / ".cache" and path.is_dir():
            continue
        found[key] = path.read_bytes() if path.is_file() and not path.is_symlink() else b"<dir>"
    return found


def cursor_desktop_generations() -> dict[str, Any]:
    """Every Cursor desktop database generation the store tests build, by name."""
    import test_save_roundtrip

    return dict(test_save_roundtrip.GENERATIONS)
