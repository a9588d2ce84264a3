"""Where Goose, Crush and Factory droid keep their stores on each system, and the variables that
move them (the apps' own: each store is found where the app itself looks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from txcript import harnesses

HOME = Path("/home/u")


@pytest.mark.parametrize(
    ("harness", "system", "expected"),
    [
        ("goose", "linux", ".local/share/goose"),
        ("goose", "darwin", ".local/share/goose"),  # XDG on macOS too
        ("goose", "win32", "AppData/Roaming/Block/goose/data"),
        ("crush", "linux", ".local/share/crush"),
        ("crush", "darwin", ".local/share/crush"),
        ("crush", "win32", "AppData/Local/crush"),
        ("droid", "linux", ".factory"),
        ("droid", "darwin", ".factory"),
        ("droid", "win32", ".factory"),
    ],
)
def test_the_default_root_on_each_system(harness: str, system: str, expected: str) -> None:
    root = harnesses.info(harness).root
    assert root is not None
    assert root.under(HOME, system) == HOME.joinpath(*expected.split("/"))


@pytest.mark.parametrize(
    ("harness", "variable", "value", "expected"),
    [
        ("goose", "GOOSE_PATH_ROOT", "/srv/g", "/srv/g/data"),
        ("goose", "XDG_DATA_HOME", "/x", "/x/goose"),
        ("crush", "CRUSH_GLOBAL_DATA", "/srv/c", "/srv/c"),
        ("crush", "XDG_DATA_HOME", "/x", "/x/crush"),
        ("droid", "FACTORY_HOME_OVERRIDE", "/srv/h", "/srv/h/.factory"),
    ],
)
def test_the_variables_that_move_it(
    harness: str, variable: str, value: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, value)
    assert harnesses.get(harness).default_root() == Path(expected)
