"""The ``txcript`` command group and the one-line error contract every command shares.

Each command lives in a module of this package by what it does (reading, writing, …) and only
parses arguments, calls the library (:mod:`txcript.operations` and the subsystems) and prints.
Commands are registered by name in :data:`COMMANDS` and their module is imported only when the
command runs (or ``--help`` lists them): ``txcript --version`` imports no command at all.
Errors are one line on stderr (``txcript: error: …``) with exit 2 for bad input and 1 for a
failed operation; ``TXCRIPT_DEBUG=1`` shows the traceback instead.
"""

from __future__ import annotations

import atexit
import errno
import importlib
import os
import re
import sys
import warnings
from typing import Any, NoReturn

import click

from txcript._version import __version__
from txcript.shared.text import scrub

#: Every command by name, in workflow order (find a session, read it, move it, manage what was
#: written, then the rest): the module under ``txcript.cli`` and the command's name in it.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("reading", "list_command"),
    "query": ("query", "query_command"),
    "view": ("reading", "view_command"),
    "export": ("reading", "export_command"),
    "archive": ("archive", "archive_command"),
    "continue": ("writing", "continue_command"),
    "convert": ("reading", "convert_command"),
    "delete": ("writing", "delete_command"),
    "restore": ("writing", "restore_command"),
    "backup": ("writing", "backup_command"),
    "harnesses": ("reading", "harnesses_command"),
    "doctor": ("doctor", "doctor_command"),
    "mcp": ("serve", "mcp_command"),
    "completion": ("serve", "completion_command"),
    "init": ("shell", "init_command"),
    "demo": ("demo", "demo_command"),
}


#: What users of other tools type for a command, and the command it is here.
ALIASES = {
    "ls": "list",
    "show": "view",
    "cat": "view",
    "read": "view",
    "search": "query",
    "find": "query",
    "grep": "query",
    "rm": "delete",
    "resume": "continue",
    "cont": "continue",
}


class WorkflowGroup(click.Group):
    """The commands of :data:`COMMANDS`, in that order, each imported when first asked for
    (click's lazy-loading group: ``list_commands`` names them, ``get_command`` loads one)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        module_name, attribute = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(f"txcript.cli.{module_name}"), attribute)
        if not isinstance(command, click.Command) or command.name != cmd_name:
            raise TypeError(f"txcript.cli.{module_name}.{attribute} is not command {cmd_name}")
        if "_TXCRIPT_COMPLETE" in os.environ:  # only a completing shell asks for completers
            from txcript.cli.serve import attach_completion

            attach_completion(command)
        self.commands[cmd_name] = command
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """A command by name; an unknown one is a usage error that says which was meant
        (``ls`` → ``list``, ``viwe`` → ``view``)."""
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            from txcript.errors import did_you_mean

            meant = ALIASES.get(name.lower()) or did_you_mean(name, list(COMMANDS))
            hint = f" Did you mean `txcript {meant}`?" if meant else ""
            ctx.fail(f"No such command '{scrub(name)}'.{hint}")
        return super().resolve_command(ctx, args)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from txcript.cli.output import STORE_IDS

        # (Common and Simple are document formats, for export and convert: not harnesses.)
        self.epilog = f"harnesses: {STORE_IDS}"
        super().format_epilog(ctx, formatter)


@click.group(
    cls=WorkflowGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, "-V", "--version", prog_name="txcript")
def cli() -> None:
    """Move AI coding-agent sessions between harnesses (Cursor, Claude Code, Codex, …).

    REF is a session id, a unique id prefix, an exact title, a path to a session document
    (Simple, Common JSON or a native text form) or - for stdin, optionally followed by #RANGE
    (N, N-M, N- or -M: message numbers as `view` prints them).

    \b
    Examples:
      txcript list
      txcript view 3f1c2a4e
      txcript continue 3f1c2a4e --with claude_code
      txcript demo
    """


def _fail(message: str, code: int) -> NoReturn:
    """Print the one-line error (input echoed in it cannot add lines) and exit with ``code``,
    on a line of its own: a progress line left open (indexing…) is ended first."""
    output = sys.modules.get("txcript.cli.output")
    if output is not None:
        output.end_progress_line()
    _say_repeats()
    sys.stdout.flush()
    click.echo(f"txcript: error: {scrub(message)}", err=True)
    sys.exit(code)


def _one_line(message: str) -> str:
    """A click message on one line: each line break, with the indent around it, one space
    (click indents its lists of choices)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def _internal_error(exc: Exception) -> NoReturn:
    _fail(f"internal error: {type(exc).__name__}: {exc} (set TXCRIPT_DEBUG=1 for details)", 1)


