"""Backups as the user sees them: list, explain, restore (undo) and snapshot on request.

What each kind of backup restores:

* ``row`` (Cursor desktop): the one save, delete or undo it guarded, undone by its harness
  (``undo_backup``): other sessions and the app's other state stay as they are;
* ``snapshot``: the whole database as it was, which rolls back everything written since;
* ``files`` (Claude Code, Codex): the session's files put back at their paths.

A restore writes only where the user's configuration points the harness (its default store
root, or the ``*_USER_DIR``-style override); a backup that names any other place (a store written
with ``--out``, or a manifest planted in the backup directory) is restored only with ``--force``,
and the refusal shows the target.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from txcript import harnesses
from txcript.errors import BadInput, StoreError
from txcript.shared import backup_rows, backups
from txcript.shared.backups import Backup


def _committed(backup: Backup, partial: Path) -> bool:
    try:
        harness = harnesses.get(backup.harness)
    except BadInput:
        return False
    return harness.provides("backup_committed") and harness.backup_committed(backup, partial)


def sweep() -> None:
    backup_rows.sweep(_committed)


def listing() -> list[Backup]:
    """Every backup, newest first, after sweeping what killed writers left behind."""
    sweep()
    return backups.list_backups()


def age(backup: Backup, moment: datetime | None = None) -> str:
    created = backup.created
    if created is None:
        return "at an unknown time"
    seconds = int(((moment or datetime.now(UTC)) - created).total_seconds())
    if seconds < 0:
        return "in the future"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return f"{seconds} second{'s' if seconds != 1 else ''} ago"


@dataclass(frozen=True)
class Plan:
    """What restoring one backup will do, shown before anything is written."""

    backup: Backup
    summary: str
    #: Where the restore writes (the database, or the first file).
    target: str
    #: Where the configuration points the harness, when the backup's target is elsewhere.
    configured: str | None
    #: The target is where the user's configuration points the harness.
    trusted: bool


def _configured(backup: Backup) -> tuple[bool, str | None]:
    try:
        harness = harnesses.get(backup.harness)
    except BadInput:
        return False, None
    if backup.kind in ("row", "snapshot"):
        wanted = harness.store_database()
        if wanted is None:
            return False, None
        if isinstance(wanted, tuple):  # a store of several databases (one per project)
            target = Path(backup.database)
            return any(target == w.resolve() for w in wanted), ", ".join(map(str, wanted))
        return Path(backup.database) == wanted.resolve(), str(wanted)
    store = harness.store() if harness.has_store else None
    if store is None:
        return False, None
    root = Path(store.root).resolve()
    inside = all(Path(f).resolve().is_relative_to(root) for f in backup.files)
    return bool(backup.files) and inside, str(root)


def plan(backup_id: str) -> Plan:
    sweep()
    backup = backups.find(backup_id)
    when = age(backup)
    session = f" session {backup.session}" if backup.session else ""
    if backup.kind == "row":
        summary = (
            f"undo the {backup.operation} of {backup.harness}{session} ({when}) in "
            f"{backup.database}; other sessions and app state are left as they are"
        )
    elif backup.kind == "snapshot":
        summary = (
            f"roll {backup.database} back to the snapshot taken {when}: everything written "
            "to it since, in every session and all app state, is lost (the current state is "
            "snapshotted first)"
        )
    else:
        count = len(backup.files)
        summary = (
            f"put back {count} file{'s' if count != 1 else ''} of {backup.harness}{session} "
            f"(backed up before {backup.operation}, {when})"
        )
    trusted, configured = _configured(backup)
    return Plan(backup, summary, backup.database, None if trusted else configured, trusted)


def restore(chosen: Plan, *, force: bool = False) -> Backup | None:
    """Restore the planned backup; returns the backup of what the restore replaced, if any."""
    backup = chosen.backup
    if not chosen.trusted and not force:
        where = f" (it is configured as {chosen.configured})" if chosen.configured else ""
        raise BadInput(
            f"backup {backup.id} writes to {chosen.target}, which is not where txcript's "
            f"configuration points {backup.harness}{where}; pass --force to restore there"
        )
    harness = harnesses.get(backup.harness)
    if not force:
        harness.refuse_while_running()
    if backup.kind == "row":
        if not harness.provides("undo_backup"):
            raise StoreError(f"{backup.harness} cannot undo row backups")
        result: Backup | None = harness.undo_backup(backup, force=force)
        return result
    return backups.restore(backup)


def take_snapshot(harness_id: str) -> Backup:
    """``txcript backup H``: a whole-database snapshot of the harness's configured store."""
    harness = harnesses.get(harness_id)
    snapshot = getattr(harness, "snapshot", None)
    if snapshot is None:
        raise BadInput(
            f"{harness.id} keeps no single database to snapshot (its writes back up the "
            "session's files instead)"
        )
    result: Backup = snapshot()
    return result
