"""Writing Common as a Cursor desktop session (facts §17): exact bodies, and any Common value."""

from __future__ import annotations

import json
import uuid
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sessions import (
    CID,
    CREATED,
    CREATED_MS,
    DATA,
    at,
    json_values,
    prose,
    texts,
    times,
    tools,
    usages,
)

from txcript.harnesses.cursor_desktop import codec, text
from txcript.harnesses.cursor_desktop.native import CursorSession
from txcript.model import (
    Artifact,
    ArtifactRef,
    Bash,
    Command,
    Edit,
    Image,
    ImageSource,
    Message,
    Meta,
    Raw,
    Read,
    Text,
    TextSource,
    Thinking,
    ToolResult,
    ToolUse,
    Transcript,
    Usage,
    Write,
)
from txcript.shared.fileuri import file_uri, path_from_file_uri

NS = uuid.UUID("6b1d0c5d-2e9a-4f1b-8c3e-7a21307bc742")
TEMPLATE = json.loads(
    (
        DATA.parents[2] / "src/txcript/harnesses/cursor_desktop/composer_data_template.json"
    ).read_text()
)

EMPTY_LISTS = [
    "approximateLintErrors",
    "lints",
    "codebaseContextChunks",
    "commits",
    "pullRequests",
    "attachedCodeChunks",
    "assistantSuggestedDiffs",
    "gitDiffs",
    "interpreterResults",
    "images",
    "attachedFolders",
    "attachedFoldersNew",
    "userResponsesToSuggestedCodeBlocks",
    "suggestedCodeBlocks",
    "diffsForCompressingFiles",
    "relevantFiles",
    "toolResults",
    "notepads",
    "capabilities",
    "multiFileLinterErrors",
    "diffHistories",
    "recentLocationsHistory",
    "recentlyViewedFiles",
    "fileDiffTrajectories",
    "docsReferences",
    "webReferences",
    "aiWebSearchResults",
    "attachedFoldersListDirResults",
    "humanChanges",
    "summarizedComposers",
    "cursorRules",
    "contextPieces",
]
FALSE_FLAGS = (
    "isAgentic",
    "existedSubsequentTerminalCommand",
    "existedPreviousTerminalCommand",
    "attachedHumanChanges",
)
CONTEXT_LISTS = [
    "composers",
    "selectedCommits",
    "selectedPullRequests",
    "selectedImages",
    "selectedDocuments",
    "selectedVideos",
    "folderSelections",
    "fileSelections",
    "terminalFiles",
    "selections",
    "terminalSelections",
    "selectedDocs",
    "externalLinks",
    "cursorRules",
    "cursorCommands",
    "gitPRDiffSelections",
    "subagentSelections",
    "browserSelections",
    "extraContext",
]
MENTION_LISTS = [
    "gitDiff",
    "gitDiffFromBranchToMain",
    "diffHistory",
    "uiElementSelections",
    "consoleLogs",
    "ideEditorsState",
]


def bubbles(native: CursorSession) -> list[dict[str, Any]]:
    return [json.loads(row.value) for row in native.bubbles]


def composer(native: CursorSession) -> dict[str, Any]:
    assert native.composer_data is not None
    parsed: dict[str, Any] = json.loads(native.composer_data)
    return parsed


def entries(native: CursorSession) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = composer(native)["fullConversationHeadersOnly"]
    return listed


def head(native: CursorSession) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(native.header)
    return parsed


def transcript(*messages: Message, **meta: Any) -> Transcript:
    fields: dict[str, Any] = {"id": CID, "timestamp": CREATED, **meta}
    return Transcript(meta=Meta(**fields), messages=messages)


def say(text_: str, clock: str = "06:30:40.000") -> Message:
    return Message("user", (Text(text_),), at(clock))


def reply(*blocks: Any, clock: str = "06:30:41.000", **kwargs: Any) -> Message:
    return Message("assistant", tuple(blocks), at(clock), **kwargs)


def answer(call_id: str, content: Any, clock: str = "06:30:42.000", error: bool = False) -> Message:
    return Message("user", (ToolResult(call_id, content, is_error=error),), at(clock))


# ------------------------------------------------------------------------- checklist A.2

