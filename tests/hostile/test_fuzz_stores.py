"""A bounded fuzz over store files: whatever a store holds, every reader answers with its result,
warnings, or one-line txcript errors, never another exception (issue 10, "Must show").

Each example starts from a valid session and damages it: a Claude Code JSONL or a Codex rollout
has lines mutated (a field replaced by any JSON value, deleted, the line replaced by junk or
dropped); a Cursor desktop ``state.vscdb`` (a real 3.16 database) has its ``composerData``, bubble
and header values replaced the same way, or by invalid UTF-8 blobs. The readers are run in process
(fast): ``list`` (discover + the ``--json`` row), load + Common, ``view``, and ``export`` in every
format; a few examples also go through the CLI in a subprocess.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_support import UUID_A, claude_lines, codex_lines, codex_rollout_path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from txcript import harnesses
from txcript.diagnostics import TranscriptWarning
from txcript.errors import TxcriptError
from txcript.fragment import Span
from txcript.harnesses.claude_code.store import encode_project
from txcript.operations import export_session, render_document, session_row, view_session
from txcript.render import view
from txcript.sessions import discover, load_session

sys.path.insert(0, str(Path(__file__).parents[1] / "cursor_desktop"))
import dbfixtures as desk_fx

FUZZ = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
junk_text = st.one_of(
    st.text(max_size=40),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.sampled_from(["{", "[]", "null", '{"type": "user"', "\x00\x1b[2J", "1e999999", '"\\ud800"']),
)


def _mutate(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    """``value`` with one place in it replaced by any JSON value, or one key deleted."""
    if isinstance(value, dict) and value and depth < 5:
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["descend", "replace", "delete"]))
        copy = dict(value)
        if action == "delete":
            del copy[key]
        elif action == "replace":
            copy[key] = data.draw(json_values)
        else:
            copy[key] = _mutate(data, value[key], depth + 1)
        return copy
    if isinstance(value, list) and value and depth < 5:
        index = data.draw(st.integers(0, len(value) - 1))
        copy = list(value)
        copy[index] = _mutate(data, value[index], depth + 1)
        return copy
    return data.draw(json_values)


def _damaged_lines(data: st.DataObject, text: str) -> bytes:
    """JSONL ``text`` with each line kept, mutated, replaced by junk or dropped."""
    out: list[str] = []
    for line in text.splitlines():
        action = data.draw(st.sampled_from(["keep", "mutate", "mutate", "junk", "drop"]))
        if action == "keep":
            out.append(line)
        elif action == "mutate":
            out.append(json.dumps(_mutate(data, json.loads(line)), ensure_ascii=False))
        elif action == "junk":
            out.append(data.draw(junk_text).replace("\n", " "))
    if data.draw(st.booleans()):
        out.append(json.dumps(data.draw(json_values)))
    return "\n".join(out).encode("utf-8", "surrogateescape") + b"\n"


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def _quietly(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call``'s result, or None when it raised a txcript error (which must be one line)."""
    try:
        return call(*args, **kwargs)
    except TxcriptError as exc:
        assert "\n" not in str(exc), repr(str(exc))
        return None


def _read_everything(harness_id: str) -> None:
    """Every reader over the store the environment points at; only txcript errors may escape.

    ``view`` and ``export`` by id (which look the session up again) run for the first two
    sessions; the reading formats render every loaded session directly.
    """
    harness = harnesses.get(harness_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = _quietly(discover, [harness_id]) or []
        for number, session in enumerate(found):
            session_row(session)
            loaded = _quietly(load_session, session)
            if loaded is not None:
                _, native = loaded
                _quietly(harness.to_text, native)
                transcript = _quietly(harness.to_common, native)
                if transcript is not None:
                    span = Span(0, len(transcript.messages))
                    _quietly(view.render, transcript, span)
                    for reading in ("markdown", "html"):
                        _quietly(render_document, transcript, reading, harness=harness_id)
            if session.meta_id and number < 2:
                _quietly(view_session, session.meta_id, harness_id)
                for export_format in ("simple", "common", "native"):
                    _quietly(export_session, session.meta_id, harness_id, export_format)
    strays = [w for w in caught if not issubclass(w.category, TranscriptWarning)]
    assert not strays, [str(w.message) for w in strays]


# ------------------------------------------------------------------------- Claude Code, Codex


def _claude_store(root: Path, content: bytes) -> None:
    project = root / "projects" / encode_project("/tmp")
    project.mkdir(parents=True)
    (project / f"{UUID_A}.jsonl").write_bytes(content)


def _codex_store(root: Path, content: bytes) -> None:
    path = codex_rollout_path(root, UUID_A)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)


@FUZZ
@given(data=st.data())
def test_damaged_claude_code_lines_never_escape_as_other_exceptions(data: st.DataObject) -> None:
    content = _damaged_lines(data, claude_lines(UUID_A) + claude_lines(UUID_A, text="again"))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "claude"
        _claude_store(root, content)
        env = {"CLAUDE_CONFIG_DIR": str(root), "TXCRIPT_CACHE_DIR": f"{scratch}/cache"}
        with _environment(env):
            _read_everything("claude_code")


