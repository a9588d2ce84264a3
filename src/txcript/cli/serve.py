"""``txcript mcp`` (the MCP server) and ``txcript completion`` (shell completion scripts)."""

from __future__ import annotations

import re
from typing import Any

import click
from click.shell_completion import CompletionItem, get_completion_class


@click.command("mcp")
def mcp_command() -> None:
    """Serve local sessions to agents over the Model Context Protocol (stdio).

    Tools: list_sessions, search_sessions, read_session (all read-only). Needs the optional
    extra: pip install 'txcript[mcp]'.

    \b
    Example (an MCP client configuration):
      {"mcpServers": {"txcript": {"command": "txcript", "args": ["mcp"]}}}
    """
    try:
        import mcp.server  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "the MCP server needs the optional extra: pip install 'txcript[mcp]'"
        ) from None
    from txcript.mcp_server import serve

    serve()


def _completed_ids() -> str:
    """The epilog naming what :func:`complete_harness` offers."""
    from txcript.harnesses import REGISTRY

    offered = ", ".join(info.id for info in REGISTRY if info.implemented)
    return f"Harness ids (and document formats) it completes after --from/--with: {offered}."


@click.command("completion", epilog=_completed_ids())
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_command(shell: str) -> None:
    """Print the shell completion script for SHELL.

    It completes commands, flags, harness ids after --from/--with, and session ids (from the
    search index, without reading any store).

    \b
    Examples:
      eval "$(txcript completion bash)"     # in ~/.bashrc
      eval "$(txcript completion zsh)"      # in ~/.zshrc
      txcript completion fish > ~/.config/fish/completions/txcript.fish
    """
    # The root command of this very invocation: importing it would circle back to cli.app.
    root = click.get_current_context().find_root().command
    completer = get_completion_class(shell)
    if completer is None:  # pragma: no cover - the choice above lists only known shells
        raise click.BadParameter(f"unsupported shell {shell}")
    script = completer(root, {}, "txcript", "_TXCRIPT_COMPLETE").source()
    click.echo(script)


def complete_harness(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    from txcript.harnesses import REGISTRY

    return [
        CompletionItem(info.id, help=info.name)
        for info in REGISTRY
        if info.implemented and info.id.startswith(incomplete)
    ]


#: An id the shell can take as one plain word. bash's completion inserts an offered word as
#: is: a Gemini id may hold ``;``, ``$(…)``, spaces or ``*``, and Enter would run them.
_SHELL_WORD = re.compile(r"[A-Za-z0-9._@+=,%][A-Za-z0-9._@+=,%-]*")


def complete_session(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    """Session ids starting with ``incomplete``, from the index (fast: no store is read); an
    id that is not one plain shell word is never offered (type it quoted instead)."""
    from txcript.search.index import indexed_ids

    safe = [i for i in indexed_ids(incomplete) if _SHELL_WORD.fullmatch(i)]
    return [CompletionItem(i) for i in safe][:200]


def attach_completion(command: click.Command) -> None:
    """Give the command's ``--from``/``--with`` options and ``REF`` argument their completers
    (the group calls this as it loads each command)."""
    for param in command.params:
        if param.name in ("from_", "with_"):
            param._custom_shell_complete = complete_harness
        elif param.name == "ref":
            param._custom_shell_complete = complete_session
