"""What a command imports before it does anything: ``--version`` and ``--help`` load no harness,
no Common model and none of the heavy libraries; ``list`` loads only the stores that exist; the
registry's static descriptors agree with the harness classes they stand for.

These pin the lazy start-up (the import graph), not a time: a test that imported a codec at
module level again would fail here on any machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import RunCli
from txcript import harnesses

#: Never needed to print the version or the help text.
HEAVY = (
    "msgspec",
    "rich",
    "jinja2",
    "rapidfuzz",
    "prompt_toolkit",
    "sqlite3",
    "txcript.model",
    "txcript.operations",
    "txcript.sessions",
    "txcript.search",
)
STORE_HARNESSES = [i.id for i in harnesses.REGISTRY if i.implemented and i.has_store]
#: The package of each harness implementation (``txcript.harnesses.cursor_cli`` …).
PACKAGES = sorted({str(i.package) for i in harnesses.REGISTRY if i.implemented})

_PROBE = """
import json, sys
sys.argv = ["txcript", *json.loads(sys.argv[1])]
from txcript.cli import main
try:
    main()
except SystemExit:
    pass
sys.stdout.flush()
# The patterns our modules compile on first use (a functools.cache'd function returning a
# re.Pattern) that this run did compile.
compiled = sorted(
    f"{name}.{attr}"
    for name, module in list(sys.modules.items())
    if name.startswith("txcript")
    for attr, value in vars(module).items()
    if "Pattern" in str(getattr(value, "__annotations__", {}).get("return", ""))
    and callable(getattr(value, "cache_info", None))
    and value.cache_info().currsize
)
print("\\n" + json.dumps({"modules": sorted(sys.modules), "compiled": compiled}), file=sys.stderr)
"""


class Probe(NamedTuple):
    stdout: str
    modules: set[str]
    #: The lazily compiled patterns of our modules that the run compiled.
    compiled: list[str]


def probed(*args: str, home: Path) -> Probe:
    """What the real entry point running ``txcript ARGS`` printed, loaded and compiled."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    return Probe(done.stdout, set(seen["modules"]), seen["compiled"])


def imported(*args: str, home: Path) -> set[str]:
    """The modules loaded by the real entry point running ``txcript ARGS``."""
    return probed(*args, home=home).modules


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("args", [("--version",), ("-V",), ("--help",), ()])
def test_version_and_help_import_no_harness_and_no_heavy_library(
    args: tuple[str, ...], isolated_home: Path
) -> None:
    modules = imported(*args, home=isolated_home)
    assert "txcript.cli.app" in modules  # the probe ran the real entry point
    heavy = [name for name in HEAVY if loaded(modules, name)]
    assert heavy == []
    harness_modules = sorted(m for m in modules if m.startswith(tuple(p + "." for p in PACKAGES)))
    assert harness_modules == [] and not any(p in modules for p in PACKAGES)


def test_version_imports_no_command_module(isolated_home: Path) -> None:
    modules = imported("--version", home=isolated_home)
    commands = sorted(m for m in modules if m.startswith("txcript.cli.") and m != "txcript.cli.app")
    assert commands == []


def test_a_command_help_imports_only_its_own_module(isolated_home: Path) -> None:
    modules = imported("list", "--help", home=isolated_home)
    assert "txcript.cli.reading" in modules
    assert not {"txcript.cli.writing", "txcript.cli.query", "txcript.cli.demo"} & modules
    assert [name for name in HEAVY if loaded(modules, name)] == []


def test_list_with_no_store_on_disk_imports_no_store_or_codec(isolated_home: Path) -> None:
    modules = imported("list", home=isolated_home)
    assert "txcript.operations" in modules  # it did list
    stores = sorted(m for m in modules if m.startswith("txcript.harnesses.") and m.count(".") >= 3)
    # Where each store lives is declared data: finding that no store exists imports no layer.
    assert stores == []
    assert "txcript.harnesses.simple" not in modules  # no store: not a listing's business


