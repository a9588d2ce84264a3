"""Item 1 of the hostile-store review: a stored or imported id can never become an option.

Each harness has an id grammar (:mod:`txcript.shared.ids`): every writer checks it, every resume
command is built from an id that passed it, and a faithful copy of a foreign id gets the id the
allow-list maps it to (a deterministic UUIDv5). A stand-in binary on PATH records the argv a
resume would run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hostile_support import (
    UUID_A,
    UUID_B,
    claude_lines,
    codex_lines,
    codex_rollout_path,
    one_line_error,
    recorded,
    simple_doc,
    snapshot,
    stand_in,
    write_json,
)

from cli_helpers import empty_cursor_database
from conftest import RunCli
from txcript import harnesses
from txcript import model as m
from txcript.errors import BadInput
from txcript.shared.ids import (
    CURSOR_IDS,
    FOREIGN_ID_NAMESPACE_TAG,
    OPENCODE_IDS,
    UUID_IDS,
    foreign_uuid,
    option_safe,
)

HOSTILE = [
    "--dangerously-skip-permissions",
    "-c",
    "--full-auto",
    "-",
    "x" * 300,
    "a b",
    "ses_1",
    "abc%",
    "a_c",
    "../../x",
    "\x1b]0;title\x07",
]


@pytest.fixture
def env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    log = tmp_path / "argv.log"
    for name in ("claude", "codex", "cursor"):
        stand_in(bin_dir, name, log)
    return {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "CURSOR_DESKTOP_USER_DIR": str(tmp_path / "cursor"),
        "TXCRIPT_DATA_DIR": str(tmp_path / "data"),
        "TXCRIPT_CACHE_DIR": str(tmp_path / "cache"),
        "ARGV_LOG": str(log),
    }


def _roots(env: dict[str, str], home: Path) -> tuple[Path, ...]:
    return (home, *(Path(env[k]) for k in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "TXCRIPT_DATA_DIR")))


# --------------------------------------------------------------------------- the grammars


def test_the_allow_list_keeps_valid_ids_and_maps_every_other_to_a_fixed_uuid5() -> None:
    assert UUID_IDS.adopt(UUID_A) == UUID_A
    mapped = UUID_IDS.adopt("doc-1")
    assert (
        mapped
        == str(uuid.uuid5(uuid.UUID(bytes=FOREIGN_ID_NAMESPACE_TAG), "doc-1"))
        == foreign_uuid("doc-1")
    )
    assert uuid.UUID(mapped).version == 5
    assert UUID_IDS.adopt("doc-1") == mapped  # deterministic
    for hostile in HOSTILE:
        adopted = UUID_IDS.adopt(hostile)
        assert UUID_IDS.problem(adopted) is None and not adopted.startswith("-")
        assert CURSOR_IDS.problem(CURSOR_IDS.adopt(hostile)) is None
        assert OPENCODE_IDS.problem(OPENCODE_IDS.adopt(hostile)) is None
    assert CURSOR_IDS.adopt("legacy-composer-1") == "legacy-composer-1"
    assert OPENCODE_IDS.adopt("ses_abc") == "ses_abc"
    assert OPENCODE_IDS.adopt(UUID_A).startswith("ses_")


@pytest.mark.parametrize("hostile", HOSTILE)
def test_every_resume_command_refuses_an_id_outside_its_grammar(hostile: str) -> None:
    for name in ("claude_code", "codex", "cursor_desktop"):
        with pytest.raises(BadInput, match="is not a valid"):
            harnesses.get(name).resume_command(hostile)
    with pytest.raises(BadInput, match="would be read as an option"):
        option_safe("-x")


def test_resume_argv_never_lets_an_id_be_read_as_an_option() -> None:
    assert harnesses.get("claude_code").resume_command(UUID_A) == ["claude", f"--resume={UUID_A}"]
    assert harnesses.get("codex").resume_command(UUID_B) == ["codex", "resume", UUID_B]
    assert harnesses.get("cursor_desktop").resume_command(UUID_A) == ["cursor"]


# ------------------------------------------------------------------ resume, end to end


def _plant_claude(env: dict[str, str], session_id: str) -> Path:
    path = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-tmp" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(claude_lines(session_id))
    return path


def _plant_codex(env: dict[str, str], session_id: str, text: str = "hello") -> Path:
    path = codex_rollout_path(Path(env["CODEX_HOME"]), session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(codex_lines(session_id, text=text))
    return path


def _plant_cursor(env: dict[str, str], session_id: str) -> None:
    """A session another tool planted: written past txcript's own writer checks."""
    from txcript.harnesses.cursor_desktop import codec, saving

    root = Path(env["CURSOR_DESKTOP_USER_DIR"])
    transcript = m.Transcript(
        meta=m.Meta(id=session_id, timestamp=datetime(2026, 8, 21, 9, 30, tzinfo=UTC)),
        messages=(
            m.Message(
                role="user",
                content=(m.Text(text="hello"),),
                timestamp=datetime(2026, 8, 21, 9, 30, 1, tzinfo=UTC),
            ),
        ),
    )
    database = root / "globalStorage" / "state.vscdb"
    os.environ["TXCRIPT_DATA_DIR"] = env["TXCRIPT_DATA_DIR"]
    try:
        saving.save(database, root, codec.from_common(transcript), force=True)
    finally:
        del os.environ["TXCRIPT_DATA_DIR"]
    sqlite3.connect(database).close()