def _short_usage() -> NoReturn:
    """``txcript`` alone: a few lines of usage on stderr, exit 2 (it is not a request for help)."""
    click.echo(
        "Usage: txcript COMMAND [ARGS]...\n"
        f"Commands: {', '.join(cli.list_commands(click.Context(cli)))}\n"
        "Try `txcript --help` for details, or `txcript demo` to see it work.",
        err=True,
    )
    sys.exit(2)


#: Where a warning names a line or an item by number: warnings that differ only there are one
#: kind, said once (:func:`_show_warning`).
_POSITIONS = re.compile(r"\b(line|record|message|messages|item|entry|part)( |\[)\d+")
#: Each kind of warning said so far: the first one's text, and how many more came.
_said: dict[str, list[Any]] = {}


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A warning, once per kind: a reader that warns per line of a file (a log with 200,000 bad
    lines) says the first, and how many more there were when the command ends."""
    text = scrub(str(message))
    kind = _POSITIONS.sub(r"\1\2#", text)
    seen = _said.get(kind)
    if seen is not None:
        seen[1] += 1
        return
    if not _said:
        atexit.register(_say_repeats)
    _said[kind] = [text, 0]
    click.echo(f"txcript: warning: {text}", err=True)


def _say_repeats() -> None:
    """How many more warnings of each kind came than were said."""
    for seen in _said.values():
        if seen[1]:
            click.echo(f"txcript: warning: … and {seen[1]} more like: {seen[0]}", err=True)
            seen[1] = 0


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI with the one-line error contract."""
    from txcript.diagnostics import TranscriptWarning
    from txcript.errors import TxcriptError

    warnings.simplefilter("always", TranscriptWarning)
    warnings.showwarning = _show_warning
    debug = bool(os.environ.get("TXCRIPT_DEBUG"))
    args = sys.argv[1:] if argv is None else list(argv)
    if "_TXCRIPT_COMPLETE" in os.environ:
        cli.main(args=args, prog_name="txcript")  # shell completion: click answers and exits
    if not args:
        _short_usage()
    try:
        # Not `cli.main`: on a closed stdout it exits 1; here a reader that went away (`| head`)
        # ends the command quietly with 0, and the flush makes sure that is noticed in time.
        with cli.make_context("txcript", args) as ctx:
            code = cli.invoke(ctx)
        sys.stdout.flush()
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        sys.exit(0)
    except click.UsageError as exc:
        _fail(_one_line(exc.format_message()), 2)
    except click.ClickException as exc:
        _fail(_one_line(exc.format_message()), exc.exit_code or 1)
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
    except MemoryError:
        # Past decoding (which names its document): rendering or writing a large session.
        if debug:
            raise
        _fail(
            "out of memory (the session may be too large for the memory available; the size "
            "limits are in docs/security.md)",
            1,
        )
    except OSError as exc:
        if debug:
            raise
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            _internal_error(exc)
        # A full disk (stdout redirected to one, say) is a failed operation, not a bug; what
        # stdout still buffers could only fail again at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        _fail(f"cannot write {exc.filename or 'the output'}: {exc.strerror}", 1)
    except Exception as exc:
        if debug:
            raise
        _internal_error(exc)
    sys.exit(code if isinstance(code, int) else 0)
