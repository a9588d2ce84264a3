"""``txcript mcp``: a stdio Model Context Protocol server over the official MCP Python SDK.

Three read-only tools, for agents that want past sessions as context:

* ``list_sessions`` ``{from?, cwd?, limit?, offset?}`` → ``{total, offset, sessions: [Summary]}``;
* ``search_sessions`` ``{pattern, from?, cwd?}`` → ``{matches: [{session, score, hits}]}`` (at most
  20 sessions, 3 hits each, tool output excluded, as the CLI one-shot; a hit's line is cut to
  :data:`HIT_WIDTH` characters around its match);
* ``read_session`` ``{id, from?}`` → the ``view`` text of a session or ``#range``, within a read
  budget of :data:`READ_BUDGET` bytes; a larger read is refused with ranges that fit.
  The id names a stored session (id, id prefix or title), never a file or stdin.

``from`` is one harness id or alias, or (for listing and searching) a list of them. Inputs reject
unknown fields. Every failure (bad input such as an unknown harness or session, a bad range, a
read over budget; a store that cannot be read; anything unexpected) comes back as a tool result
with ``isError: true`` whose text says, in the tools' own terms, what to do instead: an agent
reads a result, while a JSON-RPC error often ends its turn. The SDK is an optional extra
(``pip install 'txcript[mcp]'``).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import msgspec

from txcript.shared.timeutil import format_offset

if TYPE_CHECKING:
    from txcript._library import Session

READ_BUDGET = 100_000
_SEARCH_LIMIT = 20
_SEARCH_HITS = 3
_MAX_SUGGESTED = 12
#: A hit's line is cut to this many characters around its match: one minified file or log line
#: (a single line of megabytes) would otherwise fill the agent's context from one search.
HIT_WIDTH = 500

INSTRUCTIONS = (
    "Use list_sessions to browse local coding-agent sessions (page with limit/offset), "
    "search_sessions to find what was said in them, and read_session for compact text. Append "
    "#5-12 to an id to read a range of messages; reads over the budget come back with suggested "
    "ranges. Leaving out from/cwd includes every harness and directory."
)


class ListArgs(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    from_: str | list[str] | None = None
    cwd: str | None = None
    limit: int | None = msgspec.field(default=None)
    offset: int = 0


class SearchArgs(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    pattern: str
    from_: str | list[str] | None = None
    cwd: str | None = None


class ReadArgs(msgspec.Struct, forbid_unknown_fields=True, rename={"from_": "from"}):
    id: str
    from_: str | None = None


_STRING = {"type": "string"}
_COUNT = {"type": "integer", "minimum": 0}
#: ``from`` of list_sessions and search_sessions: one harness, or several.
_HARNESSES = {
    "anyOf": [_STRING, {"type": "array", "items": _STRING}],
    "description": "Harness id or alias, or a list of them (default: every harness).",
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "list_sessions": {
        "type": "object",
        "properties": {
            "from": _HARNESSES,
            "cwd": {**_STRING, "description": "Only sessions whose cwd is this dir or under it."},
            "limit": {**_COUNT, "description": "At most this many sessions."},
            "offset": {**_COUNT, "description": "Skip this many sessions first."},
        },
        "additionalProperties": False,
    },
    "search_sessions": {
        "type": "object",
        "properties": {
            "pattern": {
                **_STRING,
                "description": "Words (at most 64) that must all match one line, fuzzily; "
                "'exact, ^prefix, suffix$ and !not narrow it.",
            },
            "from": _HARNESSES,
            "cwd": _STRING,
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    "read_session": {
        "type": "object",
        "properties": {
            "id": {
                **_STRING,
                "description": "Session id, unique id prefix or exact title, optionally with "
                "#N-M to read a range of messages.",
            },
            "from": _STRING,
        },
        "required": ["id"],
        "additionalProperties": False,
    },
}
_TITLES = {
    "list_sessions": ("List sessions", "Local coding-agent sessions, newest first."),
    "search_sessions": (
        "Search sessions",
        "Find sessions by what was said in them (hit lines are cut to 500 characters around "
        "the match; read_session has the whole text).",
    ),
    "read_session": ("Read session", "A session (or #range) as compact, readable text."),
}


class InvalidParams(Exception):
    """A tool call failed in a way the agent can act on: its message says how (it becomes a
    tool result with ``isError: true``)."""


def _decode(kind: type[Any], arguments: dict[str, Any] | None) -> Any:
    try:
        value = msgspec.convert(arguments or {}, kind)
    except msgspec.ValidationError as exc:
        raise InvalidParams(str(exc)) from None
    for name in ("limit", "offset"):
        number = getattr(value, name, None)
        if isinstance(number, int) and number < 0:
            raise InvalidParams(f"`{name}` must be 0 or more")
    return value


def summary(session: Session) -> dict[str, Any]:
    return {
        "harness": session.harness,
        "id": session.id,
        "timestamp": format_offset(session.created),
        "title": session.title,
        "cwd": session.cwd,
        "git_branch": session.git_branch,
        "model": session.model,
    }


def _harnesses(names: str | list[str] | None) -> tuple[str, ...]:
    from txcript import harnesses

    if names is None:
        return ()
    listed = [names] if isinstance(names, str) else names
    return tuple(dict.fromkeys(harnesses.canonical_id(name) for name in listed))


def list_sessions(args: ListArgs) -> dict[str, Any]:
    from txcript import _library

    sessions = list(_library.list_sessions(_harnesses(args.from_), cwd=args.cwd))
    offset = min(args.offset, len(sessions))
    end = len(sessions) if args.limit is None else offset + args.limit
    return {
        "total": len(sessions),
        "offset": offset,
        "sessions": [summary(s) for s in sessions[offset:end]],
    }


def search_sessions(args: SearchArgs) -> dict[str, Any]:
    from txcript import _library
    from txcript.shared.text import excerpt

    matches = _library.find(
        args.pattern,
        _harnesses(args.from_),
        cwd=args.cwd,
        limit=_SEARCH_LIMIT,
        hits_per_session=_SEARCH_HITS,
    )
    return {
        "matches": [
            {
                "session": summary(m.session),
                "score": m.score,
                "hits": [
                    {
                        # (The library numbers messages from 1; a span counts from 0.)
                        "span": {
                            "start": 0 if h.message is None else h.message - 1,
                            "end": 0 if h.message is None else h.message,
                        },
                        "block": h.block,
                        "origin": h.origin,
                        "line": excerpt(h.line, h.highlights, HIT_WIDTH),
                        "score": h.score,
                    }
                    for h in m.hits
                ],
            }
            for m in matches
        ]
    }


def read_session(args: ReadArgs) -> str:
    from txcript.fragment import Span, split_fragment
    from txcript.render.view import render
    from txcript.sessions import open_reference

    opened = open_reference(args.id, args.from_, documents=False)
    span = opened.span()
    text = render(opened.transcript, span)
    size = len(text.encode("utf-8"))
    if size <= READ_BUDGET or span.end - span.start <= 1:
        return text
    source, _ = split_fragment(args.id)
    ranges, start, used = [], span.start, 0
    for index in range(span.start, span.end):
        cost = len(render(opened.transcript, Span(index, index + 1)).encode("utf-8"))
        if index > start and used + cost > READ_BUDGET:
            ranges.append((start, index))
            start, used = index, 0
        used += cost
    ranges.append((start, span.end))
    shown = [f"`{source}#{a + 1}-{b}`" if b - a > 1 else f"`{source}#{a + 1}`" for a, b in ranges]
    more = ", …" if len(shown) > _MAX_SUGGESTED else ""
    raise InvalidParams(
        f"session `{source}` renders to {size} bytes, over the {READ_BUDGET}-byte read budget "
        f"— read it in ranges: {', '.join(shown[:_MAX_SUGGESTED])}{more}"
    )


#: The CLI's words in an error, and what an agent calling the tools does instead.
_AGENT_WORDS = (
    ("(try `txcript list`)", "(list_sessions or search_sessions give the ids to read)"),
    ("pass --from <harness>", "give `from` a harness"),
    ("--from ", "`from` "),
)


def for_agent(message: str) -> str:
    """An error message in the tools' terms rather than the command line's."""
    for cli, tools in _AGENT_WORDS:
        message = message.replace(cli, tools)
    return message


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def wire_safe(value: Any) -> Any:
    """``value`` with every lone surrogate in its text (an id an agent sent as ``\\ud800``, a
    name read from a file that is not UTF-8) as U+FFFD. The answer is sent as UTF-8, which holds
    no surrogate: one left in made the reply fail to encode, and the call got no answer at all.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {wire_safe(key): wire_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [wire_safe(item) for item in value]
    return value


def clean_line(line: str) -> str:
    """One JSON-RPC line with every lone surrogate its strings escape (``"\\ud800"``) as
    U+FFFD. The SDK's strict parser refuses such a line whole, so the request's id was never
    read and the call got no answer, neither result nor error; Python's parser reads it, and the
    request then gets its answer. A line that is no JSON at all is left to the SDK."""
    if "\\u" not in line:
        return line
    try:
        value = json.loads(line)
    except ValueError:
        return line
    return json.dumps(wire_safe(value), ensure_ascii=False) + "\n"


class _CleanLines:
    """Standard input as the SDK reads it (``async for line``), each line :func:`clean_line`."""

    def __init__(self, source: Any) -> None:
        self.source = source

    def __aiter__(self) -> Any:
        return self._lines()

    async def _lines(self) -> Any:
        async for line in self.source:
            yield clean_line(line)


def call(name: str, arguments: dict[str, Any] | None) -> tuple[str, Any]:
    """Run a tool: ``("text", str)`` or ``("json", value)``; raise :class:`InvalidParams` with
    what to do instead when it fails."""
    from txcript.errors import TxcriptError

    try:
        if name == "list_sessions":
            return "json", list_sessions(_decode(ListArgs, arguments))
        if name == "search_sessions":
            return "json", search_sessions(_decode(SearchArgs, arguments))
        if name == "read_session":
            return "text", read_session(_decode(ReadArgs, arguments))
    except TxcriptError as exc:  # bad input, or a store that cannot be read now
        raise InvalidParams(for_agent(str(exc))) from None
    raise InvalidParams(f"unknown tool `{name}`; the tools are {', '.join(SCHEMAS)}")


def serve() -> None:
    """Serve over stdio until the client closes the connection."""
    import io
    import sys
    import warnings

    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.stdio import stdio_server

    from txcript._version import __version__
    from txcript.diagnostics import TranscriptWarning

    warnings.simplefilter("ignore", TranscriptWarning)  # stdout is the wire; warnings are noise

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    title=_TITLES[name][0],
                    description=_TITLES[name][1],
                    input_schema=schema,
                    annotations=types.ToolAnnotations(
                        title=_TITLES[name][0], read_only_hint=True, open_world_hint=False
                    ),
                )
                for name, schema in SCHEMAS.items()
            ]
        )

    def failed(message: str) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=wire_safe(message))], is_error=True
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            kind, value = await anyio.to_thread.run_sync(call, params.name, params.arguments)
        except InvalidParams as exc:
            return failed(str(exc))
        except Exception as exc:
            return failed(
                f"internal error in txcript: {type(exc).__name__}: {exc} (not the arguments' "
                "fault; another tool or a range of the session may still work)"
            )
        value = wire_safe(value)
        if kind == "text":
            return types.CallToolResult(content=[types.TextContent(type="text", text=value)])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
            structured_content=value,
        )

    server: Server[Any] = Server(
        "txcript",
        version=__version__,
        title="txcript session server",
        description="Find, search, and read local coding-agent sessions",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    # (UTF-8 whatever the locale says, and bytes that are not UTF-8 read as U+FFFD, as the SDK
    # reads standard input itself.)
    lines = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    stdin = _CleanLines(anyio.wrap_file(lines))

    async def main() -> None:
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
