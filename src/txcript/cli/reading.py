"""Commands that read sessions: ``harnesses``, ``list``, ``view``, ``export``, ``convert``."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime

import click

from txcript.cli.output import age, colour_enabled, cut, harness_colour, paint, write_output
from txcript.shared.text import scrub


@click.command("harnesses")
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


@click.command("list")
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
    colour = colour_enabled(sys.stdout)
    header = f"{'HARNESS':<14}  {'WHEN':<10}  {'ID':<38}  TITLE / CWD"
    click.echo(paint(header, "2", colour))
    now = datetime.now(UTC)
    for session in sessions:
        harness = paint(f"{session.harness:<14}", harness_colour(session.harness), colour)
        when = paint(f"{age(session.timestamp, now):<10}", "2", colour)
        ident = paint(f"{cut(scrub(session.meta_id), 38):<38}", "2", colour)
        label = cut(scrub(session.title or session.cwd or ""), 60)
        if session.parent is not None:
            label = f"↳ sub-agent of {cut(scrub(session.parent), 12)}: {label}"
        click.echo(f"{harness}  {when}  {ident}  {label}")


@click.command("view")
@click.argument("ref")
@click.option("--from", "from_", metavar="H", help="Look only in this harness.")
def view_command(ref: str, from_: str | None) -> None:
    """Print a session (or a #RANGE of it) as compact, readable text."""
    from txcript.operations import view_session

    write_output(view_session(ref, from_), None)


@click.command("export")
@click.argument("ref")
@click.option("--from", "from_", metavar="H", help="Look only in this harness.")
@click.option(
    "--format",
    "export_format",
    default="simple",
    show_default=True,
    type=click.Choice(["simple", "common", "markdown", "html", "native"]),
    help="simple: a Simple document; common: Common JSON; markdown, html: a page to read "
    "(html is self-contained and loads nothing); native: the harness's text form.",
)
@click.option("--full", is_flag=True, help="markdown, html: keep long output whole.")
@click.option("--out", metavar="FILE", help="Write to FILE instead of stdout.")
def export_command(
    ref: str, from_: str | None, export_format: str, full: bool, out: str | None
) -> None:
    """Write a session (or a #RANGE of it) as a document, keeping its id, start time and cwd."""
    from txcript.operations import export_session

    write_output(export_session(ref, from_, export_format, full=full), out)


@click.command("convert")
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
    write_output(convert_document(data, label, from_, to), out)
