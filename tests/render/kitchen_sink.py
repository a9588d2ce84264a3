"""A synthetic session holding every block and typed tool, hostile text and long output.

It feeds the golden files, the browser test and the README screenshot. Everything is fixed
(no clock, no randomness), so its renderings are byte-stable.
"""

from __future__ import annotations

import base64
import struct
import zlib
from datetime import UTC, datetime, timedelta

from txcript import model as m

START = datetime(2026, 11, 30, 9, 15, 0, tzinfo=UTC)


def _png(width: int, height: int) -> str:
    """A small gradient PNG, built here so the session carries a real, visible image."""
    rows = b"".join(
        b"\0" + bytes(c for x in range(width) for c in (40 + x, 90 + y, 200 - x // 2))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data)
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
    png += chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


PNG = _png(80, 32)
#: What a successful injection would set; the browser test checks it stays unset.
MARKER = "__txcriptInjected"
SCRIPT_PAYLOAD = f"<script>window.{MARKER} = 1</script>"
ONERROR_PAYLOAD = f'<img src=x onerror="window.{MARKER} = 2">'
LONG_OUTPUT = "\n".join(f"line {n:03d}: test_case_{n} ... ok" for n in range(1, 121))


def _at(seconds: int) -> datetime:
    return START + timedelta(seconds=seconds)


def _user(seconds: int, *blocks: m.Block) -> m.Message:
    return m.Message(role="user", content=blocks, timestamp=_at(seconds))


def _assistant(seconds: int, *blocks: m.Block, **extra: object) -> m.Message:
    return m.Message(
        role="assistant",
        content=blocks,
        timestamp=_at(seconds),
        usage=m.Usage(input_tokens=1200, output_tokens=80),
        **extra,  # type: ignore[arg-type]
    )


def kitchen_sink() -> m.Transcript:
    meta = m.Meta(
        id="ks-0001",
        timestamp=START,
        cwd="/home/dev/src/parser",
        git_branch="fix/unicode",
        title="Fix the tokenizer: unicode ✓, `backticks` & <tags>",
        cli_version="1.2.3",
        model="claude-opus-4-8",
    )
    messages = (
        _user(
            0,
            m.Text(
                "The tokenizer breaks on non-ASCII input — e.g. `naïve café 東京 🚀`.\n"
                "Can you fix it? Here is a screenshot of the failure:"
            ),
            m.Image(m.ImageSource("base64", "image/png", PNG)),
        ),
        _assistant(
            4,
            m.Thinking(
                "The lexer probably slices bytes, not code points.\n"
                "Careful: a stray </details> here must not close the block.",
                signature="sig-opaque",
            ),
            m.Text("Let me look at the lexer first."),
            m.ToolUse("call_read", m.Read(file_path="src/lexer.py", offset=10, limit=20)),
            stop_reason="tool_use",
        ),
        _user(
            5,
            m.ToolResult(
                "call_read",
                "def next_token(self):\n    ch = self.buf[self.pos]\n    ```fence inside```\n"
                "    </details><script>alert(1)</script>\n",
            ),
        ),
        _assistant(
            9,
            m.ToolUse(
                "call_edit",
                m.Edit(
                    file_path="src/lexer.py",
                    old_string="    ch = self.buf[self.pos]\n    self.pos += 1",
                    new_string="    ch = self.text[self.pos]\n    self.pos += len(ch)",
                ),
            ),
            m.ToolUse(
                "call_multi",
                m.MultiEdit(
                    file_path="src/tokens.py",
                    edits=(
                        m.EditSpec(old_string="ASCII = True", new_string="ASCII = False"),
                        m.EditSpec(old_string="bytes", new_string="str", replace_all=True),
                    ),
                ),
            ),
            m.ToolUse(
                "call_write",
                m.Write(
                    file_path="tests/test_unicode.py",
                    content='def test_cafe():\n    assert tokens("café") == ["café"]\n',
                ),
            ),
        ),
        _user(
            10,
            m.ToolResult("call_edit", "The file src/lexer.py has been updated."),
            m.ToolResult("call_multi", {"applied": 2, "file": "src/tokens.py"}),
            m.ToolResult("call_write", "File created: tests/test_unicode.py"),
        ),
        _assistant(
            14,
            m.ToolUse(
                "call_bash",
                m.Bash(
                    command="pytest -q tests/ && echo '```' done",
                    description="Run the test suite",
                    timeout_ms=120000,
                ),
            ),
        ),
        _user(20, m.ToolResult("call_bash", LONG_OUTPUT)),
        _assistant(
            24,
            m.ToolUse("call_raw", m.Raw(tool_name="mcp__search__grep", input={"pattern": "ß|ẞ"})),
            m.ToolUse("call_fail", m.Bash(command="rm -rf /tmp/nonexistent/ && false")),
        ),
        _user(
            25,
            m.ToolResult("call_raw", [{"path": "src/lexer.py", "line": 12}]),
            m.ToolResult("call_fail", "Exit code 1\npermission denied", is_error=True),
        ),
        _user(
            30,
            m.ToolUse("cmd_1", m.Command(command="/review", args="--strict")),
            m.ToolResult("cmd_1", "Review the diff and list the risks."),
            m.Text(f"Also, this must stay text: {SCRIPT_PAYLOAD} {ONERROR_PAYLOAD}"),
        ),
        _assistant(
            36,
            m.Thinking("", encrypted="gAAAA-opaque"),
            m.Text(
                "Fixed. The lexer now walks code points.\n\n"
                "| before | after |\n|---|---|\n| bytes | str |\n"
            ),
            m.Artifact(
                m.ArtifactRef("a1", "plan.md", m.TextSource("# Plan\n1. walk code points\n"))
            ),
            m.Artifact(m.ArtifactRef("a2", "notes.txt", m.PathSource("/tmp/notes.txt"))),
            m.Artifact(m.ArtifactRef("a3", "trace.bin", m.Base64Source("AAECAw==", "x-binary"))),
            model="claude-sonnet-4-6",
            stop_reason="max_tokens",
        ),
    )
    return m.Transcript(meta=meta, messages=messages)
