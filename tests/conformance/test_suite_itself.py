"""The conformance suite tested on itself: it fails for a registered harness that declares no
fixture family (or nothing at all), it catches a codec that drops one tool result, and a store
that keeps what a failed write wrote or writes without its preflight.

Each case runs the real suite in a pytest subprocess with a small plugin that changes the
registry or a codec before the suite is collected, and reads its verdict and its table.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SUITE = Path(__file__).parent / "test_contracts.py"

#: A harness registered and built (Simple's module stands in for its package) as a new
#: harness's entry would be.
FAKE_HARNESS = """
import sys
from pathlib import Path

import txcript.harnesses as registry
from txcript.harnesses.declare import HarnessInfo

FAKE = HarnessInfo(
    "fakeharness",
    "A harness with no conformance declaration",
    (),
    "txcript.harnesses.simple",
    layers=dict.fromkeys(("to_common", "from_common", "from_text", "to_text"), "."),
)
registry.REGISTRY = (*registry.REGISTRY, FAKE)
registry._BY_NAME["fakeharness"] = FAKE
"""

NO_FAMILY = (
    FAKE_HARNESS
    + """
sys.path.insert(0, {conformance!r})
import contracts
from declare import Conformance

contracts._declared["fakeharness"] = Conformance(harness="fakeharness", families=())
"""
)

#: Claude Code's reader, wrapped to lose the first tool result of every transcript it reads.
DROPS_A_RESULT = """
import msgspec

from txcript import model as m
from txcript.harnesses.claude_code import reader

real = reader.to_common


def dropping(native):
    transcript = real(native)
    messages = list(transcript.messages)
    for index, message in enumerate(messages):
        kept = [b for b in message.content if not isinstance(b, m.ToolResult)]
        if len(kept) < len(message.content):
            results = [b for b in message.content if isinstance(b, m.ToolResult)]
            content = [b for b in message.content if b is not results[0]]
            messages[index] = msgspec.structs.replace(message, content=tuple(content))
            break
    return msgspec.structs.replace(transcript, messages=tuple(messages))


reader.to_common = dropping
"""


#: Claude Code's store, made to keep what a failed save wrote (its undo does nothing).
KEEPS_A_FAILED_WRITE = """
from txcript.shared import files

files.Undo.run = lambda self: None
"""

#: Claude Code's store, made to write without its preflight.
SKIPS_THE_PREFLIGHT = """
from txcript.harnesses.claude_code import store

store.preflight_write = lambda *args, **kwargs: None
"""


def run_suite(tmp_path: Path, plugin: str, selection: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "suite_plugin.py").write_text(textwrap.dedent(plugin))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "suite_plugin",
            "-p",
            "no:cacheprovider",
            "--tb=line",
            "-k",
            selection,
            str(SUITE),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def rows(output: str, harness: str) -> dict[str, str]:
    """The suite's table rows of ``harness``: contract -> verdict."""
    out = {}
    table = output.partition("conformance: one row per harness and contract")[2]
    for line in table.splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == harness:
            out[words[1]] = words[2]
    return out


def test_a_registered_harness_without_a_declaration_fails_every_contract(
    tmp_path: Path,
) -> None:
    done = run_suite(tmp_path, FAKE_HARNESS, "fakeharness")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fakeharness is registered and built but declares nothing" in done.stdout
    table = rows(done.stdout, "fakeharness")
    assert table["declared"] == "FAIL", done.stdout
    assert set(table.values()) == {"FAIL"}, table


def test_a_registered_harness_without_a_fixture_family_fails(tmp_path: Path) -> None:
    plugin = NO_FAMILY.format(conformance=str(Path(__file__).parent))
    done = run_suite(tmp_path, plugin, "fakeharness")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fakeharness declares no fixture family" in done.stdout
    assert rows(done.stdout, "fakeharness")["declared"] == "FAIL", done.stdout


@pytest.mark.parametrize(
    "selection",
    [
        # the codec fixpoint over Claude Code's representable subset
        "test_codec_fixpoint_through_common and claude_code",
        # a hop from Claude Code's parallel batches into Codex and back, and one into Claude Code
        "claude_code-parallel-calls-into-codex or cursor-current-into-claude_code",
    ],
    ids=["codec-fixpoint", "hop"],
)
def test_a_codec_that_drops_one_result_is_caught(tmp_path: Path, selection: str) -> None:
    done = run_suite(tmp_path, DROPS_A_RESULT, selection)
    assert done.returncode == 1, done.stdout + done.stderr
    table = rows(done.stdout, "claude_code") | rows(done.stdout, "cursor")
    verdicts = {contract: verdict for contract, verdict in table.items() if verdict != "skip"}
    assert verdicts and set(verdicts.values()) == {"FAIL"}, done.stdout


@pytest.mark.parametrize(
    ("plugin", "contract", "selection"),
    [
        (KEEPS_A_FAILED_WRITE, "write-refused-halfway", "halfway"),
        (SKIPS_THE_PREFLIGHT, "write-preflight", "preflight"),
    ],
    ids=["keeps-a-failed-write", "skips-the-preflight"],
)
def test_a_store_that_breaks_a_write_rule_is_caught(
    tmp_path: Path, plugin: str, contract: str, selection: str
) -> None:
    done = run_suite(tmp_path, plugin, f"claude_code-2.x and {selection}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert rows(done.stdout, "claude_code")[contract] == "FAIL", done.stdout


def test_the_same_selections_pass_with_the_real_codec(tmp_path: Path) -> None:
    """(So the failures above are the dropped result's, not the selection's.)"""
    done = run_suite(
        tmp_path,
        "",
        "(test_codec_fixpoint_through_common and claude_code) or "
        "claude_code-parallel-calls-into-codex or cursor-current-into-claude_code or "
        "(claude_code-2.x and (halfway or preflight))",
    )
    assert done.returncode == 0, done.stdout + done.stderr
