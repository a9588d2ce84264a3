"""Golden files: ``export`` in every format of every session in every harness's fixture store,
byte for byte.

The files were written by main before the export path was reworked for speed (lazy bubble
parsing, streamed output, the faster Simple encoder, the temp-free bubble order), so they pin that
the rework changed no byte. Each store is built by its harness's own fixture helpers in a fresh
HOME; paths under that HOME are written as ``<HOME>``. A session whose export is refused is pinned
by its one-line error. The store itself must not change.

After an intended change to an export, rewrite the files with
``TXCRIPT_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/export -q`` and read the diff.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from conftest import RunCli
from txcript import harnesses
from txcript.errors import TxcriptError
from txcript.operations import EXPORT_FORMATS, export_session

sys.path.insert(0, str(Path(__file__).parents[1] / "conformance"))
import family_stores

TESTS = Path(__file__).parents[1]
GOLDEN = Path(__file__).parent / "golden"
FIXED_MTIME_NS = 1_764_583_200_000_000_000  # 2025-12-01T10:00:00Z
SUFFIX = {"simple": "simple.json", "common": "common.json", "markdown": "md", "html": "html"}


def _module(name: str, relative: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TESTS / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------ stores
# Each builder lays out one fixture store under ``home`` and returns the environment that points
# txcript at it (empty when the store sits at its default place under HOME).

Builder = Callable[[Path], dict[str, str]]


def _cursor_desktop(app: str, **options: str) -> Builder:
    def build(home: Path) -> dict[str, str]:
        db = _module("dbfixtures", "cursor_desktop/dbfixtures.py")
        user = home / "CursorUser"
        (user / "globalStorage").mkdir(parents=True)
        getattr(db, app)(user / "globalStorage" / "state.vscdb", **options)
        return {"CURSOR_DESKTOP_USER_DIR": str(user)}

    return build


def _cursor_desktop_example(home: Path) -> dict[str, str]:
    """The captured example session, saved into a fresh store (the way `continue` writes it)."""
    sessions = _module("cursor_sessions", "cursor_desktop/sessions.py")
    harness = harnesses.get("cursor_desktop")
    user = home / "CursorUser"
    store = harness.open_store(user)
    assert store is not None
    store.save(harness.from_text(sessions.EXAMPLE_TEXT), force=True)
    return {"CURSOR_DESKTOP_USER_DIR": str(user)}


def _claude_code(home: Path) -> dict[str, str]:
    claude = _module("claude_fixtures", "claude_code/claude_fixtures.py")
    claude.put(home / ".claude", claude.realistic_records())
    return {}


def _codex(home: Path) -> dict[str, str]:
    codex = _module("codex_fixtures", "codex/codex_fixtures.py")
    root = home / ".codex"
    for relative, text in (
        (
            f"sessions/2026/08/20/rollout-2026-08-20T10-00-00-{codex.SESSION_ID}.jsonl",
            codex.current_text,
        ),
        (f"sessions/2025/06/01/rollout-2025-06-01T08-30-00-{codex.BARE_ID}.jsonl", codex.bare_text),
        (f"sessions/rollout-2025-04-16-{codex.LEGACY_ID}.json", codex.legacy_text),
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text().encode("utf-8"))
    return {}


def _cursor_cli(home: Path) -> dict[str, str]:
    fixtures = _module("cursor_cli_fixtures", "cursor_cli/cursor_cli_fixtures.py")
    fixtures.kitchen_sink_chat(home / ".cursor" / "chats")
    return {}


def _cursor_transcripts(home: Path) -> dict[str, str]:
    transcripts = _module("cursor_cli_fixtures", "cursor_cli/cursor_cli_fixtures.py")
    workspace = home / "acme"
    workspace.mkdir()
    transcripts.write_transcripts(home / ".cursor", str(workspace))
    return {}


def _opencode(home: Path) -> dict[str, str]:
    f = _module("opencode_fixtures", "opencode/opencode_fixtures.py")
    data = home / ".local" / "share" / "opencode"
    f.build_db(data / "opencode.db", f.CURRENT_DDL, [f.main_session()], [f.untitled_session()])
    return {}


def _opencode_old(home: Path) -> dict[str, str]:
    f = _module("opencode_fixtures", "opencode/opencode_fixtures.py")
    data = home / ".local" / "share" / "opencode"
    f.build_db(data / "opencode.db", f.OLD_DDL, [f.old_session()])
    f.build_db(
        data / "opencode-stable.db", f.OLD_DDL, [], [f.old_session(f.CHANNEL_ID, "From stable")]
    )
    f.storage_layout(data)
    f.oldest_layout(data)
    return {}


def _gemini(home: Path) -> dict[str, str]:
    gemini = _module("gemini_fixtures", "gemini/gemini_fixtures.py")
    gemini.build_store(home / ".gemini")
    return {}


def _goose(home: Path) -> dict[str, str]:
    goose = _module("goose_fixtures", "goose/goose_fixtures.py")
    data = home / ".local" / "share" / "goose"
    goose.build_current(data)
    goose.build_legacy(data)
    return {}


def _crush(home: Path) -> dict[str, str]:
    crush = _module("crush_fixtures", "crush/crush_fixtures.py")
    crush.build_current(home / ".local" / "share" / "crush", home / "work")
    return {}


def _droid(home: Path) -> dict[str, str]:
    droid = _module("droid_fixtures", "droid/droid_fixtures.py")
    droid.build_project(home / ".factory")
    droid.build_flat(home / ".factory")
    return {}


STORES: dict[str, tuple[str, Builder]] = {
    "cursor-desktop-3.16": ("cursor_desktop", _cursor_desktop("app_3_16")),
    "cursor-desktop-3.16-txcript-headers": (
        "cursor_desktop",
        _cursor_desktop("app_3_16", headers="txcript", journal="delete"),
    ),
    "cursor-desktop-3.7": ("cursor_desktop", _cursor_desktop("app_3_7")),
    "cursor-desktop-1.7": ("cursor_desktop", _cursor_desktop("app_1_7")),
    "cursor-desktop-0.50": ("cursor_desktop", _cursor_desktop("app_0_50")),
    "cursor-desktop-0.45": ("cursor_desktop", _cursor_desktop("app_0_45")),
    "cursor-desktop-example": ("cursor_desktop", _cursor_desktop_example),
    "claude-code": ("claude_code", _claude_code),
    "codex": ("codex", _codex),
    "cursor-cli": ("cursor", _cursor_cli),
    "cursor-transcripts": ("cursor_transcripts", _cursor_transcripts),
    "opencode": ("opencode", _opencode),
    "opencode-old": ("opencode", _opencode_old),
    "gemini": ("gemini", _gemini),
    "goose": ("goose", _goose),
    "crush": ("crush", _crush),
    "droid": ("droid", _droid),
}


def _family(harness_id: str, family: family_stores.Family) -> Builder:
    def build(home: Path) -> dict[str, str]:
        info = harnesses.info(harness_id)
        root = family_stores.build_at_home(info, family, home)
        if family_stores.has_default_place(info) or info.root is None or not info.root.env:
            return {}
        return {info.root.env: str(root)}  # a store the user names (an export file)

    return build


# Every other harness: a golden store per conformance family, so a new harness is pinned here by
# declaring its families.
_BY_HAND = {harness for harness, _ in STORES.values()}
for _info, _fam in family_stores.families(exclude=_BY_HAND):
    _name = re.sub(r"[^A-Za-z0-9]+", "-", f"{_info.id}-{_fam.name}").strip("-")
    STORES[_name] = (_info.id, _family(_info.id, _fam))


# ------------------------------------------------------------------------------------ helpers


def _tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` by hash, except txcript's own cache dir (the listing metadata
    it keeps there is no part of any store)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[:2] != (".cache", "txcript")
    }


def _open_store(name: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Build store ``name`` under ``home`` and return its sessions' ids (as `list` shows them)."""
    harness_id, build = STORES[name]
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for key, value in build(home).items():
        monkeypatch.setenv(key, value)
    for path in home.rglob("*"):  # some formats show a file's mtime
        os.utime(path, ns=(FIXED_MTIME_NS, FIXED_MTIME_NS))
    store = harnesses.get(harness_id).store()
    assert store is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(dict.fromkeys(session.meta_id for session in store.discover()))


