"""The persistent search index: every session's searchable lines, kept in step with the stores.

It lives in txcript's cache dir (``search.sqlite3``, see :mod:`txcript.shared.cache`) and holds,
per session (keyed on harness, id and store reference), the store's fingerprint of the session
and its lines (:mod:`.lines`). An update re-reads only sessions whose fingerprint changed (or is
unknown), prunes sessions that are gone, and commits in small batches, so an interrupted first
build keeps what it finished and never leaves a half-indexed session. A new index format
discards the old index.

Layout, chosen by measuring on the generated 5,000-session benchmark corpus (see
``benchmarks/README.md``): a session's lines are kept as two compressed **parts**, what was
*said* (every origin but ``tool_result``: searched by default, so it must decode fast: zlib)
and tool *output* (about three quarters of all text and searched only when asked: bz2, about
0.17 of its size against zlib's 0.28); :mod:`.parts` describes a part and how a query reads it.

Sessions are narrowed with an FTS5 **trigram** index with one row per part (rowid ``2 × doc +
part``) over the part's distinct folded lines (lower case, diacritics removed). It answers
substring questions (the literal pattern, each atom as written) without decoding any part;
exact line scoring (:mod:`.query`) then runs on the candidate parts only. Trigram was chosen
over unicode61 because the pattern language is substring-based (``'uth`` must find ``oauth``),
which a token index cannot answer. It keeps no positions (``detail=none``) and no column sizes,
and a needle is looked up as the AND of its trigrams: a superset that the scoring filters. One
row per part instead of per line makes the index about 15 times smaller (a trigram is stored
once per part, not once per line).
"""

from __future__ import annotations

import bz2
import sqlite3
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from txcript import harnesses
from txcript.diagnostics import warn
from txcript.harnesses.base import Discovered, change_token
from txcript.search.lines import Line, extract
from txcript.search.parts import ORIGIN_CODE, Part, StoredLine, pack
from txcript.search.pattern import fold
from txcript.shared.cache import cache_failed, memory_cache, open_cache
from txcript.shared.gcpause import without_gc

