"""``txcript init``: shell integration, the session picker on a key (Ctrl-X Ctrl-R by default).

The snippet binds a key to a shell function that runs ``txcript query`` (the picker) with the
terminal as its input and output. Enter continues the pick, and the harness it resumes replaces
txcript in that terminal, so the user is handed straight to it; when it exits, the shell's
prompt comes back. Esc leaves the picker and the prompt as they were.
"""

from __future__ import annotations

import re
import shlex

import click

#: The key the picker is bound to unless ``--key`` says otherwise.
DEFAULT_KEY = "ctrl-x ctrl-r"
#: ``ctrl-K``, ``alt-K`` or ``K``; ``K`` a letter, digit or one of ``,./;=[]-_+`` (nothing a
#: shell would read as a quote, an escape or an expansion inside the snippet).
_CHORD = re.compile(r"(?:(ctrl|alt)-([a-z0-9,./;=\[\]_+-])|([a-z0-9,./;=\[\]_+-]))\Z")


def key_sequence(key: str) -> list[tuple[str, str]]:
    """``"ctrl-x ctrl-r"`` as ``[("ctrl", "x"), ("ctrl", "r")]``; a chord is ``ctrl-K``,
    ``alt-K`` or a plain character, chords separated by spaces. Bad input otherwise."""
    from txcript.errors import BadInput

    chords = []
    for part in key.strip().lower().split():
        found = _CHORD.fullmatch(part)
        character = (found.group(2) or found.group(3)) if found else ""
        if found is None or (found.group(1) == "ctrl" and not character.isalpha()):
            raise BadInput(
                f"--key `{key}`: each key is ctrl-LETTER, alt-KEY or one character, separated "
                "by spaces (e.g. --key 'ctrl-x ctrl-r', --key alt-s)"
            )
        chords.append((found.group(1) or "", character))
    if not chords:
        raise BadInput("--key is empty; e.g. --key 'ctrl-x ctrl-r'")
    return chords


def _named(chords: list[tuple[str, str]]) -> str:
    return " ".join(f"{mod}-{character}" if mod else character for mod, character in chords)


def _bash_key(chords: list[tuple[str, str]]) -> str:
    return "".join({"ctrl": "\\C-", "alt": "\\e"}.get(mod, "") + char for mod, char in chords)


def _zsh_key(chords: list[tuple[str, str]]) -> str:
    out = ""
    for modifier, character in chords:
        if modifier == "ctrl":
            out += "^" + character.upper()
        else:
            out += ("^[" if modifier == "alt" else "") + character
    return out


def _fish_key(chords: list[tuple[str, str]]) -> str:
    out = ""
    for modifier, character in chords:
        escaped = "\\" + character if not character.isalnum() else character
        out += {"ctrl": "\\c", "alt": "\\e"}.get(modifier, "") + escaped
    return out


def snippet(shell: str, key: str, query_args: list[str]) -> str:
    """The shell code that binds ``key`` to the picker (``txcript query`` with ``query_args``)."""
    chords = key_sequence(key)
    command = shlex.join(["txcript", "query", *query_args])
    header = f"# txcript: the session picker on {_named(chords)} (from `txcript init {shell}`)"
    if shell == "bash":
        return (
            f"{header}\n"
            "__txcript_pick() {\n"
            f"  {command} </dev/tty >/dev/tty 2>&1\n"
            "}\n"
            f"bind -x '\"{_bash_key(chords)}\": __txcript_pick'\n"
        )
    if shell == "zsh":
        return (
            f"{header}\n"
            "__txcript_pick() {\n"
            "  zle -I\n"
            f"  {command} </dev/tty >/dev/tty 2>&1\n"
            "  zle reset-prompt\n"
            "}\n"
            "zle -N __txcript_pick\n"
            f"bindkey '{_zsh_key(chords)}' __txcript_pick\n"
        )
    return (
        f"{header}\n"
        "function __txcript_pick\n"
        f"    {command} </dev/tty >/dev/tty 2>&1\n"
        "    commandline -f repaint\n"
        "end\n"
        f"bind {_fish_key(chords)} __txcript_pick\n"
    )


@click.command("init")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
@click.option(
    "--key",
    default=DEFAULT_KEY,
    show_default=True,
    metavar="KEYS",
    help="The key that opens the picker: ctrl-LETTER, alt-KEY or a character, space-separated.",
)
@click.option("--with", "with_", metavar="H", help="Continue every pick in this harness.")
def init_command(shell: str, key: str, with_: str | None) -> None:
    """Print shell code that binds the session picker to a key (Ctrl-X Ctrl-R by default).

    Pressing it opens `txcript query`'s picker over the prompt; Enter continues the pick in its
    harness (or --with H), which takes over the terminal; Esc goes back to the prompt.

    \b
    Examples:
      eval "$(txcript init bash)"                  # in ~/.bashrc
      eval "$(txcript init zsh --key alt-s)"       # in ~/.zshrc
      txcript init fish | source                   # in ~/.config/fish/config.fish
    """
    if with_ is not None:
        from txcript.operations import continue_target

        with_ = continue_target(with_).id  # refused now, not at the first pick
    click.echo(snippet(shell, key, ["--with", with_] if with_ else []), nl=False)
