"""The ``txcript`` command line: parses arguments, calls :mod:`txcript.operations`, prints.

Errors are one line on stderr (``txcript: error: …``) with exit 2 for bad input and 1 for a
failed operation; ``TXCRIPT_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import click

from txcript import __version__
from txcript.shared.text import scrub

HARNESS_HELP = (
    "harnesses: cursor_desktop, cursor, claude_code, codex, opencode, gemini, pi, grok, simple"
)
_COLOURS = {
    "claude_code": "33",
    "codex": "36",
    "opencode": "32",
    "pi": "35",
    "cursor": "34",
    "cursor_desktop": "96",
    "grok": "37",
    "gemini": "94",
    "simple": "92",
}


def _colour_enabled(stream: Any) -> bool:
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def _paint(text: str, code: str, enabled: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if enabled else text


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _age(moment: datetime, now: datetime) -> str:
    seconds = (now - moment).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86_400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 7 * 86_400:
        return f"{int(seconds // 86_400)}d ago"
    return moment.astimezone().strftime("%Y-%m-%d")


def _write_output(text: str, out: str | None) -> None:
    """Print, or write ``out`` atomically (a failure leaves no partial file)."""
    if out is None:
        click.echo(text, nl=False)
        return
    from txcript.shared.files import write_atomic

    write_atomic(Path(out), text.encode("utf-8"))


@click.group(
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=HARNESS_HELP,
)
@click.version_option(__version__, "-V", "--version", prog_name="txcript")
def cli() -> None:
    """Move AI coding-agent sessions between harnesses (Cursor, Claude Code, Codex, …).

    REF is a session id, a unique id prefix, an exact title, a path to a session document
    (Simple, Common JSON or a native text form) or - for stdin, optionally followed by #RANGE
    (N, N-M, N- or -M: message numbers as `view` prints them).
    """


@cli.command("harnesses")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def harnesses_command(as_json: bool) -> None:
    """List the harnesses txcript can read and write, and where their stores are."""
    from txcript.operations import harness_rows

    rows = harness_rows()
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        access = "read/write" if row["write"] else "read"
        click.echo(f"{row['id']:<16}{row['name']:<18}{access:<12}{row['root'] or '-'}")


@cli.command("list")
@click.option("--from", "from_", multiple=True, metavar="H", help="Only this harness (repeatable).")
@click.option("--cwd", metavar="DIR", help="Only sessions whose cwd is DIR or under it.")
@click.option("-n", "--limit", type=click.IntRange(min=0), metavar="N", help="At most N rows.")
@click.option("--since", metavar="WHEN", help="Started at or after (RFC 3339 or YYYY-MM-DD).")
@click.option("--until", metavar="WHEN", help="Started at or before (RFC 3339 or YYYY-MM-DD).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def list_command(
    from_: tuple[str, ...],
    cwd: str | None,
    limit: int | None,
    since: str | None,
    until: str | None,
    as_json: bool,
) -> None:
    """List local sessions, newest first."""
    from txcript.operations import list_sessions, session_row
    from txcript.shared.timeutil import parse_when

    sessions = list_sessions(
        from_,
        cwd=cwd,
        since=None if since is None else parse_when(since, end_of_day=False),
        until=None if until is None else parse_when(until, end_of_day=True),
        limit=limit,
    )
    if as_json:
        click.echo(json.dumps([session_row(s) for s in sessions], ensure_ascii=False))
        return
    if not sessions:
        scope = f" {from_[0]}" if len(from_) == 1 else ""
        where = f" for {cwd}" if cwd else ""
        when = " in that time range" if since or until else ""
        click.echo(f"no local{scope} sessions found{where}{when}")
        return
    colour = _colour_enabled(sys.stdout)
    header = f"{'HARNESS':<14}  {'WHEN':<10}  {'ID':<38}  TITLE / CWD"
    click.echo(_paint(header, "2", colour))
    now = datetime.now(UTC)
    for session in sessions:
        harness = _paint(f"{session.harness:<14}", _COLOURS.get(session.harness, "0"), colour)
        when = _paint(f"{_age(session.timestamp, now):<10}", "2", colour)
        ident = _paint(f"{_cut(scrub(session.meta_id), 38):<38}", "2", colour)
        label = _cut(scrub(session.title or session.cwd or ""), 60)
        click.echo(f"{harness}  {when}  {ident}  {label}")


@cli.command("view")
@click.argument("ref")
@click.option("--from", "from_", metavar="H", help="Look only in this harness.")
def view_command(ref: str, from_: str | None) -> None:
    """Print a session (or a #RANGE of it) as compact, readable text."""
    from txcript.operations import view_session

    _write_output(view_session(ref, from_), None)


@cli.command("export")
@click.argument("ref")
@click.option("--from", "from_", metavar="H", help="Look only in this harness.")
@click.option(
    "--format",
    "export_format",
    default="simple",
    show_default=True,
    type=click.Choice(["simple", "common", "native"]),
    help="simple: a Simple document; common: Common JSON; native: the harness's text form.",
)
@click.option("--out", metavar="FILE", help="Write to FILE instead of stdout.")
def export_command(ref: str, from_: str | None, export_format: str, out: str | None) -> None:
    """Write a session (or a #RANGE of it) as a document, keeping its id, start time and cwd."""
    from txcript.operations import export_session

    _write_output(export_session(ref, from_, export_format), out)


@cli.command("convert")
@click.option("--from", "from_", required=True, metavar="A", help="Format of the input.")
@click.option("--to", "to", required=True, metavar="B", help="Format to write.")
@click.argument("input_path", metavar="[INPUT|-]", default="-")
@click.option("--out", metavar="FILE", help="Write to FILE instead of stdout.")
def convert_command(from_: str, to: str, input_path: str, out: str | None) -> None:
    """Convert one document between formats (pure: no store is touched).

    A and B are harness ids (their native text form), `simple` or `common`.
    """
    from txcript.operations import convert_document
    from txcript.sessions import read_raw

    data, label = read_raw(input_path)
    _write_output(convert_document(data, label, from_, to), out)


@cli.command("continue")
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
        _report_continued(result, resume_hint=not resume)
    if not resume:
        return
    command_text = scrub(" ".join(result.resume_command))
    where = f" (in {result.launch_cwd})" if result.launch_cwd else ""
    click.echo(f"resuming: {command_text}{where}", err=True)
    code = launch(result.resume_command, result.launch_cwd)
    sys.exit(code)


def _report_continued(result: Any, *, resume_hint: bool) -> None:
    """``<source> → <target>  <location>`` for a written copy, then the resume command if asked."""
    if result.written:
        colour = _colour_enabled(sys.stdout)
        source = _paint(result.source_harness, _COLOURS.get(result.source_harness, "0"), colour)
        target = _paint(result.harness, _COLOURS.get(result.harness, "0"), colour)
        click.echo(f"{source} → {target}  {_paint(scrub(result.location), '2', colour)}")
    if resume_hint:
        click.echo(f"  resume with: {scrub(' '.join(result.resume_command))}")


@cli.command("delete")
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


@cli.command("restore")
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


@cli.command("demo")
@click.option("--keep", is_flag=True, help="Keep the sandbox directory afterwards.")
@click.pass_context
def demo_command(ctx: click.Context, keep: bool) -> None:
    """Run the main job end to end in a throwaway sandbox (your real stores are not touched).

    A sample Cursor desktop session is listed, continued into Claude Code, and shown.
    """
    import shutil

    from txcript.demo import build_sandbox

    previous_dir = os.getcwd()
    sandbox = build_sandbox()
    os.environ.update(sandbox.env)
    os.chdir(sandbox.project)
    colour = _colour_enabled(sys.stdout)

    def step(text: str) -> None:
        click.echo(_paint(f"\n$ {text}", "1", colour))

    try:
        click.echo(f"sandbox: {sandbox.root} (a Cursor desktop store with one agent session)")
        step("txcript list")
        ctx.invoke(
            list_command, from_=(), cwd=None, limit=None, since=None, until=None, as_json=False
        )
        step(f"txcript continue {sandbox.session_id[:8]} --with claude_code --no-resume")
        from txcript.operations import continue_session

        result = continue_session(sandbox.session_id[:8], with_harness="claude_code")
        _report_continued(result, resume_hint=True)
        step(f"txcript view {result.id[:8]} --from claude_code")
        ctx.invoke(view_command, ref=result.id, from_="claude_code")
    finally:
        if keep:
            click.echo(f"\nkept the sandbox: {sandbox.root}")
        else:
            os.chdir(previous_dir)
            shutil.rmtree(sandbox.root, ignore_errors=True)


def _fail(message: str, code: int) -> NoReturn:
    """Print the one-line error (input echoed in it cannot add lines) and exit with ``code``."""
    sys.stdout.flush()
    click.echo(f"txcript: error: {scrub(message)}", err=True)
    sys.exit(code)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    click.echo(f"txcript: warning: {message}", err=True)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI with the one-line error contract."""
    from txcript.diagnostics import TranscriptWarning
    from txcript.errors import TxcriptError

    warnings.simplefilter("always", TranscriptWarning)
    warnings.showwarning = _show_warning
    debug = bool(os.environ.get("TXCRIPT_DEBUG"))
    try:
        code = cli.main(args=argv, prog_name="txcript", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        sys.exit(0)
    except click.UsageError as exc:
        _fail(exc.format_message().replace("\n", " "), 2)
    except click.ClickException as exc:
        _fail(exc.format_message().replace("\n", " "), exc.exit_code or 1)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except TxcriptError as exc:
        if debug:
            raise
        _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        # A closed stdout (`| head`) ends the command quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(0)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except Exception as exc:
        if debug:
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set TXCRIPT_DEBUG=1 for details)", 1)
    sys.exit(code if isinstance(code, int) else 0)