FORMAT = "search-5"
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
CREATE TABLE store(
  harness TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  token TEXT NOT NULL,
  listing BLOB
);
CREATE VIRTUAL TABLE body_fts USING fts5(
  folded, content='', tokenize='trigram', detail='none', columnsize=0
)
"""
#: The two parts of a session's lines, and the FTS rowid of a part: ``2 * doc + part``.
SAID, OUTPUT = 0, 1
_COLUMN = {SAID: "said", OUTPUT: "output"}
#: A batch commits after this many sessions or seconds, whichever comes first.
_BATCH_SESSIONS = 64
_BATCH_SECONDS = 1.0

Key = tuple[str, str, str]
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


def _fts_text(texts: Iterable[str]) -> str:
    """What the trigram index holds for a part: its distinct folded lines."""
    return "\n".join(dict.fromkeys(fold(text) for text in texts))


def _decompress(part: int, blob: bytes) -> bytes:
    return zlib.decompress(blob) if part == SAID else bz2.decompress(blob)


class Index:
    """An open index; use :func:`open_index`."""

    def __init__(self, conn: sqlite3.Connection, persistent: bool) -> None:
        self.conn = conn
        self.persistent = persistent
        self._docs: dict[Key, tuple[int, str]] | None = None

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
        wanted = {session_key(s) for s in sessions}
        in_scope = None if scope is None else set(scope)
        stale = [
            key for key in known if key not in wanted and (in_scope is None or key[0] in in_scope)
        ]
        fingerprints, tokens = self._fingerprints(sessions, listed or {})
        todo: list[tuple[Discovered, str]] = []
        for session in sessions:
            key = session_key(session)
            fingerprint = fingerprints.get(key, "")
            held = known.get(key)
            if held is not None and fingerprint and held[1] == fingerprint:
                stats.reused += 1
            else:
                todo.append((session, fingerprint))
        if stale:
            self._write(lambda: self._prune(stale))
            stats.pruned = len(stale)
        batch: list[tuple[Discovered, str, list[Line]]] = []
        started = time.monotonic()
        for done, (session, fingerprint) in enumerate(todo, 1):
            lines = _read_lines(session)
            if lines is None:
                stats.skipped += 1
                tokens.pop(session.harness, None)  # its next update tries it again
            else:
                batch.append((session, fingerprint, lines))
                stats.read += 1
                stats.read_keys.append(session_key(session))
            if len(batch) >= _BATCH_SESSIONS or time.monotonic() - started > _BATCH_SECONDS:
                self._write(lambda b=batch: self._store(b))  # type: ignore[misc]
                batch, started = [], time.monotonic()
            if progress is not None:
                progress(done, len(todo), stats.reused)
        if batch:
            self._write(lambda: self._store(batch))
        # Only now: an update cut short must not vouch for fingerprints it never stored.
        self._write(lambda: self._record_tokens(tokens, sessions, listed or {}))
        if stats.skipped:
            warn(f"{stats.skipped} session(s) could not be read and are not searchable")
        return stats

    def _fingerprints(
        self, sessions: Sequence[Discovered], listed: Mapping[str, Token]
    ) -> tuple[dict[Key, str], dict[str, Token]]:
        """Each session's fingerprint, and each store's change token (by harness) to record.

        A store whose change token is the one recorded at the last update has not been written
        since, so the fingerprints held then still hold and the store is asked only about
        sessions the index does not hold (its fingerprints can cost a scan: Cursor's counts
        every bubble key)."""
        by_harness: dict[str, list[Discovered]] = {}
        for session in sessions:
            by_harness.setdefault(session.harness, []).append(session)
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
            for session in group:
                key = session_key(session)
                held = known.get(key)
                if standing and held is not None and held[1]:
                    out[key] = held[1]
                else:
                    ask.append(session)
            if not ask:
                continue
            try:
                prints = store.fingerprints([s.reference for s in ask])
            except Exception:  # a fingerprint failure only costs a re-read
                prints = {}
            for session in ask:
                out[session_key(session)] = prints.get(session.reference, "")
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
                listing = zlib.compress(
                    _encode_listing([s for s in sessions if s.harness == harness]), 1
                )
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
            return _decode_listing(zlib.decompress(row[0]))
        except (zlib.error, msgspec.DecodeError, msgspec.ValidationError):
            return None  # discovery answers instead

    def _write(self, work: Callable[[], None]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._docs = None
            raise
        self.conn.execute("COMMIT")

    def _drop_body(self, doc: int) -> None:
        # A contentless FTS5 row is deleted by handing back exactly what was inserted.
        for part in (SAID, OUTPUT):
            held = self.part(doc, part)
            if held is not None:
                self.conn.execute(
                    "INSERT INTO body_fts(body_fts, rowid, folded) VALUES ('delete', ?, ?)",
                    (2 * doc + part, _fts_text(held.texts)),
                )
        self.conn.execute("DELETE FROM body WHERE doc = ?", (doc,))

    def _prune(self, keys: Iterable[Key]) -> None:
        known = self.docs()
        for key in keys:
            doc, _ = known.pop(key)
            self._drop_body(doc)
            self.conn.execute("DELETE FROM doc WHERE doc = ?", (doc,))

    def _store(self, batch: list[tuple[Discovered, str, list[Line]]]) -> None:
        known = self.docs()
        for session, fingerprint, lines in batch:
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
            said = [line for line in lines if line.origin != "tool_result"]
            output = [line for line in lines if line.origin == "tool_result"]
            self.conn.execute(
                "INSERT INTO body(doc, said, output) VALUES (?, ?, ?)",
                (
                    doc,
                    zlib.compress(pack(said), 6) if said else None,
                    bz2.compress(pack(output), 9) if output else None,
                ),
            )
            for part, part_lines in ((SAID, said), (OUTPUT, output)):
                if part_lines:
                    self.conn.execute(
                        "INSERT INTO body_fts(rowid, folded) VALUES (?, ?)",
                        (2 * doc + part, _fts_text(line.text for line in part_lines)),
                    )

    # -- reading it ----------------------------------------------------------------------------
    def part(self, doc: int, part: int) -> Part | None:
        """One part of a session's lines, decoded (None when the session has none)."""
        row = self.conn.execute(
            f"SELECT {_COLUMN[part]} FROM body WHERE doc = ?", (doc,)
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return Part(doc, _decompress(part, row[0]))

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
        wanted = set(parts)
        found: dict[int, list[int]] = {}
        for (rowid,) in self.conn.execute(
            "SELECT rowid FROM body_fts WHERE body_fts MATCH ?", (query,)
        ):
            doc, part = divmod(int(rowid), 2)
            if part in wanted:
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
