"""Every test runs with a private, empty HOME so no real store is ever read or written."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from txcript.harnesses import REGISTRY

# Hypothesis example counts: ``ci`` (the default) keeps property tests that take the profile's
# count quick; ``TXCRIPT_HYPOTHESIS=nightly`` runs the full count. Tests that name their own
# ``max_examples`` keep it.
settings.register_profile(
    "ci", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "nightly", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TXCRIPT_HYPOTHESIS", "ci"))

#: Every variable that could point a test at a real store: each harness's declared root
#: override (a new harness's is cleared without a line here), the XDG bases, and our own.
_STORE_OVERRIDES = (
    *sorted({i.root.env for i in REGISTRY if i.root is not None and i.root.env}),
    # a second override named as an XDG-style variable (Qwen Code's QWEN_HOME)
    *sorted({i.root.xdg[0] for i in REGISTRY if i.root is not None and i.root.xdg}),
    "PI_CONFIG_DIR",  # oh-my-pi's config dir name, an extra root of pi's default store
    "PI_CODING_AGENT_SESSION_DIR",  # pi's and Campfire's explicit session dirs
    "CAMPFIRE_CODING_AGENT_SESSION_DIR",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "APPDATA",
    "LOCALAPPDATA",
    "CLINE_DIR",
    "CLINE_DATA_DIR",
    "CLINE_SESSION_DATA_DIR",
    "TXCRIPT_DEBUG",
    "NO_COLOR",
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in _STORE_OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    return home


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


RunCli = Callable[..., CliResult]


@pytest.fixture
def run_cli(isolated_home: Path) -> RunCli:
    """Run the real ``txcript`` command in a subprocess with the isolated HOME."""

    def run(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> CliResult:
        full_env = dict(os.environ)
        full_env.update(env or {})
        done = subprocess.run(
            [sys.executable, "-m", "txcript", *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            env=full_env,
            timeout=120,
        )
        return CliResult(
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )

    return run


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory (``<tmp>/work/acme``) that is the current directory: what stores
    keyed on the directory a command runs in (the Cursor CLI's) see."""
    workspace = tmp_path / "work" / "acme"
    workspace.mkdir(parents=True)
    monkeypatch.chdir(workspace)
    return workspace
