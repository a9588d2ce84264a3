"""The Cursor CLI (``agent``): chat directories with a real ``store.db`` — a current chat with
``meta.json`` and hex-encoded meta, a plain-meta chat without side files, an early build's chat
without a workspace path, and a chat whose newest commit lives only in ``store.db-wal``."""

from __future__ import annotations

from pathlib import Path

from declare import (
    Conformance,
    Family,
    HopLimit,
    StoreFacts,
    commands_as_prompts,
    replaced,
    use_fixtures,
)

use_fixtures("cursor_cli")
import cursor_cli_fixtures as cc  # noqa: E402


def current(root: Path) -> None:
    cc.kitchen_sink_chat(root / "chats")


def plain_meta(root: Path) -> None:
    cc.kitchen_sink_chat(root / "chats", hex_meta=False, with_meta_json=False)


def early_build(root: Path) -> None:
    blobs = [
        cc.encode(v) for v in (cc.SYSTEM, cc.CONTEXT, cc.PROMPT, cc.CALLS, cc.RESULTS, cc.DONE)
    ]
    row = {"agentId": cc.CHAT_ID, "name": "", "mode": "auto-run"}
    cc.write_chat(root / "chats", blobs, cc.meta_value(row))


def newest_in_the_wal(root: Path) -> None:
    first = [cc.encode(v) for v in (cc.PROMPT, cc.DONE)]
    g1 = cc.graph(first, [[cc.user_node("Why do the tests fail?"), cc.text_step("Fixed")]])
    again = {
        "role": "user",
        "content": [{"type": "text", "text": "<user_query>\nthanks\n</user_query>"}],
    }
    reply = {"id": "msg-a9", "role": "assistant", "content": [{"type": "text", "text": "Welcome."}]}
    second = [*first, cc.encode(again), cc.encode(reply)]
    g2 = cc.graph(second, [[cc.user_node("Why do the tests fail?")], [cc.user_node("thanks")]])
    cc.write_chat(
        root / "chats",
        [*first, *g1.nodes, g1.root],
        cc.meta_value(cc.meta_row(g1.root_id, workspacePath=cc.CWD)),
        wal_blobs=[cc.encode(again), cc.encode(reply), *g2.nodes, g2.root],
        wal_meta=cc.meta_value(cc.meta_row(g2.root_id, workspacePath=cc.CWD)),
    )


CONFORMANCE = Conformance(
    harness="cursor",
    families=(
        Family("current", current, sessions=1),
        Family("plain-meta", plain_meta, sessions=1),
        Family("early-build", early_build, sessions=1),
        Family("newest-in-wal", newest_in_the_wal, sessions=1),
    ),
    representable=cc.cursor_transcripts(),
    hop_limit=HopLimit(
        "a Cursor CLI chat has no slash-command record: a command is the prompt that ran it",
        commands_as_prompts,
    ),
    store_facts=StoreFacts(
        "a chat's last change is its store.db's mtime, which a copy gets anew",
        lambda native: replaced(native, modified_ms=None),
    ),
    # The chats directory is ours to name (CURSOR_CHATS_DIR names it, not the ``.cursor`` root).
    env=lambda root: {"CURSOR_CHATS_DIR": str(root / "chats")},
)
