"""What only the pi-family stores do, on real directory trees (the conformance suite covers the
contracts every store honours): saves land where pi looks, other apps' and explicit session dirs
are listed, deletes can be undone, damaged files are named."""

from __future__ import annotations

import os
from pathlib import Path

import pi_fixtures as f
import pytest

from txcript import harnesses
from txcript.errors import BadInput, TxcriptError
from txcript.harnesses.pi.store import PiStore, open_pi, project_dir_name

PI = harnesses.get("pi")
CAMPFIRE = harnesses.get("campfire")


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(tmp_path / "txcript-data"))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))


def test_store_round_trip_is_byte_lossless(tmp_path: Path) -> None:
    source = f.write_pi(tmp_path / "a", f.SID_DUP, f.duplicated_header())
    store = PI.store(tmp_path / "a")
    with pytest.warns(UserWarning):
        native = store.load(str(source))
    fresh = PI.store(tmp_path / "b")
    saved = fresh.save(native)
    assert Path(saved.location).read_bytes() == source.read_bytes()
    assert saved.id == f.SID_DUP
    relative = Path(saved.location).relative_to(tmp_path / "b")
    assert relative.parts == (
        "sessions",
        "--work-app--",
        f"2026-11-01T10-00-00-000Z_{f.SID_DUP}.jsonl",
    )


def test_project_directory_names_follow_pi() -> None:
    assert project_dir_name("/work/app") == "--work-app--"
    assert project_dir_name("C:\\Users\\u\\p") == "--C--Users-u-p--"
    assert project_dir_name("\\\\server\\share") == "---server-share--"


def test_flat_files_and_other_project_names_are_listed(tmp_path: Path) -> None:
    """pi writes flat into an explicit session dir; oh-my-pi names project dirs its own way."""
    sessions = tmp_path / "sessions"
    (sessions / "omp-style-name").mkdir(parents=True)
    (sessions / f"x_{f.SID_V3}.jsonl").write_text(f.v3())
    (sessions / "omp-style-name" / f"{f.SID_V2}.jsonl").write_text(f.v2())
    (sessions / "notes.jsonl").write_text('{"type": "message"}\n')  # not a pi session
    (sessions / "link").symlink_to(sessions / "omp-style-name")  # never followed
    found = PI.store(tmp_path).discover()
    assert sorted(d.meta_id for d in found) == sorted([f.SID_V3, f.SID_V2])


def test_lookup_reads_only_files_named_for_the_prefix(tmp_path: Path) -> None:
    f.write_pi(tmp_path, f.SID_V3, f.v3())
    f.write_pi(tmp_path, f.SID_V2, f.v2())
    store = PI.store(tmp_path)
    assert [d.meta_id for d in store.lookup("22222222")] == [f.SID_V2]
    assert store.lookup("ffff") == []


def test_oh_my_pi_sessions_are_listed_with_pis_default_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HOME"])
    f.write_pi(home / ".pi" / "agent", f.SID_V3, f.v3())
    omp = f.write_pi(home / ".omp" / "agent", f.SID_V2, f.v2())
    store = PI.store()
    assert store is not None and store.root == home / ".pi" / "agent"
    found = {d.meta_id: d.reference for d in store.discover()}
    assert found == {f.SID_V3: found[f.SID_V3], f.SID_V2: str(omp)}
    # PI_CONFIG_DIR renames oh-my-pi's config dir; XDG_DATA_HOME/omp/sessions is read when it
    # exists; another root (a copy under --out) has none of them.
    monkeypatch.setenv("PI_CONFIG_DIR", ".omp-renamed")
    assert [d.meta_id for d in PI.store().discover()] == [f.SID_V3]
    xdg = tmp_path / "xdg"
    (xdg / "omp" / "sessions" / "--w--").mkdir(parents=True)
    (xdg / "omp" / "sessions" / "--w--" / f"{f.SID_TREE}.jsonl").write_text(f.branched())
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    assert sorted(d.meta_id for d in PI.store().discover()) == sorted([f.SID_V3, f.SID_TREE])
    assert open_pi(tmp_path).extra_sessions == ()
    # Writes go to pi's own root.
    saved = PI.store().save(PI.from_common(PI.to_common(PI.from_text(f.branched()))))
    assert Path(saved.location).is_relative_to(home / ".pi" / "agent" / "sessions")


def test_campfire_is_the_same_format_under_its_own_home(tmp_path: Path) -> None:
    path = f.write_pi(tmp_path, f.SID_V3, f.v3())
    (found,) = CAMPFIRE.store(tmp_path).discover()
    assert found.harness == "campfire" and found.reference == str(path)
    assert CAMPFIRE.to_common(CAMPFIRE.store(tmp_path).load(str(path))) == PI.to_common(
        PI.from_text(f.v3())
    )
    assert CAMPFIRE.resume_command(f.SID_V3) == ["campfire", "--session", f.SID_V3]
    assert PI.resume_command(f.SID_V3) == ["pi", "--session", f.SID_V3]


