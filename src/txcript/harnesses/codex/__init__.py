"""Codex CLI (OpenAI): sessions ("threads") as JSON Lines rollouts under ``$CODEX_HOME``.

Layers: :mod:`.native` (the byte-exact body every generation parses into), :mod:`.tools` (tool
calls, ``apply_patch`` and output envelopes), :mod:`.codec` (native ↔ Common), :mod:`.store` (the
rollout files, ``session_index.jsonl``) and :mod:`.statedb` (Codex's SQLite state database).
The text form is the rollout itself (a legacy ``{session, items}`` document for the oldest CLI).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from txcript.harnesses.base import Harness
from txcript.shared.ids import UUID_IDS, new_uuid7

if TYPE_CHECKING:  # the native bodies and Common load only when a harness is used
    from txcript.harnesses.codex.native import CodexSession
    from txcript.model import Transcript


class Codex(Harness["CodexSession"]):
    id = "codex"
    name = "Codex"
    has_store = True
    can_write = True
    id_grammar = UUID_IDS
    root_env = "CODEX_HOME"
    executables = ("codex",)

    def to_common(self, native: CodexSession) -> Transcript:
        from txcript.harnesses.codex import codec

        return codec.to_common(native)

    def from_common(self, transcript: Transcript) -> CodexSession:
        from txcript.harnesses.codex import codec

        return codec.from_common(transcript)

    def from_text(self, text: str) -> CodexSession:
        from txcript.harnesses.codex import codec, native

        return codec.with_rollout_title(native.parse(text))

    def to_text(self, native: CodexSession) -> str:
        from txcript.harnesses.codex import native as native_form

        return native_form.render(native)

    def sniff(self, document: Any) -> bool:
        from txcript.harnesses.codex import native

        return native.sniff(document)

    def sniff_lines(self, values: list[Any]) -> bool:
        from txcript.harnesses.codex import native

        return bool(values) and native.sniff(values[0])

    def default_root(self) -> Path | None:
        from txcript.harnesses.codex import locations

        return locations.default_root()

    def open_store(self, root: Path) -> Any:
        from txcript.harnesses.codex import store

        return store.CodexStore(root)

    def default_resume_command(self, session_id: str) -> list[str]:
        return ["codex", "resume", session_id]

    def new_session_id(self) -> str:
        return new_uuid7()