@pytest.mark.parametrize(
    ("harness", "plant", "expected"),
    [
        ("claude_code", _plant_claude, ["--resume=" + UUID_A]),
        ("codex", _plant_codex, ["resume", UUID_A]),
        ("cursor_desktop", _plant_cursor, []),
    ],
)
def test_a_valid_stored_session_resumes_with_the_expected_argv(
    run_cli: RunCli, env: dict[str, str], harness: str, plant: object, expected: list[str]
) -> None:
    plant(env, UUID_A)  # type: ignore[operator]
    result = run_cli("continue", UUID_A, "--from", harness, env=env)
    assert result.code == 0, result.stderr
    assert recorded(Path(env["ARGV_LOG"])) == [expected]


@pytest.mark.parametrize("hostile", ["--dangerously-skip-permissions", "-c", "--full-auto"])
@pytest.mark.parametrize(
    ("harness", "plant"),
    [("claude_code", _plant_claude), ("codex", _plant_codex), ("cursor_desktop", _plant_cursor)],
)
def test_a_stored_id_shaped_like_an_option_is_refused_before_anything_runs(
    run_cli: RunCli,
    env: dict[str, str],
    isolated_home: Path,
    harness: str,
    plant: object,
    hostile: str,
) -> None:
    """The review's attack: a planted session named ``--dangerously-skip-permissions`` made
    ``continue`` run ``claude --resume --dangerously-skip-permissions``. The id is now checked
    against the harness's grammar at lookup, before any argv is built, and nothing runs."""
    plant(env, hostile)  # type: ignore[operator]
    with_template = dict(env)
    with_template["TRANSCRIPT_CURSOR_DESKTOP_RESUME_CMD"] = "cursor {id}"
    before = snapshot(*_roots(env, isolated_home), exclude=(Path(env["TXCRIPT_CACHE_DIR"]),))
    result = run_cli("continue", "--from", harness, "--", hostile, env=with_template)
    one_line_error(result, 2, "is not a valid")
    assert recorded(Path(env["ARGV_LOG"])) == []
    assert (
        snapshot(*_roots(env, isolated_home), exclude=(Path(env["TXCRIPT_CACHE_DIR"]),)) == before
    )


