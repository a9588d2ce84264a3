"""The persistent search index: every session's searchable lines, kept in step with the stores.

It lives in txcript's cache dir (``search.sqlite3``, see :mod:`txcript.shared.cache`) and holds,
per session (keyed on harness, id and store reference), the store's fingerprint of the session
and its lines (:mod:`.lines`). An update re-reads only sessions whose fingerprint changed (or is
unknown), prunes sessions that are gone, and commits in small batches, so an interrupted first
build keeps what it finished and never leaves a half-indexed session. A new index format
discards the old index.

Lines are narrowed with an FTS5 **trigram** index over their folded form (lower case, diacritics
removed), which answers substring questions — the literal pattern, and each atom as written —
without reading every line; the exact scoring of :mod:`.pattern` then runs on the candidates
only. Trigram was chosen over unicode61 because the pattern language is substring-based
(``'uth`` must find ``oauth``), which a token index cannot answer. The index keeps no positions
(``detail=none``, about a third of the size of a full trigram index): a needle is looked up as
the AND of its trigrams, a superset that the exact scoring then filters.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from txcript import harnesses
from txcript.diagnostics import warn
from txcript.harnesses.base import Discovered
from txcript.search.lines import ORIGINS, Line, extract
from txcript.search.pattern import fold
from txcript.shared.cache import open_cache
from txcript.shared.gcpause import without_gc

FORMAT = "search-2"
SCHEMA = """
CREATE TABLE doc(
  doc INTEGER PRIMARY KEY,
  harness TEXT NOT NULL,
  id TEXT NOT NULL,
  reference TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  UNIQUE(harness, id, reference)
);
CREATE TABLE line(
  rowid INTEGER PRIMARY KEY,
  doc INTEGER NOT NULL,
  origin INTEGER NOT NULL,
  message INTEGER,
  block INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX line_doc ON line(doc);
CREATE VIRTUAL TABLE line_fts USING fts5(folded, content='', tokenize='trigram', detail='none')
"""
_ORIGIN_CODE = {name: code for code, name in enumerate(ORIGINS)}
#: A batch commits after this many sessions or seconds, whichever comes first.
_BATCH_SESSIONS = 64
_BATCH_SECONDS = 1.0

Key = tuple[str, str, str]
Progress = Callable[[int, int, int], None]


def session_key(session: Discovered) -> Key:
    return (session.harness, session.meta_id, session.reference)


@dataclass
class UpdateStats:
    """What an update did: sessions read, reused from the index, pruned, and unreadable."""

    read: int = 0
    reused: int = 0
    pruned: int = 0
    skipped: int = 0
    read_keys: list[Key] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class StoredLine:
    doc: int
    origin: str
    message: int | None
    block: int
    text: str


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
    ) -> UpdateStats:
        """Bring the index in step with ``sessions``: every session discovered in the harnesses
        ``scope`` names (all harnesses when None). Sessions of those harnesses that are not in
        ``sessions`` are gone and are pruned; other harnesses' entries are left alone."""
        stats = UpdateStats()
        known = self.docs()
        wanted = {session_key(s) for s in sessions}
        in_scope = None if scope is None else set(scope)
        stale = [
            key for key in known if key not in wanted and (in_scope is None or key[0] in in_scope)
        ]
        fingerprints = _fingerprints(sessions)
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
        if stats.skipped:
            warn(f"{stats.skipped} session(s) could not be read and are not searchable")
        return stats

    def _write(self, work: Callable[[], None]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._docs = None
            raise
        self.conn.execute("COMMIT")

    def _drop_lines(self, doc: int) -> None:
        rows = self.conn.execute("SELECT rowid, text FROM line WHERE doc = ?", (doc,)).fetchall()
        self.conn.executemany(
            "INSERT INTO line_fts(line_fts, rowid, folded) VALUES ('delete', ?, ?)",
            [(rowid, fold(text)) for rowid, text in rows],
        )
        self.conn.execute("DELETE FROM line WHERE doc = ?", (doc,))

    def _prune(self, keys: Iterable[Key]) -> None:
        known = self.docs()
        for key in keys:
            doc, _ = known.pop(key)
            self._drop_lines(doc)
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
                self._drop_lines(doc)
                self.conn.execute(
                    "UPDATE doc SET fingerprint = ? WHERE doc = ?", (fingerprint, doc)
                )
            known[key] = (doc, fingerprint)
            for line in lines:
                cursor = self.conn.execute(
                    "INSERT INTO line(doc, origin, message, block, text) VALUES (?, ?, ?, ?, ?)",
                    (doc, _ORIGIN_CODE[line.origin], line.message, line.block, line.text),
                )
                self.conn.execute(
                    "INSERT INTO line_fts(rowid, folded) VALUES (?, ?)",
                    (cursor.lastrowid, fold(line.text)),
                )

    # -- reading it ----------------------------------------------------------------------------
    def lines_of(self, doc: int, origins: frozenset[str]) -> list[StoredLine]:
        codes = [_ORIGIN_CODE[o] for o in origins]
        marks = ",".join("?" * len(codes))
        return [
            StoredLine(doc, ORIGINS[origin], message, block, text)
            for origin, message, block, text in self.conn.execute(
                f"SELECT origin, message, block, text FROM line WHERE doc = ? "
                f"AND origin IN ({marks}) ORDER BY rowid",
                (doc, *codes),
            )
        ]

    def substring_lines(
        self, needles: Sequence[str], docs: set[int], origins: frozenset[str]
    ) -> dict[int, list[StoredLine]]:
        """By doc: lines whose folded text may contain every needle (each ≥ 3 characters); a
        superset of those that do (every trigram of every needle is present)."""
        trigrams = sorted({n[i : i + 3] for n in needles for i in range(len(n) - 2)})
        query = " AND ".join('"' + gram.replace('"', '""') + '"' for gram in trigrams)
        codes = {_ORIGIN_CODE[o] for o in origins}
        found: dict[int, list[StoredLine]] = {}
        for doc, origin, message, block, text in self.conn.execute(
            "SELECT l.doc, l.origin, l.message, l.block, l.text FROM line_fts f "
            "JOIN line l ON l.rowid = f.rowid WHERE line_fts MATCH ?",
            (query,),
        ):
            if doc in docs and origin in codes:
                found.setdefault(doc, []).append(
                    StoredLine(doc, ORIGINS[origin], message, block, text)
                )
        return found

    def size_bytes(self) -> int:
        page_size = self.conn.execute("PRAGMA page_size").fetchone()[0]
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        return int(page_size) * int(pages)


def _fingerprints(sessions: Sequence[Discovered]) -> dict[Key, str]:
    by_harness: dict[str, list[Discovered]] = {}
    for session in sessions:
        by_harness.setdefault(session.harness, []).append(session)
    out: dict[Key, str] = {}
    for harness_id, group in by_harness.items():
        store = harnesses.get(harness_id).store()
        if store is None:
            continue
        try:
            prints = store.fingerprints([s.reference for s in group])
        except Exception:  # a fingerprint failure only costs a re-read
            prints = {}
        for session in group:
            out[session_key(session)] = prints.get(session.reference, "")
    return out


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
