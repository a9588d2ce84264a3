"""Hostile input to the search front ends: ``txcript query`` (a real subprocess), the library's
``find`` that the picker and ``txcript mcp`` share, over real Claude Code stores in temp dirs.

Each case once ended in an internal error (exit 1 and "internal error: …") or in a wrong answer;
now bad input is one line and exit 2, and odd but valid input gets the answer it asks for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import msgspec
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "search"))
from searchfixtures import save_claude, stores_under, transcript

from conftest import RunCli
from txcript import model as m
from txcript.search import find

ONE = "11111111-1111-4111-8111-111111111111"
TWO = "22222222-2222-4222-8222-222222222222"


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return stores_under(tmp_path, monkeypatch)


def _env(stores: Path) -> dict[str, str]:
    return {"CLAUDE_CONFIG_DIR": str(stores / "claude"), "TXCRIPT_CACHE_DIR": str(stores / "cache")}


def test_a_pattern_that_is_not_utf8_finds_nothing_instead_of_failing(
    stores: Path, run_cli: RunCli
) -> None:
    """A pattern typed in a Latin-1 terminal reaches Python as lone surrogates; the trigram
    query handed them to SQLite, which takes only UTF-8 text: "internal error:
    UnicodeEncodeError", exit 1. No stored line can hold one, so it matches nothing."""
    save_claude(stores / "claude", transcript(ONE, [("user", "fix the parser")]))
    human = run_cli("query", "pars\udcffer", env=_env(stores))
    # (Exit 1: nothing matched.)
    assert (human.code, human.stdout, human.stderr) == (1, "no matches for `pars\ufffder`\n", "")
    machine = run_cli("query", "\udced\udca0\udc80abc", "--json", env=_env(stores))
    assert (machine.code, machine.stdout, machine.stderr) == (1, "[]\n", "")


def test_a_pattern_holding_a_nul_is_searched_for(stores: Path) -> None:
    """FTS5 reads its MATCH query as a C string: a NUL in a needle ("unterminated string") was
    taken for a broken cache, and the in-memory retry failed the same way, so an MCP
    ``search_sessions`` with a NUL in its pattern was an internal error. The NUL's trigrams are
    left out of the index query (a superset still), and the line holding it is found."""
    save_claude(stores / "claude", transcript(ONE, [("user", "before\x00after the nul")]))
    save_claude(stores / "claude", transcript(TWO, [("user", "three\x00\x00\x00nuls")], day=1))
    for pattern in ("'re\x00af", "before\x00after"):
        assert [[h.line for h in m.hits] for m in find(pattern)] == [["before\x00after the nul"]]
    # No trigram of the needle can be asked for: every session is a candidate.
    assert [[h.line for h in m.hits] for m in find("'\x00\x00\x00")] == [["three\x00\x00\x00nuls"]]
    assert find("par\x00ser") == []


def _at(moment: str) -> m.Transcript:
    start = datetime.fromisoformat(moment)
    message = m.Message(role="user", content=(m.Text("late night parser work"),), timestamp=start)
    return m.Transcript(meta=m.Meta(id=ONE, timestamp=start, cwd="/w"), messages=(message,))


def test_until_a_date_includes_its_last_second(stores: Path, run_cli: RunCli) -> None:
    """``--until 2026-11-01`` ended at 23:59:59.000, so a session started at 23:59:59.500
    that day was not found; the day now ends at its last microsecond."""
    save_claude(stores / "claude", _at("2026-11-01T23:59:59.500+00:00"))
    env = {**_env(stores), "TZ": "UTC"}
    done = run_cli("query", "parser", "--until", "2026-11-01", "--json", env=env)
    assert done.code == 0, done.stderr
    assert [row["id"] for row in json.loads(done.stdout)] == [ONE]


@pytest.mark.parametrize(
    ("zone", "bound", "day"),
    [
        ("UTC", "--since", "0001-01-01"),
        ("UTC", "--until", "0001-01-01"),
        ("America/New_York", "--until", "9999-12-31"),
        ("Asia/Tokyo", "--until", "9999-12-31"),
    ],
)
def test_the_first_and_last_dates_are_bounds_not_internal_errors(
    stores: Path, run_cli: RunCli, zone: str, bound: str, day: str
) -> None:
    """A date at either end of what datetime holds, converted from local time to UTC, left
    the range ("internal error: ValueError: year 0 is out of range", or year 10000, or an
    OverflowError), exit 1. It is now as far as a bound goes."""
    save_claude(stores / "claude", transcript(ONE, [("user", "fix the parser")]))
    done = run_cli("query", "parser", bound, day, "--json", env={**_env(stores), "TZ": zone})
    nothing = (bound, day) == ("--until", "0001-01-01")
    assert done.code == (1 if nothing else 0), done.stderr  # (1: nothing matched)
    found = [row["id"] for row in json.loads(done.stdout)]
    assert found == ([] if nothing else [ONE])


def test_since_after_until_is_bad_input(stores: Path, run_cli: RunCli) -> None:
    """``list`` refused a window that ends before it starts; ``query`` searched it and said
    "no matches", as if the sessions were not there."""
    save_claude(stores / "claude", transcript(ONE, [("user", "fix the parser")]))
    done = run_cli("query", "parser", "--since", "2026-11-02", "--until", "2026-11-01")
    assert (done.code, done.stdout) == (2, "")
    assert done.stderr == "txcript: error: --since 2026-11-02 is after --until 2026-11-01\n"


