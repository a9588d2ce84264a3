"""A Gemini chat rewound many times replays in linear time, and the store's listing is kept in
the metadata cache as the other file stores keep theirs.

Found by an attack pass: a chat whose messages are re-appended and rewound (``$rewindTo``)
50,000 times took ``view`` 56 s and ``list`` 26 s, and every ``list`` read it again. Each
rewind searched the message order for its target; the place of each message is now kept
beside it. No test here measures time: the replay's comparisons are counted instead."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from gemini_fixtures import build_store

from txcript.harnesses.gemini import native
from txcript.harnesses.gemini.store import GeminiStore

OLD_NS = 1_780_000_000_000_000_000  # settled long ago


class Counted(str):
    """A message id that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _record(ident: str) -> dict[str, Any]:
    return {"id": ident, "type": "user", "content": [{"text": "x"}]}


def test_replaying_many_rewinds_compares_each_id_a_bounded_number_of_times() -> None:
    messages, rewinds = 1000, 2000
    ids = [Counted(f"m{n}") for n in range(messages)]
    header = {"sessionId": "s", "projectHash": "p", "startTime": "2026-01-01T00:00:00Z"}
    values: list[Any] = [header, *(_record(i) for i in ids)]
    for _ in range(rewinds):  # rewind the last message, and write it again
        values += [{"$rewindTo": Counted(ids[-1])}, _record(ids[-1])]
    Counted.compared = 0
    chat = native.replay_values(values, "chat")
    assert [m["id"] for m in chat.messages] == ids
    # Searching the order compared the target with every message before it: 2,000,000 here.
    assert Counted.compared < 10 * (messages + rewinds)


def test_the_listing_is_cached_per_file_and_equals_a_cold_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / ".gemini"
    paths = build_store(root)
    for path in paths.values():
        os.utime(path, ns=(OLD_NS, OLD_NS))
    cold = sorted(GeminiStore(root).discover(), key=lambda d: d.reference)
    read: list[Path] = []
    original = GeminiStore._scan

    def counted(self: GeminiStore, path: Path) -> Any:
        read.append(path)
        return original(self, path)

    monkeypatch.setattr(GeminiStore, "_scan", counted)
    warm = sorted(GeminiStore(root).discover(), key=lambda d: d.reference)
    assert warm == cold and read == []  # nothing read: every file is as it was listed
    log = paths["log"]
    log.write_text(log.read_text() + '{"$set": {"summary": "Renamed"}}\n')
    os.utime(log, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    again = {d.reference: d for d in GeminiStore(root).discover()}
    assert read == [log]  # only the file that changed
    assert again[str(log)].title == "Renamed"