FIXPOINT = Transcript(
    meta=Meta(id=CID, timestamp=CREATED, cwd="/repo", title="Fixpoint", model="composer-2"),
    messages=(
        Message("user", (Text("run the tests"),), at("06:30:36.299")),
        Message(
            "assistant",
            (
                Thinking("planning", signature="sig-9"),
                Text("Running them now."),
                ToolUse("call-a", Bash(command="cargo test", workdir="/repo", timeout_ms=30000)),
            ),
            at("06:30:41.992"),
            model="composer-2",
            usage=Usage(input_tokens=12, output_tokens=7),
        ),
        Message("user", (ToolResult("call-a", {"output": "ok", "exit": 0}),), at("06:30:47.500")),
        Message(
            "assistant",
            (
                ToolUse(
                    "call-b",
                    Raw(tool_name="ask_question", input={"title": "Pick one", "questions": []}),
                ),
            ),
            at("06:30:50.000"),
        ),
        Message(
            "user",
            (ToolResult("call-b", "interrupted, not valid JSON", is_error=True),),
            at("06:30:50.000"),
        ),
        Message("assistant", (Text("All green."),), at("06:30:50.000")),
    ),
)


def test_the_common_fixpoint_loses_nothing() -> None:
    assert codec.to_common(codec.from_common(FIXPOINT)) == FIXPOINT


def test_from_common_is_deterministic() -> None:
    first, second = codec.from_common(FIXPOINT), codec.from_common(FIXPOINT)
    assert text.to_text(first) == text.to_text(second)
    assert [b["bubbleId"] for b in bubbles(first)] == [
        str(uuid.uuid5(NS, f"{CID}:{i}:{j}"))
        for i, j in [(0, 0), (1, 0), (1, 1), (1, 2), (3, 0), (5, 0)]
    ]
    assert str(uuid.uuid5(NS, f"{CID}:0:0")) == "2efa3f43-6b3d-5ded-944c-f9dd120da5cf"


def test_a_cross_harness_edit_is_written_under_its_canonical_name_and_reads_back_typed() -> None:
    edit = Edit(file_path="/repo/a.rs", old_string="i <= n", new_string="i < n")
    common = transcript(
        say("fix the bug"),
        reply(ToolUse("call-1", edit), clock="06:30:42.000"),
        answer("call-1", "patched"),
        reply(Text("done"), clock="06:30:43.000"),
        title="fix the bug",
    )
    native = codec.from_common(common)
    former = bubbles(native)[1]["toolFormerData"]
    assert (former["name"], "tool" in former) == ("Edit", False)
    assert "toolFormerTool" not in entries(native)[1]["grouping"]
    assert json.loads(former["params"]) == {
        "file_path": "/repo/a.rs",
        "old_string": "i <= n",
        "new_string": "i < n",
    }
    assert codec.to_common(native) == common


# ---------------------------------------------------------------------------------- writer


def test_every_bubble_carries_the_full_skeleton() -> None:
    for bubble in bubbles(codec.from_common(FIXPOINT)):
        assert all(bubble[key] == [] for key in EMPTY_LISTS)
        assert all(bubble[key] is False for key in FALSE_FLAGS)
        assert (bubble["_v"], bubble["requestId"], bubble["conversationState"]) == (3, "", "~")
        assert (bubble["unifiedMode"], isinstance(bubble["text"], str)) == (2, True)
        assert bubble["type"] in (1, 2) and isinstance(bubble["richText"], str)
    thinking, tool_ = (
        bubbles(codec.from_common(FIXPOINT))[1],
        bubbles(codec.from_common(FIXPOINT))[3],
    )
    assert thinking["text"] == tool_["text"] == ""
    assert len(EMPTY_LISTS) == 32


def test_a_user_bubble_has_prose_mirror_rich_text_the_empty_context_and_the_default_model() -> None:
    (bubble,) = bubbles(codec.from_common(transcript(say("a\nb"))))
    assert bubble["richText"] == (
        '{"content":[{"content":[{"text":"a\\nb","type":"text"}],"type":"paragraph"}],"type":"doc"}'
    )
    assert bubble["modelInfo"] == {"modelName": "default"}
    context = bubble["context"]
    assert set(context) == {*CONTEXT_LISTS, "mentions"}
    assert all(context[key] == [] for key in CONTEXT_LISTS)
    mentions = context["mentions"]
    assert {k for k, v in mentions.items() if v == []} == set(MENTION_LISTS)
    assert {k for k, v in mentions.items() if v == {}} == set(CONTEXT_LISTS) - {"extraContext"}
    assert bubble["tokenCount"] == {"inputTokens": 0, "outputTokens": 0}


def test_user_texts_join_with_a_blank_line_and_whitespace_only_text_reads_back_as_nothing() -> None:
    joined = Message(
        "user",
        (Text("one"), Image(ImageSource("base64", "image/png", "AA==")), Text("two")),
        at("06:30:40.000"),
    )
    spaces = Message("user", (Text(" "),), at("06:30:41.000"))
    native = codec.from_common(transcript(joined, spaces, title="t"))
    assert [b["text"] for b in bubbles(native)] == ["one\n\ntwo", " "]
    assert codec.to_common(native).messages == (
        Message("user", (Text("one\n\ntwo"),), at("06:30:40.000")),
    )


