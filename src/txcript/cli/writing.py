"""Commands that write into stores: ``continue``, ``delete``, ``restore``, ``backup``."""

from __future__ import annotations

import sys
from typing import Any

import click

from txcript.cli import hints
from txcript.cli.output import (
    DIM,
    STORE_IDS,
    WRITE_IDS,
    colour_enabled,
    echo_styled,
    harness_style,
    json_text,
    progress,
)
from txcript.cli.refs import RefCommand, restore_ref, use_store_at
from txcript.shared.text import scrub


@click.command("continue", cls=RefCommand)
@click.argument("ref", callback=restore_ref)
@click.argument("path", required=False, metavar="[PATH]")
@click.option(
    "--with", "with_", metavar="H", help=f"Harness to continue in (default: its own): {WRITE_IDS}."
)
@click.option("--from", "from_", metavar="H", help=f"Look only in this harness: {STORE_IDS}.")
@click.option("--cwd", metavar="DIR", help="Working directory of the copy (and of the launch).")
@click.option(
    "--out", metavar="DIR", help="Write under DIR as the harness's root (implies --no-resume)."
)
@click.option("--no-resume", is_flag=True, help="Write the copy but do not launch the harness.")
@click.option(
    "--force",
    is_flag=True,
    help="Write into the live store even while the app (Cursor) is running.",
)
@click.option(
    "--replace",
    is_flag=True,
    help="With --out: replace a session with the same id already in DIR.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print {harness, id, location, resume_command, cwd, env}: run the command in cwd "
    "(null: anywhere) with env set.",
)
def continue_command(
    ref: str,
    with_: str | None,
    from_: str | None,
    cwd: str | None,
    out: str | None,
    no_resume: bool,
    force: bool,
    replace: bool,
    as_json: bool,
    path: str | None = None,
) -> None:
    """Continue a session (or a #RANGE of it) in a harness; the source is never modified.

    The copy gets a fresh id and start time, then the harness is launched on it (unless
    --no-resume). With --out DIR the copy is written under DIR as the harness's root instead,
    keeping its id, start time and cwd. PATH, with --from H, is the store of H to read the
    session from (a Claude export's ZIP, say); the copy goes into another harness (--with).

    \b
    Examples:
      txcript continue 3f1c2a4e --with claude_code
      txcript continue "Fix the parser#1-40" --with codex --no-resume
      txcript continue ./session.json --with claude_code --out ./exported
    """
    if path is not None:
        from txcript import harnesses

        source = harnesses.canonical_id(from_) if from_ else None
        if with_ is None or harnesses.canonical_id(with_) == source:
            raise click.UsageError(
                "PATH names the store the session is read from; continue it in another "
                "harness with --with H"
            )
        use_store_at(from_, path)
    continue_and_resume(
        ref,
        with_harness=with_,
        from_harness=from_,
        cwd=cwd,
        out=out,
        resume=not no_resume and out is None,
        force=force,
        replace=replace,
        as_json=as_json,
    )


def continue_and_resume(
    ref: str,
    *,
    with_harness: str | None,
    from_harness: str | None,
    cwd: str | None = None,
    out: str | None = None,
    resume: bool = True,
    force: bool = False,
    replace: bool = False,
    as_json: bool = False,
    documents: bool = True,
) -> None:
    """``txcript continue``: write the copy, report it, launch the harness (``resume``). The
    picker calls it with ``documents=False``: its pick is a stored session, whatever file in
    the current directory happens to have the session's id as its name."""
    from txcript.errors import TxcriptError
    from txcript.launch import launch
    from txcript.operations import continue_session
    from txcript.shared.interrupts import AfterCommit

    # Once the copy is written, a Ctrl-C waits until its id and undo are printed: a copy left
    # unreported would be written again by a retry.
    with AfterCommit() as after_commit:
        with progress("writing the copy…"):
            result = continue_session(
                ref,
                with_harness=with_harness,
                from_harness=from_harness,
                cwd=cwd,
                out=out,
                force=force,
                replace=replace,
                launching=resume,
                documents=documents,
                committed=after_commit.hold,
            )
        for note in result.notes:
            click.echo(f"txcript: note: {scrub(note)}", err=True)
        if as_json:
            click.echo(json_text(result.as_json()))
        else:
            report_continued(result, resume_hint=not resume or result.interrupted, out=out)
        sys.stdout.flush()
    if result.interrupted or after_commit.interrupted:
        click.echo(
            "txcript: note: interrupted after the copy was written: it is kept (undo above), "
            "and nothing is launched",
            err=True,
        )
        return
    if not resume:
        return
    command_text = hints.shell_command(result.resume_command)
    where = f" (in {scrub(str(result.launch_cwd))})" if result.launch_cwd else ""
    click.echo(f"resuming: {command_text}{where}", err=True)
    try:
        code = launch(result.resume_command, result.launch_cwd)
    except TxcriptError as exc:
        if not result.written:
            raise
        raise TxcriptError(
            f"{exc}; the copy is written at {result.location}; resume it with: "
            f"{hints.resume_hint(result)}"
        ) from None
    sys.exit(code)


