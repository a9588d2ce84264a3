"""The three extensions one reader serves: Cline, Roo Code (a Cline fork) and Kilo Code (a Roo
fork), each under its own extension id, and the editors they run in.

What differs between them is data: where each keeps its task history index, the vocabulary
it writes tools in, and the extension id naming its storage. Everything else — the task
directory, the Anthropic message history, the two tool eras — is one format.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import EDITOR_DIRS


@dataclass(frozen=True, slots=True)
class Flavour:
    harness: str
    name: str
    #: The extension id as VS Code names its ``globalStorage`` directory (lower case).
    extension: str
    #: The ``ItemTable`` key of its globalState, in the case its manifest gives (the key is
    #: matched case-insensitively when read).
    state_key: str
    #: The task history index of its current release: Cline's ``state/taskHistory.json``
    #: ("file"), or Roo's per-task ``history_item.json`` ("item").
    index: str
    #: Writes ``requires_approval`` into ``execute_command`` (Cline's tool schema has it).
    approval: bool


CLINE = Flavour(
    "cline", "Cline", "saoudrizwan.claude-dev", "saoudrizwan.claude-dev", "file", approval=True
)
ROO = Flavour(
    "roo",
    "Roo Code",
    "rooveterinaryinc.roo-cline",
    "RooVeterinaryInc.roo-cline",
    "item",
    approval=False,
)
KILO = Flavour(
    "kilo", "Kilo Code", "kilocode.kilo-code", "kilocode.Kilo-Code", "item", approval=False
)

FLAVOURS = {f.harness: f for f in (CLINE, ROO, KILO)}


@dataclass(frozen=True, slots=True)
class Editor:
    """A VS Code-family editor: its data directory's name, and the names its process runs as."""

    name: str
    directory: str
    processes: tuple[str, ...]


#: The editors whose ``User`` directory is searched, in the order a new copy prefers when none of
#: them has the extension's storage yet.
EDITORS = (
    Editor("VS Code", EDITOR_DIRS[0], ("code", "Code")),
    Editor("VS Code Insiders", EDITOR_DIRS[1], ("code-insiders", "Code - Insiders")),
    Editor("Cursor", EDITOR_DIRS[2], ("cursor", "Cursor")),
    Editor("VSCodium", EDITOR_DIRS[3], ("codium", "VSCodium")),
)
