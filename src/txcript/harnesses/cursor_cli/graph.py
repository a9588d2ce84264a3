"""The Cursor CLI turn graph: protobuf nodes, content-addressed, rooted at ``latestRootBlobId``.

Field numbers are a reconstruction (the format is undocumented; see docs/formats/cursor-cli.md):

* **root**: ``1`` the raw 32-byte digests of the conversation's JSON message blobs, in order
  (repeats allowed: identical messages are one blob); ``8`` the digests of its turn nodes;
  ``10`` and ``26`` the start time in epoch ms;
* **turn**: ``1`` the digest of its user-message node, ``2`` the digests of its steps;
* **user-message node**: ``1`` the prompt text, ``2`` a message uuid, ``4`` = 1;
* **step**: assistant text under ``1`` (``{1: text}``), thinking under ``3`` (``{1: text}``),
  a tool step under ``2`` holding a typed payload (shell ``1``, read ``8``, edit/write ``12``,
  each ``{1: command or path}``) and the call id at ``57``.

Reading uses the root's message list for the order of the conversation (falling back to rowid
order when the root has none). It checks the root and its turns first, so a graph with a cycle
(a turn naming the root or a turn), a dangling digest, a node that is not protobuf, or a root
that names nothing is reported with one warning and the messages are read in rowid order
instead. The check decodes each turn once and follows no chain, so no graph can make it loop.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from txcript.diagnostics import warn
from txcript.shared import protobuf as pb

from .native import Blob, blob_id

ROOT_MESSAGES, ROOT_TURNS, ROOT_STARTED, ROOT_STARTED_AGAIN = 1, 8, 10, 26
TURN_USER, TURN_STEPS = 1, 2
STEP_TEXT, STEP_TOOL, STEP_THINKING = 1, 2, 3
TOOL_SHELL, TOOL_READ, TOOL_EDIT, TOOL_CALL_ID = 1, 8, 12, 57
_DIGEST = 32


def is_json_blob(blob: Blob) -> bool:
    """JSON message blobs start with ``{``; protobuf nodes never do (0x7b is a group tag)."""
    return blob.data[:1] == b"{"


def _references(fields: list[pb.Field], numbers: tuple[int, ...]) -> list[str]:
    return [
        value.hex()
        for number, wire, value in fields
        if number in numbers and wire == pb.LEN and isinstance(value, bytes)
        if len(value) == _DIGEST
    ]


def message_order(blobs: Mapping[str, Blob], root_id: object, label: str) -> list[str] | None:
    """The ids of the JSON message blobs the root lists, in order; None means rowid order.

    None comes with a warning when the graph is broken; a root without a message list (or no
    root named at all) is a plain fallback.
    """
    if not isinstance(root_id, str) or not root_id:
        return None

    def broken(why: str) -> None:
        warn(f"{label}: the turn graph {why}; messages are read in row order")

    root = blobs.get(root_id)
    if root is None:
        broken(f"root {root_id[:16]}… (latestRootBlobId) names no blob")
        return None
    if is_json_blob(root):
        broken(f"root {root_id[:16]}… is a JSON blob, not a graph node")
        return None
    try:
        root_fields = pb.decode(root.data)
    except pb.WireError as exc:
        broken(f"root {root_id[:16]}… is not protobuf ({exc})")
        return None
    order: list[str] = []
    for digest in _references(root_fields, (ROOT_MESSAGES,)):
        target = blobs.get(digest)
        if target is None:
            broken(f"root lists message {digest[:16]}…, which is no blob (a dangling digest)")
            return None
        if is_json_blob(target):
            order.append(digest)
    problem = _walk(blobs, root_id, root_fields)
    if problem is not None:
        broken(problem)
        return None
    return order or None


def _walk(blobs: Mapping[str, Blob], root_id: str, root_fields: list[pb.Field]) -> str | None:
    """Check the root's turns and each turn's references: why the graph is unusable, or None.

    Only the root and its turns are decoded (the steps are leaves txcript does not read), so the
    check is one pass over the turns: a reference to no blob is dangling, and a turn naming the
    root or a turn closes a cycle.
    """
    turns = _references(root_fields, (ROOT_TURNS,))
    for digest in turns:
        if digest not in blobs:
            return f"root lists turn {digest[:16]}…, which is no blob (a dangling digest)"
    turn_ids = set(turns)
    for turn in dict.fromkeys(turns):
        node = blobs[turn]
        if is_json_blob(node):
            return f"turn {turn[:16]}… is a JSON blob, not a graph node"
        try:
            fields = pb.decode(node.data)
        except pb.WireError as exc:
            return f"node {turn[:16]}… is not protobuf ({exc})"
        for digest in _references(fields, (TURN_USER, TURN_STEPS)):
            if digest == root_id or digest in turn_ids:
                return f"has a cycle through node {digest[:16]}…"
            if digest not in blobs:
                return f"turn {turn[:16]}… lists {digest[:16]}…, which is no blob"
    return None


def root_started_ms(blobs: Mapping[str, Blob], root_id: object) -> int | None:
    """The root's start time (field 10), when the root decodes."""
    root = blobs.get(root_id) if isinstance(root_id, str) else None
    if root is None or is_json_blob(root):
        return None
    try:
        fields = pb.decode(root.data)
    except pb.WireError:
        return None
    for number, wire, value in fields:
        if number == ROOT_STARTED and wire == pb.VARINT and isinstance(value, int):
            return value
    return None


# ---------------------------------------------------------------------------------- writing


def text_step(text: str) -> bytes:
    return pb.bytes_field(STEP_TEXT, pb.text_field(1, text))


def thinking_step(text: str) -> bytes:
    return pb.bytes_field(STEP_THINKING, pb.text_field(1, text))


def tool_step(kind: int, subject: str, call_id: str) -> bytes:
    payload = pb.bytes_field(kind, pb.text_field(1, subject)) + pb.text_field(TOOL_CALL_ID, call_id)
    return pb.bytes_field(STEP_TOOL, payload)


@dataclass
class TurnNodes:
    """One turn being built: its user node (None before the first prompt) and its steps."""

    user: bytes | None = None
    steps: list[bytes] = field(default_factory=list)


def user_node(text: str, message_uuid: str) -> bytes:
    return pb.text_field(1, text) + pb.text_field(2, message_uuid) + pb.varint_field(4, 1)


def build(
    message_ids: list[str], turns: list[TurnNodes], started_ms: int
) -> tuple[list[bytes], bytes]:
    """Every node blob (in write order, without the root) and the root's bytes."""
    nodes: list[bytes] = []
    turn_digests: list[bytes] = []
    for turn in turns:
        parts: list[bytes] = []
        if turn.user is not None:
            nodes.append(turn.user)
            parts.append(pb.bytes_field(TURN_USER, bytes.fromhex(blob_id(turn.user))))
        for step in turn.steps:
            nodes.append(step)
            parts.append(pb.bytes_field(TURN_STEPS, bytes.fromhex(blob_id(step))))
        turn_node = pb.join(parts)
        nodes.append(turn_node)
        turn_digests.append(bytes.fromhex(blob_id(turn_node)))
    root = pb.join(
        [
            *(pb.bytes_field(ROOT_MESSAGES, bytes.fromhex(i)) for i in message_ids),
            *(pb.bytes_field(ROOT_TURNS, d) for d in turn_digests),
            pb.varint_field(ROOT_STARTED, started_ms),
            pb.varint_field(ROOT_STARTED_AGAIN, started_ms),
        ]
    )
    return nodes, root
