"""``txcript archive``: a static site of every matching session."""

from __future__ import annotations

import sys

import click

from txcript.cli.output import STORE_IDS, WHEN_FORMS, end_progress_line, progress_line
from txcript.shared.text import scrub


class _Progress:
    """``archiving 12/1,000`` on one rewritten stderr line, only when stderr is a terminal."""

    def __call__(self, done: int, total: int) -> None:
        progress_line(f"archiving {done:,}/{total:,}")

    def finish(self) -> None:
        end_progress_line()


@click.command("archive")
@click.option(
    "--out", required=True, metavar="DIR", help="The site's directory (new, or made by archive)."
)
@click.option(
    "--from",
    "from_",
    multiple=True,
    metavar="H",
    help=f"Only this harness (repeatable): {STORE_IDS}.",
)
@click.option("--cwd", metavar="DIR", help="Only sessions whose cwd is DIR or under it.")
@click.option("--since", metavar="WHEN", help=f"Started at or after ({WHEN_FORMS}).")
def archive_command(out: str, from_: tuple[str, ...], cwd: str | None, since: str | None) -> None:
    """Write a static site: index.html listing every matching session, one page per session.

    Re-running it re-renders only the sessions that changed since (by their store's change
    cursor). Pages of sessions that no longer match are kept.

    \b
    Examples:
      txcript archive --out ~/sessions-site
      txcript archive --out ./site --from claude_code --since 30d
      txcript archive --out ./site --cwd ~/src/acme
    """
    from txcript.operations import archive_sessions
    from txcript.shared.timeutil import parse_when

    progress = _Progress() if sys.stderr.isatty() else None
    try:
        result = archive_sessions(
            out,
            from_,
            cwd=cwd,
            since=None if since is None else parse_when(since, end_of_day=False),
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.finish()
    counts = f"{result.written:,} written, {result.unchanged:,} unchanged"
    if result.failed:
        counts += f", {result.failed:,} not readable"
    click.echo(f"archived {result.matched:,} sessions into {scrub(out)} ({counts})")
    if result.indexed != result.matched:
        click.echo(f"the index lists {result.indexed:,} sessions, earlier runs' included")
    click.echo(f"open {scrub(str(result.index))}")