@pytest.mark.parametrize("target", ["claude_code", "codex"])
def test_a_hostile_document_id_becomes_its_uuid5_with_a_note(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, target: str
) -> None:
    """A Simple document with id ``--dangerously-skip-permissions`` continued with ``--out``
    kept that id in the copy (and its resume hint). A faithful copy now gets the id's UUIDv5,
    and ``continue`` says so."""
    hostile = "--dangerously-skip-permissions"
    doc = write_json(tmp_path / "doc.json", simple_doc(hostile))
    out = tmp_path / "out"
    result = run_cli("continue", str(doc), "--with", target, "--out", str(out), "--json", env=env)
    assert result.code == 0, result.stderr
    mapped = foreign_uuid(hostile)
    row = json.loads(result.stdout)
    assert row["id"] == mapped
    assert hostile not in " ".join(row["resume_command"])
    assert f"the copy is `{mapped}`" in result.stderr
    assert not [p for p in out.rglob("*") if hostile in p.name]
    again = run_cli("continue", str(doc), "--with", target, "--out", str(tmp_path / "o2"), env=env)
    assert mapped in again.stdout  # the same source id always maps to the same id


@pytest.mark.parametrize("target", ["claude_code", "codex", "cursor_desktop"])
def test_a_fresh_copy_of_a_hostile_document_resumes_by_its_new_id(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, target: str
) -> None:
    doc = write_json(tmp_path / "doc.json", simple_doc("--dangerously-skip-permissions"))
    if target == "cursor_desktop":  # (a live write needs the app's database)
        empty_cursor_database(Path(env["CURSOR_DESKTOP_USER_DIR"]))
    result = run_cli("continue", str(doc), "--with", target, "--force", env=env)
    assert result.code == 0, result.stderr
    (argv,) = recorded(Path(env["ARGV_LOG"]))
    assert not any(arg.startswith("--dangerously") for arg in argv)


@pytest.mark.parametrize(
    ("target", "needle"),
    [("claude_code", "Claude Code"), ("codex", "Codex"), ("cursor_desktop", "Cursor desktop")],
)
def test_every_writer_refuses_an_id_outside_its_grammar(
    tmp_path: Path, target: str, needle: str
) -> None:
    harness = harnesses.get(target)
    for hostile in HOSTILE:
        transcript = m.Transcript(
            meta=m.Meta(id=hostile, timestamp=datetime(2026, 8, 21, 9, 30, tzinfo=UTC)),
            messages=(
                m.Message(
                    role="user",
                    content=(m.Text(text="hi"),),
                    timestamp=datetime(2026, 8, 21, 9, 30, 1, tzinfo=UTC),
                ),
            ),
        )
        root = tmp_path / "root"
        with pytest.raises(BadInput):
            harness.store(root).save(harness.from_common(transcript), force=True)
        assert not root.exists()


def test_a_300_character_id_into_codex_is_a_clean_error(
    run_cli: RunCli, env: dict[str, str], tmp_path: Path, isolated_home: Path
) -> None:
    """Item 10: a 300-character id gave ``internal error`` (a file name over 255 bytes). Looked
    up, it is a clean "no session"; continued, the copy gets the id's UUIDv5; a planted rollout
    with it is listed but never resumed."""
    long_id = "a" * 300
    looked_up = run_cli("view", long_id, "--from", "codex", env=env)
    one_line_error(looked_up, 2, "no local codex session")
    doc = tmp_path / "long.jsonl"
    doc.write_text(codex_lines(long_id))
    out = tmp_path / "out"
    result = run_cli("continue", str(doc), "--with", "codex", "--out", str(out), env=env)
    assert result.code == 0, result.stderr
    assert foreign_uuid(long_id) in result.stdout
    rollout = _plant_codex(env, UUID_B, text="long one")
    rollout.write_text(codex_lines(long_id, text="long one"))
    before = snapshot(isolated_home, Path(env["CODEX_HOME"]))
    resumed = run_cli("continue", "--from", "codex", "--", long_id, env=env)
    one_line_error(resumed, 2, "is 300 characters long")
    assert recorded(Path(env["ARGV_LOG"])) == []
    assert snapshot(isolated_home, Path(env["CODEX_HOME"])) == before
