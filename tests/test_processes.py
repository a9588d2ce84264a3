"""Process lookup by executable name, against a real running process."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from txcript.shared.processes import find_processes


@pytest.mark.skipif(sys.platform == "win32", reason="uses a copied POSIX sleep binary")
def test_a_running_process_is_found_by_its_executable_name(tmp_path: Path) -> None:
    sleeper = tmp_path / "Cursor"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", sleeper)
    process = subprocess.Popen([str(sleeper), "30"])
    try:
        assert process.pid in find_processes(["cursor", "Cursor.exe"])
    finally:
        process.kill()
        process.wait()
    assert process.pid not in find_processes(["cursor"])


def test_an_absent_name_finds_nothing() -> None:
    assert find_processes(["no-such-program-txcript"]) == []