def test_list_imports_the_store_of_the_one_harness_on_disk(isolated_home: Path) -> None:
    (isolated_home / ".claude" / "projects").mkdir(parents=True)
    modules = imported("list", home=isolated_home)
    assert "txcript.harnesses.claude_code.store" in modules
    others = [
        m
        for m in modules
        if m.startswith("txcript.harnesses.")
        and m.count(".") >= 3
        and not m.startswith("txcript.harnesses.claude_code.")
    ]
    assert others == []


@pytest.mark.parametrize("args", [("list",), ("query", "tests")])
def test_an_unwritten_cursor_store_is_answered_without_importing_its_store(
    args: tuple[str, ...], isolated_home: Path
) -> None:
    """While the database's files have not moved, ``list`` uses the listing kept under its
    change token and ``query`` the sessions its index holds: the store's code (and the database
    itself) is never opened."""
    sys.path.insert(0, str(Path(__file__).parent / "cursor_desktop"))
    import dbfixtures as fx

    database = isolated_home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    fx.app_3_16(database)
    fx.written_ago(database, 60)
    first = imported(*args, home=isolated_home)
    assert "txcript.harnesses.cursor_desktop.store" in first  # the first run lists the store
    again = imported(*args, home=isolated_home)
    assert "txcript.harnesses.cursor_desktop.locations" in again
    assert "txcript.harnesses.cursor_desktop.store" not in again


def test_a_warm_query_over_a_changed_claude_session_defines_no_dataclass(
    isolated_home: Path,
) -> None:
    """A query re-reads only the session that changed since the last one, through Claude Code's
    reader: no module on that path defines a dataclass (defining one costs about a millisecond;
    a msgspec Struct, already loaded here, about a fiftieth of that), so ``dataclasses`` itself
    is never imported, and no pattern a query does not use is compiled."""
    sys.path.insert(0, str(Path(__file__).parent / "claude_code"))
    import claude_fixtures as fx

    root = isolated_home / ".claude"
    records = [r for r in fx.realistic_records() if isinstance(r, dict)]  # nothing to warn about
    changed = fx.put(root, records)
    fx.put(root, records, session_id="0b7e1f52-3c4d-4e5f-8a9b-1c2d3e4f5a6b")
    first = probed("query", "loop", "--json", home=isolated_home).stdout
    assert len(json.loads(first)) == 2  # both sessions are in the index now
    added = fx.user("u9", "s1", "09:31:00.000", "where is the auth token kept?")
    with changed.open("a", encoding="utf-8") as handle:
        handle.write(fx.line(added) + "\n")
    warm = probed("query", "auth token", "--json", home=isolated_home)
    assert [hit["id"] for hit in json.loads(warm.stdout)] == [fx.SID]  # the changed one, re-read
    assert "txcript.harnesses.claude_code.reader" in warm.modules
    assert "dataclasses" not in warm.modules
    # Nor does it start the worker thread that compresses a large update's tool output.
    assert "concurrent.futures" not in warm.modules
    # Nor does it compile the patterns kept for other paths (terminal output, id checks, …).
    assert warm.compiled == []


def test_the_lazily_compiled_patterns_are_seen_when_compiled(isolated_home: Path) -> None:
    """The probe behind ``compiled == []`` above finds a pattern a run did compile."""
    probe = probed("view", "--help", home=isolated_home)
    assert probe.compiled == []
    sys.path.insert(0, str(Path(__file__).parent / "claude_code"))
    import claude_fixtures as fx

    fx.put(isolated_home / ".claude", fx.realistic_records())
    shown = probed("list", home=isolated_home)  # a table for people: every cell is scrubbed
    assert "txcript.shared.text._sequence" in shown.compiled


