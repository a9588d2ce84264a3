"""``txcript archive`` over a real Claude Code store: the site, incremental re-runs by store
fingerprint, what it refuses, and progress only on a terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from render_fixtures import IDS, append_prompt, put_sessions

from conftest import RunCli
from txcript.diagnostics import TranscriptWarning
from txcript.render.archive import MANIFEST, build_archive, page_path
from txcript.sessions import discover


def _state(site: Path) -> dict[str, tuple[int, int]]:
    """Every file of the site with its inode and mtime: any rewrite changes one of them."""
    return {
        str(p.relative_to(site)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in site.rglob("*")
        if p.is_file()
    }


def _pages(site: Path) -> list[Path]:
    return sorted((site / "sessions").rglob("*.html"))


def test_archive_writes_an_index_and_a_page_per_session(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    put_sessions(isolated_home)
    site = tmp_path / "site"
    done = run_cli("archive", "--out", str(site))
    assert done.code == 0, done.stderr
    assert "archived 3 sessions" in done.stdout and "(3 written, 0 unchanged)" in done.stdout
    assert "archiving" not in done.stderr  # no progress line without a terminal
    index = (site / "index.html").read_text("utf-8")
    assert index.count("<tr data-harness=") == 3
    pages = _pages(site)
    assert len(pages) == 3
    for page in pages:
        text = page.read_text("utf-8")
        assert text.count('<article class="message') == 4
        assert 'href="../../index.html"' in text
        assert f'href="{page.relative_to(site).as_posix()}"' in index
    # Newest first by start time.
    assert [IDS.index(i) for i in re.findall(r'data-id="([^"]+)"', index)] == [2, 1, 0]


def test_a_rerun_rewrites_only_the_session_that_changed(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    files = put_sessions(isolated_home)
    site = tmp_path / "site"
    assert run_cli("archive", "--out", str(site)).code == 0
    before = _state(site)

    again = run_cli("archive", "--out", str(site))
    assert again.code == 0 and "(0 written, 3 unchanged)" in again.stdout
    assert _state(site) == before  # nothing at all was rewritten

    append_prompt(files[1], "one more thing: add a test")
    changed = run_cli("archive", "--out", str(site))
    assert changed.code == 0 and "(1 written, 2 unchanged)" in changed.stdout, changed.stdout
    after = _state(site)
    rewritten = {name for name in after if after[name] != before.get(name)}
    page = page_path("claude_code", IDS[1], str(files[1]))
    assert rewritten == {page, "index.html", MANIFEST}
    assert "one more thing: add a test" in (site / page).read_text("utf-8")
    assert '<td class="num">5</td>' in (site / "index.html").read_text("utf-8")


def test_a_deleted_session_keeps_its_page(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    files = put_sessions(isolated_home)
    site = tmp_path / "site"
    assert run_cli("archive", "--out", str(site)).code == 0
    files[0].unlink()
    done = run_cli("archive", "--out", str(site))
    assert done.code == 0 and "archived 2 sessions" in done.stdout
    assert "the index lists 3 sessions" in done.stdout
    assert len(_pages(site)) == 3
    assert (site / "index.html").read_text("utf-8").count("<tr data-harness=") == 3


def test_filters_choose_the_sessions(run_cli: RunCli, isolated_home: Path, tmp_path: Path) -> None:
    put_sessions(isolated_home)
    late = run_cli("archive", "--out", str(tmp_path / "late"), "--since", "2026-08-02")
    assert late.code == 0 and "archived 2 sessions" in late.stdout
    elsewhere = run_cli("archive", "--out", str(tmp_path / "none"), "--cwd", str(tmp_path))
    assert elsewhere.code == 0 and "archived 0 sessions" in elsewhere.stdout
    assert "<tr data-harness=" not in (tmp_path / "none" / "index.html").read_text("utf-8")
    codex = run_cli("archive", "--out", str(tmp_path / "codex"), "--from", "codex")
    assert codex.code == 0 and "archived 0 sessions" in codex.stdout


def test_a_directory_that_is_not_an_archive_is_refused(
    run_cli: RunCli, isolated_home: Path, tmp_path: Path
) -> None:
    put_sessions(isolated_home)
    site = tmp_path / "mine"
    site.mkdir()
    (site / "index.html").write_text("my own page", encoding="utf-8")
    done = run_cli("archive", "--out", str(site))
    assert done.code == 2 and "is not a txcript archive" in done.stderr
    assert [p.name for p in site.iterdir()] == ["index.html"]
    assert (site / "index.html").read_text("utf-8") == "my own page"
    (site / MANIFEST).write_text("{not json", encoding="utf-8")
    broken = run_cli("archive", "--out", str(site))
    assert broken.code == 2 and "not a readable txcript archive manifest" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_a_session_gone_before_it_is_read_is_warned_about_and_the_rest_archived(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A session deleted between the listing and its load (the harness was running)."""
    files = put_sessions(isolated_home)
    sessions = discover(["claude_code"])
    files[2].unlink()
    with pytest.warns(TranscriptWarning) as said:  # (the fixture's line 13 is no JSON either)
        result = build_archive(tmp_path / "site", sessions)
    assert sum("not archived: claude_code session" in str(w.message) for w in said) == 1
    assert (result.written, result.failed, result.indexed) == (2, 1, 2)
    assert len(_pages(tmp_path / "site")) == 2


