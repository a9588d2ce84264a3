"""``txcript doctor``: what txcript finds on this machine, safe to paste into a bug report."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from txcript.cli.output import age, is_terminal, json_text
from txcript.shared.text import scrub

if TYPE_CHECKING:
    from txcript.doctor import DeepReport, Progress, Report


def _size(count: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count} B"


def _ratio(passed: int, checked: int) -> str:
    return f"{passed}/{checked}" if checked else "-"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


@contextmanager
def _progress_line() -> Iterator[Progress | None]:
    """A one-line counter on stderr while the deep checks run; nothing when not a terminal."""
    if not is_terminal(sys.stderr):
        yield None
        return

    def show(harness: str, done: int, total: int) -> None:
        label = f"checking {harness}" if harness else "checked"
        sys.stderr.write(f"\r\x1b[2Kdoctor: {label} {done}/{total}")
        sys.stderr.flush()

    try:
        yield show
    finally:
        sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()


def _store_lines(report: Report) -> Iterator[str]:
    from txcript.shared.timeutil import now

    moment = now()
    width = max(len(s.harness) for s in report.stores) if report.stores else 0
    for store in report.stores:
        if store.root is None:
            found = "no store location (is HOME set?)"
        elif not store.exists:
            found = f"{scrub(store.root)}  (absent)"
        else:
            newest = "" if store.newest is None else f", newest {age(store.newest, moment)}"
            found = f"{scrub(store.root)}  {_plural(store.sessions, 'session')}{newest}"
        yield f"  {store.harness.ljust(width)}  {found}"
        notes = []
        if store.error is not None:
            notes.append(f"cannot be read: {scrub(store.error)}")
        if store.warnings:
            first = scrub(store.first_warning or "")
            notes.append(f"{_plural(store.warnings, 'warning')} while scanning, first: {first}")
        if store.app_running is not None:
            notes.append(f"{store.name} is {'running' if store.app_running else 'not running'}")
        for name, path in store.executables.items():
            notes.append(f"{name}: {scrub(path) if path else 'not on PATH'}")
        if notes:
            yield f"  {' ' * width}  " + " · ".join(notes)


def _human(report: Report) -> None:
    click.echo(f"txcript {report.txcript} · Python {report.python} · {report.platform}")
    click.echo("stores:")
    for line in _store_lines(report):
        click.echo(line)
    extras = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in report.extras.items())
    click.echo(f"optional extras: {extras}")
    data = scrub(report.data_dir) + ("" if report.data_dir_exists else "  (absent)")
    click.echo(f"data dir: {data}  {_size(report.data_dir_bytes)}")
    click.echo(f"backups: {report.backups}, {_size(report.backups_bytes)} in total")
    if report.deep is not None:
        _human_deep(report.deep)


def _human_deep(deep: DeepReport) -> None:
    click.echo("deep check (load, Common and back, text re-read):")
    rows = [("HARNESS", "SESSIONS", "LOADED", "FIXPOINT", "ROUND TRIP", "WARNINGS")]
    for t in deep.tallies:
        fixpoint = f"{t.fixpoint_passed}/{t.fixpoint_checked}" if t.fixpoint_checked else "-"
        round_trip = (
            f"{t.round_trip_passed}/{t.round_trip_checked}" if t.round_trip_checked else "-"
        )
        rows.append(
            (t.harness, str(t.sessions), str(t.loaded), fixpoint, round_trip, str(t.warnings))
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        click.echo(f"  {cells}".rstrip())
    for failure in deep.failures:
        click.echo(
            f"  FAIL {failure.harness} {scrub(failure.id)} {failure.check}: {scrub(failure.reason)}"
        )
    for warned in deep.warned:
        click.echo(
            f"  warn {warned.harness} {scrub(warned.id)} ({warned.count}): {scrub(warned.reason)}"
        )
    checked = sum(t.sessions for t in deep.tallies)
    if deep.passed:
        click.echo(f"all {_plural(checked, 'session')} pass")
    else:
        failed = len({(f.harness, f.id) for f in deep.failures})
        click.echo(f"{failed} of {_plural(checked, 'session')} failed")


@click.command("doctor")
@click.option(
    "--deep",
    is_flag=True,
    help="Also load every local session, convert it to Common and back and re-read it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def doctor_command(deep: bool, as_json: bool) -> None:
    """Show what txcript finds here: stores, apps on PATH, extras, backups.

    Nothing is written and the report holds no message text, titles or paths below a store
    root, so it can be pasted into a bug report. Exits 1 when a store cannot be read or (with
    --deep) a session fails a check.

    A FAIL means that data is at risk. The fixpoint compares modulo what writers change on
    purpose:

    \b
    - JSON tool output is stored as its compact text where the app keeps only strings
    - a tool call left without a result while the conversation goes on gets an error result
      saying none was recorded (in the app's own words where it has some), so the copy resumes
    - a tool call and its result take one time where the app keeps them in one record (the
      result's in Cursor desktop's bubbles, the call's in Kimi CLI's steps)

    \b
    Examples:
      txcript doctor
      txcript doctor --deep --json
    """
    from txcript.doctor import diagnose

    with _progress_line() as show:
        report = diagnose(deep=deep, progress=show)
    if as_json:
        click.echo(json_text(report.as_json(), indent=2))
    else:
        _human(report)
    if not report.ok:
        sys.exit(1)
