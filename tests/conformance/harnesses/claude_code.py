"""Claude Code: 2.x session files (bookkeeping records, side files, a damaged tail), a 1.x file,
and parallel calls answered out of order."""

from __future__ import annotations

from pathlib import Path

from declare import Conformance, Family, HopLimit, StoreFacts, replaced, use_fixtures

use_fixtures("claude_code")
import claude_fixtures as cf  # noqa: E402

#: Bytes Claude Code's reader must carry through a same-harness copy untouched: an unknown
#: record, CRLF, invalid UTF-8, a blank line and no final newline.
LOSSLESS_TAIL = (
    b'{"type":"mystery-record","x":1}\r\n'
    b'{"type":"user","message":{"role":"user","content":"caf\xe9 \xff"}}\n'
    b"   \n"
    b'{"type":"worktree-state","path":"/x"}'
)
SIDE_FILES = {
    "subagents/agent-ab12.jsonl": b'{"type":"user","isSidechain":true}\n',
    "subagents/agent-ab12.meta.json": b'{"agentType":"Explore"}',
    "tool-results/toolu_01.txt": b"\x00binary\xffbytes",
}
OLD_ID = "0b1d2c3e-4f50-4a61-8b72-93a4b5c6d7e8"


def current(root: Path) -> None:
    body = cf.jsonl(cf.realistic_records()).encode() + LOSSLESS_TAIL
    cf.put(root, body, side=SIDE_FILES)


def old_cli(root: Path) -> None:
    """A 1.x file: a summary line first, an empty branch, calls with an error result."""
    old = {"version": "1.0.98", "gitBranch": "", "sessionId": OLD_ID}
    records = [
        {"type": "summary", "summary": "Old summary", "leafUuid": "a2"},
        cf.user("u1", None, "09:00:00.000", "count the lines", **old),
        cf.assistant(
            "a1",
            "u1",
            "09:00:01.000",
            [cf.text("Counting."), cf.tool_use("toolu_old1", "Bash", {"command": "wc -l *"})],
            message_id="msg_old1",
            stop_reason="tool_use",
            model="claude-3-7-sonnet-20250219",
            **old,
        ),
        cf.user(
            "u2", "a1", "09:00:02.000", [cf.tool_result("toolu_old1", "no such file", True)], **old
        ),
        cf.assistant(
            "a2",
            "u2",
            "09:00:03.000",
            [cf.text("There are no files.")],
            message_id="msg_old2",
            stop_reason="end_turn",
            model="claude-3-7-sonnet-20250219",
            **old,
        ),
    ]
    cf.put(root, records, session_id=OLD_ID, cwd="/home/dev/old")


def _unsigned_thinking_is_text(items: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    return [
        ("text", "assistant", item[1]) if item[0] == "thinking" and not item[2] else item
        for item in items
    ]


CONFORMANCE = Conformance(
    harness="claude_code",
    families=(
        Family("2.x", current, sessions=1),
        Family("1.x", old_cli, sessions=1),
        Family("parallel-calls", cf.parallel_batches, sessions=1),
    ),
    representable=cf.claude_transcripts(),
    text_facts=StoreFacts(
        "the session id is the file's name, and the side files (sub-agent chats, spilled tool "
        "results) sit in a directory beside it",
        lambda native: replaced(native, session_id="", side_files=()),
    ),
    hop_limit=HopLimit(
        "Claude Code's API refuses a thinking block without its signature on resume, so "
        "reasoning that arrives unsigned is written as text",
        _unsigned_thinking_is_text,
    ),
)
