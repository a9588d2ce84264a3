"""The Antigravity native body: one conversation's database and brain folder, exactly as stored.

A conversation is ``conversations/<uuid>.db`` (SQLite, ``user_version`` 1: the trajectory tables
and one ``steps`` row per step, their blobs protobuf) and ``brain/<uuid>/`` (the folder the agent
keeps its artifacts and display mirrors in). The body keeps every table's rows, in rowid order
and with their SQLite storage class, the database's schema statements and its ``user_version``,
and every regular file of the brain folder as bytes, so a load followed by a save gives back the
same database content and the same brain. The codec reads the tables it knows; the store only
moves them.
"""

from __future__ import annotations

from dataclasses import dataclass

HARNESS = "antigravity"
#: ``PRAGMA user_version`` of the conversation databases the CLI writes.
USER_VERSION = 1

#: An SQLite cell value as it is kept (TEXT, BLOB, INTEGER, REAL or NULL).
Cell = str | bytes | int | float | None

#: The tables the CLI creates, with the columns the facts name. Columns of the last three are
#: not in the facts: txcript gives them an id and a data blob, and writes no rows into them.
SCHEMA: tuple[str, ...] = (
    "CREATE TABLE trajectory_meta (trajectory_id TEXT PRIMARY KEY, cascade_id TEXT, "
    "trajectory_type INTEGER, source INTEGER)",
    "CREATE TABLE steps (idx INTEGER PRIMARY KEY, step_type INTEGER, status INTEGER, "
    "has_subtrajectory INTEGER, metadata BLOB, error_details BLOB, permissions BLOB, "
    "task_details BLOB, render_info BLOB, step_payload BLOB, step_format INTEGER)",
    "CREATE TABLE gen_metadata (idx INTEGER, data BLOB, size INTEGER)",
    "CREATE TABLE executor_metadata (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE parent_references (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE battle_mode_infos (id TEXT PRIMARY KEY, data BLOB)",
    "CREATE TABLE trajectory_metadata_blob (id TEXT PRIMARY KEY DEFAULT 'main', data BLOB)",
)
#: The columns of ``steps`` in the order :data:`SCHEMA` creates them.
STEP_COLUMNS = (
    "idx",
    "step_type",
    "status",
    "has_subtrajectory",
    "metadata",
    "error_details",
    "permissions",
    "task_details",
    "render_info",
    "step_payload",
    "step_format",
)
#: The display mirrors of the steps the agent keeps in the brain folder.
MIRROR_DIR = ".system_generated/logs"
MIRRORS = (f"{MIRROR_DIR}/transcript.jsonl", f"{MIRROR_DIR}/transcript_full.jsonl")


@dataclass(frozen=True, slots=True)
class Table:
    """One table of the database: its name, its column names and its rows in rowid order."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]

    def records(self) -> list[dict[str, Cell]]:
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]


@dataclass(frozen=True, slots=True)
class BrainFile:
    """A regular file of ``brain/<uuid>/``: ``path`` relative to it, with ``/`` separators."""

    path: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Conversation:
    """One Antigravity conversation.

    ``conversation_id`` is the database's file stem (the id ``agy --conversation`` takes);
    ``schema`` holds the ``CREATE`` statements of the database (tables first, then indexes,
    triggers and views, in ``sqlite_master`` order) and ``user_version`` its pragma, so a saved
    copy is the same database. ``brain`` is every file of the brain folder (empty when it holds
    none, or when the conversation had none: the store always creates the folder).
    """

    conversation_id: str
    tables: tuple[Table, ...]
    schema: tuple[str, ...] = SCHEMA
    user_version: int = USER_VERSION
    brain: tuple[BrainFile, ...] = ()

    def table(self, name: str) -> Table | None:
        for table in self.tables:
            if table.name == name:
                return table
        return None
