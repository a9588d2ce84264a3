"""Reading Cursor desktop sessions into Common (facts §8–§16, checklist A.2 and part B)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest
from sessions import (
    CID,
    CREATED,
    CREATED_MS,
    EXAMPLE_TEXT,
    SAMPLE_PROMPT,
    assistant,
    at,
    headers,
    ordered_session,
    sample_session,
    session,
    tool,
    user,
)

from txcript.harnesses.cursor_desktop import codec, text
from txcript.harnesses.cursor_desktop.native import CursorSession, KVRow
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
    Transcript,
    Usage,
    Write,
)
from txcript.shared.timeutil import EPOCH

NS = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")


def messages(native: CursorSession) -> tuple[Message, ...]:
    return codec.to_common(native).messages


def only_tool(native: CursorSession) -> Any:
    """The tool of the single ToolUse the session reads as."""
    uses = [b for m in messages(native) for b in m.content if isinstance(b, ToolUse)]
    assert len(uses) == 1
    return uses[0].tool


def call_session(name: str, params: Any, **kwargs: Any) -> CursorSession:
    return ordered_session([tool("t", name, "c1", params, **kwargs)])


# ------------------------------------------------------------------- worked example §24


def test_the_worked_example_reads_as_the_table_in_facts_24() -> None:
    transcript = codec.to_common(text.from_text(EXAMPLE_TEXT))
    bash_id = "toolu_01AbCdEfGhIjKlMnOpQrStUv"
    read_id = "call_k2Zx9_fc_0a1b2c"
    expected = Transcript(
        meta=Meta(
            id="3f0c9a52-6d1e-4b8a-9c47-1e2d3f4a5b6c",
            timestamp=at("06:30:36.174"),
            cwd="/Users/dev/acme",
            title="Run the tests, then check config.yaml",
            model="claude-fable-5",
        ),
        messages=(
            Message("user", (Text("Run the tests, then check config.yaml"),), at("06:30:36.299")),
            Message(
                "assistant",
                (
                    Thinking(
                        "Run the suite first, then read the config file.",
                        signature="EuYBCkYIBhgCKkD3example",
                    ),
                    Text("I'll run the test suite first."),
                    ToolUse(
                        bash_id,
                        Bash(command="npm test", workdir="/Users/dev/acme", timeout_ms=120000),
                    ),
                ),
                at("06:30:41.992"),
                model="claude-fable-5",
                usage=Usage(input_tokens=2, output_tokens=141),
            ),
            Message(
                "user",
                (ToolResult(bash_id, "PASS src/app.test.ts\nTests: 12 passed, 12 total\n"),),
                at("06:30:57.584"),
            ),
            Message(
                "assistant",
                (
                    ToolUse(
                        read_id, Read(file_path="/Users/dev/acme/config.yaml", offset=1, limit=50)
                    ),
                ),
                at("06:31:00.176"),
                model="claude-fable-5",
            ),
            Message(
                "user",
                (
                    ToolResult(
                        read_id, {"error": "ENOENT: no such file or directory"}, is_error=True
                    ),
                ),
                at("06:31:00.176"),
            ),
            Message(
                "assistant",
                (Text("All 12 tests pass. There is no config.yaml in the repository root."),),
                at("06:31:06.292"),
                model="claude-fable-5",
                usage=Usage(input_tokens=4, output_tokens=57),
            ),
        ),
    )
    assert transcript == expected
    assert transcript.messages[3].usage is None  # all-zero tokenCount is "unknown", not zero


# ------------------------------------------------------------------------- checklist A.2


def test_the_sample_reads_as_exactly_five_messages() -> None:
    transcript = codec.to_common(sample_session())
    assert transcript.meta == Meta(
        id=CID,
        timestamp=CREATED,
        cwd="/repo",
        title="Can you evaluate the support",
        model="composer-2",
    )
    assert transcript.messages == (
        Message("user", (Text(SAMPLE_PROMPT),), at("06:30:36.299")),
        Message(
            "assistant",
            (
                Thinking("Evaluating Cursor session support.", signature="sig-1"),
                Text("I'll evaluate Cursor session support."),
                ToolUse("call-1", Read(file_path="/repo/src/lib.rs", limit=80)),
            ),
            at("06:30:41.992"),
            model="composer-2",
            usage=Usage(input_tokens=900, output_tokens=42),
        ),
        Message("user", (ToolResult("call-1", {"totalLinesInFile": 290}),), at("06:30:50.000")),
        Message(
            "assistant",
            (
                ToolUse(
                    "call-2",
                    Raw(
                        tool_name="glob_file_search",
                        input={"targetDirectory": "/nope", "globPattern": "**/plan.md"},
                    ),
                ),
            ),
            at("06:30:55.000"),
        ),
        Message(
            "user", (ToolResult("call-2", "no such directory", is_error=True),), at("06:30:55.000")
        ),
    )
    thinking = transcript.messages[1].content[0]
    assert isinstance(thinking, Thinking) and thinking.encrypted is None


def test_call_ids_are_sanitized_to_the_anthropic_alphabet() -> None:
    nl = tool(
        "b-nl",
        "read_file_v2",
        "call-abc-12\nfc_def_4",
        {"targetFile": "/repo/x.rs"},
        "completed",
        "{}",
        number=40,
    )
    transcript = codec.to_common(sample_session((("b-nl", nl),), (("b-nl", 2),)))
    ids = [
        b.id if isinstance(b, ToolUse) else b.tool_use_id
        for m in transcript.messages
        for b in m.content
        if isinstance(b, ToolUse | ToolResult)
    ]
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids)
    assert ids[-2:] == ["call-abc-12_fc_def_4", "call-abc-12_fc_def_4"]


def test_a_pending_call_yields_no_result() -> None:
    pending = tool(
        "b-pending",
        "run_terminal_command_v2",
        "call-p",
        {"command": "sleep 100", "cwd": ""},
        "started",
        "",
        number=15,
    )
    transcript = codec.to_common(sample_session((("b-pending", pending),), (("b-pending", 2),)))
    last = transcript.messages[-1]
    assert last.role == "assistant"
    assert last.content == (ToolUse("call-p", Bash(command="sleep 100")),)


# ------------------------------------------------------------------ ordering and folding


def test_a_listed_bubble_without_a_row_is_skipped() -> None:
    composer = {"fullConversationHeadersOnly": headers(("ghost", 1), ("u", 1))}
    native = session([user("u", "hello", "2026-08-17T06:30:40.000Z")], composer=composer)
    assert messages(native) == (Message("user", (Text("hello"),), at("06:30:40.000")),)


def test_a_row_missing_from_a_non_empty_header_list_is_dropped_from_common() -> None:
    composer = {"fullConversationHeadersOnly": headers(("u", 1))}
    native = session([user("u", "kept"), user("orphan", "dropped")], composer=composer)
    assert [m.content for m in messages(native)] == [(Text("kept"),)]
    assert len(native.bubbles) == 2  # still carried natively


@pytest.mark.parametrize(
    "composer",
    [
        None,
        "{not json",
        {"fullConversationHeadersOnly": []},
        {"fullConversationHeadersOnly": [{"bubbleId": 7}, "x", {"type": 1}]},
        {"fullConversationHeadersOnly": "b, a"},
    ],
)
def test_without_usable_header_ids_row_order_is_used(composer: Any) -> None:
    native = session([user("b", "first row"), user("a", "second row")], composer=composer)
    assert [m.content[0] for m in messages(native)] == [Text("first row"), Text("second row")]


def test_duplicate_ids_are_emitted_once_and_the_later_row_wins() -> None:
    composer = {"fullConversationHeadersOnly": headers(("u", 1), ("u", 1))}
    native = session([("u", user("u", "old")), ("u-again", user("u", "new"))], composer=composer)
    assert [m.content for m in messages(native)] == [(Text("new"),)]


def test_duplicate_rows_in_row_order_keep_the_first_position_and_the_later_document() -> None:
    rows = [("x1", user("x", "old")), ("y", user("y", "middle")), ("x2", user("x", "new"))]
    assert [m.content[0] for m in messages(session(rows))] == [Text("new"), Text("middle")]


def test_a_bubble_without_a_bubble_id_is_reachable_only_in_row_order() -> None:
    nameless = {"type": 1, "text": "no id"}
    assert [m.content[0] for m in messages(session([("k", nameless)]))] == [Text("no id")]
    listed = {"fullConversationHeadersOnly": headers(("k", 1))}
    assert messages(session([("k", nameless)], composer=listed)) == ()


def test_a_blank_user_bubble_is_dropped_but_closes_the_assistant_group() -> None:
    native = ordered_session([assistant("a1", "one"), user("u", " \n\t"), assistant("a2", "two")])
    assert [(m.role, m.content) for m in messages(native)] == [
        ("assistant", (Text("one"),)),
        ("assistant", (Text("two"),)),
    ]


@pytest.mark.parametrize("kind", [7, "1", None, True, 1.0, -1])
def test_an_unknown_bubble_type_is_ignored_and_does_not_close_the_group(kind: Any) -> None:
    odd = {"bubbleId": "odd", "text": "ignored"} | ({} if kind is None else {"type": kind})
    native = ordered_session([assistant("a1", "one"), odd, assistant("a2", "two")])
    assert [(m.role, m.content) for m in messages(native)] == [
        ("assistant", (Text("one"), Text("two")))
    ]


def test_usage_is_the_last_non_zero_and_the_model_the_last_non_default() -> None:
    def counted(bubble_id: str, counts: tuple[Any, Any], model: Any) -> dict[str, Any]:
        tokens = {"inputTokens": counts[0], "outputTokens": counts[1]}
        return assistant(bubble_id, bubble_id, tokenCount=tokens, modelInfo={"modelName": model})

    native = ordered_session(
        [
            counted("a1", (5, 6), "m-1"),
            counted("a2", (7, 0), "m-2"),
            counted("a3", (0, 0), "default"),
            counted("a4", (-3, 2.5), ""),
        ]
    )
    (message,) = messages(native)
    assert message.usage == Usage(input_tokens=7, output_tokens=0)
    assert message.model == "m-2"


def test_one_bubble_with_thinking_text_and_a_call_gives_three_blocks_then_the_result() -> None:
    bubble = tool("b", "Write", "w1", {"file_path": "/a", "content": "x"}, "completed", "ok")
    bubble.update(text="Writing it.", thinking={"text": "plan", "signature": ""})
    native = ordered_session([bubble, assistant("after", "done")])
    assert [(m.role, m.content) for m in messages(native)] == [
        (
            "assistant",
            (
                Thinking("plan"),
                Text("Writing it."),
                ToolUse("w1", Write(file_path="/a", content="x")),
            ),
        ),
        ("user", (ToolResult("w1", "ok"),)),
        ("assistant", (Text("done"),)),
    ]


def test_signature_only_thinking_gives_no_block() -> None:
    native = ordered_session(
        [assistant("t", thinking={"text": "  ", "signature": "sig"}), assistant("x", "visible")]
    )
    assert [m.content for m in messages(native)] == [(Text("visible"),)]


def test_an_assistant_group_whose_bubbles_are_all_blank_emits_nothing() -> None:
    native = ordered_session(
        [
            assistant("a", " ", tokenCount={"inputTokens": 3, "outputTokens": 4}),
            assistant("b", "", thinking={"text": "", "signature": "s"}),
            assistant("c", "", toolFormerData={"additionalData": {"status": "error"}}),
        ]
    )
    assert messages(native) == ()


def test_a_bubble_without_a_time_inherits_the_previous_bubble_or_the_session_time() -> None:
    native = ordered_session(
        [
            user("u1", "first"),
            assistant("a1", "answer", "2026-08-17T08:30:00+02:00"),
            user("u2", "second", "not a time"),
            assistant("a2", "more", timingInfo={"clientRpcSendTime": CREATED_MS + 60_000}),
        ]
    )
    assert [m.timestamp for m in messages(native)] == [
        CREATED,  # nothing earlier: the session time
        at("06:30:00.000"),  # +02:00 converted to UTC
        at("06:30:00.000"),  # unparseable: the previous bubble's time
        at("06:31:36.174"),  # timingInfo.clientRpcSendTime
    ]


# --------------------------------------------------------------------------------- tools


@pytest.mark.parametrize("params", [None, 42, "", "{not json", "NaN"])
def test_params_that_are_missing_or_not_json_become_an_empty_input(params: Any) -> None:
    bubble = tool("t", "glob_file_search", "c1", "", status="completed")
    bubble["toolFormerData"].pop("params")
    if params is not None:
        bubble["toolFormerData"]["params"] = params
    assert only_tool(ordered_session([bubble])) == Raw(tool_name="glob_file_search", input={})


def test_params_stored_as_an_object_are_used_as_is() -> None:
    bubble = tool("t", "list_dir", "c1", "")
    bubble["toolFormerData"]["params"] = {"directoryPath": "/repo"}
    assert only_tool(ordered_session([bubble])) == Raw(
        tool_name="list_dir", input={"directoryPath": "/repo"}
    )


def test_raw_args_are_the_fallback_when_params_are_unusable() -> None:
    bubble = tool("t", "web_search", "c1", "", rawArgs='{"search_term":"cursor"}')
    assert only_tool(ordered_session([bubble])) == Raw(
        tool_name="web_search", input={"search_term": "cursor"}
    )


def test_shell_v2_keeps_command_cwd_timeout_and_description_and_drops_the_rest() -> None:
    params = {
        "command": "ls",
        "cwd": "/w",
        "options": {"timeout": 5000},
        "parsingResult": {"executableCommands": []},
        "commandDescription": "list",
    }
    bash = only_tool(call_session("run_terminal_command_v2", params))
    assert bash == Bash(command="ls", workdir="/w", timeout_ms=5000, description="list")
    background = only_tool(
        call_session("run_terminal_command_v2", {**params, "isBackground": True})
    )
    assert background == Bash(
        command="ls", workdir="/w", timeout_ms=5000, description="list", run_in_background=True
    )


@pytest.mark.parametrize("timeout", [5000.0, "5000", -1, True, None])
def test_shell_v2_ignores_a_timeout_that_is_not_a_non_negative_integer(timeout: Any) -> None:
    params = {"command": "ls", "cwd": "", "options": {"timeout": timeout}}
    assert only_tool(call_session("run_terminal_command_v2", params)) == Bash(command="ls")


def test_shell_v2_without_a_command_is_raw_named_bash() -> None:
    tool_ = only_tool(
        call_session("run_terminal_command_v2", {"cwd": "/w", "options": {"timeout": 9}})
    )
    assert tool_ == Raw(tool_name="Bash", input={"workdir": "/w", "timeout_ms": 9})
    tool_ = only_tool(call_session("run_terminal_command_v2", {"command": ["ls"]}))
    assert tool_ == Raw(tool_name="Bash", input={"command": ["ls"]})


def test_read_v2_keeps_integer_offset_and_limit() -> None:
    params = {"targetFile": "/f", "offset": 3, "limit": 9, "charsLimit": 10}
    assert only_tool(call_session("read_file_v2", params)) == Read(
        file_path="/f", offset=3, limit=9
    )


def test_read_v2_ignores_negative_and_float_bounds() -> None:
    params = {"targetFile": "/f", "offset": -2, "limit": 80.0}
    assert only_tool(call_session("read_file_v2", params)) == Read(file_path="/f")


def test_read_v2_without_a_target_file_is_raw_named_read() -> None:
    assert only_tool(call_session("read_file_v2", {"limit": 5})) == Raw(
        tool_name="Read", input={"limit": 5}
    )


@pytest.mark.parametrize(
    "name", ["ripgrep_raw_search", "ask_question", "mcp_github_search", "Glob"]
)
def test_other_native_tools_stay_raw_with_name_and_params_unchanged(name: str) -> None:
    params = {"pattern": "x", "nested": {"b": [1, 2], "a": None}}
    assert only_tool(call_session(name, params)) == Raw(tool_name=name, input=params)


def test_a_canonical_name_with_an_exact_fit_is_typed_and_extra_params_keep_it_raw() -> None:
    edit = {"file_path": "/a", "old_string": "x", "new_string": "y"}
    assert only_tool(call_session("Edit", edit)) == Edit(
        file_path="/a", old_string="x", new_string="y"
    )
    extra = {"file_path": "/a", "content": "c", "mode": 1}
    assert only_tool(call_session("Write", extra)) == Raw(tool_name="Write", input=extra)


def test_the_tool_number_is_ignored_on_read() -> None:
    native = call_session("read_file_v2", {"targetFile": "/f"}, number=15)
    assert only_tool(native) == Read(file_path="/f")


@pytest.mark.parametrize(
    ("stored", "content"),
    [
        ("", ""),
        ("null", "null"),
        ("123", 123),
        ('"s"', "s"),
        ("NaN", "NaN"),
        ("Infinity", "Infinity"),
        ('[1,{"a":true}]', [1, {"a": True}]),
        (' {"a": 1} ', {"a": 1}),
        ("[" * 100_000, "[" * 100_000),
    ],
)
def test_a_result_is_json_when_it_parses_as_non_null_strict_json(stored: str, content: Any) -> None:
    native = call_session("ask_question", {}, result=stored)
    assert messages(native)[-1].content == (ToolResult("c1", content),)


@pytest.mark.parametrize("status", [None, "Completed", "started", "pending", "", 1])
def test_other_statuses_leave_the_call_in_flight(status: Any) -> None:
    bubble = tool("t", "ask_question", "c1", {}, None, "output")
    if status is not None:
        bubble["toolFormerData"]["status"] = status
    assert [m.role for m in messages(ordered_session([bubble]))] == ["assistant"]


@pytest.mark.parametrize("status", ["cancelled", "canceled", "aborted"])
def test_a_cancelled_call_gets_an_error_result_saying_so(status: str) -> None:
    native = ordered_session([tool("t", "ask_question", "c1", {}, status, None)])
    assert messages(native)[-1].content == (
        ToolResult("c1", "The tool call was cancelled; it produced no result.", is_error=True),
    )


def test_a_cancelled_call_keeps_its_own_output_when_it_has_one() -> None:
    native = ordered_session([tool("t", "ask_question", "c1", {}, "cancelled", "partial")])
    assert messages(native)[-1].content == (ToolResult("c1", "partial", is_error=True),)


def test_a_user_rejected_call_is_an_error_result() -> None:
    rejected = tool(
        "t", "run_terminal_cmd", "c1", {"command": "rm -rf x", "requireUserApproval": True},
        "completed", '{"rejected":true}', userDecision="rejected",
        additionalData={"status": "pending"},
    )  # fmt: skip
    never_ran = tool("u", "ask_question", "c2", {}, "started", "", userDecision="rejected")
    found = messages(ordered_session([rejected, never_ran]))
    assert found[1].content == (ToolResult("c1", {"rejected": True}, is_error=True),)
    assert found[3].content == (
        ToolResult("c2", "The tool call was rejected; it produced no result.", is_error=True),
    )


def test_a_completed_call_with_a_failing_exit_code_is_not_an_error() -> None:
    bubble = tool(
        "t", "run_terminal_command_v2", "c1", {"command": "false", "cwd": ""}, "completed",
        '{"output":"","exitCode":1}', additionalData={"status": "error"},
    )  # fmt: skip
    assert messages(ordered_session([bubble]))[-1].content == (
        ToolResult("c1", {"output": "", "exitCode": 1}),
    )


def test_a_missing_result_falls_back_to_error_then_additional_data() -> None:
    errored = tool(
        "e", "edit_file", "c1", {}, "error", None,
        error='{"clientVisibleErrorMessage":"x","modelVisibleErrorMessage":"y"}',
    )  # fmt: skip
    summary = {"totalFiles": 2, "totalMatches": 5}
    searched = tool("s", "ripgrep_raw_search", "c2", {}, "completed", None, additionalData=summary)
    bare = tool("b", "ask_question", "c3", {}, "completed", None)
    found = messages(ordered_session([errored, searched, bare]))
    assert [m.content for m in found if m.role == "user"] == [
        (
            ToolResult(
                "c1", {"clientVisibleErrorMessage": "x", "modelVisibleErrorMessage": "y"}, True
            ),
        ),
        (ToolResult("c2", summary),),
        (ToolResult("c3", ""),),
    ]


def test_non_ascii_call_id_characters_become_one_underscore_per_code_point() -> None:
    native = ordered_session([tool("t", "ask_question", "é😀 x\u0085", {}, "completed", "r")])
    found = messages(native)
    assert found[0].content[0] == ToolUse("___x_", Raw(tool_name="ask_question", input={}))
    assert found[1].content == (ToolResult("___x_", "r"),)


def test_two_raw_ids_may_collide_after_sanitizing() -> None:
    native = ordered_session(
        [
            tool("a", "ask_question", "x y", {}, "completed", "1"),
            tool("b", "ask_question", "x\ny", {}, "completed", "2"),
        ]
    )
    found = messages(native)
    assert [b.tool_use_id for m in found for b in m.content if isinstance(b, ToolResult)] == [
        "x_y",
        "x_y",
    ]


@pytest.mark.parametrize("raw_id", [None, "", 17, ["id"]])
def test_a_missing_call_id_is_a_uuid5_of_the_session_id_and_message_count(raw_id: Any) -> None:
    bubble = tool("t", "ask_question", raw_id, {}, "completed", "r")
    if raw_id is None:
        bubble["toolFormerData"].pop("toolCallId")
    native = ordered_session(
        [
            user("u", "go"),
            assistant("a", "first"),
            user("u2", "again"),
            assistant("b", "text"),
            bubble,
        ]
    )
    minted = str(uuid.uuid5(NS, f"{CID}:3:call"))  # three messages emitted before this one closes
    found = messages(native)
    assert found[3].content[-1] == ToolUse(minted, Raw(tool_name="ask_question", input={}))
    assert found[4].content == (ToolResult(minted, "r"),)


# ---------------------------------------------------------------------------------- junk


def test_junk_rows_never_fail_a_read() -> None:
    junk = [
        ("corrupt", "{not json"),
        ("array", "[1,2]"),
        ("number", "5"),
        ("null", "null"),
        ("nan", '{"type":1,"text":NaN}'),
        ("deep", "[" * 50_000 + "]" * 50_000),
        ("tf-list", assistant("tf-list", "", toolFormerData=[1])),
        ("tf-str", assistant("tf-str", "", toolFormerData="x")),
        ("thinking-str", assistant("thinking-str", "", thinking="x")),
        ("text-num", assistant("text-num", 5)),  # type: ignore[arg-type]
        ("model-num", assistant("model-num", "", modelInfo={"modelName": 5})),
        ("kept", user("kept", "survivor")),
    ]
    native = session(
        junk,
        head="not json",
        composer={"fullConversationHeadersOnly": 5, "conversation": "x"},
        aux=(KVRow("nocolon", "x"), KVRow(f"ofsContent:{CID}:file:///a:b", "raw text")),
    )
    transcript = codec.to_common(native)
    assert transcript.meta.id == ""
    assert [m.content for m in transcript.messages] == [(Text("survivor"),)]


def test_a_header_that_is_not_json_gives_an_empty_id_and_fallback_ids_starting_with_a_colon() -> (
    None
):
    native = session([tool("t", "ask_question", None, {}, "started", "")], head="{oops")
    transcript = codec.to_common(native)
    assert (
        transcript.meta.id == "" and transcript.meta.title is None and transcript.meta.cwd is None
    )
    (use,) = transcript.messages[0].content
    assert isinstance(use, ToolUse) and use.id == str(uuid.uuid5(NS, ":0:call"))


def test_the_store_reference_is_the_meta_id() -> None:
    native = session([user("u", "x")], head={"composerId": "from-head"}, reference="from-store")
    assert codec.to_common(native).meta.id == "from-store"


# ---------------------------------------------------------------------------------- meta


def meta_of(
    head: Any = None, composer: Any = None, created_at: int = CREATED_MS, bubbles: Any = ()
) -> Meta:
    return codec.to_common(
        session(list(bubbles), head=head, composer=composer, created_at=created_at)
    ).meta


def test_the_title_is_head_name_then_subtitle_then_composer_name_then_subtitle_trimmed() -> None:
    assert meta_of({"name": "  Name  ", "subtitle": "Sub"}).title == "Name"
    assert meta_of({"name": " \n", "subtitle": " Sub "}).title == "Sub"
    assert meta_of({"name": 5}, {"name": "Composer name"}).title == "Composer name"
    assert meta_of({}, {"name": "", "subtitle": "Composer sub"}).title == "Composer sub"
    assert meta_of({}, {"name": "  "}).title is None


def test_the_cwd_falls_back_from_workspace_to_agent_location_to_git_repo() -> None:
    agent = {"agentLocation": {"environment": {"uri": {"fsPath": "/agent"}}}}
    repos = {"trackedGitRepos": [{"repoPath": "/git"}]}
    assert meta_of(agent | repos).cwd == "/agent"
    assert meta_of(repos).cwd == "/git"
    assert meta_of({"trackedGitRepos": []}).cwd is None


def test_a_present_but_empty_workspace_path_gives_no_cwd_and_no_fallback() -> None:
    head = {
        "workspaceIdentifier": {"uri": {"fsPath": ""}},
        "trackedGitRepos": [{"repoPath": "/git"}],
    }
    assert meta_of(head).cwd is None
    assert (
        meta_of(
            {"workspaceIdentifier": {"uri": {"fsPath": None}}},
            {"trackedGitRepos": [{"repoPath": "/g"}]},
        ).cwd
        is None
    )


def test_a_head_without_workspace_pointers_takes_the_composer_data_workspace() -> None:
    composer = {
        "workspaceIdentifier": {"id": "0123", "uri": {"fsPath": "C:\\Users\\me\\proj"}},
        "trackedGitRepos": [{"repoPath": "C:\\Users\\me"}],
    }
    assert (
        meta_of({"workspaceIdentifier": {"id": "1786948236174"}}, composer).cwd
        == "C:\\Users\\me\\proj"
    )
    assert (
        meta_of(
            {},
            {
                "workspaceIdentifier": {"uri": {"fsPath": ""}},
                "trackedGitRepos": [{"repoPath": "/r"}],
            },
        ).cwd
        == "/r"
    )


def test_the_session_model_ignores_default_and_never_reads_bubbles() -> None:
    """Discovery never reads message bodies, so the session model comes from composerData only;
    the bubbles' models stay on their messages."""
    assert meta_of({}, {"modelConfig": {"modelName": "default"}}).model is None
    assert meta_of({}, {"modelConfig": {"modelName": ""}}).model is None
    bubbles = [
        user("u", "x", modelInfo={"modelName": "default"}),
        ("bad", "{"),
        assistant("a", "", modelInfo={"modelName": "gpt-5"}),
        assistant("b", "", modelInfo={"modelName": "later"}),
    ]
    assert meta_of({}, {"modelConfig": {"modelName": "default"}}, bubbles=bubbles).model is None
    assert meta_of({}, None, bubbles=bubbles).model is None
    assert meta_of({}, {"modelConfig": {"modelName": "m"}}, bubbles=bubbles).model == "m"