def test_hostile_ids_make_safe_page_names() -> None:
    for hostile in ("../../etc/passwd", "..", "a/b\\c:d\0e", "\x1b[31mred", ""):
        page = page_path("claude_code", hostile, "ref")
        name = page.removeprefix("sessions/claude_code/")
        assert "/" not in name and "\\" not in name and not name.startswith(".")
        assert re.fullmatch(r"[A-Za-z0-9._-]+\.html", name), name
    assert page_path("codex", "same", "a") != page_path("codex", "same", "b")


def test_progress_shows_on_a_terminal(isolated_home: Path, tmp_path: Path) -> None:
    put_sessions(isolated_home)
    primary, secondary = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "txcript", "archive", "--out", str(tmp_path / "site")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=secondary,
            timeout=120,
            env=dict(os.environ),
        )
        os.close(secondary)
        secondary = -1
        shown = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if secondary != -1:
            os.close(secondary)
        os.close(primary)
    assert done.returncode == 0
    assert b"\rarchiving 3/3" in shown


def test_an_interrupted_first_archive_can_be_run_again_and_goes_on(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the manifest was written only at the end, so a first run cut short left
    pages and no manifest, and running it again into the same directory was refused ("not
    empty and is not a txcript archive"). The manifest comes first and is saved when the run
    is interrupted: the second run renders only what the first did not."""
    from txcript.render import archive

    put_sessions(isolated_home)
    site = tmp_path / "site"
    sessions = discover()
    original = archive._render
    rendered: list[str] = []

    def interrupted_on_the_third(session: object, fingerprint: str, out: Path) -> object:
        if len(rendered) == 2:
            raise KeyboardInterrupt
        rendered.append(session.meta_id)  # type: ignore[attr-defined]
        return original(session, fingerprint, out)  # type: ignore[arg-type]

    monkeypatch.setattr(archive, "_render", interrupted_on_the_third)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TranscriptWarning)  # (the fixture's line 13 is no JSON)
        with pytest.raises(KeyboardInterrupt):
            build_archive(site, sessions)
        assert (site / MANIFEST).is_file() and len(_pages(site)) == 2
        monkeypatch.setattr(archive, "_render", original)
        again = build_archive(site, sessions)
    assert (again.written, again.unchanged, again.indexed) == (1, 2, 3)
    assert len(_pages(site)) == 3 and (site / "index.html").is_file()