def test_grouping_flags_follow_the_bubble_kind() -> None:
    short = "é" * 49 + "a"  # 99 bytes
    long_ = "é" * 50  # 100 bytes
    common = transcript(
        say(short),
        say(long_, "06:30:40.500"),
        reply(
            Thinking("t"),
            Text("x" * 130),
            ToolUse("c1", Read(file_path="/f")),
            ToolUse("c2", Raw(tool_name="glob_file_search", input={})),
        ),
        answer("c2", "found"),
    )
    groupings = [e["grouping"] for e in entries(codec.from_common(common))]
    base = {"isRenderable": True, "toolDisplayComputed": True}
    assert groupings == [
        base | {"hasText": True, "textPreview": short, "isShortPlainText": True},
        base | {"hasText": True, "textPreview": long_, "isShortPlainText": False},
        base | {"capabilityType": 30, "hasThinking": True, "thinkingDurationMs": 0},
        base
        | {
            "hasText": True,
            "textPreview": "x" * 120,
            "isKeptFinalAiVisibleOutsideWorkedForGroup": True,
        },
        base
        | {
            "capabilityType": 15,
            "isToolGroupable": True,
            "toolFormerTool": 40,
            # c1 has no result although the session goes on: the writer closes it.
            "toolFormerStatus": "error",
            "toolCallId": "c1",
        },
        base
        | {
            "capabilityType": 15,
            "isToolGroupable": True,
            "toolFormerTool": 42,
            "toolFormerStatus": "completed",
            "toolCallId": "c2",
        },
    ]
    preview = entries(codec.from_common(transcript(say("😀" * 121))))[0]["grouping"]["textPreview"]
    assert preview == "😀" * 120


def test_header_entries_carry_type_and_created_at_and_a_tool_entry_the_result_time() -> None:
    common = transcript(
        say("go", "06:30:40.000"),
        reply(ToolUse("c1", Write(file_path="/f", content="x")), clock="06:30:41.000"),
        answer("c1", "written", "06:30:49.123", error=True),
    )
    native = codec.from_common(common)
    assert [(e["type"], e["createdAt"]) for e in entries(native)] == [
        (1, "2026-08-17T06:30:40.000Z"),
        (2, "2026-08-17T06:30:49.123Z"),
    ]
    assert [e["bubbleId"] for e in entries(native)] == [b["bubbleId"] for b in bubbles(native)]
    assert set(entries(native)[0]) == {"bubbleId", "createdAt", "grouping", "type"}
    former = bubbles(native)[1]["toolFormerData"]
    assert (former["status"], former["result"], former["rawArgs"]) == ("error", "written", "")


def test_the_name_falls_back_to_the_first_user_text_then_imported_session() -> None:
    def name(common: Transcript) -> tuple[str, str]:
        native = codec.from_common(common)
        return head(native)["name"], composer(native)["name"]

    long_text = "  first line\n" + "w" * 200
    untitled = transcript(reply(Text("hi")), say(" "), say(long_text), say("later"))
    expected = ("first line\n" + "w" * 200)[:120]
    assert name(untitled) == (expected, expected)
    assert name(transcript(reply(Text("only the assistant spoke")))) == ("Imported session",) * 2
    assert name(transcript(say("x"), title="  Padded title ")) == ("  Padded title ",) * 2
    assert name(transcript(say("x"), title=" ")) == ("x", "x")


def test_composer_data_is_the_template_plus_six_keys_compact_and_sorted() -> None:
    native = codec.from_common(FIXPOINT)
    document = composer(native)
    changed = {k for k in document if document[k] != TEMPLATE.get(k, object())}
    assert changed == {
        "composerId",
        "name",
        "createdAt",
        "lastUpdatedAt",
        "fullConversationHeadersOnly",
        "modelConfig",
    }
    assert document["modelConfig"] == {
        "maxMode": False,
        "modelName": "composer-2",
        "selectedModels": [{"modelId": "composer-2", "parameters": []}],
    }
    assert (document["createdAt"], document["lastUpdatedAt"]) == (CREATED_MS, CREATED_MS)
    assert document["workspaceIdentifier"] == {"id": "empty-window"}
    assert document["status"] == "none"
    assert native.composer_data == json.dumps(
        document, separators=(",", ":"), sort_keys=True, ensure_ascii=False
    )
    assert codec.from_common(transcript(say("x"))).composer_data is not None
    assert (
        composer(codec.from_common(transcript(say("x"))))["modelConfig"]["modelName"] == "default"
    )


