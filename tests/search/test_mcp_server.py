"""``txcript mcp`` through the official MCP SDK's own client over stdio."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from searchfixtures import save_claude, transcript

from txcript import model as m

pytest.importorskip("mcp")
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SMALL = "88888888-8888-4888-8888-888888888888"
BIG = "99999999-9999-4999-8999-999999999999"


def _big() -> m.Transcript:
    start = datetime(2026, 11, 3, tzinfo=UTC)
    messages = tuple(
        m.Message(
            role="user" if i % 2 == 0 else "assistant",
            content=(m.Text(f"message {i} " + "x" * 9000),),
            timestamp=start + timedelta(seconds=i),
        )
        for i in range(30)
    )
    return m.Transcript(meta=m.Meta(id=BIG, timestamp=start, cwd="/w"), messages=messages)


def _session(tmp_path: Path, body: Any) -> Any:
    env = dict(
        os.environ,
        CLAUDE_CONFIG_DIR=str(tmp_path / "claude"),
        TXCRIPT_CACHE_DIR=str(tmp_path / "cache"),
    )
    params = StdioServerParameters(command=sys.executable, args=["-m", "txcript", "mcp"], env=env)

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await body(client)

    return anyio.run(main)


@pytest.fixture
def stores(tmp_path: Path) -> Path:
    save_claude(
        tmp_path / "claude",
        transcript(SMALL, [("user", "the auth bug again"), ("assistant", "fixed")], title="Auth"),
    )
    save_claude(tmp_path / "claude", _big())
    return tmp_path


def test_tools_are_listed_read_only_with_closed_schemas(stores: Path) -> None:
    async def body(client: ClientSession) -> Any:
        return (await client.list_tools()).tools

    tools = _session(stores, body)
    assert [t.name for t in tools] == ["list_sessions", "search_sessions", "read_session"]
    for tool in tools:
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.input_schema["additionalProperties"] is False


def test_list_search_and_read(stores: Path) -> None:
    async def body(client: ClientSession) -> Any:
        first = await client.call_tool("list_sessions", {"limit": 1})
        second = await client.call_tool("list_sessions", {"limit": 1, "offset": 1})
        past = await client.call_tool("list_sessions", {"offset": 99})
        found = await client.call_tool("search_sessions", {"pattern": "auth bug"})
        read = await client.call_tool("read_session", {"id": f"{SMALL}#2"})
        return first, second, past, found, read

    first, second, past, found, read = _session(stores, body)
    assert first.structured_content["total"] == 2
    assert [s["id"] for s in first.structured_content["sessions"]] == [BIG]
    assert [s["id"] for s in second.structured_content["sessions"]] == [SMALL]
    assert set(first.structured_content["sessions"][0]) == {
        "harness",
        "id",
        "timestamp",
        "title",
        "cwd",
        "git_branch",
        "model",
    }
    assert past.structured_content == {"total": 2, "offset": 2, "sessions": []}
    match = found.structured_content["matches"][0]
    assert match["session"]["id"] == SMALL
    assert match["hits"][0]["span"] == {"start": 0, "end": 1}
    assert match["hits"][0]["origin"] == "user"
    text = read.content[0].text
    assert "fragment=#2\nof=2\n" in text and "[assistant]\nfixed\n" in text


def _failure(result: Any) -> str:
    """The text of a tool result that reports a failure (``isError: true``)."""
    assert result.is_error is True, result
    (content,) = result.content
    text: str = content.text
    return text


def test_over_budget_read_is_refused_with_ranges_and_one_message_is_served(stores: Path) -> None:
    async def body(client: ClientSession) -> Any:
        refused = await client.call_tool("read_session", {"id": BIG})
        single = await client.call_tool("read_session", {"id": f"{BIG}#3"})
        return refused, single

    refused, single = _session(stores, body)
    text = _failure(refused)
    assert "over the 100000-byte read budget — read it in ranges: " in text
    assert f"`{BIG}#1-" in text
    assert "message 2 " in single.content[0].text


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("list_sessions", {"bogus": 1}, "unknown field `bogus`"),
        ("search_sessions", {}, "missing required field `pattern`"),
        ("list_sessions", {"from": "nope"}, "unknown harness `nope`"),
        ("read_session", {"id": "zzz"}, "no local session matches `zzz`"),
        ("read_session", {"id": f"{SMALL}#9"}, "out of bounds"),
        ("list_sessions", {"limit": -1}, "limit"),
        ("search_sessions", {"pattern": " ".join(["!x"] * 65)}, "at most 64 can be searched"),
    ],
)
def test_bad_input_is_a_tool_result_the_agent_reads(
    stores: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    """Regression: bad input was a JSON-RPC invalid-params error, which many clients show the
    user instead of the agent (or end the turn on). It is a tool result with ``isError: true``
    now, in the tools' words: no `txcript list`, no ``--from``."""

    async def body(client: ClientSession) -> Any:
        return await client.call_tool(tool, arguments)

    text = _failure(_session(stores, body))
    assert expected in text
    assert "txcript list" not in text and "--from" not in text


