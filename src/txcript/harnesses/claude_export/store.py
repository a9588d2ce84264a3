"""The Claude export store: the export's ZIP, its unzipped folder or its ``conversations.json``.

**Root.** There is no default: an export is a file the user downloaded. ``CLAUDE_EXPORT`` names
it, and so does the PATH argument of ``txcript list/view/export/continue --from claude_export
PATH``. A ZIP is read through its ``conversations.json`` member (the shortest path of that name),
a folder through its ``conversations.json``.

**Listing** streams the array (:func:`txcript.shared.jsonstream.array_elements`): one
conversation in memory at a time, each decoded only for the fields a listing shows
(:data:`_Head`: id, name, times, the first human message), so a 1 GB export lists in one pass.
A listing is kept under the export file's change token, so an export that has not changed lists
without being read again. An element that is not a conversation is counted in one warning.

**Loading** a conversation seeks to the offset its reference records (in the decompressed
member, for a ZIP) and reads that one element; when the export has changed since it was listed,
the whole array is scanned for the id instead.

A read-only source: ``save`` and ``delete`` refuse, and nothing is ever written beside the export.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from txcript.diagnostics import warn
from txcript.errors import BadInput, StoreUnreadable, Unconvertible
from txcript.harnesses.base import Discovered, Saved
from txcript.harnesses.claude_export import codec
from txcript.harnesses.claude_export.locations import CONVERSATIONS, change_token, export_file
from txcript.harnesses.claude_export.native import HARNESS, ExportConversation
from txcript.shared.files import MAX_DOCUMENT_BYTES, modified_at, open_regular
from txcript.shared.jsonstream import array_elements
from txcript.shared.jsonutil import loads_strict

#: What separates the export's path, the element's offset and the conversation id in a reference.
_SEPARATOR = "::"


class _Human(msgspec.Struct, gc=False):
    sender: Any = None
    text: Any = None
    content: Any = None


class _Head(msgspec.Struct, gc=False):
    """The fields of a conversation a listing reads; the messages stay undecoded."""

    uuid: Any = None
    name: Any = None
    created_at: Any = None
    updated_at: Any = None
    model: Any = None
    chat_messages: list[msgspec.Raw] | None = None


_head = msgspec.json.Decoder(_Head)
_human = msgspec.json.Decoder(_Human)


def _reference(root: Path, offset: int, conversation_id: str) -> str:
    return f"{root}{_SEPARATOR}{offset}{_SEPARATOR}{conversation_id}"


def parse_reference(reference: str) -> tuple[Path, int, str]:
    path, offset, conversation_id = [*reference.rsplit(_SEPARATOR, 2), "", ""][:3]
    if not offset.isdigit():
        raise BadInput(f"{reference} is not a conversation of a Claude export")
    return Path(path), int(offset), conversation_id


class ClaudeExportStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def location(self, reference: str) -> str:
        path, _, conversation_id = parse_reference(reference)
        return f"{path} (conversation {conversation_id})"

    # -- reading the export -----------------------------------------------------------------
    @contextlib.contextmanager
    def _stream(self) -> Iterator[tuple[IO[bytes], str]]:
        """The ``conversations.json`` stream and the label errors name it by."""
        if not os.path.lexists(self.root):
            raise BadInput(f"no Claude export at {self.root}")
        target = export_file(self.root)
        handle = open_regular(target)
        try:
            import zipfile  # (only for an export read now: a held listing needs none of this)

            head = handle.read(4)
            handle.seek(0)
            archive = head.startswith(b"PK\x03\x04") or zipfile.is_zipfile(handle)
            handle.seek(0)
            if archive:
                with _zip_member(handle, target) as (member, label):
                    yield member, label
            else:
                yield handle, str(target)
        finally:
            handle.close()

    def _elements(self) -> Iterator[tuple[int, bytes]]:
        with self._stream() as (stream, label):
            yield from array_elements(stream, label, limit=MAX_DOCUMENT_BYTES)

    # -- discovery --------------------------------------------------------------------------
    def discover(self) -> list[Discovered]:
        updated = None
        with contextlib.suppress(OSError, BadInput):
            updated = modified_at(os.stat(export_file(self.root)))
        out: list[Discovered] = []
        skipped = 0
        for offset, data in self._elements():
            try:
                head = _head.decode(data)
            except (msgspec.ValidationError, msgspec.DecodeError):
                skipped += 1
                continue
            if not isinstance(head.uuid, str) or not head.uuid or head.chat_messages is None:
                skipped += 1
                continue
            first = None
            for raw in head.chat_messages:
                try:
                    message = _human.decode(raw)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    continue
                if message.sender == "human":
                    first = {"text": message.text, "content": message.content}
                    break
            meta = codec.conversation_meta(head.uuid, head.name, head.created_at, head.model, first)
            out.append(
                Discovered.from_meta(
                    HARNESS,
                    _reference(self.root, offset, head.uuid),
                    meta,
                    updated_at=updated,
                )
            )
        if skipped:
            warn(f"{self.root}: {skipped} element(s) of {CONVERSATIONS} are not conversations")
        out.sort(key=lambda d: d.timestamp, reverse=True)
        return out

    # -- load -------------------------------------------------------------------------------
    def load(self, reference: str) -> ExportConversation:
        path, offset, conversation_id = parse_reference(reference)
        store = self if path == self.root else ClaudeExportStore(path)
        found = store._at(offset, conversation_id)
        if found is None:
            found = store._find(conversation_id)
        if found is None:
            raise BadInput(f"no conversation {conversation_id} in the Claude export {path}")
        return found

    def _at(self, offset: int, conversation_id: str) -> ExportConversation | None:
        """The conversation at ``offset`` when it is the one named (the export unchanged)."""
        with self._stream() as (stream, label):
            try:
                stream.seek(offset)
            except (OSError, ValueError):
                return None
            try:
                _, data = next(array_elements(_Prefixed(stream), label, limit=MAX_DOCUMENT_BYTES))
            except (StopIteration, StoreUnreadable):
                return None
        conversation = _parsed(data)
        if (
            isinstance(conversation.value, dict)
            and conversation.value.get("uuid") == conversation_id
        ):
            return conversation
        return None

    def _find(self, conversation_id: str) -> ExportConversation | None:
        for _, data in self._elements():
            head = None
            with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
                head = _head.decode(data)
            if head is not None and head.uuid == conversation_id:
                return _parsed(data)
        return None

    # -- read-only --------------------------------------------------------------------------
    def save(self, native: ExportConversation, *, force: bool = False) -> Saved:
        raise Unconvertible(HARNESS, "a Claude account export is a read-only source")

    def delete(self, reference: str, *, force: bool = False) -> None:
        raise BadInput(
            "a Claude account export is read-only: txcript never changes it (delete the "
            "conversation on claude.ai, or the export file itself)"
        )

    def fingerprints(self, references: Iterable[str]) -> dict[str, str]:
        """Every conversation of an export changes with the export file: its token for each."""
        out: dict[str, str] = {}
        for reference in references:
            with contextlib.suppress(BadInput):
                out[reference] = change_token(parse_reference(reference)[0])
                continue
            out[reference] = ""
        return out


def _parsed(data: bytes) -> ExportConversation:
    try:
        value = loads_strict(data)
    except ValueError as exc:
        raise StoreUnreadable(f"a conversation of the Claude export is not JSON: {exc}") from None
    return ExportConversation(data, value)


class _Prefixed:
    """A stream positioned at an element, read as the array ``[element…``: the scanner then
    yields that element first."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.started = False

    def read(self, size: int = -1) -> bytes:
        if not self.started:
            self.started = True
            return b"[" + self.stream.read(size)
        return self.stream.read(size)


@contextlib.contextmanager
def _zip_member(handle: IO[bytes], label: Path) -> Iterator[tuple[IO[bytes], str]]:
    import zipfile

    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise StoreUnreadable(f"{label} is not a readable ZIP ({exc})") from None
    with archive:
        names = [
            info
            for info in archive.infolist()
            if not info.is_dir() and info.filename.rsplit("/", 1)[-1] == CONVERSATIONS
        ]
        if not names:
            raise BadInput(f"{label} is not a Claude export (the ZIP holds no {CONVERSATIONS})")
        member = min(names, key=lambda info: (info.filename.count("/"), info.filename))
        try:
            stream = archive.open(member)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
            raise StoreUnreadable(f"{label}: cannot read {member.filename} ({exc})") from None
        with stream:
            yield stream, f"{label}!{member.filename}"
