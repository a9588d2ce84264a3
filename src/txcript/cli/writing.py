"""Commands that write into stores: ``continue``, ``delete``, ``restore``."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from txcript.cli.output import colour_enabled, harness_colour, paint
from txcript.shared.text import scrub


@click.command("continue")
@click.argument("ref")
@click.option("--with", "with_", metavar="H", help="Harness to continue in (default: its own).")
@click.option("--from", "from_", metavar="H", help="Look only in this harness.")
@click.option("--cwd", metavar="DIR", help="Working directory of the copy (and of the launch).")
@click.option(
    "--out", metavar="DIR", help="Write under DIR as the harness's root (implies --no-resume)."
)
@click.option("--no-resume", is_flag=True, help="Write the copy but do not launch the harness.")
@click.option("--force", is_flag=True, help="Write even while the target app is running.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print {harness, id, location, resume_command}."
)
def continue_command(
    ref: str,
    with_: str | None,
    from_: str | None,
    cwd: str | None,
    out: str | None,
    no_resume: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Continue a session (or a #RANGE of it) in a harness; the source is never modified."""
    from txcript.launch import launch
    from txcript.operations import continue_session

    result = continue_session(
        ref, with_harness=with_, from_harness=from_, cwd=cwd, out=out, force=force
    )
    for note in result.notes:
        click.echo(f"txcript: note: {scrub(note)}", err=True)
    resume = not no_resume and out is None
    if as_json:
        click.echo(json.dumps(result.as_json(), ensure_ascii=False))
    else:
        report_continued(result, resume_hint=not resume)
    if not resume:
        return
    command_text = scrub(" ".join(result.resume_command))
    where = f" (in {result.launch_cwd})" if result.launch_cwd else ""
    click.echo(f"resuming: {command_text}{where}", err=True)
    code = launch(result.resume_command, result.launch_cwd)
    sys.exit(code)


def report_continued(result: Any, *, resume_hint: bool) -> None:
    """``<source> → <target>  <location>`` for a written copy, then the resume command if asked."""
    if result.written:
        colour = colour_enabled(sys.stdout)
        source = paint(result.source_harness, harness_colour(result.source_harness), colour)
        target = paint(result.harness, harness_colour(result.harness), colour)
        click.echo(f"{source} → {target}  {paint(scrub(result.location), '2', colour)}")
    if resume_hint:
        click.echo(f"  resume with: {scrub(' '.join(result.resume_command))}")


@click.command("delete")
@click.argument("ref")
@click.option("--from", "from_", required=True, metavar="H", help="The harness that holds it.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Delete even while the app is running.")
def delete_command(ref: str, from_: str, yes: bool, force: bool) -> None:
    """Delete one session from a store (a backup is written first where the store keeps one)."""
    from txcript.operations import delete_session, resolve_for_delete

    session = resolve_for_delete(ref, from_)
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
    backup_id = delete_session(session, force=force)
    click.echo(f"deleted {session.harness} session {scrub(session.meta_id)}")
    if backup_id:
        click.echo(f"  undo with: txcript restore {backup_id}")


@click.command("restore")
@click.argument("backup_id", required=False)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.option("--force", is_flag=True, help="Restore even while the app is running.")
@click.option("--json", "as_json", is_flag=True, help="List backups as JSON.")
def restore_command(backup_id: str | None, yes: bool, force: bool, as_json: bool) -> None:
    """List the backups txcript took before writing, or restore one (BACKUP_ID or a prefix)."""
    from txcript.operations import find_backup, list_backups, restore_backup

    if backup_id is None:
        backups = list_backups()
        if as_json:
            click.echo(json.dumps([b.as_json() for b in backups], ensure_ascii=False))
        elif not backups:
            click.echo("no backups yet")
        else:
            for b in backups:
                session = f" {b.session}" if b.session else ""
                click.echo(f"{b.id}  {b.size >> 20} MiB  {b.operation}{session}  {b.database}")
        return
    find_backup(backup_id)  # an unknown id is an error before any question is asked
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to restore without confirmation; pass --yes")
        if not click.confirm(f"restore backup {backup_id} over its database?", default=False):
            click.echo("nothing restored")
            return
    restored, undo = restore_backup(backup_id, force=force)
    click.echo(f"restored {restored.database} from {restored.id}")
    if undo is not None:
        click.echo(f"  the replaced state is backup {undo.id}")
