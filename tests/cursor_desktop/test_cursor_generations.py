"""One app-shaped session per older Cursor storage generation, read to exact Common.

Shapes follow cursor-desktop-generations.md (≈0.45 inline conversations, ≈0.50 bubble ``_v`` 2,
1.7.44, 3.7.42); the 3.16+ shape is the worked example in test_codec.py.
"""

from __future__ import annotations

from typing import Any

from sessions import at, cell, session

from txcript.harnesses.cursor_desktop import codec
from txcript.harnesses.cursor_desktop.native import KVRow
from txcript.model import (
    Bash,
    Edit,
    Message,
    Meta,
    Raw,
    Read,
    Text,
    Thinking,
    ToolResult,
    ToolUse,
    Usage,
)

CID = "5a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b"


def ms(clock: str) -> int:
    """``"06:30:36.299"`` on 2026-08-17 as a ms epoch."""
    return int(at(clock).timestamp() * 1000)


def synthesized_head() -> str:
    return '{"type":"head","composerId":"' + CID + '"}'


def lexical(text: str) -> str:
    node = {"detail": 0, "format": 0, "mode": "normal", "style": "", "text": text, "type": "text"}
    paragraph = {
        "children": [node],
        "direction": None,
        "format": "",
        "indent": 0,
        "type": "paragraph",
    }
    root = {"children": [paragraph], "direction": None, "format": "", "indent": 0, "type": "root"}
    return cell({"root": root})


def timing(send: str) -> dict[str, Any]:
    return {
        "clientStartTime": 123456.75,  # not an epoch on ≈0.50
        "clientRpcSendTime": ms(send),
        "clientSettleTime": ms(send) + 900,
        "clientEndTime": ms(send) + 4000,
    }


# ------------------------------------------------------------------------------- ≈0.45


def test_an_inline_0_45_conversation_reads_in_array_order() -> None:
    def entry(kind: int, bubble_id: str, text: str, **extra: Any) -> dict[str, Any]:
        return {"type": kind, "bubbleId": bubble_id, "text": text, "codeBlocks": [], **extra}

    conversation = [
        entry(
            1, "e1", "Why does parse() fail on empty input?", richText=lexical("Why…"), context={}
        ),
        entry(
            2,
            "e2",
            "Because `tokens[0]` is read before the length check.",
            timingInfo=timing("06:31:00.000"),
        ),
        entry(1, "e3", "Show me a fix", richText=lexical("Show me a fix")),
        entry(2, "e4", "Check `len(tokens)` first.", timingInfo=timing("06:32:10.500")),
        entry(2, "e5", "   "),
    ]
    composer = {
        "composerId": CID,
        "name": "Parser empty input",
        "createdAt": ms("06:30:00.000"),
        "lastUpdatedAt": ms("06:32:00.000"),
        "status": "completed",
        "unifiedMode": "chat",
        "forceMode": "chat",
        "isAgentic": False,
        "tabs": [],
        "conversation": conversation,
        "latestConversationSummary": {"summary": {}, "lastBubbleId": "e4"},
    }
    native = session(
        [],
        cid=CID,
        head=synthesized_head(),
        composer=composer,
        created_at=ms("06:30:00.000"),
        header_origin="synthesized",
    )
    transcript = codec.to_common(native)
    assert transcript.meta == Meta(id=CID, timestamp=at("06:30:00.000"), title="Parser empty input")
    assert transcript.messages == (
        Message("user", (Text("Why does parse() fail on empty input?"),), at("06:30:00.000")),
        Message(
            "assistant",
            (Text("Because `tokens[0]` is read before the length check."),),
            at("06:31:00.000"),
        ),
        Message("user", (Text("Show me a fix"),), at("06:31:00.000")),
        Message("assistant", (Text("Check `len(tokens)` first."),), at("06:32:10.500")),
    )


# ------------------------------------------------------------------------------- ≈0.50

PLACEHOLDER = {"additionalData": {"status": "error"}}