@FUZZ
@given(data=st.data())
def test_damaged_codex_rollout_lines_never_escape_as_other_exceptions(data: st.DataObject) -> None:
    content = _damaged_lines(data, codex_lines(UUID_A))
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "codex"
        _codex_store(root, content)
        env = {"CODEX_HOME": str(root), "TXCRIPT_CACHE_DIR": f"{scratch}/cache"}
        with _environment(env):
            _read_everything("codex")


# ---------------------------------------------------------------------------- Cursor desktop


@pytest.fixture(scope="module")
def cursor_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real 3.16 ``state.vscdb`` (rollback journal: one file to copy per example)."""
    path = tmp_path_factory.mktemp("cursor-template") / "state.vscdb"
    return desk_fx.app_3_16(path, journal="delete")


def _cursor_rows(template: Path) -> dict[str, tuple[str, str]]:
    """The values the fuzz damages: key → (table, current value)."""
    with contextlib.closing(sqlite3.connect(template)) as conn:
        kv = conn.execute(
            "SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%' "
            "OR key LIKE 'bubbleId:%'"
        ).fetchall()
        heads = conn.execute("SELECT composerId, value FROM composerHeaders").fetchall()
    rows = {key: ("cursorDiskKV", value) for key, value in kv if isinstance(value, str)}
    rows.update({cid: ("composerHeaders", value) for cid, value in heads if isinstance(value, str)})
    return rows


def _damaged_value(data: st.DataObject, value: str) -> tuple[bytes | None, bool]:
    """A replacement for a row value: its bytes, and whether they are bound as TEXT."""
    action = data.draw(st.sampled_from(["mutate", "mutate", "junk", "blob", "null"]))
    if action == "null":
        return None, False
    if action == "blob":
        return data.draw(st.binary(max_size=30)) + b"\xff\xfe", False
    text = data.draw(junk_text)
    if action == "mutate":
        with contextlib.suppress(ValueError):
            text = json.dumps(_mutate(data, json.loads(value)), ensure_ascii=False)
    # TEXT cells may hold invalid UTF-8 too (surrogate escapes become the raw bytes).
    return text.encode("utf-8", "surrogateescape"), True


@FUZZ
@given(data=st.data())
def test_damaged_cursor_desktop_rows_never_escape_as_other_exceptions(
    cursor_template: Path, data: st.DataObject
) -> None:
    rows = _cursor_rows(cursor_template)
    chosen = data.draw(st.lists(st.sampled_from(sorted(rows)), min_size=1, max_size=4, unique=True))
    with tempfile.TemporaryDirectory() as scratch:
        user = Path(scratch) / "User"
        database = user / "globalStorage" / "state.vscdb"
        database.parent.mkdir(parents=True)
        shutil.copyfile(cursor_template, database)
        with contextlib.closing(sqlite3.connect(database, isolation_level=None)) as conn:
            for key in chosen:
                table, value = rows[key]
                column = "key" if table == "cursorDiskKV" else "composerId"
                damaged, as_text = _damaged_value(data, value)
                cell = "CAST(? AS TEXT)" if as_text else "?"
                conn.execute(
                    f"UPDATE {table} SET value = {cell} WHERE {column} = ?",
                    (damaged, key),
                )
        env = {"CURSOR_DESKTOP_USER_DIR": str(user), "TXCRIPT_CACHE_DIR": f"{scratch}/cache"}
        with _environment(env):
            _read_everything("cursor_desktop")


# ----------------------------------------------------------------------- through the real CLI


@settings(FUZZ, max_examples=2)
@given(data=st.data())
def test_damaged_stores_through_the_cli_give_one_line_errors_at_most(data: st.DataObject) -> None:
    claude = _damaged_lines(data, claude_lines(UUID_A))
    codex = _damaged_lines(data, codex_lines(UUID_A))
    with tempfile.TemporaryDirectory() as scratch:
        _claude_store(Path(scratch) / "claude", claude)
        _codex_store(Path(scratch) / "codex", codex)
        env = dict(os.environ)
        env.update(
            {
                "HOME": scratch,
                "CLAUDE_CONFIG_DIR": f"{scratch}/claude",
                "CODEX_HOME": f"{scratch}/codex",
                "TXCRIPT_CACHE_DIR": f"{scratch}/cache",
            }
        )
        for args in (["list", "--json"], ["export", UUID_A, "--from", "claude_code"]):
            done = subprocess.run(
                [sys.executable, "-m", "txcript", *args],
                capture_output=True,
                env=env,
                timeout=60,
                input=b"",
            )
            errors = [
                line
                for line in done.stderr.decode("utf-8", "replace").splitlines()
                if not line.startswith("txcript: warning: ")
            ]
            assert done.returncode in (0, 1, 2), done.stderr
            assert len(errors) <= 1 and b"Traceback" not in done.stderr, done.stderr
            if done.returncode:
                assert errors and errors[0].startswith("txcript: error: ")
                assert "internal error" not in errors[0], errors[0]
