"""Each Cline, Roo and Kilo fixture gives exactly this Common transcript, through the real store.

One fixture per format generation: Cline's XML tool era (index ``state/taskHistory.json``) and
native tool era (index in VS Code Insiders' ``state.vscdb``), a Cline CLI session, a Roo task
indexed in VSCodium's ``state.vscdb``, a Roo 2026 task with its own ``history_item.json``, Kilo's
``kilo.db`` and a task of Kilo's older extension in Cursor.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cline_fixtures as f
import pytest

from txcript import harnesses
from txcript import model as m

XML_ERA = {
    "meta": {
        "id": "1772359200000",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/home/dev/calc",
        "title": "Why does total(3) give 6?",
        "model": "claude-sonnet-4-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nWhy does total(3) give 6?\n</task>"},
                {
                    "type": "text",
                    "text": "<environment_details>\n"
                    "# VSCode Visible Files\n"
                    "src/calc.py\n"
                    "\n"
                    "# Current Working Directory (/home/dev/calc) Files\n"
                    "src/\n"
                    "src/calc.py\n"
                    "tests/\n"
                    "</environment_details>",
                },
            ],
            "timestamp": "2026-03-01T10:00:00.100Z",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "<thinking>Read the function first.</thinking>"},
                {
                    "type": "tool_use",
                    "id": "call_a24a44e1b0e45aa680df72e7",
                    "tool": {"name": "Read", "file_path": "src/calc.py"},
                },
            ],
            "timestamp": "2026-03-01T10:00:02Z",
            "model": "claude-sonnet-4-5",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_a24a44e1b0e45aa680df72e7",
                    "content": "def total(n):\n    return sum(range(n + 1))",
                },
                {
                    "type": "text",
                    "text": "<environment_details>\n"
                    "# VSCode Visible Files\n"
                    "src/calc.py\n"
                    "\n"
                    "# Current Working Directory (/home/dev/calc) Files\n"
                    "src/\n"
                    "src/calc.py\n"
                    "tests/\n"
                    "</environment_details>",
                },
            ],
            "timestamp": "2026-03-01T10:00:03Z",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "The range includes n. Running the tests:"},
                {
                    "type": "tool_use",
                    "id": "call_86714cb73cda58a0aa4d1f9a",
                    "tool": {"name": "Bash", "command": "pytest -q"},
                },
            ],
            "timestamp": "2026-03-01T10:00:05Z",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_86714cb73cda58a0aa4d1f9a",
                    "content": "The tool execution failed with the following error:\n"
                    "<error>\n"
                    "pytest: command not found\n"
                    "</error>",
                    "is_error": True,
                }
            ],
            "timestamp": "2026-03-01T10:00:06Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "<attempt_completion>\n"
                    "<result>total(n) sums 0..n inclusive.</result>\n"
                    "</attempt_completion>",
                }
            ],
            "timestamp": "2026-03-01T10:00:08Z",
        },
    ],
}

NATIVE_ERA = {
    "meta": {
        "id": "1772445600000",
        "timestamp": "2026-03-02T10:00:00Z",
        "cwd": "/home/dev/calc",
        "title": "Rename total to sum_to",
        "model": "claude-opus-4-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nRename total to sum_to\n</task>"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"},
                },
                {
                    "type": "text",
                    "text": '{"source":{"data":"notes","media_type":"text/plain","type":"text"},'
                    '"type":"document"}',
                },
            ],
            "timestamp": "2026-03-02T10:00:00.050Z",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "A rename in one file.", "signature": "sig-1"},
                {"type": "thinking", "text": "", "encrypted": "ENCRYPTED=="},
                {"type": "text", "text": "Editing the file."},
                {
                    "type": "tool_use",
                    "id": "toolu_01Edit",
                    "tool": {
                        "name": "Edit",
                        "file_path": "src/calc.py",
                        "old_string": "def total(n):",
                        "new_string": "def sum_to(n):",
                    },
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02Grep",
                    "tool": {
                        "name": "Raw",
                        "tool_name": "search_files",
                        "input": {"path": ".", "regex": "total\\("},
                    },
                },
            ],
            "timestamp": "2026-03-02T10:00:03Z",
            "model": "claude-opus-4-5",
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01Edit",
                    "content": "The file was saved.",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02Grep",
                    "content": "permission denied",
                    "is_error": True,
                },
            ],
            "timestamp": "2026-03-02T10:00:04Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Renamed; the search was refused."}],
            "timestamp": "2026-03-02T10:00:06Z",
        },
    ],
}

CLI_SESSION = {
    "meta": {
        "id": "1772532000000_k3x9q",
        "timestamp": "2026-03-03T10:00:00.100Z",
        "cwd": "/home/dev/site",
        "title": "Add a footer to the site",
        "model": "claude-haiku-4-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": '<user_input mode="act">Add a footer</user_input>'}
            ],
            "timestamp": "2026-03-03T10:00:00.100Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_w1",
                    "tool": {
                        "name": "Write",
                        "file_path": "footer.html",
                        "content": "<footer>hi</footer>",
                    },
                }
            ],
            "timestamp": "2026-03-03T10:00:02Z",
            "model": "claude-haiku-4-5",
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_w1", "content": "written"}],
            "timestamp": "2026-03-03T10:00:03Z",
        },
    ],
}

ROO_STATE = {
    "meta": {
        "id": "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/srv/app",
        "title": "How big is the repo?",
        "model": "gpt-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "<task>\nHow big is the repo?\n</task>"},
                {
                    "type": "text",
                    "text": "<environment_details>\n"
                    "# VSCode Visible Files\n"
                    "src/calc.py\n"
                    "\n"
                    "# Current Working Directory (/srv/app) Files\n"
                    "src/\n"
                    "src/calc.py\n"
                    "tests/\n"
                    "</environment_details>",
                },
            ],
            "timestamp": "2026-03-01T10:00:00.100Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_r1",
                    "tool": {"name": "Bash", "command": "du -sh .", "workdir": "/srv/app"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_r2",
                    "tool": {"name": "Read", "file_path": "README.md"},
                },
            ],
            "timestamp": "2026-03-01T10:00:01Z",
            "model": "gpt-5",
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_r1", "content": "12M\t."},
                {"type": "tool_result", "tool_use_id": "toolu_r2", "content": "# App"},
            ],
            "timestamp": "2026-03-01T10:00:02Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Twelve megabytes."}],
            "timestamp": "2026-03-01T10:00:03Z",
        },
    ],
}

ROO_ITEM = {
    "meta": {
        "id": "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a6c",
        "timestamp": "2026-03-01T10:00:07Z",
        "cwd": "/srv/app",
        "title": "Say hello",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Say hello"}],
            "timestamp": "2026-03-01T10:00:07Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Hello."}],
            "timestamp": "2026-03-01T10:00:09Z",
        },
    ],
}

KILO_DB = {
    "meta": {
        "id": "ses_39d0c1a2b3c4KiloSessionAbCd",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/work/kilo",
        "title": "Count the lines",
        "cli_version": "1.0.3",
        "model": "claude-sonnet-4-5",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "wc -l main.go"}],
            "timestamp": "2026-03-01T10:00:00.100Z",
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_k1",
                    "tool": {"name": "Bash", "command": "wc -l main.go"},
                },
                {"type": "text", "text": "42 lines."},
            ],
            "timestamp": "2026-03-01T10:00:01.500Z",
            "model": "claude-sonnet-4-5",
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 40, "output_tokens": 9},
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_k1", "content": "42 main.go"}
            ],
            "timestamp": "2026-03-01T10:00:02Z",
        },
    ],
}

KILO_LEGACY = {
    "meta": {
        "id": "4c1f8f0e-9a2b-4c3d-8e7f-112233445566",
        "timestamp": "2026-03-01T10:00:00Z",
        "cwd": "/work/kilo",
        "title": "ping",
    },
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "ping"}],
            "timestamp": "2026-03-01T10:00:00.010Z",
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "pong"}],
            "timestamp": "2026-03-01T10:00:00.020Z",
        },
    ],
}


CASES: list[tuple[str, Callable[[Path], Path], dict[str, Any], list[str]]] = [
    ("cline", f.cline_xml_task, XML_ERA, []),
    (
        "cline",
        f.cline_native_task,
        NATIVE_ERA,
        ["1772445600000: 1 block of a kind Common has no place for kept as JSON text"],
    ),
    ("cline", f.cline_sdk_session, CLI_SESSION, []),
    ("roo", f.roo_state_task, ROO_STATE, []),
    ("roo", f.roo_item_task, ROO_ITEM, []),
    ("kilo", f.kilo_db, KILO_DB, []),
    ("kilo", f.kilo_legacy_task, KILO_LEGACY, []),
]


@pytest.mark.parametrize(
    ("harness_id", "build", "expected", "warned"),
    CASES,
    ids=[build.__name__ for _, build, _, _ in CASES],
)
def test_each_fixture_gives_exactly_its_common_transcript(
    harness_id: str,
    build: Callable[[Path], Path],
    expected: dict[str, Any],
    warned: list[str],
    tmp_path: Path,
) -> None:
    build(tmp_path)
    harness = harnesses.get(harness_id)
    store = harness.store(tmp_path)
    assert store is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (found,) = store.discover()
        transcript = harness.to_common(store.load(found.reference))
    assert json.loads(m.to_json(transcript)) == expected
    assert [str(w.message) for w in caught] == warned
    # What the listing shows is what the load gives.
    meta = transcript.meta
    assert (found.meta_id, found.timestamp, found.title, found.cwd, found.model) == (
        meta.id,
        meta.timestamp,
        meta.title,
        meta.cwd,
        meta.model,
    )