def test_the_session_row_uses_the_start_time_everywhere() -> None:
    native = codec.from_common(FIXPOINT)
    assert (native.created_at, native.last_updated_at, native.recency) == (CREATED_MS,) * 3
    assert (native.workspace_id, native.checkpoint_at, native.aux) == (None, None, ())
    assert (native.is_archived, native.is_subagent) == (False, False)
    assert all(
        row.key == f"bubbleId:{CID}:{json.loads(row.value)['bubbleId']}" for row in native.bubbles
    )
    assert all(
        row.value
        == json.dumps(
            json.loads(row.value), separators=(",", ":"), sort_keys=True, ensure_ascii=False
        )
        for row in native.bubbles
    )


def test_the_head_has_no_workspace_without_a_cwd() -> None:
    document = head(codec.from_common(transcript(say("x"), title="T")))
    assert document == {
        "type": "head",
        "composerId": CID,
        "name": "T",
        "createdAt": CREATED_MS,
        "lastUpdatedAt": CREATED_MS,
        "unifiedMode": "agent",
        "forceMode": "edit",
        "isDraft": False,
        "isArchived": False,
    }


def test_the_head_workspace_uri_is_percent_encoded_like_vs_code() -> None:
    def workspace(cwd: str) -> tuple[Any, Any]:
        document = head(codec.from_common(transcript(say("x"), title="T", cwd=cwd)))
        return document["workspaceIdentifier"], document["trackedGitRepos"]

    identifier, repos = workspace("/Users/me/My Proj/é")
    assert identifier == {
        "id": "",
        "uri": {
            "$mid": 1,
            "external": "file:///Users/me/My%20Proj/%C3%A9",
            "fsPath": "/Users/me/My Proj/é",
            "path": "/Users/me/My Proj/é",
            "scheme": "file",
        },
    }
    assert repos == [{"branches": [], "repoPath": "/Users/me/My Proj/é"}]
    windows, _ = workspace("C:\\Users\\me\\x")
    assert windows["uri"]["external"] == "file:///c%3A/Users/me/x"
    assert windows["uri"]["path"] == "/C:/Users/me/x"
    assert windows["uri"]["fsPath"] == "C:\\Users\\me\\x"
    unc, _ = workspace("\\\\Server\\share\\dir")
    assert unc["uri"]["external"] == "file://server/share/dir"
    assert [path_from_file_uri(file_uri(p)) for p in ("/a b/é", "C:\\x\\y", "\\\\Srv\\s")] == [
        "/a b/é",
        "c:\\x\\y",
        "\\\\srv\\s",
    ]
    assert path_from_file_uri("https://example.com/x") is None
    empty, repos = workspace("")
    assert (empty["uri"]["fsPath"], repos) == ("", [{"branches": [], "repoPath": ""}])
    assert (
        codec.to_common(codec.from_common(transcript(say("x"), title="T", cwd=""))).meta.cwd is None
    )


def test_an_empty_meta_id_mints_a_uuid5_session_id() -> None:
    common = Transcript(Meta(id="", timestamp=CREATED), (say("x"),))
    native = codec.from_common(common)
    assert head(native)["composerId"] == "10ba22e5-6ea3-5ef6-be4f-efd45f85b0f1"
    assert codec.from_common(common) == native
    titled = Transcript(Meta(id="", timestamp=CREATED, title="T"), ())
    assert head(codec.from_common(titled))["composerId"] == str(
        uuid.uuid5(NS, f"session:{CREATED_MS}:T")
    )


def test_bash_and_read_are_written_as_the_app_tools() -> None:
    common = transcript(
        reply(
            ToolUse("b1", Bash(command="ls", description="list", run_in_background=True)),
        ),
        reply(ToolUse("b2", Bash(command="make", workdir="/w", timeout_ms=5))),
        reply(ToolUse("r1", Read(file_path="/f", offset=0, limit=3))),
    )
    formers = [b["toolFormerData"] for b in bubbles(codec.from_common(common))]
    assert [(f["name"], f["tool"], json.loads(f["params"])) for f in formers] == [
        (
            "run_terminal_command_v2",
            15,
            {"command": "ls", "cwd": "", "commandDescription": "list", "isBackground": True},
        ),
        (
            "run_terminal_command_v2",
            15,
            {"command": "make", "cwd": "/w", "options": {"timeout": 5}},
        ),
        ("read_file_v2", 40, {"targetFile": "/f", "offset": 0, "limit": 3}),
    ]
    assert formers[0]["params"] == (
        '{"command":"ls","commandDescription":"list","cwd":"","isBackground":true}'
    )


