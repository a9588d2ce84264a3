"""``export --format markdown|html`` through the real CLI, and the rules both renderings keep:
fences content cannot break out of, output cut with a count, HTML that stays text."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kitchen_sink import LONG_OUTPUT, ONERROR_PAYLOAD, SCRIPT_PAYLOAD, kitchen_sink

from conftest import RunCli
from txcript import model as m
from txcript.render import markdown, present
from txcript.render.html import render_session

T = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "kitchen.json"
    path.write_text(m.to_json(kitchen_sink()), encoding="utf-8")
    return path


def _one(*blocks: m.Block, role: str = "user") -> m.Transcript:
    message = m.Message(role=role, content=blocks, timestamp=T)  # type: ignore[arg-type]
    return m.Transcript(meta=m.Meta(id="x", timestamp=T), messages=(message,))


def _markdown(transcript: m.Transcript, full: bool = False) -> str:
    return markdown.render(present.present(transcript, harness="common", full=full))


def _html(transcript: m.Transcript, full: bool = False) -> str:
    return render_session(present.present(transcript, harness="common", full=full))


# ------------------------------------------------------------------------------- the CLI


def test_export_markdown_and_html_from_the_cli(run_cli: RunCli, session_file: Path) -> None:
    md = run_cli("export", str(session_file), "--format", "markdown")
    assert md.code == 0, md.stderr
    assert md.stdout.startswith("# Fix the tokenizer")
    assert "## #11 · Assistant" in md.stdout
    page = run_cli("export", str(session_file), "--format", "html")
    assert page.code == 0, page.stderr
    assert page.stdout.startswith("<!DOCTYPE html>")
    assert page.stdout.count('<article class="message') == 11


def test_long_output_is_cut_unless_full(run_cli: RunCli, session_file: Path) -> None:
    cut = run_cli("export", str(session_file), "--format", "markdown").stdout
    assert "line 040:" in cut and "line 041:" not in cut
    assert "80 more lines left out (export with --full to keep everything)" in cut
    whole = run_cli("export", str(session_file), "--format", "markdown", "--full").stdout
    assert LONG_OUTPUT in whole and "left out" not in whole
    page = run_cli("export", str(session_file), "--format", "html", "--full").stdout
    assert "line 120: test_case_120 ... ok" in page


def test_a_range_keeps_the_session_numbering(run_cli: RunCli, session_file: Path) -> None:
    done = run_cli("export", f"{session_file}#6-7", "--format", "markdown")
    assert done.code == 0, done.stderr
    assert "- **Messages:** 2 of 11 (#6-7)" in done.stdout
    assert re.findall(r"^## #(\d+)", done.stdout, re.MULTILINE) == ["6", "7"]
    page = run_cli("export", f"{session_file}#6-7", "--format", "html").stdout
    assert 'id="m6"' in page and 'id="m7"' in page and 'id="m5"' not in page


def test_a_range_that_cuts_a_call_from_its_result_is_refused(
    run_cli: RunCli, session_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "part.html"
    done = run_cli("export", f"{session_file}#6", "--format", "html", "--out", str(out))
    assert done.code == 2
    assert done.stderr.startswith("txcript: error: ") and "Traceback" not in done.stderr
    assert not out.exists()


def test_export_writes_a_page_file_with_out(
    run_cli: RunCli, session_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "page.html"
    done = run_cli("export", str(session_file), "--format", "html", "--out", str(out))
    assert done.code == 0 and done.stdout == ""
    assert out.read_text("utf-8").startswith("<!DOCTYPE html>")


# ------------------------------------------------------------------------------- Markdown


def test_fences_are_longer_than_any_backtick_run_inside() -> None:
    text = _markdown(_one(m.ToolResult("t", "a ``` b\n`````\nend")))
    assert "``````text\na ``` b\n`````\nend\n``````\n" in text


def test_a_path_holding_backticks_stays_one_code_span() -> None:
    text = _markdown(_one(m.ToolUse("t", m.Read(file_path="we`ird``.py")), role="assistant"))
    assert "**Tool call 1 · Read** ```we`ird``.py```" in text


def test_thinking_cannot_close_its_details_block() -> None:
    text = _markdown(_one(m.Thinking("a </details> b </DETAILS>"), role="assistant"))
    assert text.count("</details>") == 1
    assert "a &lt;/details> b &lt;/DETAILS>" in text


def test_a_single_huge_line_is_cut_by_characters() -> None:
    body = present.excerpt("x" * 50_000 + "\nsecond", "text", full=False)
    assert len(body.text) == present.MAX_CHARS and body.chars_cut and body.lines_left_out == 1
    assert body.cut_note().startswith("the rest of the last line and 1 more line left out")


def test_bad_image_data_is_described_not_embedded() -> None:
    text = _markdown(_one(m.Image(m.ImageSource("base64", "image/png", "not base64!"))))
    assert "data:" not in text and "*[image: its data is not valid base64]*" in text
    svg = _markdown(_one(m.Image(m.ImageSource("base64", "image/svg+xml", "PHN2Zz4="))))
    assert "data:" not in svg and "image/svg+xml is not shown" in svg


# ------------------------------------------------------------------------------- HTML


def test_session_content_is_escaped_text() -> None:
    page = _html(kitchen_sink())
    assert SCRIPT_PAYLOAD not in page and ONERROR_PAYLOAD not in page
    assert "&lt;script&gt;window.__txcriptInjected = 1&lt;/script&gt;" in page
    assert "onerror=&#34;window.__txcriptInjected" in page
    # Only this page's own script element exists.
    assert page.count("<script>") == 1
    assert "&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_hostile_meta_values_are_escaped_everywhere() -> None:
    evil = '"><script>x()</script>'
    transcript = m.Transcript(
        meta=m.Meta(id=evil, timestamp=T, title=evil, cwd=evil, model=evil, git_branch=evil),
        messages=(m.Message(role="user", content=(m.Text("hi"),), timestamp=T, model=evil),),
    )
    page = _html(transcript)
    assert evil not in page and "<script>x()" not in page
    # title (twice), cwd, branch, model, id (the message model is the session's: not repeated)
    assert page.count("&#34;&gt;&lt;script&gt;x()&lt;/script&gt;") == 6


def test_the_policy_allows_exactly_the_inline_style_and_script() -> None:
    page = _html(kitchen_sink())
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    directives = dict(d.split(" ", 1) for d in policy.group(1).split("; "))
    assert directives["default-src"] == "'none'" and directives["img-src"] == "data:"
    for tag, key in (("style", "style-src"), ("script", "script-src")):
        inline = re.search(rf"<{tag}>(.*?)</{tag}>", page, re.DOTALL)
        assert inline is not None
        digest = base64.b64encode(hashlib.sha256(inline.group(1).encode()).digest()).decode()
        assert directives[key] == f"'sha256-{digest}'"


def test_nothing_points_off_the_page() -> None:
    page = _html(kitchen_sink())
    for attribute in re.findall(r'(?:src|href)="([^"]*)"', page):
        assert attribute.startswith(("#", "data:image/")), attribute
    assert "@import" not in page and "url(" not in page


def test_every_message_has_an_anchor_and_thinking_starts_closed() -> None:
    page = _html(kitchen_sink())
    assert [int(n) for n in re.findall(r'<article class="message \w+" id="m(\d+)"', page)] == list(
        range(1, 12)
    )
    assert '<details class="thinking">' in page and '<details class="thinking" open' not in page


def test_a_long_session_gets_a_table_of_contents() -> None:
    messages = tuple(
        m.Message(role="user", content=(m.Text(f"prompt {n}"),), timestamp=T) for n in range(12)
    )
    page = _html(m.Transcript(meta=m.Meta(id="long", timestamp=T), messages=messages))
    assert '<nav class="toc">' in page and 'href="#m12">#12</a> prompt 11' in page
    assert '<nav class="toc">' not in _html(kitchen_sink())