def _exported(reference: str, harness_id: str, export_format: str, home: Path) -> str:
    """The export as the CLI writes it, or ``error: …`` when it is refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            text = export_session(reference, harness_id, export_format)
        except TxcriptError as error:
            return f"error: {error}\n"
    return text.replace(str(home), "<HOME>")


def _golden(path: Path, text: str) -> None:
    if os.environ.get("TXCRIPT_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
    assert path.exists(), f"{path} is missing: run with TXCRIPT_UPDATE_GOLDEN=1 to write it"
    assert text == path.read_bytes().decode("utf-8"), (
        f"{path.name} differs from its golden file; if the change is intended, rewrite it with "
        "TXCRIPT_UPDATE_GOLDEN=1 and review the diff"
    )


def _file_name(reference: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in reference)


# ------------------------------------------------------------------------------------ tests


@pytest.mark.parametrize("name", sorted(STORES))
def test_every_export_matches_its_golden_file(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ids = _open_store(name, home, monkeypatch)
    assert ids, f"the {name} fixture store lists no session"
    before = _tree(home)
    harness_id = STORES[name][0]
    expected_files = set()
    for reference in ids:
        for export_format in EXPORT_FORMATS:
            suffix = SUFFIX.get(export_format, "native")
            file = GOLDEN / name / f"{_file_name(reference)}.{suffix}"
            expected_files.add(file.name)
            text = _exported(reference, harness_id, export_format, home)
            _golden(file, text)
    assert {p.name for p in (GOLDEN / name).iterdir()} == expected_files, "a golden file is stale"
    assert _tree(home) == before, "an export changed the store"


def test_the_golden_stores_are_not_trivial() -> None:
    """Each harness has a golden store, and the Cursor ones hold tool calls in every format."""
    assert {harness for harness, _ in STORES.values()} == {
        h.id for h in harnesses.implemented() if h.has_store
    }
    for name in ("cursor-desktop-example", "cursor-desktop-3.7"):
        common = (GOLDEN / name).glob("*.common.json")
        assert any('"tool_use"' in path.read_text("utf-8") for path in common), name


def test_the_cli_writes_the_golden_bytes(run_cli: RunCli, isolated_home: Path) -> None:
    """The command streams its output; what reaches stdout and ``--out`` is the golden file."""
    db = _module("dbfixtures", "cursor_desktop/dbfixtures.py")
    user = isolated_home / "CursorUser"
    (user / "globalStorage").mkdir(parents=True)
    db.app_3_16(user / "globalStorage" / "state.vscdb")
    env = {"CURSOR_DESKTOP_USER_DIR": str(user)}
    for export_format in ("common", "simple", "native"):
        golden = (
            GOLDEN / "cursor-desktop-3.16" / f"{db.CID_A}.{SUFFIX.get(export_format, 'native')}"
        )
        expected = golden.read_bytes().decode("utf-8")
        shown = run_cli("export", db.CID_A, "--format", export_format, env=env)
        assert shown.code == 0, shown.stderr
        assert shown.stdout.replace(str(isolated_home), "<HOME>") == expected
        out = isolated_home / f"out.{export_format}"
        written = run_cli("export", db.CID_A, "--format", export_format, "--out", str(out), env=env)
        assert written.code == 0, written.stderr
        assert out.read_text("utf-8").replace(str(isolated_home), "<HOME>") == expected
