"""OpenCode: the current database (one session committed, one only in its ``-wal``), an older
schema beside a release-channel database, and both JSON file layouts of older versions."""

from __future__ import annotations

from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    commands_as_prompts,
    composed,
    results_in_call_order,
    use_fixtures,
)

use_fixtures("opencode")
import opencode_fixtures as oc  # noqa: E402


def current(root: Path) -> None:
    oc.build_db(root / "opencode.db", oc.CURRENT_DDL, [oc.main_session()], [oc.untitled_session()])


def older_schema(root: Path) -> None:
    oc.build_db(root / "opencode.db", oc.OLD_DDL, [oc.old_session()])
    oc.build_db(
        root / "opencode-stable.db", oc.OLD_DDL, [], [oc.old_session(oc.CHANNEL_ID, "From stable")]
    )


def empty_database(root: Path) -> None:
    oc.build_db(root / "opencode.db", oc.CURRENT_DDL, [])


def empty_old_database(root: Path) -> None:
    oc.build_db(root / "opencode.db", oc.OLD_DDL, [])


#: OpenCode writes only into its database: the JSON file layouts of older versions are read
#: (OpenCode itself migrates them into the database at start-up) and never written.
FILES_ARE_READ_ONLY = {
    contract: "a generation OpenCode only migrates from: txcript reads it, never writes it"
    for contract in ("store-round-trip", "write-preflight", "write-refused-halfway")
}


CONFORMANCE = Conformance(
    harness="opencode",
    families=(
        Family("current", current, sessions=2),
        Family("older-schema", older_schema, sessions=2, fresh_root=empty_old_database),
        Family("file-store", oc.storage_layout, sessions=1, skips=FILES_ARE_READ_ONLY),
        Family("oldest-files", oc.oldest_layout, sessions=1, skips=FILES_ARE_READ_ONLY),
    ),
    representable=oc.conversations(),
    hop_limit=HopLimit(
        "an OpenCode tool part holds its call and its result, so the results of a batch of "
        "calls come back in the order of the calls; a slash command is the prompt that ran it",
        composed(commands_as_prompts, results_in_call_order),
    ),
    # OPENCODE_DB names one database file; the data directory is found through XDG_DATA_HOME.
    env=lambda root: {"XDG_DATA_HOME": str(root.parent)},
    fresh_root=empty_database,
)