@pytest.mark.parametrize("args", [("list",), ("query", "auth")])
@pytest.mark.parametrize("colour", ["always", "never"])
def test_printing_sessions_loads_no_rich_console(
    args: tuple[str, ...], colour: str, isolated_home: Path
) -> None:
    """Lines are coloured by ``click.style`` and written at once: rich's console and text
    (about 40 ms to import, and rendering line by line made a coloured ``list`` of 5,000
    sessions 0.8 s slower than a plain one) are not loaded to print sessions."""
    sys.path.insert(0, str(Path(__file__).parent / "search"))
    from searchfixtures import save_claude, transcript

    save_claude(
        isolated_home / ".claude",
        transcript("44444444-4444-4444-8444-444444444444", [("user", "the auth bug")]),
    )
    modules = imported(*args, "--color", colour, home=isolated_home)
    assert "txcript.harnesses.claude_code.store" in modules  # it listed the session
    assert not {"rich.console", "rich.text"} & modules


@pytest.mark.parametrize("info", [i for i in harnesses.REGISTRY if i.implemented])
def test_each_declared_layer_resolves_to_a_function(info: harnesses.HarnessInfo) -> None:
    """Every capability a declaration promises is a callable where it says: a typo in a layer
    path fails here, not on the first user's command that needs it."""
    import importlib

    from txcript.harnesses.declare import CAPABILITIES

    harness = harnesses.get(info.id)
    assert (harness.id, harness.name, harness.info) == (info.id, info.name, info)
    for capability in CAPABILITIES:
        if info.provides(capability):
            module, attribute = info.layer(capability)
            assert callable(getattr(importlib.import_module(module), attribute)), capability


def test_a_registry_descriptor_is_frozen_and_compared_by_value() -> None:
    info = harnesses.info("claude")
    same = harnesses.HarnessInfo(
        info.id,
        info.name,
        info.aliases,
        info.package,
        has_store=True,
        can_write=True,
        executables=info.executables,
        ids=info.ids,
        root=info.root,
        resume=info.resume,
        resume_from=info.resume_from,
        layers=dict(info.layers),
    )
    assert same == info and hash(same) == hash(info) and same != harnesses.info("codex")
    assert repr(same) == repr(info) and repr(info).startswith("HarnessInfo(id='claude_code'")
    with pytest.raises(AttributeError):
        info.listed = False
    assert info.listed is True


def test_every_command_is_registered_under_its_own_name() -> None:
    import click

    from txcript.cli.app import COMMANDS, cli

    context = click.Context(cli)
    assert cli.list_commands(context) == list(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(context, name)
        assert command is not None and command.name == name
    assert cli.get_command(context, "no-such-command") is None


def test_store_harness_list_is_what_list_help_offers(run_cli: RunCli) -> None:
    result = run_cli("list", "--help")
    assert result.code == 0
    offered = " ".join(result.stdout.split())
    assert ", ".join(STORE_HARNESSES) in offered


def test_a_registry_entry_with_a_key_no_declaration_has_is_refused() -> None:
    """registry.json is data a person edits: a misspelt key fails the import, not silently."""
    from txcript.harnesses.declare import HarnessInfo

    with pytest.raises(ValueError, match=r"unknown keys \['resume_form'\]"):
        HarnessInfo.from_entry("x", {"name": "X", "resume_form": "cwd"})
    with pytest.raises(ValueError, match=r"unknown root keys \['evn'\]"):
        HarnessInfo.from_entry("x", {"name": "X", "root": {"home": ".x", "evn": "X_HOME"}})


def test_a_resume_command_may_differ_per_system() -> None:
    from txcript.harnesses.declare import HarnessInfo

    entry = {"name": "X", "resume": {"darwin": ["open", "-a", "X"], "default": ["x"]}}
    assert HarnessInfo.from_entry("x", entry, system="darwin").resume == ("open", "-a", "X")
    assert HarnessInfo.from_entry("x", entry, system="linux").resume == ("x",)
    assert HarnessInfo.from_entry("x", entry, system="win32").resume == ("x",)
