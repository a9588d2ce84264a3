"""The public surface is deliberate: ``__all__`` is pinned, typed for a user's mypy, and cheap to
import. Adding a name here is a decision; removing one is a breaking change the changelog names."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

import txcript

PUBLIC = [
    "Backup",
    "Format",
    "HarnessEntry",
    "Hit",
    "Match",
    "Resume",
    "Saved",
    "Session",
    "Transcript",
    "TranscriptWarning",
    "TxcriptError",
    "__version__",
    "delete",
    "dumps",
    "errors",
    "find",
    "list_backups",
    "list_harnesses",
    "list_sessions",
    "load",
    "loads",
    "restore",
    "save",
]


def test_all_is_the_pinned_surface() -> None:
    assert sorted(txcript.__all__) == PUBLIC
    assert dir(txcript) == sorted(PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(txcript, name) is not None


def test_public_names_do_not_shadow_the_package_modules() -> None:
    modules = {
        p.stem if p.is_file() else p.name
        for p in Path(txcript.__file__).parent.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem != "__init__"
    }
    assert {"harnesses", "sessions", "search", "model"} <= modules
    # ``errors`` is the one module that is public, by name, as a module.
    assert set(PUBLIC) & modules == {"errors"}
    assert isinstance(txcript.errors, types.ModuleType)
    sessions = importlib.import_module("txcript.sessions")
    assert txcript.sessions is sessions
    txcript.list_sessions  # noqa: B018  (loading a public name leaves the modules be)
    assert txcript.sessions is sessions


def test_errors_share_one_base() -> None:
    errors = txcript.errors
    for error in (errors.BadInput, errors.NotFound, errors.Ambiguous, errors.StoreError):
        assert issubclass(error, txcript.TxcriptError)
    assert issubclass(errors.NotFound, errors.BadInput)  # the CLI exits 2 for both
    assert issubclass(errors.Ambiguous, errors.BadInput)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'harness_rows'"):
        txcript.harness_rows  # noqa: B018


def test_import_txcript_loads_no_library_module() -> None:
    """``import txcript`` costs a version lookup: each name loads on first use (the speed of
    that is measured in benchmarks/bench_import.py, not here)."""
    probe = (
        "import sys; import txcript; "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('txcript', 'msgspec', 'click', 'platformdirs'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["txcript", "txcript._version"]


USER_SCRIPT = """
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import txcript
from txcript.errors import Ambiguous, BadInput, NotFound, StoreError


def week_of_claude() -> list[txcript.Session]:
    return list(txcript.list_sessions("claude_code", since="7d", limit=10))


def move(session: txcript.Session) -> tuple[str, str | None]:
    transcript: txcript.Transcript = txcript.load(session.id, harness=session.harness)
    page: str = txcript.dumps(transcript, "markdown")
    again: txcript.Transcript = txcript.loads(txcript.dumps(transcript))
    saved: txcript.Saved = txcript.save(again, "codex", cwd=Path("."))
    resume: txcript.Resume = saved.resume
    argv: tuple[str, ...] = resume.argv
    where: Path | None = resume.cwd
    undone: str | None = txcript.delete(saved.id, "codex")
    return page + " ".join(argv) + str(where), undone


def search() -> list[int | None]:
    found: list[txcript.Match] = txcript.find("flaky test", cwd=".")
    hits: list[txcript.Hit] = [hit for match in found for hit in match.hits]
    return [hit.message for hit in hits]


def harnesses() -> dict[str, Path | None]:
    entries: list[txcript.HarnessEntry] = txcript.list_harnesses()
    return {entry.id: entry.root for entry in entries if entry.writes}


def undo() -> None:
    backups: list[txcript.Backup] = txcript.list_backups()
    replaced: txcript.Backup | None = txcript.restore(backups[0].id)
    print(replaced, txcript.__version__)


def errors(fmt: txcript.Format) -> None:
    try:
        txcript.load("nope")
    except (NotFound, Ambiguous, BadInput, StoreError, txcript.TxcriptError) as error:
        print(error, fmt, txcript.errors.BadInput)
    created: datetime = week_of_claude()[0].created
    print(created, txcript.TranscriptWarning)
"""


def test_a_user_script_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    """mypy strict passes for code that imports only ``txcript`` (the package ships py.typed)."""
    pytest.importorskip("mypy")
    assert (Path(txcript.__file__).parent / "py.typed").exists()
    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # And a wrong use is caught: the surface is typed, not Any.
    script.write_text("import txcript\nx: int = txcript.load('a')\n", encoding="utf-8")
    wrong = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert wrong.returncode == 1 and "Transcript" in wrong.stdout, wrong.stdout
