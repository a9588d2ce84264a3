"""Is an app running? Process lookup by executable name, without extra dependencies.

Linux reads ``/proc/<pid>/comm`` (and the executable's base name, since ``comm`` is cut at 15
characters); macOS and other Unixes ask ``ps -axo pid=,comm=``; Windows asks ``tasklist``. Names
compare case-insensitively, with a trailing ``.exe`` ignored.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path


def _normalise(name: str) -> str:
    base = name.strip().replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def _linux() -> list[tuple[int, str]]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            comm = (entry / "comm").read_text().strip()
        except OSError:
            continue
        try:
            exe = os.readlink(entry / "exe")
        except OSError:
            exe = ""
        found.append((int(entry.name), comm))
        if exe:
            found.append((int(entry.name), exe.removesuffix(" (deleted)")))
    return found


def _ps() -> list[tuple[int, str]]:
    try:
        out = subprocess.run(
            ["ps", "-axo", "pid=,comm="], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.isdigit():
            found.append((int(pid), comm))
    return found


def _tasklist() -> list[tuple[int, str]]:
    try:
        out = subprocess.run(
            ["tasklist", "/fo", "csv", "/nh"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in out.splitlines():
        cells = [cell.strip('"') for cell in line.split('","')]
        if len(cells) > 1 and cells[1].isdigit():
            found.append((int(cells[1]), cells[0]))
    return found


def find_processes(names: Iterable[str]) -> list[int]:
    """PIDs of running processes whose executable is named one of ``names`` (not ourselves)."""
    wanted = {_normalise(n) for n in names}
    if sys.platform.startswith("linux") and Path("/proc/self").exists():
        table = _linux()
    elif sys.platform == "win32":
        table = _tasklist()
    else:
        table = _ps()
    me = os.getpid()
    return sorted({pid for pid, name in table if pid != me and _normalise(name) in wanted})
