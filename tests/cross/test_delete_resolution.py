"""``delete`` resolves an exact id by the stores' direct lookups, with the answer a full
discovery gives: one session, or the same "is the id of sessions in" error when two stores hold
the id. Titles and prefixes still go through the full discovery (a title is refused when several
sessions share it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lookup_checks import counting_discoveries, save_sessions
from txcript import operations, sessions
from txcript.errors import BadInput
from txcript.harnesses.base import Discovered
from txcript.harnesses.claude_code.store import ClaudeCodeStore
from txcript.harnesses.codex.store import CodexStore
from txcript.shared.text import scrub

SHARED = "6b6b6b6b-0000-4000-8000-000000000001"
CLAUDE_ONLY = "6b6b0000-1111-4000-8000-000000000002"


@pytest.fixture(autouse=True)
def stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    save_sessions(
        [
            ("claude_code", SHARED, "twice", 0),
            ("codex", SHARED, "twice", 5),
            ("claude_code", CLAUDE_ONLY, "only here", 1),
        ]
    )


def by_discovery(reference: str, scope: str | None) -> Discovered | str:
    """What ``resolve_for_delete`` answered before direct lookups (the oracle)."""
    found = sessions.discover([scope] if scope else ())
    exact = {(s.harness, s.meta_id) for s in found if s.meta_id == reference}
    if scope is None and len(exact) > 1:
        return (
            f"`{scrub(reference)}` is the id of sessions in "
            + ", ".join(sorted(h for h, _ in exact))
            + "; pass --from <harness> to choose one"
        )
    try:
        return sessions.find_session(reference, found, scope, unique_title=True)
    except BadInput as exc:
        return str(exc)


def resolved(reference: str, scope: str | None) -> Discovered | str:
    try:
        return operations.resolve_for_delete(reference, scope)
    except BadInput as exc:
        return str(exc)


@pytest.mark.parametrize(
    ("reference", "scope", "direct"),
    [
        (SHARED, None, True),  # two stores hold it: the same refusal
        (SHARED, "codex", True),
        (SHARED, "claude_code", True),
        (CLAUDE_ONLY, None, True),
        ("twice", None, False),  # a shared title: refused, after a full discovery
        ("only here", None, False),
        ("6b6b0", None, False),  # a prefix: titles come first, so it needs the listing
        ("nothing-like-it", None, False),
    ],
)
def test_delete_resolves_as_a_full_discovery_does(
    monkeypatch: pytest.MonkeyPatch, reference: str, scope: str | None, direct: bool
) -> None:
    expected = by_discovery(reference, scope)
    with (
        counting_discoveries(monkeypatch, ClaudeCodeStore) as claude,
        counting_discoveries(monkeypatch, CodexStore) as codex,
    ):
        actual = resolved(reference, scope)
    assert actual == expected
    if direct:
        assert not claude and not codex, f"{reference} listed every session"