def test_the_timestamp_falls_back_to_composer_created_at() -> None:
    assert meta_of({}, {"createdAt": CREATED_MS}, created_at=0).timestamp == CREATED
    # Neither time usable (an out-of-range one included): the epoch, never the clock, so a
    # listing and a load of the same session agree (a kimi_cli session with no times, hopped
    # into Cursor desktop, listed "now" and loaded a moment later).
    assert meta_of({}, {"createdAt": 10**20}, created_at=-5).timestamp == EPOCH
    assert meta_of({}, {}, created_at=0).timestamp == EPOCH


def test_derive_meta_from_extracted_fields_equals_the_loaded_meta() -> None:
    native = text.from_text(EXAMPLE_TEXT)
    head = json.loads(native.header)
    fields = codec.composer_fields(json.loads(native.composer_data or "{}"))
    assert fields == {
        "name": "Run the tests, then check config.yaml",
        "createdAt": 1786948236174,
        "modelName": "claude-fable-5",
    }
    derived = codec.derive_meta(head["composerId"], native.created_at, head, fields)
    assert derived == codec.to_common(native).meta
    fallback = codec.derive_meta("x", 0, None, {"createdAt": None, "modelName": None})
    assert (fallback.id, fallback.model, fallback.title, fallback.cwd) == ("x", None, None, None)