def test_delete_backs_up_and_restore_brings_the_session_back(tmp_path: Path) -> None:
    from txcript.shared import backups

    path = f.write_pi(tmp_path, f.SID_V3, f.v3())
    data = path.read_bytes()
    store = PI.store(tmp_path)
    store.delete(str(path))
    assert not path.exists() and store.discover() == []
    (backup,) = backups.list_backups()
    backups.restore(backup)
    assert path.read_bytes() == data
    with pytest.raises(TxcriptError):
        store.delete(str(tmp_path / "sessions" / "missing.jsonl"))


def test_delete_refuses_outside_the_store_and_non_sessions(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    outside.write_text(f.v3())
    store = PI.store(tmp_path / "root")
    f.write_pi(tmp_path / "root", f.SID_V3, f.v3())
    with pytest.raises(BadInput, match="not inside"):
        store.delete(str(outside))
    link = tmp_path / "root" / "sessions" / "--work-app--" / "link.jsonl"
    link.symlink_to(outside)
    with pytest.raises(BadInput, match="not inside"):
        store.delete(str(link))
    other = tmp_path / "root" / "sessions" / "other.jsonl"
    other.write_text('{"type":"message"}\n')
    with pytest.raises(BadInput, match="not a pi session"):
        store.delete(str(other))
    assert outside.exists() and other.exists()


def test_damaged_files_give_one_warning_each_and_the_rest_still_lists(tmp_path: Path) -> None:
    """A truncated file keeps what it holds (its cut line warned once); a binary file is named
    once; a JSON file of another tool is no session; none stops the listing."""
    directory = tmp_path / "sessions" / "--work-app--"
    truncated = f.write_pi(tmp_path, f.SID_V3, f.v3()[:-40])
    (directory / "binary.jsonl").write_bytes(b"\x00\xff\xfe garbage")
    (directory / "other.jsonl").write_text('{"event": "x"}\n')
    with pytest.warns(UserWarning) as said:
        found = PiStore(tmp_path).discover()
    assert [d.meta_id for d in found] == [f.SID_V3]
    assert [str(w.message) for w in said] == [
        f"skipping {directory / 'binary.jsonl'}: not a pi session file (no JSON lines)"
    ]
    with pytest.warns(UserWarning, match=r"1 line of the pi session is not valid JSON") as said:
        transcript = PI.to_common(PiStore(tmp_path).load(str(truncated)))
    assert len(said) == 1
    assert len(transcript.messages) == 5  # the cut last answer is left out, nothing else


def test_loading_what_is_not_a_pi_session_is_one_error(tmp_path: Path) -> None:
    from txcript.errors import Malformed

    path = tmp_path / "x.jsonl"
    path.write_text('{"event": "x"}\n')
    with pytest.raises(Malformed, match="not a pi session"):
        PiStore(tmp_path).load(str(path))
    (tmp_path / "d.jsonl").mkdir()
    with pytest.raises(TxcriptError, match="directory"):
        PiStore(tmp_path).load(str(tmp_path / "d.jsonl"))
    with pytest.raises(BadInput, match="no such pi session"):
        PiStore(tmp_path).load(str(tmp_path / "missing.jsonl"))


def test_a_save_through_a_symlinked_project_dir_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    sessions = tmp_path / "agent" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "--work-app--").symlink_to(outside)
    native = PI.from_text(f.v3())
    from txcript.shared.files import PathRefused

    with pytest.raises(PathRefused, match="symbolic link"):
        PI.store(tmp_path / "agent").save(native)
    assert not any(outside.iterdir())


def test_an_explicit_session_dir_is_listed_and_written_flat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With PI_CODING_AGENT_SESSION_DIR set, pi keeps new sessions flat in it and looks for an
    id there first: txcript lists it and writes there, for pi's own agent dir only."""
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / f"2026-11-01T10-00-00-000Z_{f.SID_V2}.jsonl").write_text(f.v2())
    home = Path(os.environ["HOME"])
    f.write_pi(home / ".pi" / "agent", f.SID_V3, f.v3())
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", str(flat))
    store = PI.store()
    assert store is not None
    assert sorted(d.meta_id for d in store.discover()) == sorted([f.SID_V2, f.SID_V3])
    saved = store.save(PI.from_text(f.branched()))
    assert Path(saved.location).parent == flat
    # A copy's root (--out) is not pi's own: it keeps the project layout.
    assert PI.store(tmp_path / "copy").session_dir is None
    monkeypatch.setenv("CAMPFIRE_CODING_AGENT_SESSION_DIR", str(flat))
    monkeypatch.setenv("CAMPFIRE_CODING_AGENT_DIR", str(tmp_path / "camp"))
    campfire = CAMPFIRE.store()
    assert campfire is not None and campfire.session_dir == flat