def test_a_cwd_holding_a_nul_matches_nothing(stores: Path) -> None:
    """A NUL in ``cwd`` (valid JSON, and no path can hold one) made resolving it raise
    ValueError: list_sessions and search_sessions failed with an internal error."""

    async def body(client: ClientSession) -> Any:
        listed = await client.call_tool("list_sessions", {"cwd": "/w\x00x"})
        found = await client.call_tool("search_sessions", {"pattern": "auth", "cwd": "/w\x00"})
        return listed.structured_content, found.structured_content

    assert _session(stores, body) == (
        {"total": 0, "offset": 0, "sessions": []},
        {"matches": []},
    )


def test_read_session_never_opens_a_file_nor_stdin(stores: Path) -> None:
    """``read_session`` names a stored session (id, id prefix or title), as the spec says. It
    went through the CLI's REF lookup, which also opens any path as a document: an agent could
    read any session document anywhere on disk (and learn which files exist from the errors),
    ``-`` read the server's own stdin, its JSON-RPC channel, and a FIFO hung the call forever.
    Now each is just a name that matches no session; the same path still works for ``view``."""
    document = stores / "exported.json"
    exported = subprocess.run(
        [sys.executable, "-m", "txcript", "export", SMALL, "--out", str(document)],
        env=dict(
            os.environ,
            CLAUDE_CONFIG_DIR=str(stores / "claude"),
            TXCRIPT_CACHE_DIR=str(stores / "cache"),
        ),
        capture_output=True,
    )
    assert exported.returncode == 0, exported.stderr
    os.mkfifo(stores / "fifo")

    async def body(client: ClientSession) -> Any:
        errors = []
        for name in (str(document), f"{document}#1", "-", str(stores / "fifo")):
            result = await client.call_tool("read_session", {"id": name})
            if not result.is_error:
                return [*errors, f"{name} was read"]  # (before a FIFO could hang the test)
            errors.append(result.content[0].text)
        return errors

    assert _session(stores, body) == [
        f"no local session matches `{name}` (list_sessions or search_sessions give the ids to read)"
        for name in (str(document), str(document), "-", str(stores / "fifo"))
    ]


def test_from_takes_several_harnesses_as_the_cli_does(stores: Path) -> None:
    async def body(client: ClientSession) -> Any:
        listed = await client.call_tool("list_sessions", {"from": ["claude", "codex"]})
        found = await client.call_tool(
            "search_sessions", {"pattern": "auth", "from": ["claude_code", "gemini"]}
        )
        unknown = await client.call_tool("list_sessions", {"from": ["claude", "cursr"]})
        return listed, found, unknown

    listed, found, unknown = _session(stores, body)
    assert listed.structured_content["total"] == 2
    assert [m["session"]["id"] for m in found.structured_content["matches"]] == [SMALL]
    assert "unknown harness `cursr`; did you mean cursor?" in _failure(unknown)


def test_a_hit_in_a_huge_line_comes_back_as_an_excerpt(tmp_path: Path) -> None:
    """A hit's line went back whole: a match in one line of 1.5 MB (a minified file, a log
    pasted into the chat) put 1.5 MB into the agent's context from one search, fifteen times
    the read budget. The line is cut to 500 characters around its match; short lines are
    whole."""
    huge = " ".join(f"w{i}" for i in range(50_000)) + " needle " + "v" * 5000
    save_claude(
        tmp_path / "claude",
        transcript(SMALL, [("user", huge), ("assistant", "needle short")], title="huge"),
    )

    async def body(client: ClientSession) -> Any:
        return (
            await client.call_tool("search_sessions", {"pattern": "'needle"})
        ).structured_content

    (match,) = _session(tmp_path, body)["matches"]
    lines = [hit["line"] for hit in match["hits"]]
    assert lines[1] == "needle short"
    assert len(lines[0]) == 500 and lines[0].startswith("…") and lines[0].endswith("…")
    assert " needle " in lines[0]


def test_a_request_holding_a_lone_surrogate_gets_an_answer(stores: Path) -> None:
    """Regression: ``read_session`` with an id holding a lone surrogate (JSON ``"\\ud800"``,
    which the SDK's strict parser refuses) got no answer at all, neither result nor error, and
    the client waited forever. Every request is answered: here, that no session matches."""
    import json
    import select
    import time

    server = subprocess.Popen(
        [sys.executable, "-m", "txcript", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(
            os.environ,
            CLAUDE_CONFIG_DIR=str(stores / "claude"),
            TXCRIPT_CACHE_DIR=str(stores / "cache"),
        ),
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()

    def answer(request: int) -> dict[str, Any]:
        assert server.stdout is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            ready, _, _ = select.select([server.stdout], [], [], 0.2)
            if ready:
                got = json.loads(server.stdout.readline())
                if got.get("id") == request:
                    return got  # type: ignore[no-any-return]
        raise AssertionError(f"request {request} got no answer")

    try:
        hello = {"name": "t", "version": "1"}
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": hello}
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for request, session_id in ((2, "ab\ud800cd"), (3, f"{SMALL}\udc80"), (4, SMALL)):
            arguments = {"name": "read_session", "arguments": {"id": session_id}}
            send({"jsonrpc": "2.0", "id": request, "method": "tools/call", "params": arguments})
            got = answer(request)["result"]
            if request < 4:
                assert got["isError"] is True
                assert "no local session matches `" in got["content"][0]["text"]
                assert "\ufffd" in got["content"][0]["text"]
            else:
                assert "the auth bug again" in got["content"][0]["text"]
    finally:
        server.kill()
        server.wait()
