"""``txcript query``: find sessions by what was said in them (a pattern, or the picker)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from txcript.cli.output import (
    DIM,
    STORE_IDS,
    WHEN_FORMS,
    WRITE_IDS,
    colour_enabled,
    colour_option,
    cut,
    echo_lines,
    end_progress_line,
    harness_style,
    json_text,
    progress_line,
)
from txcript.shared.text import scrub

_ORIGIN_CHOICES = ("user", "assistant", "thinking", "tool_use", "tool_result", "meta", "all")
_LINE_WIDTH = 120
#: Characters shown before a match that the cut would otherwise hide.
_CONTEXT = 30


def _progress_line() -> Any:
    """A progress callback drawing one line on stderr when it is a terminal, else None."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, cached: int) -> None:
        progress_line(f"indexing… ({done}/{total}, {cached} cached)")
        if done == total:
            end_progress_line()

    return show


def _highlight(text: str, spans: tuple[tuple[int, int], ...]) -> list[str | tuple[str, str]]:
    """The line as shown (at most :data:`_LINE_WIDTH` characters), its matches marked. A line
    whose first match lies past the cut is shown from shortly before it, after a "…"."""
    shown = scrub(text, keep_offsets=True)
    shift = 0
    if spans and spans[0][1] > _LINE_WIDTH - 1 and len(shown) > _LINE_WIDTH:
        begin = max(1, spans[0][0] - _CONTEXT)
        shown, shift = "…" + shown[begin:], 1 - begin
    if len(shown) > _LINE_WIDTH:
        shown = shown[: _LINE_WIDTH - 1] + "…"
    out: list[str | tuple[str, str]] = []
    last = 0
    for start, end in spans:
        start, end = max(start + shift, last), end + shift
        if start >= len(shown):
            break
        if end <= start:
            continue
        end = min(end, len(shown))
        out.append(shown[last:start])
        out.append((shown[start:end], "bold red"))
        last = end
    out.append(shown[last:])
    return out


class _QueryCommand(click.Command):
    """``query``, whose unknown-option error says how to search for text that starts with
    ``-`` (``--nocapture``, ``-rf``): after ``--``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if exc.possibilities:  # a typo of an option: click's "did you mean" says it
                raise
            name = scrub(exc.option_name)
            raise click.UsageError(
                f"{exc.format_message()} To search for `{name}`, put it after `--`: "
                f"txcript query -- '{name}'",
                ctx,
            ) from None


@click.command("query", cls=_QueryCommand)
@click.argument("pattern", required=False)
@click.option(
    "--from",
    "from_",
    multiple=True,
    metavar="H",
    help=f"Only this harness (repeatable): {STORE_IDS}.",
)
@click.option(
    "--with", "with_", metavar="H", help=f"Picker: continue the pick in this harness: {WRITE_IDS}."
)
@click.option("--cwd", metavar="DIR", help="Only sessions whose cwd is DIR or under it.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--since", metavar="WHEN", help=f"Started at or after ({WHEN_FORMS}).")
@click.option("--until", metavar="WHEN", help=f"Started at or before ({WHEN_FORMS}).")
@click.option(
    "--origin",
    "origins",
    multiple=True,
    type=click.Choice(_ORIGIN_CHOICES),
    help="Search these kinds of line (repeatable; default: all but tool_result; `all`: every one).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@colour_option
def query_command(
    pattern: str | None,
    from_: tuple[str, ...],
    with_: str | None,
    cwd: str | None,
    limit: int,
    since: str | None,
    until: str | None,
    origins: tuple[str, ...],
    as_json: bool,
    colour: str = "auto",
) -> None:
    """Find sessions by what was said in them.

    PATTERN: words that must all match one line, fuzzily; 'exact, ^prefix, suffix$ and !not
    narrow it; case matters only when the pattern has a capital. Without PATTERN on a terminal,
    an interactive picker searches as you type and Enter continues the pick. Exits 1 when
    nothing matches, and 130 when the picker is left with Esc or ctrl-c.

    \b
    Examples:
      txcript query 'auth bug'
      txcript query "'ECONNRESET" --from claude_code --json
    """
    from txcript.search import DEFAULT_ORIGINS, ORIGINS, find
    from txcript.shared.timeutil import parse_window

    chosen = (
        frozenset(ORIGINS)
        if "all" in origins
        else (frozenset(origins) if origins else DEFAULT_ORIGINS)
    )
    since_at, until_at = parse_window(since, until)
    if pattern is None:
        if with_ is not None:  # before the picker, not after the pick
            from txcript.operations import continue_target

            continue_target(with_)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise click.UsageError("interactive query needs a terminal (pass a pattern instead)")
        from txcript.cli.picker import run_picker

        run_picker(from_, with_, cwd, since_at, until_at, chosen)
        return
    if with_ is not None:
        click.echo("txcript: warning: --with ignored with a pattern", err=True)
    matches = find(
        pattern,
        from_,
        cwd=cwd,
        since=since_at,
        until=until_at,
        origins=chosen,
        limit=limit,
        progress=_progress_line(),
    )
    if as_json:
        click.echo(json_text([_match_row(m) for m in matches]))
    elif not matches:
        click.echo(f"no matches for `{scrub(pattern)}`")
    if not matches:
        sys.exit(1)  # as grep and ripgrep: nothing matched
    if as_json:
        return
    lines: list[tuple[str | tuple[str, str], ...]] = []
    for match in matches:
        session = match.session
        when = session.timestamp.strftime("%Y-%m-%d %H:%M")
        label = session.title or (os.path.basename(session.cwd) if session.cwd else "")
        lines.append(
            (
                (session.harness, harness_style(session.harness)),
                "  ",
                (scrub(session.meta_id), DIM),
                "  ",
                (when, DIM),
                "  ",
                cut(scrub(label), 80),
            )
        )
        for hit in match.hits:
            origin = (f"[{hit.origin:>11}]", DIM)
            lines.append(("  ", origin, " ", *_highlight(hit.line, hit.highlights)))
    echo_lines(lines, colour=colour_enabled(sys.stdout, colour))


def _match_row(match: Any) -> dict[str, Any]:
    return {
        "harness": match.session.harness,
        "id": match.session.meta_id,
        "title": match.session.title,
        "score": match.score,
        "hits": [
            {
                "message": None if hit.message is None else hit.message + 1,
                "origin": hit.origin,
                "line": hit.line,
            }
            for hit in match.hits
        ],
    }
