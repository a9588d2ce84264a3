"""Writing into OpenCode's database (not built yet: saves and deletes are refused)."""

from __future__ import annotations

from pathlib import Path

from txcript.errors import Unconvertible

from .native import HARNESS, OpenCodeSession


def save(database: Path, native: OpenCodeSession) -> str:
    raise Unconvertible(HARNESS, "writing OpenCode sessions is not supported yet")


def archive(database: Path, session_id: str) -> None:
    raise Unconvertible(HARNESS, "deleting OpenCode sessions is not supported yet")
