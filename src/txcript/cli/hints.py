"""Commands printed for the user to run next: they must work pasted into a shell, from anywhere.

A resume hint changes to the session's directory first when the harness finds sessions by the
directory it is started in (Claude Code), and names the store override when the copy was
written under ``--out`` (``CLAUDE_CONFIG_DIR=DIR claude --resume …``). Every piece is quoted
for a POSIX shell, after the terminal sanitizer, so what is shown is exactly what runs.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from txcript import harnesses
from txcript.shared.text import scrub


def shell_command(argv: list[str]) -> str:
    return shlex.join(scrub(arg) for arg in argv)


def resume_hint(result: Any) -> str:
    """The shell line that resumes a continued copy (``result`` is an ``operations.Continued``):
    its ``resume_env`` and command, after a ``cd`` where the harness finds sessions by the
    directory it starts in (``continue --json`` gives the same as ``cwd`` and ``env``)."""
    harness = harnesses.get(result.harness)
    command = shell_command(result.resume_command)
    for variable, value in sorted((result.resume_env or {}).items(), reverse=True):
        command = f"{variable}={shlex.quote(scrub(value))} {command}"
    if harness.resume_in_cwd and result.launch_cwd is not None:
        command = f"cd {shlex.quote(scrub(str(result.launch_cwd)))} && {command}"
    return command


def out_note(result: Any, out: str) -> str | None:
    """For an ``--out`` copy the harness has no override for: where the app would look. When
    ``out`` is that very place (the live store), that is what is said."""
    harness = harnesses.get(result.harness)
    root = harness.default_root()
    if root is None:
        return None
    if _same_directory(Path(out), root):
        return f"{scrub(out)} is {harness.name}'s own store: {harness.name} finds the copy there"
    if harness.root_env:
        return None
    return (
        f"{harness.name} reads only {scrub(str(root))}; the copy under {scrub(out)} is for "
        "moving by hand or for another machine"
    )


def _same_directory(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except (OSError, RuntimeError):
        return False


def undo_hint(result: Any, out: str | None = None) -> str:
    """The command that undoes a write (``result`` is an ``operations.Continued``): restoring
    the row backup the store took, else deleting the copy (which backs it up first), from the
    store under ``out`` for a copy written there."""
    if not result.backup:
        argv = ["txcript", "delete", result.id, "--from", result.harness]
        if out is not None:
            argv += ["--root", str(Path(out).absolute())]
        return shell_command([*argv, "--yes"])
    argv = ["txcript", "restore", result.backup]
    if out is not None:
        # A backup of a database under --out is not of the store the configuration names:
        # restore asks for --force before it writes there.
        argv.append("--force")
    return shell_command(argv)