def test_cwd_names_a_directory_that_is_not_here_however_it_is_spelled(stores: Path) -> None:
    """A session's cwd is often gone (deleted, or on another machine). ``--cwd`` was compared
    with it as typed once the directory did not exist: ``x/../proj``, ``//gone//proj``,
    ``proj/.`` and a path relative to the current directory all found nothing."""
    cwd = stores / "gone" / "proj"
    item = transcript(ONE, [("user", "fix the parser")])
    item = msgspec.structs.replace(item, meta=msgspec.structs.replace(item.meta, cwd=str(cwd)))
    save_claude(stores / "claude", item)
    spellings = [
        str(stores / "gone" / "x" / ".." / "proj"),
        "/" + str(cwd).replace("/", "//"),
        str(cwd / "."),
        "gone/proj",
    ]
    for spelling in spellings:
        done = subprocess.run(
            [sys.executable, "-m", "txcript", "query", "parser", "--cwd", spelling, "--json"],
            env={**os.environ, **_env(stores)},
            cwd=stores,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert [row["id"] for row in json.loads(done.stdout)] == [ONE], spelling


#: ``txcript ARGS`` run under the umask most users have.
_UMASK_022 = "import os, sys; os.umask(0o022); from txcript.cli.app import main; main(sys.argv[1:])"


def test_the_index_that_copies_session_text_is_private(stores: Path) -> None:
    """The search index holds every session's text, keys and tokens pasted into it included,
    and the metadata cache their titles and paths. Under the usual umask 022 both were created
    0644 in a 0755 dir: any local user could read what the user's stores may keep private.
    txcript now makes the cache dir 0700 and its files 0600 (SQLite gives -wal and -shm the
    file's mode)."""
    secret = "sk-ant-api03-" + "A" * 40
    save_claude(stores / "claude", transcript(ONE, [("user", f"my key is {secret}")]))
    cache = stores / "fresh" / "cache"
    done = subprocess.run(
        [sys.executable, "-c", _UMASK_022, "query", "'sk-ant", "--json"],
        env={**os.environ, **_env(stores), "TXCRIPT_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert [row["id"] for row in json.loads(done.stdout)] == [ONE]
    assert cache.stat().st_mode & 0o777 == 0o700
    files = sorted(path.name for path in cache.iterdir())
    assert {"search.sqlite3", "metadata.sqlite3"} <= set(files)
    for path in cache.iterdir():
        assert path.stat().st_mode & 0o777 == 0o600, path.name


def test_a_pattern_of_too_many_words_is_bad_input(stores: Path, run_cli: RunCli) -> None:
    """Negated and short atoms cannot be narrowed by the trigram index: each is tested on
    every line. A pattern of 20 000 of them (one MCP call can carry it) searched for half a
    minute over 12 000 lines, and for hours over a large store. More than 64 atoms is now one
    line, exit 2; 64 are still searched."""
    save_claude(stores / "claude", transcript(ONE, [("user", "fix the parser")]))
    too_many = run_cli("query", " ".join(["!zz"] * 65), env=_env(stores))
    assert (too_many.code, too_many.stdout) == (2, "")
    assert (
        too_many.stderr == "txcript: error: the pattern has 65 words; at most 64 can be searched\n"
    )
    enough = run_cli("query", " ".join(["!zz"] * 63 + ["parser"]), "--json", env=_env(stores))
    assert enough.code == 0, enough.stderr
    assert [row["id"] for row in json.loads(enough.stdout)] == [ONE]


def test_both_caches_unusable_for_one_reason_warn_once(stores: Path, run_cli: RunCli) -> None:
    """Creating the cache files private first must not change how a cache that cannot be
    opened is reported: with its own error naming each file, the search and metadata caches
    of one unusable dir gave two warnings where SQLite's one reason gives one. (Directories
    in the files' places stand for a read-only dir, which root's tests cannot make.)"""
    save_claude(stores / "claude", transcript(ONE, [("user", "fix the parser")]))
    for name in ("search.sqlite3", "metadata.sqlite3"):
        (stores / "cache" / name).mkdir(parents=True)
    done = run_cli("query", "parser", "--json", env=_env(stores))
    assert done.code == 0, done.stderr
    assert [row["id"] for row in json.loads(done.stdout)] == [ONE]
    assert done.stderr.splitlines() == [
        "txcript: warning: search cache unavailable (unable to open database file); "
        "running without it"
    ]


def test_a_cwd_filter_resolves_each_distinct_path_once(
    stores: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--cwd`` (which the shell binding always passes) resolved the directory and the
    session's cwd again for every session, a system call per path component each: 0.4 s for
    12 000 sessions before a query began. The directory is resolved once, and each distinct
    cwd once."""
    import txcript.sessions as sessions_module

    for n in range(6):
        sid = f"{n:08d}-1111-4111-8111-111111111111"
        save_claude(stores / "claude", transcript(sid, [("user", "fix the parser")], day=n))
    assert len(find("parser", cwd="/work/acme", limit=100)) == 6  # (built: the index is warm)
    real = sessions_module._canonical
    resolved: list[str] = []

    def counted(path: str) -> Path:
        resolved.append(path)
        return real(path)

    monkeypatch.setattr(sessions_module, "_canonical", counted)
    assert len(find("parser", cwd="/work/acme", limit=100)) == 6
    assert sorted(resolved) == ["/work/acme", "/work/acme"]  # the directory, the one cwd
    resolved.clear()
    assert len(sessions_module.discover(cwd="/work")) == 6
    assert sorted(resolved) == ["/work", "/work/acme"]
