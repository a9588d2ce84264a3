"""``txcript query`` as a user runs it: exact JSON keys, human layout, no matches, completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from searchfixtures import save_claude, transcript

from conftest import RunCli
from txcript import harnesses

SID = "77777777-7777-4777-8777-777777777777"


def _env(tmp_path: Path) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "TXCRIPT_CACHE_DIR": str(tmp_path / "c")}


def test_query_json_has_exactly_the_contract_keys(run_cli: RunCli, tmp_path: Path) -> None:
    save_claude(
        tmp_path / "claude",
        transcript(
            SID,
            [("user", "why does the auth bug come back?"), ("assistant", "a race")],
            title="Auth",
        ),
    )
    done = run_cli("query", "auth bug", "--json", env=_env(tmp_path))
    assert done.code == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [set(row) for row in rows] == [{"harness", "id", "title", "score", "hits"}]
    assert rows[0]["id"] == SID and rows[0]["harness"] == "claude_code"
    assert [set(hit) for hit in rows[0]["hits"]] == [{"message", "origin", "line"}]
    assert rows[0]["hits"] == [
        {"message": 1, "origin": "user", "line": "why does the auth bug come back?"}
    ]


def test_query_human_output_and_no_matches(run_cli: RunCli, tmp_path: Path) -> None:
    save_claude(
        tmp_path / "claude", transcript(SID, [("user", "fix the parser\x1b]52;c;AAAA\x07")])
    )
    done = run_cli("query", "parser", env=_env(tmp_path))
    assert done.code == 0, done.stderr
    head, hit = done.stdout.splitlines()
    assert head.startswith(f"claude_code  {SID}  2026-11-01 09:00  ")
    assert hit.startswith("  [       user] fix the parser")
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    # Nothing matched: exit 1, as grep and ripgrep (it was 0); --json still prints its array.
    nothing = run_cli("query", "zzqqxx", env=_env(tmp_path))
    assert (nothing.code, nothing.stdout) == (1, "no matches for `zzqqxx`\n")
    empty = run_cli("query", "zzqqxx", "--json", env=_env(tmp_path))
    assert (empty.code, empty.stdout) == (1, "[]\n")


def test_query_colours_as_list_does(run_cli: RunCli, tmp_path: Path) -> None:
    """``--color`` is the option ``list`` has: ``always`` colours even into a pipe (the harness
    in its colour, the match in bold red), ``never`` prints plain text, and so does ``auto``
    into a pipe."""
    save_claude(tmp_path / "claude", transcript(SID, [("user", "fix the parser now")]))
    always = run_cli("query", "parser", "--color", "always", env=_env(tmp_path))
    assert always.code == 0, always.stderr
    head, hit = always.stdout.splitlines()
    assert head.startswith("\x1b[33mclaude_code\x1b[0m  \x1b[2m" + SID)
    assert "fix the \x1b[31m\x1b[1mparser\x1b[0m now" in hit
    for choice in ("never", "auto"):
        done = run_cli("query", "parser", "--color", choice, env=_env(tmp_path))
        assert done.stdout == always.stdout.replace("\x1b[33m", "").replace("\x1b[2m", "").replace(
            "\x1b[31m\x1b[1m", ""
        ).replace("\x1b[0m", "")


def test_a_match_past_the_cut_is_shown_from_just_before_it(run_cli: RunCli, tmp_path: Path) -> None:
    """A hit line is cut at 120 characters; cut from its start, a line whose match lies further
    on showed no match at all."""
    filler = " ".join(f"word{n}" for n in range(40))  # about 270 characters
    save_claude(
        tmp_path / "claude", transcript(SID, [("user", f"{filler} the needle here {filler}")])
    )
    done = run_cli("query", "'needle", env=_env(tmp_path))
    assert done.code == 0, done.stderr
    _, hit = done.stdout.splitlines()
    shown = hit.removeprefix("  [       user] ")
    assert shown.startswith("…") and shown.endswith("…") and len(shown) == 120
    assert "the needle here" in shown and shown.index("needle") < 40
    start = run_cli("query", "word1", env=_env(tmp_path)).stdout.splitlines()[1]
    assert start.removeprefix("  [       user] ").startswith(
        "word0 word1"
    )  # a match in reach: as before


def test_tool_output_is_searched_only_when_asked(run_cli: RunCli, tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from txcript import model as m

    t = datetime(2026, 11, 1, tzinfo=UTC)
    item = m.Transcript(
        meta=m.Meta(id=SID, timestamp=t, cwd="/w"),
        messages=(
            m.Message(role="user", content=(m.Text("run it"),), timestamp=t),
            m.Message(
                role="assistant",
                content=(m.ToolUse(id="c1", tool=m.Bash(command="make")),),
                timestamp=t,
            ),
            m.Message(
                role="user",
                content=(m.ToolResult(tool_use_id="c1", content="ECONNRESET at socket"),),
                timestamp=t,
            ),
        ),
    )
    save_claude(tmp_path / "claude", item)
    assert json.loads(run_cli("query", "ECONNRESET", "--json", env=_env(tmp_path)).stdout) == []
    rows = json.loads(
        run_cli(
            "query", "ECONNRESET", "--origin", "tool_result", "--json", env=_env(tmp_path)
        ).stdout
    )
    assert rows[0]["hits"][0]["origin"] == "tool_result"


def test_without_a_pattern_and_a_terminal_it_says_to_pass_one(run_cli: RunCli) -> None:
    done = run_cli("query")
    assert done.code == 2
    assert done.stderr == (
        "txcript: error: interactive query needs a terminal (pass a pattern instead)\n"
    )


def test_completion_scripts_and_harness_and_session_completion(
    run_cli: RunCli, tmp_path: Path
) -> None:
    for shell in ("bash", "zsh", "fish"):
        done = run_cli("completion", shell)
        assert done.code == 0 and "_TXCRIPT_COMPLETE" in done.stdout, shell
    save_claude(tmp_path / "claude", transcript(SID, [("user", "hello")]))
    env = _env(tmp_path)
    assert run_cli("query", "hello", env=env).code == 0  # builds the index
    full = dict(os.environ, **env, COMP_WORDS="txcript view 7777", COMP_CWORD="2")
    full["_TXCRIPT_COMPLETE"] = "bash_complete"
    done = subprocess.run(
        [sys.executable, "-m", "txcript"], env=full, capture_output=True, text=True, timeout=60
    )
    assert f"plain,{SID}" in done.stdout.splitlines()
    full.update(COMP_WORDS="txcript list --from cla", COMP_CWORD="3")
    done = subprocess.run(
        [sys.executable, "-m", "txcript"], env=full, capture_output=True, text=True, timeout=60
    )
    assert "plain,claude_code" in done.stdout.splitlines()


def test_completion_never_offers_an_id_the_shell_would_run(run_cli: RunCli, tmp_path: Path) -> None:
    """bash's completion puts an offered word on the command line as is. A Gemini session id
    may be any file name (``;``, ``$(…)``, spaces, ``*``): ``txcript view 55<Tab>`` completed
    to ``txcript view 55;touch PWNED;x *``, and Enter ran ``touch``. Such an id is no longer
    offered; plain ids still are."""
    from txcript import harnesses

    hostile, plain = "55;touch PWNED;x *", "5555-plain"
    gemini = harnesses.get("gemini")
    store = gemini.store(tmp_path / "home" / ".gemini")
    assert store is not None
    for session_id in (hostile, plain):
        store.save(gemini.from_common(transcript(session_id, [("user", "hello")])), force=True)
    env = {**_env(tmp_path), "HOME": str(tmp_path / "home")}
    assert run_cli("list", "--from", "gemini", env=env).stdout.count("gemini") == 2
    assert run_cli("query", "hello", env=env).code == 0  # builds the index
    full = dict(os.environ, **env, COMP_WORDS="txcript view 55", COMP_CWORD="2")
    full["_TXCRIPT_COMPLETE"] = "bash_complete"
    done = subprocess.run(
        [sys.executable, "-m", "txcript"], env=full, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.splitlines() == [f"plain,{plain}"]


def test_text_starting_with_a_dash_is_searched_after_double_dash(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """``txcript query --nocapture`` said only "No such option", with no word on how to search
    for it; the error now shows the ``--`` form, which finds it (a typo of a real option
    keeps click's "did you mean")."""
    save_claude(tmp_path / "claude", transcript(SID, [("user", "run it with --nocapture")]))
    refused = run_cli("query", "--nocapture", env=_env(tmp_path))
    assert (refused.code, refused.stdout) == (2, "")
    assert refused.stderr == (
        "txcript: error: No such option '--nocapture'. To search for `--nocapture`, put it "
        "after `--`: txcript query -- '--nocapture'\n"
    )
    found = run_cli("query", "--json", "--", "--nocapture", env=_env(tmp_path))
    assert [row["id"] for row in json.loads(found.stdout)] == [SID]
    typo = run_cli("query", "parser", "--jsn", env=_env(tmp_path))
    assert typo.code == 2 and "Did you mean" in typo.stderr and "put it after" not in typo.stderr


def test_the_picker_checks_with_before_it_opens(run_cli: RunCli) -> None:
    """``--with`` was first looked at when Enter continued the pick: a typo (or a harness that
    cannot take a copy) let the user search, pick, and only then failed. It is checked before
    anything else now."""
    typo = run_cli("query", "--with", "claude_cod")
    assert (typo.code, typo.stdout) == (2, "")
    assert typo.stderr.startswith("txcript: error: unknown harness `claude_cod`")
    document = run_cli("query", "--with", "simple")
    assert document.code == 2 and "cannot convert to simple" in document.stderr


@pytest.mark.parametrize("command", [("query", "x"), ("list",)])
def test_an_unknown_or_storeless_harness_names_the_ones_with_a_store(
    run_cli: RunCli, command: tuple[str, ...], isolated_home: Path
) -> None:
    """`--from nope` listed every harness id, `simple` and `common` among them, which these
    commands then refuse ("simple has no store to list"). Both errors name only the harnesses
    that have a store, and `query` gives them before it creates its index."""
    stores = ", ".join(harnesses.ids(store=True))
    cache = isolated_home / "cache"
    unknown = run_cli(*command, "--from", "nope", env={"TXCRIPT_CACHE_DIR": str(cache)})
    assert not cache.exists()  # refused before the search index is created
    assert (unknown.code, unknown.stdout) == (2, "")
    assert unknown.stderr == f"txcript: error: unknown harness `nope` (expected one of: {stores})\n"
    storeless = run_cli(*command, "--from", "simple")
    assert (storeless.code, storeless.stdout) == (2, "")
    assert storeless.stderr == (
        f"txcript: error: simple has no store to list; harnesses with one: {stores}\n"
    )
