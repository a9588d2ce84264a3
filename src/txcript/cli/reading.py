"""Commands that read sessions: ``harnesses``, ``list``, ``view``, ``export``, ``convert``."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import click

from txcript.cli.output import (
    FORMAT_IDS,
    STORE_IDS,
    WHEN_FORMS,
    colour_enabled,
    colour_option,
    echo_lines,
    is_terminal,
    json_text,
    show_long,
    terminal_width,
    write_output,
    write_output_chunks,
)
from txcript.cli.refs import RefCommand, restore_ref, use_store_at
from txcript.shared.text import scrub, scrub_block


@click.command("harnesses")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def harnesses_command(as_json: bool) -> None:
    """List the harnesses txcript can read and write, and where their stores are.

    \b
    Examples:
      txcript harnesses
      txcript harnesses --json
    """
    from txcript.operations import harness_rows

    rows = harness_rows()
    if as_json:
        click.echo(json_text(rows))
        return
    table = [
        (row["id"], row["name"], "read/write" if row["write"] else "read", row["root"] or "-")
        for row in rows
    ]
    # Each column as wide as its longest cell, two spaces apart: a long name never runs into
    # the next column.
    widths = [max(len(cells[i]) for cells in table) for i in range(3)]
    for cells in table:
        padded = [cell.ljust(width) for cell, width in zip(cells, widths, strict=False)]
        click.echo(scrub("  ".join([*padded, cells[3]])))


@click.command("list")
@click.option(
    "--from",
    "from_",
    multiple=True,
    metavar="H",
    help=f"Only this harness (repeatable): {STORE_IDS}.",
)
@click.option("--cwd", metavar="DIR", help="Only sessions whose cwd is DIR or under it.")
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    metavar="K",
    help="Only sessions of this source kind (repeatable), e.g. Hermes's cli, telegram, cron.",
)
@click.option("-n", "--limit", type=click.IntRange(min=0), metavar="N", help="At most N rows.")
@click.option("--since", metavar="WHEN", help=f"Started at or after ({WHEN_FORMS}).")
@click.option("--until", metavar="WHEN", help=f"Started at or before ({WHEN_FORMS}).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array (text kept exactly).")
@click.argument("path", required=False, metavar="[PATH]")
@colour_option
def list_command(
    from_: tuple[str, ...],
    cwd: str | None,
    limit: int | None,
    since: str | None,
    until: str | None,
    as_json: bool,
    path: str | None = None,
    colour: str = "auto",
    kinds: tuple[str, ...] = (),
) -> None:
    """List local sessions, newest first.

    On a terminal the table fits its width and ids are shortened to a prefix that still
    names one session (any REF takes it); in a pipe the columns are fixed and ids whole.
    PATH, with one --from H, is the store of H to list (a Claude export's ZIP, say).

    \b
    Examples:
      txcript list
      txcript list --from claude_code --cwd . -n 5
      txcript list --since 2026-11-01 --json
      txcript list --from claude_export ~/Downloads/data-2026-12-01.zip
    """
    from txcript.operations import list_sessions, missing_stores, session_row
    from txcript.shared.timeutil import parse_window

    if path is not None and len(from_) != 1:
        raise click.UsageError("PATH names one harness's store: give that harness with --from H")
    use_store_at(from_[0] if from_ else None, path)
    start, end = parse_window(since, until)
    sessions = list_sessions(
        from_, cwd=cwd, since=start, until=end, limit=limit, with_model=as_json, kinds=kinds
    )
    if as_json:
        click.echo(json_text([session_row(s) for s in sessions]))
        return
    missing = missing_stores(from_) if from_ else []
    if not sessions:
        scope = f" {from_[0]}" if len(from_) == 1 else ""
        where = f" for {cwd}" if cwd else ""
        when = " in that time range" if since or until else ""
        named = [
            f"no {h} store at {root}" if not scope else f"no store at {root}" for h, root in missing
        ]
        absent = f" ({'; '.join(named)})" if named else ""
        click.echo(scrub(f"no local{scope} sessions found{where}{when}{absent}"))
        return
    for harness_id, root in missing:
        click.echo(scrub(f"txcript: note: no {harness_id} store at {root}"), err=True)
    stdout = sys.stdout
    from txcript.cli.listing import list_lines

    lines = list_lines(sessions, datetime.now(UTC), terminal_width(stdout))
    echo_lines(lines, colour=colour_enabled(stdout, colour))


@click.command("view", cls=RefCommand)
@click.argument("ref", callback=restore_ref)
@click.argument("path", required=False, metavar="[PATH]")
@click.option("--from", "from_", metavar="H", help=f"Look only in this harness: {STORE_IDS}.")
@click.option("--no-pager", is_flag=True, help="Never page the output on a terminal.")
def view_command(
    ref: str, from_: str | None, no_pager: bool = False, path: str | None = None
) -> None:
    """Print a session (or a #RANGE of it) as compact, readable text.

    PATH, with --from H, is the store of H to look in (a Claude export's ZIP, say).

    On a terminal, control sequences from the session are removed and output taller than the
    screen goes through $PAGER (default `less -R`). In a pipe the text is printed exactly.

    \b
    Examples:
      txcript view 3f1c2a4e
      txcript view "Fix the parser#5-12" --from claude_code
      txcript view ./session.json --no-pager
    """
    from txcript.operations import view_chunks

    use_store_at(from_, path)
    chunks = view_chunks(ref, from_)
    stdout = sys.stdout
    if not is_terminal(stdout):
        for chunk in chunks:  # exactly the text, never whole in memory
            stdout.write(chunk)
        stdout.flush()
        return
    show_long(scrub_block("".join(chunks)), pager=not no_pager)


@click.command("export", cls=RefCommand)
@click.argument("ref", callback=restore_ref)
@click.argument("path", required=False, metavar="[PATH]")
@click.option("--from", "from_", metavar="H", help=f"Look only in this harness: {STORE_IDS}.")
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
    ref: str,
    from_: str | None,
    export_format: str,
    full: bool,
    out: str | None,
    path: str | None = None,
) -> None:
    """Write a session (or a #RANGE of it) as a document, keeping its id, start time and cwd.

    The text is written exactly as the session holds it (nothing is removed for a terminal).
    PATH, with --from H, is the store of H to look in (a Claude export's ZIP, say).

    \b
    Examples:
      txcript export 3f1c2a4e --out session.json
      txcript export 3f1c2a4e#1-20 --format common
      txcript export 3f1c2a4e --format markdown --out session.md
    """
    from txcript.operations import export_chunks
    from txcript.shared.gcpause import paused

    use_store_at(from_, path)
    with paused():
        write_output_chunks(export_chunks(ref, from_, export_format, full=full), out)


@click.command("convert")
@click.option(
    "--from", "from_", required=True, metavar="A", help=f"Format of the input: {FORMAT_IDS}."
)
@click.option("--to", "to", required=True, metavar="B", help=f"Format to write: {FORMAT_IDS}.")
@click.argument("input_path", metavar="[INPUT|-]", default="-")
@click.option("--out", metavar="FILE", help="Write to FILE instead of stdout.")
def convert_command(from_: str, to: str, input_path: str, out: str | None) -> None:
    """Convert one document between formats (pure: no store is touched).

    A and B are harness ids (their native text form), `simple` or `common`.

    \b
    Examples:
      txcript convert --from simple --to claude_code session.json --out session.jsonl
      cat rollout.jsonl | txcript convert --from codex --to common
    """
    from txcript.operations import convert_document
    from txcript.sessions import read_raw

    data, label = read_raw(input_path)
    write_output(convert_document(data, label, from_, to), out)
