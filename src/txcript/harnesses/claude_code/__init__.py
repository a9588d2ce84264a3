"""Claude Code (``claude``): one JSONL file per session under ``~/.claude/projects/<cwd>/``.

Layers: :mod:`.reader` and :mod:`.writer` (the codec: native body ↔ Common), :mod:`.text` (the
JSONL text form), :mod:`.store` (the projects directory). :mod:`.native` defines the body they
share, :mod:`.envelope` the slash-command markup and :mod:`.meta` the session metadata rules.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.harnesses.base import Harness, Store
from txcript.shared.ids import UUID_IDS

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.claude_code.native import ClaudeSession
    from txcript.model import Transcript


class ClaudeCode(Harness["ClaudeSession"]):
    id = "claude_code"
    name = "Claude Code"
    has_store = True
    can_write = True
    id_grammar = UUID_IDS
    root_env = "CLAUDE_CONFIG_DIR"
    executables = ("claude",)
    resume_in_cwd = True

    def to_common(self, native: ClaudeSession) -> Transcript:
        from txcript.harnesses.claude_code import reader

        return reader.to_common(native)

    def from_common(self, transcript: Transcript) -> ClaudeSession:
        from txcript.harnesses.claude_code import writer

        return writer.from_common(transcript)

    def from_text(self, text: str) -> ClaudeSession:
        from txcript.harnesses.claude_code import text as text_form

        return text_form.from_text(text)

    def to_text(self, native: ClaudeSession) -> str:
        from txcript.harnesses.claude_code import text as text_form

        return text_form.to_text(native)

    def sniff_lines(self, values: list[Any]) -> bool:
        from txcript.harnesses.claude_code.text import is_record

        return any(is_record(value) for value in values)

    def default_root(self) -> Path | None:
        from txcript.harnesses.claude_code import locations

        return locations.default_root()

    def open_store(self, root: Path) -> Store[ClaudeSession] | None:
        from txcript.harnesses.claude_code import store

        return store.ClaudeCodeStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        # One token: the option parser can never take the id for an option of its own.
        return ["claude", f"--resume={session_id}"]