def report_continued(result: Any, *, resume_hint: bool, out: str | None = None) -> None:
    """``<source> → <target>  <location>`` for a written copy, what to do next, and (if asked)
    the command that resumes it, runnable as printed from any directory."""
    if result.written:
        echo_styled(
            (result.source_harness, harness_style(result.source_harness)),
            " → ",
            (result.harness, harness_style(result.harness)),
            "  ",
            (scrub(result.location), DIM),
            colour=colour_enabled(sys.stdout),
        )
        if result.harness == "cursor_desktop":
            # Cursor opens on its sidebar, not on a session id: say what to look for there.
            click.echo(f"  id: {scrub(result.id)}")
            if out is None:
                click.echo(f"  in the sidebar as: {scrub(result.title or '(untitled)')}")
        if out is not None:
            note = hints.out_note(result, out)
            if note is not None:
                click.echo(f"  note: {note}")
    if resume_hint:
        click.echo(f"  resume with: {hints.resume_hint(result)}")
    if result.written:
        click.echo(f"  undo with: {hints.undo_hint(result, out)}")


@click.command("delete")
@click.argument("ref")
@click.option(
    "--from",
    "from_",
    metavar="H",
    help=f"The harness that holds it (needed only when REF matches in several): {STORE_IDS}.",
)
@click.option(
    "--root",
    metavar="DIR",
    help="Delete from the store rooted at DIR (a copy written with continue --out DIR).",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Delete even while the app is running.")
def delete_command(ref: str, from_: str | None, root: str | None, yes: bool, force: bool) -> None:
    """Delete one session from a store (a backup is written first where the store keeps one).

    \b
    Examples:
      txcript delete 3f1c2a4e
      txcript delete 3f1c2a4e --from cursor_desktop
      txcript delete "Scratch session" --from claude_code --yes
      txcript delete 3f1c2a4e --from codex --root ./exported --yes
    """
    from txcript.operations import delete_session, resolve_for_delete

    session = resolve_for_delete(ref, from_, root)
    if not yes:
        label = scrub(session.title or session.cwd or "")
        prompt = (
            f"delete {session.harness} session {scrub(session.meta_id)} {label}?".rstrip("?") + "?"
        )
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to delete without confirmation; pass --yes")
        if not click.confirm(prompt, default=False):
            click.echo("nothing deleted")
            return
    backup_id = delete_session(session, force=force, root=root)
    click.echo(f"deleted {session.harness} session {scrub(session.meta_id)}")
    if backup_id:
        click.echo(f"  undo with: txcript restore {backup_id}")


@click.command("restore")
@click.argument("backup_id", required=False)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option(
    "--force",
    is_flag=True,
    help="Restore even while the app is running, over changes made since, or to a store the "
    "configuration does not name.",
)
@click.option("--json", "as_json", is_flag=True, help="List backups as JSON.")
def restore_command(backup_id: str | None, yes: bool, force: bool, as_json: bool) -> None:
    """List backups, or restore one (BACKUP_ID or a unique prefix).

    A row backup undoes the one save or delete it was taken for; a snapshot rolls the whole
    database back.

    \b
    Examples:
      txcript restore
      txcript restore 3f1c2a4e --yes
    """
    from txcript import restoring

    if backup_id is None:
        found = restoring.listing()
        if as_json:
            click.echo(json_text([b.as_json() for b in found]))
        elif not found:
            click.echo("no backups yet")
        else:
            _print_backups(found)
        return
    chosen = restoring.plan(backup_id)  # an unknown id is an error before any question
    click.echo(scrub(chosen.summary), err=True)
    if not chosen.trusted and not force:
        restoring.restore(chosen, force=False)  # raises: the target is shown, --force asked
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to restore without confirmation; pass --yes")
        if not click.confirm(f"restore backup {chosen.backup.id}?", default=False):
            click.echo("nothing restored")
            return
    undo = restoring.restore(chosen, force=force)
    backup = chosen.backup
    if backup.kind == "row":
        session = scrub(backup.session or "")
        click.echo(f"undid the {backup.operation} of {backup.harness} session {session}")
    else:
        click.echo(f"restored {scrub(backup.database)} from {backup.id}")
    if undo is not None:
        click.echo(f"  undo with: txcript restore {undo.id}")


def _size(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count} B"


def _print_backups(found: list[Any]) -> None:
    rows = [("ID", "KIND", "HARNESS", "OPERATION", "SESSION", "SIZE")]
    rows += [
        (b.id, b.kind, b.harness, b.operation, scrub(b.session or "-"), _size(b.size))
        for b in found
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=False)]
        click.echo("  ".join([*cells, row[-1].rjust(widths[-1])]))
    total = sum(b.size for b in found)
    count = len(found)
    click.echo(f"{count} backup{'s' if count != 1 else ''}, {_size(total)} in total")


@click.command("backup")
@click.argument("harness")
@click.option("--json", "as_json", is_flag=True, help="Print the backup's manifest as JSON.")
def backup_command(harness: str, as_json: bool) -> None:
    """Snapshot a harness's whole database (Cursor desktop) into the backup directory.

    Writes back up only the rows they change; take a snapshot before anything else you want to
    be able to roll back wholesale. `txcript restore ID` puts it back.

    \b
    Examples:
      txcript backup cursor_desktop
      txcript backup cursor_desktop --json
      txcript restore                  # lists backups, snapshots included
    """
    from txcript import restoring

    taken = restoring.take_snapshot(harness)
    if as_json:
        click.echo(json_text(taken.as_json()))
        return
    click.echo(f"snapshot {taken.id}  {_size(taken.size)}  of {scrub(taken.database)}")
    click.echo(f"  restore with: txcript restore {taken.id}")
