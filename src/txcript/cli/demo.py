"""``txcript demo``: the main job end to end in a throwaway sandbox."""

from __future__ import annotations

import os
import sys

import click

from txcript.cli.output import BOLD, colour_enabled, echo_styled
from txcript.cli.reading import list_command, view_command
from txcript.cli.writing import report_continued


@click.command("demo")
@click.option("--keep", is_flag=True, help="Keep the sandbox directory afterwards.")
@click.pass_context
def demo_command(ctx: click.Context, keep: bool) -> None:
    """Run the main job end to end in a throwaway sandbox (your real stores are not touched).

    A sample Cursor desktop session is listed, continued into Claude Code, and shown.

    \b
    Examples:
      txcript demo
      txcript demo --keep      # then look around the sandbox it names
    """
    import shutil

    from txcript.demo import build_sandbox

    previous_dir = os.getcwd()
    sandbox = build_sandbox()
    os.environ.update(sandbox.env)
    os.chdir(sandbox.project)
    colour = colour_enabled(sys.stdout)

    def step(text: str) -> None:
        click.echo()
        echo_styled((f"$ {text}", BOLD), colour=colour)

    try:
        click.echo(f"sandbox: {sandbox.root} (a Cursor desktop store with one agent session)")
        step("txcript list")
        ctx.invoke(
            list_command, from_=(), cwd=None, limit=None, since=None, until=None, as_json=False
        )
        step(f"txcript continue {sandbox.session_id[:8]} --with claude_code --no-resume")
        from txcript.operations import continue_session

        result = continue_session(sandbox.session_id[:8], with_harness="claude_code")
        report_continued(result, resume_hint=True)
        step(f"txcript view {result.id[:8]} --from claude_code")
        ctx.invoke(view_command, ref=result.id, from_="claude_code")
    finally:
        if keep:
            click.echo(f"\nkept the sandbox: {sandbox.root}")
        else:
            os.chdir(previous_dir)
            shutil.rmtree(sandbox.root, ignore_errors=True)
