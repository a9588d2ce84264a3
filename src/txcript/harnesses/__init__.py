"""The harness registry: every harness declared once, as data, and built on first use.

Each entry of :data:`REGISTRY` is a :class:`~txcript.harnesses.declare.HarnessInfo`: id, name,
aliases, flags, executables, id grammar, default root and its variables, resume template, and
where the harness's layers live. Adding a harness is adding its package and one entry here
(``docs/adding-a-harness.md``). The entries are static data, so ``txcript --help`` and the option
help text import no harness at all, and ``list`` imports only the layers of the harnesses that
keep a store; :func:`get` builds the one :class:`~txcript.harnesses.base.Harness` for an entry.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from txcript.errors import BadInput, UnknownHarness
from txcript.harnesses.declare import HarnessInfo, Root

if TYPE_CHECKING:
    from txcript.harnesses.base import Harness

__all__ = ["REGISTRY", "HarnessInfo", "Root", "canonical_id", "get", "ids", "info"]

#: A harness kept in one module rather than a package: every layer lives in the module itself.
_ALL_IN_ONE = ("to_common", "from_common", "from_text", "to_text")

REGISTRY: tuple[HarnessInfo, ...] = (
    HarnessInfo(
        "cursor_desktop",
        "Cursor desktop",
        ("cursordesktop", "cursor_ide"),
        "txcript.harnesses.cursor_desktop",
        has_store=True,
        can_write=True,
        executables=("cursor",),
        ids="CURSOR_IDS",
        root=Root(
            ".config/Cursor/User",
            env="CURSOR_DESKTOP_USER_DIR",
            darwin="Library/Application Support/Cursor/User",
            windows="AppData/Roaming/Cursor/User",
        ),
        resume=("cursor",),
        layers={
            "meta_of": "codec",
            "to_text_chunks": "text",
            "sniff": "text",
            "open_store": "store:CursorDesktopStore",
            "change_token": "locations",
            "refuse_while_running": "saving",
            "undo_backup": "saving",
            "backup_committed": "rowbackup:committed",
            "snapshot": "store:snapshot_of",
            "store_database": "store:database_of",
        },
    ),
    HarnessInfo(
        "cursor",
        "Cursor CLI",
        ("cursor_cli", "cursorcli"),
        "txcript.harnesses.cursor_cli",
        has_store=True,
        can_write=True,
        executables=("agent", "cursor-agent"),
        ids="UUID_IDS",
        root=Root(".cursor", env="CURSOR_CHATS_DIR"),
        resume=("agent", "--resume={id}"),
        resume_from="cwd",  # agent --resume finds chats under the workspace it starts in
        layers={"sniff": "text", "open_store": "store:CursorCliStore"},
    ),
    HarnessInfo(
        "cursor_transcripts",
        "Cursor agent transcripts",
        ("cursor_agent_transcripts",),
        "txcript.harnesses.cursor_cli",
        has_store=True,
        source_only=True,
        root=Root(".cursor"),
        layers={
            "to_common": "transcripts",
            "from_text": "transcripts:parse",
            "to_text": "transcripts",
            "sniff_lines": "transcripts",
            "open_store": "transcripts:TranscriptStore",
        },
    ),
    HarnessInfo(
        "claude_code",
        "Claude Code",
        ("claude", "claudecode"),
        "txcript.harnesses.claude_code",
        has_store=True,
        can_write=True,
        executables=("claude",),
        ids="UUID_IDS",
        root=Root(".claude", env="CLAUDE_CONFIG_DIR", app_reads_env=True),
        # One token: the option parser can never take the id for an option of its own.
        resume=("claude", "--resume={id}"),
        resume_from="cwd",
        layers={
            "to_common": "reader",
            "from_common": "writer",
            "sniff_lines": "text",
            "open_store": "store:ClaudeCodeStore",
        },
    ),
    HarnessInfo(
        "codex",
        "Codex",
        (),
        "txcript.harnesses.codex",
        has_store=True,
        can_write=True,
        executables=("codex",),
        ids="UUID_IDS",
        root=Root(".codex", env="CODEX_HOME", app_reads_env=True),
        resume=("codex", "resume", "{id}"),
        layers={
            "sniff": "text",
            "sniff_lines": "text",
            "open_store": "store:CodexStore",
            "new_session_id": "txcript.shared.ids:new_uuid7",
        },
    ),
    HarnessInfo(
        "opencode",
        "OpenCode",
        ("open_code",),
        "txcript.harnesses.opencode",
        has_store=True,
        can_write=True,
        executables=("opencode",),
        ids="OPENCODE_IDS",
        root=Root(".local/share/opencode", env="OPENCODE_DB", xdg=("XDG_DATA_HOME", "opencode")),
        resume=("opencode", "--session", "{id}"),
        layers={
            "sniff": "text",
            "open_store": "store:OpenCodeStore",
            "new_session_id": "txcript.shared.formats.opencode.tools:fresh_session_id",
            "store_database": "store:database_of",
            "undo_backup": "txcript.shared.formats.opencode.write",
            "backup_committed": "txcript.shared.formats.opencode.rowbackup:committed",
        },
    ),
    HarnessInfo(
        "gemini",
        "Gemini CLI",
        ("gemini_cli",),
        "txcript.harnesses.gemini",
        has_store=True,
        can_write=True,
        executables=("gemini",),
        root=Root(".gemini", env="GEMINI_CLI_HOME", env_suffix=".gemini"),
        resume=("gemini", "--resume", "{id}"),
        resume_from="cwd",  # gemini --resume looks in the project of the directory it starts in
        layers={
            "from_text": "native:parse",
            "to_text": "native:render",
            "sniff": "native",
            "sniff_lines": "native",
            "open_store": "store:GeminiStore",
        },
    ),
    HarnessInfo(
        "copilot",
        "GitHub Copilot CLI",
        ("copilot_cli", "github_copilot"),
        "txcript.harnesses.copilot",
        has_store=True,
        source_only=True,  # it validates a resumed session strictly: no writer (docs/formats)
        executables=("copilot",),
        ids="UUID_IDS",
        root=Root(".copilot", env="COPILOT_HOME", app_reads_env=True),
        resume=("copilot", "--resume={id}"),
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store:CopilotStore"},
    ),
    HarnessInfo(
        "qwen",
        "Qwen Code",
        ("qwen_code", "qwencode"),
        "txcript.harnesses.qwen",
        has_store=True,
        can_write=True,
        executables=("qwen",),
        ids="UUID_IDS",
        # Qwen's runtime base: QWEN_RUNTIME_DIR, else QWEN_HOME (named as a second variable
        # with no path under it), else ~/.qwen.
        root=Root(".qwen", env="QWEN_RUNTIME_DIR", xdg=("QWEN_HOME", ""), app_reads_env=True),
        resume=("qwen", "--resume", "{id}"),
        resume_from="cwd",  # qwen --resume finds only the chats of the project it starts in
        layers={
            "meta_of": "codec",
            "sniff_lines": "text",
            "open_store": "store:QwenStore",
        },
    ),
    HarnessInfo(
        "kimi",
        "Kimi Code",
        ("kimi_code", "kimicode"),
        "txcript.harnesses.kimi",
        has_store=True,
        source_only=True,  # a copy goes through `kimi migrate` from Kimi CLI (docs/formats)
        executables=("kimi",),
        ids="KIMI_CODE_IDS",
        root=Root(".kimi-code", env="KIMI_CODE_HOME", app_reads_env=True),
        resume=("kimi", "--session", "{id}"),
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store:KimiCodeStore"},
    ),
    HarnessInfo(
        "kimi_cli",
        "Kimi CLI",
        ("kimi_python", "kimicli"),
        "txcript.harnesses.kimi_cli",
        has_store=True,
        can_write=True,
        executables=("kimi",),
        ids="UUID_IDS",
        root=Root(".kimi", env="KIMI_SHARE_DIR", app_reads_env=True),
        resume=("kimi", "-r", "{id}"),
        resume_from="cwd",  # kimi -r looks the id up under the work directory it starts in
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store:KimiCliStore"},
    ),
    HarnessInfo(
        "pi",
        "pi",
        ("pi_coding_agent", "omp", "oh_my_pi"),
        "txcript.harnesses.pi",
        has_store=True,
        can_write=True,
        executables=("pi", "omp"),
        ids="UUID_IDS",
        root=Root(".pi/agent", env="PI_CODING_AGENT_DIR", app_reads_env=True),
        resume=("pi", "--session", "{id}"),
        resume_from="cwd",  # from elsewhere, pi offers to fork the session into that directory
        layers={
            "meta_of": "codec",
            "sniff": "text",
            "sniff_lines": "text",
            "open_store": "store:open_pi",
            "new_session_id": "txcript.shared.ids:new_uuid7",
        },
    ),
    HarnessInfo(
        "campfire",
        "Campfire",
        (),
        "txcript.harnesses.pi",
        has_store=True,
        can_write=True,
        executables=("campfire",),
        ids="UUID_IDS",
        root=Root(".campfire/agent", env="CAMPFIRE_CODING_AGENT_DIR", app_reads_env=True),
        resume=("campfire", "--session", "{id}"),
        resume_from="cwd",
        layers={
            "meta_of": "codec",
            "open_store": "store:open_campfire",
            "new_session_id": "txcript.shared.ids:new_uuid7",
        },
    ),
    HarnessInfo(
        "openclaw",
        "OpenClaw",
        ("clawdbot", "moltbot"),
        "txcript.harnesses.pi",
        has_store=True,
        can_write=True,
        executables=("openclaw",),
        ids="UUID_IDS",
        root=Root(".openclaw", env="OPENCLAW_STATE_DIR", app_reads_env=True),
        resume=("openclaw", "resume", "{id}"),
        layers={
            "meta_of": "codec",
            "open_store": "openclaw:OpenClawStore",
            "refuse_while_running": "openclaw",
        },
    ),
    HarnessInfo(
        "cline",
        "Cline",
        ("claude_dev",),
        "txcript.harnesses.cline",
        has_store=True,
        can_write=True,
        executables=("code", "cline"),
        ids="CLINE_IDS",
        root=Root("", env="TXCRIPT_CLINE_HOME"),
        resume=("code", "."),  # the task is picked in the History view of its workspace
        resume_from="cwd",
        layers={
            "meta_of": "codec",
            "sniff": "text",
            "open_store": "store:open_cline",
            "store_present": ".:cline_present",
            "new_session_id": "ids:new_task_id",
            "refuse_while_running": "saving",
            "store_database": "store:state_database_of",
            "undo_backup": "saving",
            "backup_committed": "saving",
        },
    ),
    HarnessInfo(
        "roo",
        "Roo Code",
        ("roo_code", "roo_cline"),
        "txcript.harnesses.cline",
        has_store=True,
        can_write=True,
        executables=("code",),
        ids="UUID_IDS",
        root=Root("", env="TXCRIPT_ROO_HOME"),
        resume=("code", "."),
        resume_from="cwd",
        layers={
            "from_common": "codec:roo_from_common",
            "meta_of": "codec",
            "to_text": "text:roo_to_text",
            "sniff": "text:roo_sniff",
            "open_store": "store:open_roo",
            "store_present": ".:roo_present",
            "new_session_id": "txcript.shared.ids:new_uuid7",
            "refuse_while_running": "saving",
            "store_database": "store:state_database_of",
            "undo_backup": "saving",
            "backup_committed": "saving",
        },
    ),
    HarnessInfo(
        "kilo",
        "Kilo Code",
        ("kilo_code", "kilocode"),
        "txcript.harnesses.cline",
        has_store=True,
        can_write=True,
        executables=("kilo", "code"),
        ids="KILO_IDS",
        root=Root("", env="TXCRIPT_KILO_HOME"),
        resume=("kilo", "--session", "{id}"),
        resume_from="cwd",
        layers={
            "to_common": "kilo",
            "from_common": "kilo",
            "meta_of": "kilo",
            "from_text": "kilo",
            "to_text": "kilo",
            "sniff": "kilo",
            "open_store": "store:open_kilo",
            "store_present": ".:kilo_present",
            "new_session_id": "txcript.shared.formats.opencode.tools:fresh_session_id",
            "store_database": "store:kilo_database_of",
            "undo_backup": "kilo",
            "backup_committed": "kilo",
        },
    ),
    HarnessInfo(
        "amp",
        "Amp",
        ("ampcode",),
        "txcript.harnesses.amp",
        has_store=True,
        source_only=True,  # current Amp keeps threads on its servers (docs/formats/amp.md)
        executables=("amp",),
        root=Root(".local/share/amp", xdg=("XDG_DATA_HOME", "amp")),
        resume=("amp", "threads", "continue", "{id}"),
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store"},
    ),
    HarnessInfo(
        "hermes",
        "Hermes Agent",
        ("hermes_agent",),
        "txcript.harnesses.hermes",
        has_store=True,
        can_write=True,
        executables=("hermes",),
        ids="HERMES_IDS",
        root=Root(".hermes", env="HERMES_HOME", app_reads_env=True),
        resume=("hermes", "--resume", "{id}"),
        layers={
            "meta_of": "codec",
            "sniff": "text",
            "sniff_lines": "text",
            "open_store": "store:HermesStore",
            "change_token": "locations",
            "new_session_id": "locations:fresh_session_id",
            "store_database": "store:database_of",
            "undo_backup": "write",
            "backup_committed": "write:committed",
        },
    ),
    HarnessInfo(
        "grok",
        "Grok CLI",
        ("grok_cli", "grokcli", "grok_build"),
        "txcript.harnesses.grok",
        has_store=True,
        can_write=True,
        executables=("grok",),
        ids="UUID_IDS",
        root=Root(".grok", env="GROK_HOME", app_reads_env=True),
        resume=("grok", "--resume", "{id}"),
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store:GrokStore"},
    ),
    HarnessInfo(
        "goose",
        "Goose",
        ("goose_cli",),
        "txcript.harnesses.goose",
        has_store=True,
        can_write=True,
        executables=("goose",),
        ids="GOOSE_IDS",
        root=Root(
            ".local/share/goose",
            env="GOOSE_PATH_ROOT",
            env_suffix="data",
            xdg=("XDG_DATA_HOME", "goose"),
            windows="AppData/Roaming/Block/goose/data",
            app_reads_env=True,
        ),
        resume=("goose", "session", "--resume", "--session-id", "{id}"),
        # Its tools work in the directory it starts in: resume where the session ran.
        resume_from="cwd",
        layers={
            "sniff": "text",
            "sniff_lines": "text",
            "open_store": "store:GooseStore",
            "change_token": "store",
            "store_database": "store:database_of",
            "undo_backup": "write",
            "backup_committed": "write:committed",
        },
    ),
    HarnessInfo(
        "crush",
        "Crush",
        ("crush_cli",),
        "txcript.harnesses.crush",
        has_store=True,
        can_write=True,
        executables=("crush",),
        ids="CRUSH_IDS",
        root=Root(
            ".local/share/crush",
            env="CRUSH_GLOBAL_DATA",
            xdg=("XDG_DATA_HOME", "crush"),
            windows="AppData/Local/crush",
            app_reads_env=True,
        ),
        resume=("crush", "--session", "{id}"),
        resume_from="cwd",  # crush opens the database of the project it starts in
        layers={
            "sniff": "text",
            "open_store": "store:CrushStore",
            "change_token": "store",
            "store_database": "store:database_of",
            "undo_backup": "write",
            "backup_committed": "write:committed",
        },
    ),
    HarnessInfo(
        "droid",
        "Factory droid",
        ("factory", "factory_droid"),
        "txcript.harnesses.droid",
        has_store=True,
        can_write=True,
        executables=("droid",),
        ids="UUID_IDS",
        # droid reads FACTORY_HOME_OVERRIDE as the home its .factory directory sits in.
        root=Root(
            ".factory", env="FACTORY_HOME_OVERRIDE", env_suffix=".factory", app_reads_env=True
        ),
        resume=("droid", "--resume", "{id}"),
        layers={"sniff_lines": "text", "open_store": "store:DroidStore"},
    ),
    HarnessInfo(
        "antigravity",
        "Antigravity",
        ("agy", "antigravity_cli", "anti_gravity"),
        "txcript.harnesses.antigravity",
        has_store=True,
        can_write=True,
        executables=("agy",),
        ids="UUID_IDS",
        root=Root(".gemini/antigravity-cli", env="ANTIGRAVITY_CLI_DIR"),
        resume=("agy", "--conversation={id}"),
        layers={"meta_of": "codec", "sniff": "text", "open_store": "store:AntigravityStore"},
    ),
    HarnessInfo(
        "cowork",
        "Cowork",
        ("claude_cowork", "claude_desktop"),
        "txcript.harnesses.cowork",
        has_store=True,
        can_write=True,
        ids="COWORK_IDS",
        root=Root(
            ".config/Claude/local-agent-mode-sessions",
            env="COWORK_SESSIONS_DIR",
            darwin="Library/Application Support/Claude/local-agent-mode-sessions",
            windows="AppData/Roaming/Claude/local-agent-mode-sessions",
        ),
        # Claude desktop has no link to a task: it lists the copy once it is started again.
        resume=("open", "-a", "Claude") if sys.platform == "darwin" else ("Claude",),
        layers={
            "meta_of": "codec",
            "sniff": "text",
            "open_store": "store:CoworkStore",
            "new_session_id": "store",
        },
    ),
    HarnessInfo(
        "claude_export",
        "Claude export",
        ("claude_ai_export", "claude_data_export"),
        "txcript.harnesses.claude_export",
        has_store=True,
        source_only=True,
        # An export is a file the user downloaded: there is no default place, only the variable
        # (and the PATH that list, view, export and continue take after --from claude_export).
        root=Root(None, env="CLAUDE_EXPORT"),
        layers={
            "meta_of": "codec",
            "sniff": "text",
            "open_store": "store:ClaudeExportStore",
            "change_token": "locations",
        },
    ),
    HarnessInfo(
        "simple",
        "Simple document",
        ("simple_json",),
        "txcript.harnesses.simple",
        layers=dict.fromkeys((*_ALL_IN_ONE, "to_text_chunks", "sniff"), "."),
    ),
    HarnessInfo(
        "common",
        "Common JSON",
        (),
        "txcript.harnesses.common",
        listed=False,
        layers=dict.fromkeys((*_ALL_IN_ONE, "sniff"), "."),
    ),
)
_BY_NAME: dict[str, HarnessInfo] = {}
for _info in REGISTRY:
    for _name in (_info.id, *_info.aliases):
        _BY_NAME[_name] = _info
        _BY_NAME[_name.replace("_", "-")] = _info
_instances: dict[str, Harness[Any]] = {}


def info(name: str) -> HarnessInfo:
    """Look up a harness by id or alias (trimmed, case-insensitive, ``-`` for ``_``)."""
    found = _BY_NAME.get(name.strip().lower())
    if found is None:
        raise UnknownHarness(name, _working_ids())
    return found


def _working_ids() -> list[str]:
    return [i.id for i in REGISTRY if i.implemented]


def _suggestion(name: str) -> str:
    """`` — did you mean X?`` for an implemented harness whose id extends ``name``."""
    close = [i for i in _working_ids() if i != name and (i.startswith(name) or name.startswith(i))]
    return f"; did you mean {' or '.join(close)}?" if close else ""


def canonical_id(name: str) -> str:
    return info(name).id


def get(name: str) -> Harness[Any]:
    """The implementation of a harness; :class:`BadInput` if it is known but not built yet."""
    found = info(name)
    if not found.implemented:
        raise BadInput(
            f"harness `{found.id}` ({found.name}) is not supported yet{_suggestion(found.id)}"
            f" (supported: {', '.join(_working_ids())})"
        )
    harness = _instances.get(found.id)
    if harness is None:
        from txcript.harnesses.base import Harness

        harness = _instances[found.id] = Harness(found)
    return harness


def implemented() -> list[Harness[Any]]:
    """Every implemented harness, in registry order."""
    return [get(i.id) for i in REGISTRY if i.implemented]


def with_stores() -> list[Harness[Any]]:
    """Implemented harnesses that keep sessions on disk (no other harness is imported)."""
    return [get(i.id) for i in REGISTRY if i.implemented and i.has_store]


def ids(*, store: bool = False, write: bool = False) -> list[str]:
    """The ids of the implemented, listed harnesses (with a store, that can write one), from
    the descriptors alone."""
    return [
        i.id
        for i in REGISTRY
        if i.implemented and i.listed and (i.has_store or not store) and (i.can_write or not write)
    ]
