"""The persistent search index: every session's searchable lines, kept in step with the stores.

It lives in txcript's cache dir (``search.sqlite3``, see :mod:`txcript.shared.cache`) and holds,
per session (keyed on harness, id and store reference), the store's fingerprint of the session
and its lines (:mod:`.lines`). An update re-reads only sessions whose fingerprint changed (or is
unknown), prunes sessions that are gone, and commits in small batches, so an interrupted first
build keeps what it finished and never leaves a half-indexed session. A new index format
discards the old index.

Layout, chosen by measuring on the generated 5,000-session benchmark corpus (see
``benchmarks/README.md``): a session's lines are kept as two compressed **parts**, what was
*said* (every origin but ``tool_result``: searched by default, so it must decode fast) and tool
*output* (about three quarters of all text and searched only when asked: bz2, about 0.17 of its
size against zlib's 0.28 and zstd's 0.22); :mod:`.parts` describes a part and how a query reads
it. Said parts are zstd (level 9), which decodes about four times faster than zlib; a large
first build trains a zstd **dictionary** on its first sessions (kept in the index, found again
by the id each frame carries), which makes them about 17 % smaller than zlib's, since sessions
share most of their vocabulary and a part is too small to learn it alone.

Sessions are narrowed with FTS5 **trigram** indexes, one per kind of part (a default search
merges only the said one's doclists), with one row per part (rowid: the doc) over the part's
distinct folded lines (lower case, diacritics removed). It answers
substring questions (the literal pattern, each atom as written) without decoding any part;
exact line scoring (:mod:`.query`) then runs on the candidate parts only. Trigram was chosen
over unicode61 because the pattern language is substring-based (``'uth`` must find ``oauth``),
which a token index cannot answer. It keeps no positions (``detail=none``) and no column sizes,
and a needle is looked up as the AND of its trigrams: a superset that the scoring filters. One
row per part instead of per line makes the index about 15 times smaller (a trigram is stored
once per part, not once per line).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType

import msgspec
import zstandard

from txcript import harnesses
from txcript.diagnostics import warn
from txcript.harnesses.base import Discovered, change_token
from txcript.search.lines import Line, extract
from txcript.search.parts import ORIGIN_CODE, Packed, Part, StoredLine, pack, trigram_text
from txcript.shared.cache import cache_failed, memory_cache, open_cache
from txcript.shared.gcpause import without_gc

FORMAT = "search-6"
SCHEMA = """
CREATE TABLE doc(
  doc INTEGER PRIMARY KEY,
  harness TEXT NOT NULL,
  id TEXT NOT NULL,
  reference TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  UNIQUE(harness, id, reference)
);
CREATE TABLE body(
  doc INTEGER PRIMARY KEY,
  said BLOB,
  output BLOB
);
CREATE TABLE dictionary(
  id INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE store(
  harness TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  token TEXT NOT NULL,
  listing BLOB
);
CREATE VIRTUAL TABLE said_fts USING fts5(
  folded, content='', tokenize='trigram', detail='none', columnsize=0
);
CREATE VIRTUAL TABLE output_fts USING fts5(
  folded, content='', tokenize='trigram', detail='none', columnsize=0
)
"""
#: The two parts of a session's lines; each has its own trigram index (rowid: the doc), so a
#: default search (said only) merges doclists half as long.
SAID, OUTPUT = 0, 1
_COLUMN = {SAID: "said", OUTPUT: "output"}
_FTS = {SAID: "said_fts", OUTPUT: "output_fts"}
#: A batch commits after this many sessions or seconds, whichever comes first.
_BATCH_SESSIONS = 64
_BATCH_SECONDS = 1.0

Key = tuple[str, str, str]
#: A session to store: its fingerprint and its packed said and output parts.
Packing = tuple[Discovered, str, "Packed | None", "Packed | None"]
Progress = Callable[[int, int, int], None]
#: A store's root and change token, as :func:`store_token` gives them.
Token = tuple[str, str]

_encode_listing = msgspec.json.Encoder().encode
_decode_listing = msgspec.json.Decoder(list[Discovered]).decode


def store_token(store: object) -> Token | None:
    """The store's root and change token (None when it has no token now)."""
    token = change_token(store)
    return (str(getattr(store, "root", "")), token) if token else None


def session_key(session: Discovered) -> Key:
    return (session.harness, session.meta_id, session.reference)


def parts_for(origins: Iterable[str]) -> tuple[int, ...]:
    """The parts holding lines of ``origins``."""
    wanted = set(origins)
    return tuple(
        part
        for part, needed in (
            (SAID, bool(wanted - {"tool_result"})),
            (OUTPUT, "tool_result" in wanted),
        )
        if needed
    )


@dataclass
class UpdateStats:
    """What an update did: sessions read, reused from the index, pruned, and unreadable."""

    read: int = 0
    reused: int = 0
    pruned: int = 0
    skipped: int = 0
    read_keys: list[Key] = field(default_factory=list)


#: The said parts share a zstd dictionary trained on the first sessions of a build with at
#: least this many to store (from at most this many bytes of them); see the module notes.
_TRAIN_SESSIONS = 256
_TRAIN_BYTES = 4 << 20
_DICTIONARY_BYTES = 112 << 10
_SAID_LEVEL = 9


def _bz2() -> ModuleType:
    """bz2, imported on first use: only tool output needs it, and a default query reads none."""
    import bz2

    return bz2


def _train(samples: list[bytes]) -> zstandard.ZstdCompressionDict | None:
    """A dictionary for the said parts, or None when the samples are too few to train one."""
    kept: list[bytes | bytearray | memoryview] = []
    total = 0
    for sample in samples:
        if total >= _TRAIN_BYTES:
            break
        kept.append(sample)
        total += len(sample)
    if len(kept) < 16 or total < 8 * _DICTIONARY_BYTES:
        return None
    try:
        # Fixed cover parameters: the default search over them costs several times as long
        # for a dictionary no better on session text.
        return zstandard.train_dictionary(_DICTIONARY_BYTES, kept, k=200, d=8, level=_SAID_LEVEL)
    except zstandard.ZstdError:
        return None


class Index:
    """An open index; use :func:`open_index`."""

    def __init__(self, conn: sqlite3.Connection, persistent: bool) -> None:
        self.conn = conn
        self.persistent = persistent
        self._docs: dict[Key, tuple[int, str]] | None = None
        self._dictionary: zstandard.ZstdCompressionDict | None = None
        self._dictionary_read = False
        self._compressor: zstandard.ZstdCompressor | None = None
        self._decompressors: dict[int, zstandard.ZstdDecompressor] = {}

    def close(self) -> None:
        self.conn.close()

    # -- keeping it up to date --------------------------------------------------------------
    def docs(self) -> dict[Key, tuple[int, str]]:
        if self._docs is None:
            self._docs = {
                (h, i, r): (d, fp)
                for d, h, i, r, fp in self.conn.execute(
                    "SELECT doc, harness, id, reference, fingerprint FROM doc"
                )
            }
        return self._docs

    def update(
        self,
        sessions: Sequence[Discovered],
        scope: Iterable[str] | None = None,
        progress: Progress | None = None,
        listed: Mapping[str, Token] | None = None,
    ) -> UpdateStats:
        """Bring the index in step with ``sessions``: every session discovered in the harnesses
        ``scope`` names (all harnesses when None). Sessions of those harnesses that are not in
        ``sessions`` are gone and are pruned; other harnesses' entries are left alone.

        ``listed`` names the harnesses whose store token was taken *before* they were
        discovered, and whose discovery gave no warning: their listing is kept with the token,
        and :meth:`listing` gives it back while the token stands."""
        stats = UpdateStats()
        known = self.docs()
        keyed = [(session_key(s), s) for s in sessions]
        wanted = {key for key, _ in keyed}
        in_scope = None if scope is None else set(scope)
        stale = [
            key for key in known if key not in wanted and (in_scope is None or key[0] in in_scope)
        ]
        fingerprints, tokens = self._fingerprints(keyed, listed or {})
        todo: list[tuple[Discovered, str]] = []
        for key, session in keyed:
            fingerprint = fingerprints.get(key, "")
            held = known.get(key)
            if held is not None and fingerprint and held[1] == fingerprint:
                stats.reused += 1
            else:
                todo.append((session, fingerprint))
        if stale:
            self._write(lambda: self._prune(stale))
            stats.pruned = len(stale)
        batch: list[Packing] = []
        # A large build first trains the said parts' dictionary on its first sessions.
        training = len(todo) >= _TRAIN_SESSIONS and self._said_dictionary() is None
        started = time.monotonic()
        for done, (session, fingerprint) in enumerate(todo, 1):
            lines = _read_lines(session)
            if lines is None:
                stats.skipped += 1
                tokens.pop(session.harness, None)  # its next update tries it again
            else:
                said = [line for line in lines if line.origin != "tool_result"]
                output = [line for line in lines if line.origin == "tool_result"]
                batch.append(
                    (
                        session,
                        fingerprint,
                        pack(said) if said else None,
                        pack(output) if output else None,
                    )
                )
                stats.read += 1
                stats.read_keys.append(session_key(session))
            if (
                len(batch) >= _TRAIN_SESSIONS
                if training
                else len(batch) >= _BATCH_SESSIONS or time.monotonic() - started > _BATCH_SECONDS
            ):
                self._write(lambda b=batch, t=training: self._store(b, train=t))  # type: ignore[misc]
                batch, started, training = [], time.monotonic(), False
            if progress is not None:
                progress(done, len(todo), stats.reused)
        if batch:
            self._write(lambda: self._store(batch, train=training))
        # Only now: an update cut short must not vouch for fingerprints it never stored.
        self._write(lambda: self._record_tokens(tokens, sessions, listed or {}))
        if stats.skipped:
            warn(f"{stats.skipped} session(s) could not be read and are not searchable")
        return stats

    def _fingerprints(
        self, keyed: Sequence[tuple[Key, Discovered]], listed: Mapping[str, Token]
    ) -> tuple[dict[Key, str], dict[str, Token]]:
        """Each session's fingerprint, and each store's change token (by harness) to record.

        A store whose change token is the one recorded at the last update has not been written
        since, so the fingerprints held then still hold and the store is asked only about
        sessions the index does not hold (its fingerprints can cost a scan: Cursor's counts
        every bubble key)."""
        by_harness: dict[str, list[tuple[Key, Discovered]]] = {}
        for item in keyed:
            by_harness.setdefault(item[0][0], []).append(item)
        recorded = {
            harness: (root, token)
            for harness, root, token in self.conn.execute("SELECT harness, root, token FROM store")
        }
        known = self.docs()
        out: dict[Key, str] = {}
        tokens: dict[str, Token] = {}
        for harness_id, group in by_harness.items():
            store = harnesses.get(harness_id).store()
            if store is None:
                continue
            # A token taken before discovery is older than anything read since: safe to use.
            token = listed.get(harness_id) or store_token(store)
            if token is not None:
                tokens[harness_id] = token
            standing = token is not None and recorded.get(harness_id) == token
            ask = []
            for key, session in group:
                held = known.get(key) if standing else None
                if held is not None and held[1]:
                    out[key] = held[1]
                else:
                    ask.append((key, session))
            if not ask:
                continue
            try:
                prints = store.fingerprints([s.reference for _, s in ask])
            except Exception:  # a fingerprint failure only costs a re-read
                prints = {}
            for key, session in ask:
                out[key] = prints.get(session.reference, "")
        return out, tokens

    def _record_tokens(
        self,
        tokens: dict[str, Token],
        sessions: Sequence[Discovered],
        listed: Mapping[str, Token],
    ) -> None:
        for harness in {s.harness for s in sessions} - tokens.keys():
            self.conn.execute("DELETE FROM store WHERE harness = ?", (harness,))
        recorded = {
            harness: ((root, token), kept)
            for harness, root, token, kept in self.conn.execute(
                "SELECT harness, root, token, listing IS NOT NULL FROM store"
            )
        }
        rows = []
        for harness, token in tokens.items():
            keep = listed.get(harness) == token
            if recorded.get(harness) == (token, int(keep)):
                continue  # already recorded so (a standing listing is not written again)
            listing = None
            if keep:
                listing = _encode_listing([s for s in sessions if s.harness == harness])
            rows.append((harness, *token, listing))
        self.conn.executemany(
            "INSERT OR REPLACE INTO store(harness, root, token, listing) VALUES (?, ?, ?, ?)",
            rows,
        )

    def listing(self, harness: str, token: Token) -> list[Discovered] | None:
        """The harness's sessions as discovered under ``token`` (see :meth:`update`); None when
        the index holds no listing taken under it."""
        row = self.conn.execute(
            "SELECT listing FROM store WHERE harness = ? AND root = ? AND token = ?",
            (harness, *token),
        ).fetchone()
        if row is None or not isinstance(row[0], bytes):
            return None
        try:
            return _decode_listing(row[0])
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None  # discovery answers instead

    def _write(self, work: Callable[[], None]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._docs = None
            self._dictionary, self._dictionary_read, self._compressor = None, False, None
            raise
        self.conn.execute("COMMIT")

    def _drop_body(self, doc: int) -> None:
        # A contentless FTS5 row is deleted by handing back exactly what was inserted.
        for part in (SAID, OUTPUT):
            held = self.part(doc, part)
            if held is not None:
                table = _FTS[part]
                self.conn.execute(
                    f"INSERT INTO {table}({table}, rowid, folded) VALUES ('delete', ?, ?)",
                    (doc, trigram_text(held.folded_joined)),
                )
        self.conn.execute("DELETE FROM body WHERE doc = ?", (doc,))

    def _prune(self, keys: Iterable[Key]) -> None:
        known = self.docs()
        for key in keys:
            doc, _ = known.pop(key)
            self._drop_body(doc)
            self.conn.execute("DELETE FROM doc WHERE doc = ?", (doc,))

    def _store(self, batch: list[Packing], *, train: bool = False) -> None:
        if train:
            trained = _train([said.data for _, _, said, _ in batch if said is not None])
            if trained is not None:
                self.conn.execute(
                    "INSERT INTO dictionary(id, data) VALUES (?, ?)",
                    (trained.dict_id(), trained.as_bytes()),
                )
                self._dictionary, self._dictionary_read, self._compressor = trained, True, None
        compress = self._said_compressor().compress
        known = self.docs()
        for session, fingerprint, said, output in batch:
            key = session_key(session)
            held = known.get(key)
            if held is None:
                cursor = self.conn.execute(
                    "INSERT INTO doc(harness, id, reference, fingerprint) VALUES (?, ?, ?, ?)",
                    (*key, fingerprint),
                )
                doc = int(cursor.lastrowid or 0)
            else:
                doc = held[0]
                self._drop_body(doc)
                self.conn.execute(
                    "UPDATE doc SET fingerprint = ? WHERE doc = ?", (fingerprint, doc)
                )
            known[key] = (doc, fingerprint)
            self.conn.execute(
                "INSERT INTO body(doc, said, output) VALUES (?, ?, ?)",
                (
                    doc,
                    None if said is None else compress(said.data),
                    None if output is None else _bz2().compress(output.data, 9),
                ),
            )
            for part, packed in ((SAID, said), (OUTPUT, output)):
                if packed is not None:
                    self.conn.execute(
                        f"INSERT INTO {_FTS[part]}(rowid, folded) VALUES (?, ?)",
                        (doc, packed.trigram_text),
                    )

    # -- compression of the said parts ---------------------------------------------------------
    def _said_dictionary(self) -> zstandard.ZstdCompressionDict | None:
        if not self._dictionary_read:
            row = self.conn.execute(
                "SELECT data FROM dictionary ORDER BY rowid DESC LIMIT 1"
            ).fetchone()
            self._dictionary = None if row is None else zstandard.ZstdCompressionDict(row[0])
            self._dictionary_read = True
        return self._dictionary

    def _said_compressor(self) -> zstandard.ZstdCompressor:
        if self._compressor is None:
            dictionary = self._said_dictionary()
            self._compressor = (
                zstandard.ZstdCompressor(level=_SAID_LEVEL)
                if dictionary is None
                else zstandard.ZstdCompressor(level=_SAID_LEVEL, dict_data=dictionary)
            )
        return self._compressor

    def _decompress_said(self, blob: bytes) -> bytes:
        dict_id = zstandard.get_frame_parameters(blob).dict_id
        decompressor = self._decompressors.get(dict_id)
        if decompressor is None:
            if dict_id == 0:
                decompressor = zstandard.ZstdDecompressor()
            else:
                row = self.conn.execute(
                    "SELECT data FROM dictionary WHERE id = ?", (dict_id,)
                ).fetchone()
                if row is None:
                    raise sqlite3.DatabaseError("search index part with an unknown dictionary")
                held = zstandard.ZstdCompressionDict(bytes(row[0]))
                decompressor = zstandard.ZstdDecompressor(dict_data=held)
            self._decompressors[dict_id] = decompressor
        return decompressor.decompress(blob)

    # -- reading it ----------------------------------------------------------------------------
    def part(self, doc: int, part: int) -> Part | None:
        """One part of a session's lines, decoded (None when the session has none)."""
        row = self.conn.execute(
            f"SELECT {_COLUMN[part]} FROM body WHERE doc = ?", (doc,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            data = self._decompress_said(row[0]) if part == SAID else _bz2().decompress(row[0])
            return Part(doc, data)
        except (zstandard.ZstdError, OSError, ValueError, msgspec.DecodeError) as exc:
            # Damage met this late is a corrupt cache: the caller degrades on DatabaseError.
            raise sqlite3.DatabaseError(f"search index part unreadable: {exc}") from None

    def lines_of(self, doc: int, origins: frozenset[str]) -> list[StoredLine]:
        """The session's lines of ``origins``, in transcript order."""
        codes = {ORIGIN_CODE[o] for o in origins}
        placed = []
        for part in parts_for(origins):
            held = self.part(doc, part)
            if held is not None:
                placed += [
                    (held.order(n), held) for n in range(len(held.texts)) if held.origin(n) in codes
                ]
        placed.sort(key=lambda item: item[0])
        return [held.stored(order[2]) for order, held in placed]

    def candidates(self, needles: Sequence[str], parts: Sequence[int]) -> dict[int, list[int]]:
        """By doc: its parts whose folded lines may contain every needle (each ≥ 3
        characters), somewhere; a superset of the parts with a line that does."""
        trigrams = sorted({n[i : i + 3] for n in needles for i in range(len(n) - 2)})
        query = " AND ".join('"' + gram.replace('"', '""') + '"' for gram in trigrams)
        found: dict[int, list[int]] = {}
        for part in parts:
            table = _FTS[part]
            rows = self.conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (query,))
            for (doc,) in rows:
                found.setdefault(doc, []).append(part)
        return found

    def size_bytes(self) -> int:
        page_size = self.conn.execute("PRAGMA page_size").fetchone()[0]
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        return int(page_size) * int(pages)

    def text_bytes(self) -> int:
        """The UTF-8 bytes of every indexed line (decodes everything: for benchmarks)."""
        total = 0
        for (doc,) in self.conn.execute("SELECT doc FROM body").fetchall():
            for part in (SAID, OUTPUT):
                held = self.part(doc, part)
                if held is not None:
                    total += sum(len(text.encode("utf-8")) for text in held.texts)
        return total


@without_gc
def _read_lines(session: Discovered) -> list[Line] | None:
    from txcript.sessions import load_session

    try:
        harness, native = load_session(session)
        return extract(harness.to_common(native))
    except Exception:  # one unreadable session must not stop the index
        return None


def indexed_ids(prefix: str) -> list[str]:
    """Ids in the persistent index starting with ``prefix`` (for shell completion); [] on any
    failure, and never creates the index."""
    from txcript.shared.cache import cache_path

    path = cache_path("search")
    if not path.is_file():
        return []
    try:
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, timeout=0.2)
        try:
            escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            rows = conn.execute(
                "SELECT DISTINCT id FROM doc WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 500",
                (escaped + "%",),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []
    return [str(row[0]) for row in rows]


def open_index() -> Index:
    conn, persistent = open_cache("search", FORMAT, SCHEMA)
    return Index(conn, persistent)


def fallback_index(index: Index, exc: sqlite3.DatabaseError) -> Index:
    """After ``exc`` from the persistent ``index`` (corrupt pages, a lock held too long): close
    it and go on with an empty in-memory index, with the one warning a failed open gives."""
    index.close()
    cache_failed("search", exc)
    return Index(memory_cache(FORMAT, SCHEMA), False)