def v2(kind: int, bubble_id: str, text: str = "", **extra: Any) -> dict[str, Any]:
    """A ≈0.50 bubble: ``_v`` 2, no createdAt, the placeholder toolFormerData unless replaced."""
    bubble: dict[str, Any] = {
        "_v": 2,
        "type": kind,
        "bubbleId": bubble_id,
        "text": text,
        "serverBubbleId": bubble_id,
        "toolFormerData": PLACEHOLDER,
        "tokenCount": {"inputTokens": 0, "outputTokens": 0},
        "capabilitiesRan": {},
        "isThought": False,
        "attachedCodeChunks": [],
    }
    bubble.update(extra)
    return bubble


def v2_tool(bubble_id: str, former: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return v2(2, bubble_id, capabilityType=15, toolFormerData=former, **extra)


def test_a_0_50_session_reads_its_v2_bubbles_and_older_tool_shapes() -> None:
    rows = [
        v2(
            1,
            "u1",
            "List the files, then show main.py",
            lastTerminalCwd="C:\\proj",
            richText=lexical("x"),
        ),
        v2(
            2,
            "a1",
            thinking={"text": "List first, then read.", "signature": ""},
            timingInfo=timing("06:40:01.000"),
        ),
        v2_tool(
            "a2",
            {
                "tool": 15,
                "name": "run_terminal_cmd",
                "toolCallId": "tool_0f1e2d3c-aaaa-bbbb-cccc-000000000001",
                "params": '{"command":"dir","requireUserApproval":false,"isBackground":false}',
                "rawArgs": cell(
                    {"command": "dir", "is_background": "false", "explanation": "List the files"}
                ),
                "status": "completed",
                "userDecision": "accepted",
                "additionalData": {"status": "success"},
                "result": cell(
                    {
                        "output": "main.py\r\n",
                        "exitCodeV2": 0,
                        "resultingWorkingDirectory": "C:\\proj",
                    }
                ),
            },
        ),
        v2_tool(
            "a3",
            {
                "tool": 5,
                "name": "read_file",
                "toolCallId": "1_tool_0f1e2d3c-aaaa-bbbb-cccc-000000000002",
                "params": cell(
                    {
                        "relativeWorkspacePath": "C:\\proj\\main.py",
                        "startLineOneIndexed": 1,
                        "endLineOneIndexedInclusive": 40,
                        "maxLines": 250,
                        "maxChars": 30000,
                        "minLines": 50,
                    }
                ),
                "rawArgs": cell(
                    {
                        "target_file": "main.py",
                        "should_read_entire_file": "false",
                        "start_line_one_indexed": "1",
                        "end_line_one_indexed_inclusive": "40",
                    }
                ),
                "status": "completed",
                "result": '{"contents":"print(\\"hi\\")\\n","totalLines":1}',
            },
        ),
        v2_tool(
            "a4",
            {
                "tool": 15,
                "name": "run_terminal_cmd",
                "toolCallId": "tool_0f1e2d3c-aaaa-bbbb-cccc-000000000003",
                "params": {"command": "python main.py", "requireUserApproval": True},
                "rawArgs": '{"command":"python main.py","is_background":false}',
                "status": "cancelled",
                "userDecision": "accepted",
            },
        ),
        v2_tool(
            "a5",
            {
                "tool": 5,
                "name": "read_file",
                "toolCallId": "call_utils",
                "rawArgs": cell(
                    {"target_file": "utils.py", "should_read_entire_file": True, "explanation": "x"}
                ),
                "status": "error",
                "error": cell(
                    {
                        "clientVisibleErrorMessage": "File not found",
                        "modelVisibleErrorMessage": "no utils.py",
                    }
                ),
            },
        ),
        v2_tool(
            "a6",
            {
                "tool": 15,
                "name": "run_terminal_cmd",
                "toolCallId": "tool_0f1e2d3c-aaaa-bbbb-cccc-000000000004",
                "params": '{"command":"del main.py","requireUserApproval":true}',
                "status": "completed",
                "userDecision": "rejected",
                "additionalData": {"status": "pending"},
                "result": '{"rejected":true}',
            },
        ),
        v2_tool(
            "a7",
            {
                "tool": 7,
                "name": "edit_file",
                "toolCallId": "tool_edit",
                "params": cell(
                    {
                        "relativeWorkspacePath": "main.py",
                        "contents": "// ... existing code ...",
                        "blocking": True,
                        "shouldEditFileFailForLargeFiles": False,
                    }
                ),
                "status": "completed",
                "result": '{"isApplied":true,"numLinesInFile":1}',
            },
        ),
        v2(2, "a8", "main.py prints hi.", tokenCount={"inputTokens": 1200, "outputTokens": 80}),
        v2(2, "orphan", "not listed in the headers"),
    ]
    listed = [{"bubbleId": r["bubbleId"], "type": r["type"]} for r in rows[:-1]]
    listed[-1]["serverBubbleId"] = "a8"
    composer = {
        "_v": 3,
        "composerId": CID,
        "name": "Show main.py",
        "createdAt": ms("06:40:00.000"),
        "lastUpdatedAt": ms("06:41:00.000"),
        "status": "aborted",
        "unifiedMode": "agent",
        "forceMode": "edit",
        "usageData": {"default": {"costInCents": 4, "amount": 1}},
        "fullConversationHeadersOnly": listed,
        "conversationMap": {},
    }
    native = session(
        rows,
        cid=CID,
        head=synthesized_head(),
        composer=composer,
        created_at=ms("06:40:00.000"),
        header_origin="synthesized",
        aux=(KVRow(f"checkpointId:{CID}:c1", '{"files":[]}'),),
    )
    transcript = codec.to_common(native)
    assert transcript.meta == Meta(id=CID, timestamp=at("06:40:00.000"), title="Show main.py")
    t0, t1 = at("06:40:00.000"), at("06:40:01.000")
    ids = [f"tool_0f1e2d3c-aaaa-bbbb-cccc-00000000000{n}" for n in range(1, 5)]
    read_id = "1_tool_0f1e2d3c-aaaa-bbbb-cccc-000000000002"
    cancelled = "The tool call was cancelled; it produced no result."
    assert transcript.messages == (
        Message("user", (Text("List the files, then show main.py"),), t0),
        Message(
            "assistant",
            (Thinking("List first, then read."), ToolUse(ids[0], Bash(command="dir"))),
            t1,
        ),
        Message(
            "user",
            (
                ToolResult(
                    ids[0],
                    {
                        "output": "main.py\r\n",
                        "exitCodeV2": 0,
                        "resultingWorkingDirectory": "C:\\proj",
                    },
                ),
            ),
            t1,
        ),
        Message(
            "assistant",
            (ToolUse(read_id, Read(file_path="C:\\proj\\main.py", offset=1, limit=40)),),
            t1,
        ),
        Message("user", (ToolResult(read_id, {"contents": 'print("hi")\n', "totalLines": 1}),), t1),
        Message("assistant", (ToolUse(ids[2], Bash(command="python main.py")),), t1),
        Message("user", (ToolResult(ids[2], cancelled, is_error=True),), t1),
        Message("assistant", (ToolUse("call_utils", Read(file_path="utils.py")),), t1),
        Message(
            "user",
            (
                ToolResult(
                    "call_utils",
                    {
                        "clientVisibleErrorMessage": "File not found",
                        "modelVisibleErrorMessage": "no utils.py",
                    },
                    is_error=True,
                ),
            ),
            t1,
        ),
        Message("assistant", (ToolUse(ids[3], Bash(command="del main.py")),), t1),
        Message("user", (ToolResult(ids[3], {"rejected": True}, is_error=True),), t1),
        Message(
            "assistant",
            (
                ToolUse(
                    "tool_edit",
                    Raw(
                        tool_name="edit_file",
                        input={
                            "relativeWorkspacePath": "main.py",
                            "contents": "// ... existing code ...",
                            "blocking": True,
                            "shouldEditFileFailForLargeFiles": False,
                        },
                    ),
                ),
            ),
            t1,
        ),
        Message("user", (ToolResult("tool_edit", {"isApplied": True, "numLinesInFile": 1}),), t1),
        Message(
            "assistant",
            (Text("main.py prints hi."),),
            t1,
            usage=Usage(input_tokens=1200, output_tokens=80),
        ),
    )


def test_0_50_raw_args_with_string_line_numbers_type_a_read() -> None:
    former = {
        "name": "read_file",
        "toolCallId": "t1",
        "params": "",
        "rawArgs": cell(
            {
                "target_file": "a.py",
                "should_read_entire_file": "false",
                "start_line_one_indexed": "5",
                "end_line_one_indexed_inclusive": "9",
            }
        ),
        "status": "started",
    }
    native = session([v2_tool("a", former)], cid=CID)
    (message,) = codec.to_common(native).messages
    assert message.content == (ToolUse("t1", Read(file_path="a.py", offset=5, limit=5)),)


def test_0_50_shell_calls_with_unknown_params_stay_raw() -> None:
    former = {
        "name": "run_terminal_cmd",
        "toolCallId": "t1",
        "params": '{"command":"ls","isBackground":"maybe"}',
        "status": "started",
    }
    (message,) = codec.to_common(session([v2_tool("a", former)], cid=CID)).messages
    assert message.content == (
        ToolUse(
            "t1",
            Raw(tool_name="run_terminal_cmd", input={"command": "ls", "isBackground": "maybe"}),
        ),
    )


# ------------------------------------------------------------------------------ 1.7.44


def v3(kind: int, bubble_id: str, created: str, text: str = "", **extra: Any) -> dict[str, Any]:
    bubble: dict[str, Any] = {
        "_v": 3,
        "type": kind,
        "bubbleId": bubble_id,
        "createdAt": f"2026-08-17T{created}Z",
        "text": text,
        "tokenCount": {"inputTokens": 0, "outputTokens": 0},
        "modelInfo": {"modelName": "default"},
        "requestId": "req-1",
        "todos": [],
    }
    bubble.update(extra)
    return bubble


def v3_tool(bubble_id: str, created: str, former: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return v3(2, bubble_id, created, capabilityType=15, toolFormerData=former, **extra)


def test_a_1_7_session_types_read_file_and_search_replace_and_keeps_the_rest_raw() -> None:
    todos = [{"content": "Rename foo", "status": "in_progress", "id": "1", "dependencies": []}]
    rows = [
        v3(
            1,
            "u",
            "07:00:00.100",
            "Rename foo to bar in util.ts",
            timingInfo=timing("07:00:00.100"),
        ),
        v3_tool(
            "r",
            "07:00:02.000",
            {
                "tool": 40,
                "name": "read_file",
                "toolCallId": "tool_r",
                "toolIndex": 1,
                "modelCallId": "m-1",
                "params": cell(
                    {
                        "targetFile": "/Users/me/app/util.ts",
                        "offset": 1,
                        "limit": 200,
                        "charsLimit": 100000,
                    }
                ),
                "rawArgs": '{"target_file":"/Users/me/app/util.ts","offset":1,"limit":200}',
                "status": "completed",
                "result": cell(
                    {
                        "contents": "export const foo = 1;\n",
                        "numCharactersInRequestedRange": 22,
                        "totalLinesInFile": 1,
                    }
                ),
            },
        ),
        v3_tool(
            "s",
            "07:00:05.000",
            {
                "tool": 38,
                "name": "search_replace",
                "toolCallId": "tool_s",
                "params": '{"relativeWorkspacePath":"/Users/me/app/util.ts"}',
                "rawArgs": cell(
                    {"file_path": "/Users/me/app/util.ts", "old_string": "foo", "new_string": "bar"}
                ),
                "status": "completed",
                "result": '{"diff":{"chunks":[],"editor":"EDITOR_AI"},"resultForModel":"ok"}',
            },
        ),
        v3_tool(
            "t",
            "07:00:06.000",
            {
                "tool": 35,
                "name": "todo_write",
                "toolCallId": "tool_t",
                "params": cell({"todos": todos, "merge": True}),
                "rawArgs": cell({"merge": True, "todos": todos}),
                "status": "completed",
                "result": '{"success":true}',
            },
        ),
        v3_tool(
            "l",
            "07:00:07.000",
            {
                "tool": 39,
                "name": "list_dir",
                "toolCallId": "tool_l",
                "params": '{"targetDirectory":"/Users/me/app"}',
                "rawArgs": '{"target_directory":"/Users/me/app"}',
                "status": "completed",
                "result": '{"directoryTreeRoot":{"absPath":"/Users/me/app","numFiles":1}}',
            },
        ),
        v3_tool(
            "b",
            "07:00:08.000",
            {
                "tool": 15,
                "name": "run_terminal_cmd",
                "toolCallId": "tool_b",
                "params": cell(
                    {
                        "command": "npm run dev",
                        "isBackground": True,
                        "requireUserApproval": False,
                        "parsingResult": {
                            "executableCommands": [{"name": "npm", "fullText": "npm run dev"}]
                        },
                    }
                ),
                "rawArgs": '{"command":"npm run dev","is_background":true}',
                "status": "completed",
                "additionalData": {"status": "cancelled"},
                "result": '{"isRunningInBackground":true,"rejected":false,"notInterrupted":true}',
            },
        ),
        v3(
            2,
            "x",
            "07:00:09.000",
            "Renamed foo to bar.",
            tokenCount={"inputTokens": 5000, "outputTokens": 300},
        ),
    ]
    composer = {
        "_v": 10,
        "composerId": CID,
        "name": "Rename foo",
        "subtitle": "Edited util.ts",
        "createdAt": ms("07:00:00.000"),
        "lastUpdatedAt": ms("07:00:05.000"),
        "modelConfig": {"modelName": "default", "maxMode": False},
        "fullConversationHeadersOnly": [
            {"bubbleId": r["bubbleId"], "type": r["type"]} for r in rows
        ],
        "conversationMap": {},
        "todos": todos,
        "speculativeSummarizationEncryptionKey": "c2VjcmV0",
    }
    native = session(
        rows,
        cid=CID,
        head=synthesized_head(),
        composer=composer,
        created_at=ms("07:00:00.000"),
        header_origin="synthesized",
        aux=(KVRow(f"messageRequestContext:{CID}:WARM_SUBMIT", "{}"),),
    )
    transcript = codec.to_common(native)
    assert transcript.meta == Meta(id=CID, timestamp=at("07:00:00.000"), title="Rename foo")

    def pair(call_id: str, tool: Any, result: Any, clock: str) -> tuple[Message, Message]:
        return (
            Message("assistant", (ToolUse(call_id, tool),), at(clock)),
            Message("user", (ToolResult(call_id, result),), at(clock)),
        )

    assert transcript.messages == (
        Message("user", (Text("Rename foo to bar in util.ts"),), at("07:00:00.100")),
        *pair(
            "tool_r",
            Read(file_path="/Users/me/app/util.ts", offset=1, limit=200),
            {
                "contents": "export const foo = 1;\n",
                "numCharactersInRequestedRange": 22,
                "totalLinesInFile": 1,
            },
            "07:00:02.000",
        ),
        *pair(
            "tool_s",
            Edit(file_path="/Users/me/app/util.ts", old_string="foo", new_string="bar"),
            {"diff": {"chunks": [], "editor": "EDITOR_AI"}, "resultForModel": "ok"},
            "07:00:05.000",
        ),
        *pair(
            "tool_t",
            Raw(tool_name="todo_write", input={"todos": todos, "merge": True}),
            {"success": True},
            "07:00:06.000",
        ),
        *pair(
            "tool_l",
            Raw(tool_name="list_dir", input={"targetDirectory": "/Users/me/app"}),
            {"directoryTreeRoot": {"absPath": "/Users/me/app", "numFiles": 1}},
            "07:00:07.000",
        ),
        *pair(
            "tool_b",
            Bash(command="npm run dev", run_in_background=True),
            {"isRunningInBackground": True, "rejected": False, "notInterrupted": True},
            "07:00:08.000",
        ),
        Message(
            "assistant",
            (Text("Renamed foo to bar."),),
            at("07:00:09.000"),
            usage=Usage(input_tokens=5000, output_tokens=300),
        ),
    )


def test_search_replace_without_fitting_arguments_stays_raw() -> None:
    former = {
        "name": "search_replace",
        "toolCallId": "t",
        "params": '{"relativeWorkspacePath":"/a"}',
        "rawArgs": '{"file_path":"/a","old_string":"x","new_string":"y","explanation":"z"}',
        "status": "started",
    }
    (message,) = codec.to_common(session([v3_tool("s", "07:00:00.000", former)], cid=CID)).messages
    assert message.content == (
        ToolUse("t", Raw(tool_name="search_replace", input={"relativeWorkspacePath": "/a"})),
    )


# ------------------------------------------------------------------------------ 3.7.42


def test_a_3_7_session_with_an_item_table_head_reads_workspace_model_and_v2_tools() -> None:
    uri = {
        "$mid": 1,
        "fsPath": "/Users/me/site",
        "external": "file:///Users/me/site",
        "path": "/Users/me/site",
        "scheme": "file",
    }
    workspace = {"id": "0f" * 16, "uri": uri}
    head = {
        "type": "head",
        "composerId": CID,
        "name": "Fix the header layout",
        "subtitle": "Edited header.css",
        "createdAt": ms("08:00:00.000"),
        "lastUpdatedAt": ms("08:01:00.000"),
        "unifiedMode": "agent",
        "forceMode": "edit",
        "hasUnreadMessages": False,
        "isArchived": False,
        "isDraft": False,
        "totalLinesAdded": 3,
        "referencedPlans": [],
        "trackedGitRepos": [
            {"repoPath": "/Users/me", "branches": [{"branchName": "main", "lastInteractionAt": 1}]}
        ],
        "workspaceIdentifier": workspace,
        "agentLocation": {"type": "local", "environment": workspace, "status": "active"},
    }

    def b(kind: int, bubble_id: str, clock: str, text: str = "", **extra: Any) -> dict[str, Any]:
        return v3(
            kind, bubble_id, clock, text, conversationState="~", workspaceUris=[], **extra
        ) | ({} if kind == 1 else {"modelInfo": None})

    rows = [
        b(
            1,
            "u",
            "08:00:00.500",
            "The header overlaps the nav",
            modelInfo={"modelName": "claude-4.5-sonnet"},
        ),
        b(
            2,
            "th",
            "08:00:01.000",
            capabilityType=30,
            thinking={"text": "Look at header.css", "signature": ""},
            thinkingStyle=1,
            thinkingDurationMs=1500,
        ),
        b(
            2,
            "rd",
            "08:00:02.000",
            capabilityType=15,
            toolFormerData={
                "tool": 40,
                "name": "read_file_v2",
                "toolCallId": "tool_rd",
                "toolIndex": 0,
                "modelCallId": "tool_rd",
                "params": cell(
                    {
                        "targetFile": "/Users/me/site/header.css",
                        "limit": 400,
                        "charsLimit": 200000,
                        "effectiveUri": "/Users/me/site/header.css",
                    }
                ),
                "rawArgs": "",
                "status": "completed",
                "result": '{"contents":"h1{}","totalLinesInFile":1}',
                "toolCallBinary": "AAECAw==",
                "userDecision": "accepted",
            },
        ),
        b(
            2,
            "rg",
            "08:00:03.000",
            capabilityType=15,
            toolFormerData={
                "tool": 41,
                "name": "ripgrep_raw_search",
                "toolCallId": "tool_rg",
                "params": '{"pattern":"nav","path":"/Users/me/site","caseInsensitive":false}',
                "status": "completed",
                "additionalData": {"isPruned": False, "totalFiles": 1, "totalMatches": 2},
            },
        ),
        b(
            2,
            "ed",
            "08:00:04.000",
            capabilityType=15,
            toolFormerData={
                "tool": 38,
                "name": "edit_file_v2",
                "toolCallId": "tool_ed",
                "params": cell(
                    {"relativeWorkspacePath": "/Users/me/site/header.css", "noCodeblock": True}
                ),
                "status": "completed",
                "result": '{"beforeContentId":"b1","afterContentId":"a1"}',
                "additionalData": {
                    "precomputedDiff": {"lines": [], "hasChanges": True},
                    "status": "success",
                },
            },
        ),
        b(
            2,
            "sh",
            "08:00:05.000",
            capabilityType=15,
            toolFormerData={
                "tool": 15,
                "name": "run_terminal_command_v2",
                "toolCallId": "tool_sh",
                "params": cell(
                    {
                        "command": "npm run lint",
                        "cwd": "",
                        "options": {"timeout": 30000},
                        "requestedSandboxPolicy": {"type": "TYPE_WORKSPACE_READWRITE"},
                        "commandDescription": "Lint",
                    }
                ),
                "rawArgs": "",
                "status": "completed",
                "result": cell(
                    {
                        "output": "1 problem",
                        "exitCode": 1,
                        "rejected": False,
                        "notInterrupted": True,
                    }
                ),
                "additionalData": {"status": "error", "startedAtMs": 1},
            },
        ),
        b(2, "tx", "08:00:06.000", "Moved the nav below the header.", turnDurationMs=6000),
    ]
    listed = [
        {"bubbleId": r["bubbleId"], "type": r["type"], "grouping": {"isRenderable": True}}
        for r in rows
    ]
    listed[-1]["contentHeightHint"] = 48
    composer = {
        "_v": 16,
        "composerId": CID,
        "name": "Fix the header layout",
        "createdAt": ms("08:00:00.000"),
        "modelConfig": {
            "modelName": "claude-4.5-sonnet",
            "maxMode": False,
            "selectedModels": [{"modelId": "claude-4.5-sonnet", "parameters": []}],
        },
        "workspaceIdentifier": workspace,
        "fullConversationHeadersOnly": listed,
        "conversationState": "~QUJD",
        "blobEncryptionKey": "a2V5",
    }
    native = session(
        rows,
        cid=CID,
        head=head,
        composer=composer,
        created_at=ms("08:00:00.000"),
        header_origin="item_table",
        aux=(
            KVRow(f"composerVirtualRowHeights:{CID}", "{}"),
            KVRow(f"ofsContent:{CID}:file:///Users/me/site/header.css", "h1{}"),
        ),
    )
    transcript = codec.to_common(native)
    assert transcript.meta == Meta(
        id=CID,
        timestamp=at("08:00:00.000"),
        cwd="/Users/me/site",
        title="Fix the header layout",
        model="claude-4.5-sonnet",
    )
    assert transcript.messages == (
        Message("user", (Text("The header overlaps the nav"),), at("08:00:00.500")),
        Message(
            "assistant",
            (
                Thinking("Look at header.css"),
                ToolUse("tool_rd", Read(file_path="/Users/me/site/header.css", limit=400)),
            ),
            at("08:00:01.000"),
        ),
        Message(
            "user",
            (ToolResult("tool_rd", {"contents": "h1{}", "totalLinesInFile": 1}),),
            at("08:00:02.000"),
        ),
        Message(
            "assistant",
            (
                ToolUse(
                    "tool_rg",
                    Raw(
                        tool_name="ripgrep_raw_search",
                        input={
                            "pattern": "nav",
                            "path": "/Users/me/site",
                            "caseInsensitive": False,
                        },
                    ),
                ),
            ),
            at("08:00:03.000"),
        ),
        Message(
            "user",
            (ToolResult("tool_rg", {"isPruned": False, "totalFiles": 1, "totalMatches": 2}),),
            at("08:00:03.000"),
        ),
        Message(
            "assistant",
            (
                ToolUse(
                    "tool_ed",
                    Raw(
                        tool_name="edit_file_v2",
                        input={
                            "relativeWorkspacePath": "/Users/me/site/header.css",
                            "noCodeblock": True,
                        },
                    ),
                ),
            ),
            at("08:00:04.000"),
        ),
        Message(
            "user",
            (ToolResult("tool_ed", {"beforeContentId": "b1", "afterContentId": "a1"}),),
            at("08:00:04.000"),
        ),
        Message(
            "assistant",
            (
                ToolUse(
                    "tool_sh", Bash(command="npm run lint", timeout_ms=30000, description="Lint")
                ),
            ),
            at("08:00:05.000"),
        ),
        Message(
            "user",
            (
                ToolResult(
                    "tool_sh",
                    {
                        "output": "1 problem",
                        "exitCode": 1,
                        "rejected": False,
                        "notInterrupted": True,
                    },
                ),
            ),
            at("08:00:05.000"),
        ),
        Message("assistant", (Text("Moved the nav below the header."),), at("08:00:06.000")),
    )


def test_a_3_7_draft_head_without_a_uri_and_composer_without_workspace_has_no_cwd() -> None:
    head = {"type": "head", "composerId": CID, "workspaceIdentifier": {"id": "1786948236174"}}
    composer = {"_v": 16, "status": "none", "fullConversationHeadersOnly": []}
    transcript = codec.to_common(session([], cid=CID, head=head, composer=composer))
    assert transcript.meta.cwd is None and transcript.meta.title is None
    assert transcript.messages == ()