def test_results_for_unknown_or_later_calls_are_dropped_and_the_last_result_wins() -> None:
    common = transcript(
        answer("c1", "too early", "06:30:40.000"),
        reply(ToolUse("c1", Raw(tool_name="x_tool", input={}))),
        Message(
            "user",
            (
                ToolResult("c1", "first"),
                ToolResult("zz", "unknown"),
                ToolResult("c1", {"b": 1, "a": [2]}),
            ),
            at("06:30:45.000"),
        ),
    )
    (bubble,) = bubbles(codec.from_common(common))
    assert bubble["toolFormerData"]["result"] == '{"a":[2],"b":1}'
    assert bubble["createdAt"] == "2026-08-17T06:30:45.000Z"


def test_a_tool_only_message_takes_the_result_time_after_a_round_trip() -> None:
    common = transcript(
        reply(ToolUse("c1", Raw(tool_name="x_tool", input={})), clock="06:30:41.000"),
        answer("c1", "done", "06:30:44.000"),
    )
    back = codec.to_common(codec.from_common(common))
    assert [m.timestamp for m in back.messages] == [at("06:30:44.000"), at("06:30:44.000")]


def test_images_artifacts_encrypted_thinking_and_user_commands_are_dropped() -> None:
    artifact = Artifact(ArtifactRef("a1", "notes.md", TextSource("hello")))
    common = transcript(
        Message(
            "user",
            (ToolUse("cmd", Command("/release", "now")), Text("ship it")),
            at("06:30:40.000"),
        ),
        reply(
            Image(ImageSource("base64", "image/png", "AA==")),
            artifact,
            Thinking("why", encrypted="enc"),
            Text("ok"),
        ),
        title="T",
    )
    native = codec.from_common(common)
    assert [b["bubbleId"] for b in bubbles(native)] == [
        str(uuid.uuid5(NS, f"{CID}:{i}:{j}")) for i, j in [(0, 0), (1, 2), (1, 3)]
    ]
    assert codec.to_common(native).messages == (
        Message("user", (Text("ship it"),), at("06:30:40.000")),
        reply(Thinking("why"), Text("ok")),
    )


def test_a_json_shaped_text_result_comes_back_as_compact_json() -> None:
    common = transcript(
        reply(ToolUse("c", Raw(tool_name="x_tool", input={}))), answer("c", '{"b": 1, "a": 2}')
    )
    native = codec.from_common(common)
    assert bubbles(native)[0]["toolFormerData"]["result"] == '{"b": 1, "a": 2}'
    assert codec.to_common(native).messages[-1].content == (ToolResult("c", {"a": 2, "b": 1}),)


# ------------------------------------------------------------------------------ property

blocks_any = st.one_of(
    prose,
    st.builds(Thinking, texts, signature=st.none() | texts, encrypted=st.none() | texts),
    st.builds(ToolUse, texts, tools),
    st.builds(ToolResult, texts, json_values, is_error=st.booleans()),
    st.builds(Image, st.builds(ImageSource, type=texts, media_type=texts, data=texts)),
    st.builds(
        Artifact, st.builds(ArtifactRef, id=texts, name=texts, source=st.builds(TextSource, texts))
    ),
)
anything = st.builds(
    Transcript,
    meta=st.builds(
        Meta,
        id=texts,
        timestamp=times,
        cwd=st.none() | texts,
        title=st.none() | texts,
        model=st.none() | texts,
    ),
    messages=st.lists(
        st.builds(
            Message,
            role=st.sampled_from(["user", "assistant"]),
            content=st.lists(blocks_any, max_size=4).map(tuple),
            timestamp=times,
            model=st.none() | texts,
            usage=usages,
        ),
        max_size=6,
    ).map(tuple),
)


@settings(max_examples=150, deadline=None)
@given(anything)
def test_from_common_never_fails_and_its_output_reads_back(common: Transcript) -> None:
    native = codec.from_common(common)
    assert codec.from_common(common) == native
    back = codec.to_common(native)
    assert back.meta.id == (common.meta.id or head(native)["composerId"])
    # Reading again changes nothing but, possibly, timestamps: a message takes the time of its
    # first bubble even when that bubble is blank (facts §10) and so is not written again.
    again = codec.to_common(codec.from_common(back))
    assert again.meta == back.meta
    assert [(m.role, m.content, m.model, m.usage) for m in again.messages] == [
        (m.role, m.content, m.model, m.usage) for m in back.messages
    ]
