"""The persistent search index: every session's searchable lines, kept in step with the stores.

It lives in txcript's cache dir (``search.sqlite3``, see :mod:`txcript.shared.cache`) and holds,
per session (keyed on harness, id and store reference), the store's fingerprint of the session,
its listing (as discovery gave it, with its start time and cwd as columns, so a query ranks and
filters sessions without discovering them) and its lines (:mod:`.lines`). An update re-reads
only sessions whose fingerprint changed (or is unknown), prunes sessions that are gone, and
commits in small batches, so an interrupted first build keeps what it finished and never leaves
a half-indexed session. A new index format discards the old index.

Per store it records the change token it was last brought in step under: while the token stands
nothing in the store was written, and a query uses the sessions as held. A store of files
(:class:`txcript.harnesses.base.ListsByFile`) is asked instead for every file's fingerprint (one
stat each), and only changed files are listed and read again; a file that listed no session
is recorded as such under its fingerprint, so it is not listed again until it changes.

Layout, chosen by measuring on the generated 5,000-session benchmark corpus (see
``benchmarks/README.md``): a session's lines are kept as two compressed **parts**, what was
*said* (every origin but ``tool_result``: searched by default, so it must decode fast) and tool
*output* (about three quarters of all text and searched only when asked: bz2, about 0.17 of its
size against zlib's 0.28 and zstd's 0.22; a large update compresses it on a worker thread while
it reads on); :mod:`.parts` describes a part and how a query reads it. Said parts are zstd
(level 9), which decodes about four times faster than zlib; a large first build trains a zstd
**dictionary** on its first sessions (kept in the index, found again by the id each frame
carries), which makes them about 17 % smaller than zlib's, since sessions share most of their
vocabulary and a part is too small to learn it alone.

Sessions are narrowed with FTS5 **trigram** indexes, one per kind of part (a default search
merges only the said one's doclists), with one row per part (rowid: the doc) over the part's
distinct folded lines (lower case, diacritics removed), each between line breaks. It answers
substring questions (the literal pattern, each atom as written, a prefix or suffix atom pinned
to a line break) without decoding any part;
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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from functools import partial
from types import ModuleType
from typing import TypeVar

import msgspec
import zstandard

from txcript import harnesses
from txcript.diagnostics import warn
from txcript.harnesses.base import Discovered, root_token
from txcript.search.lines import Line, extract
from txcript.search.parts import ORIGIN_CODE, Packed, Part, StoredLine, pack, trigram_text
from txcript.shared.cache import (
    cache_failed,
    is_damage,
    memory_cache,
    open_cache,
    rebuilt_cache,
)
from txcript.shared.gcpause import without_gc

FORMAT = "search-9"
SCHEMA = """
CREATE TABLE doc(
  doc INTEGER PRIMARY KEY,
  harness TEXT NOT NULL,
  id TEXT NOT NULL,
  reference TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  started INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  cwd TEXT,
  listing BLOB NOT NULL,
  UNIQUE(harness, id, reference)
);
CREATE INDEX doc_started ON doc(started, harness);
CREATE TABLE body(
  doc INTEGER PRIMARY KEY,
  said BLOB,
  output BLOB
);
CREATE TABLE dictionary(
  id INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE unlisted(
  harness TEXT NOT NULL,
  reference TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  PRIMARY KEY(harness, reference)
);
CREATE TABLE store(
  harness TEXT PRIMARY KEY,
  root TEXT NOT NULL,
  token TEXT NOT NULL,
  complete INTEGER NOT NULL
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
#: A session to read and store: the fingerprint to store it under, and where it stands in its
#: store's listing (see :meth:`Index.ranked`).
Todo = tuple[Discovered, str, int]
#: A session to store: as :data:`Todo`, its packed said and output parts, and what gives the
#: output part compressed (which may be running on the worker thread meanwhile).
Packing = tuple[
    Discovered, str, int, "Packed | None", "Packed | None", "Callable[[], bytes] | None"
]
Progress = Callable[[int, int, int], None]
#: A store's root and change token, as :func:`~txcript.harnesses.base.root_token` gives them.
Token = tuple[str, str]

_encode_listing = msgspec.json.Encoder().encode
_decode_listing = msgspec.json.Decoder(Discovered).decode
_UNFETCHED, _NO_BODY = object(), object()
T = TypeVar("T")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def micros(moment: datetime) -> int:
    """``moment`` (UTC) as whole microseconds since 1970: how the index orders and filters
    sessions by start time, exactly as comparing the datetimes would."""
    return (moment - _EPOCH) // _MICROSECOND


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


class UpdateStats(msgspec.Struct):
    """What an update did: sessions read, reused from the index, pruned, and unreadable."""

    read: int = 0
    reused: int = 0
    pruned: int = 0
    skipped: int = 0
    read_keys: list[Key] = msgspec.field(default_factory=list)


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


def _compressed_output(data: bytes) -> bytes:
    return _bz2().compress(data, 9)  # type: ignore[no-any-return]


#: An update storing at least this many sessions compresses tool output on a worker thread
#: (bz2 releases the GIL) while it reads the next sessions: on one core, bz2 took a quarter
#: of a first build. Smaller updates (a warm query's) never start the thread.
_WORKER_SESSIONS = 32


@contextmanager
def _output_compression(sessions: int) -> Iterator[Callable[[bytes], Callable[[], bytes]]]:
    """For an update of ``sessions``: a function that starts compressing an output part and
    gives what returns the result. Leaving drops what was not started (an interrupted build
    stores none of it) and waits for what was."""
    if sessions < _WORKER_SESSIONS:
        yield lambda data: partial(_compressed_output, data)
        return
    from concurrent.futures import ThreadPoolExecutor

    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="txcript-index")
    try:
        yield lambda data: worker.submit(_compressed_output, data).result
    finally:
        worker.shutdown(wait=True, cancel_futures=True)


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


class Ranked:
    """Sessions held in an index, newest first: their docs, and their listings on demand."""

    def __init__(
        self, index: Index, docs: list[int], listings: Mapping[int, Discovered] | None = None
    ) -> None:
        self.index = index
        self.docs = docs
        self._listings = dict(listings or {})

    def sessions(self, docs: Sequence[int]) -> list[Discovered]:
        """The listings of ``docs`` (each one of :attr:`docs`), in that order."""
        missing = [doc for doc in docs if doc not in self._listings]
        if missing:
            self._listings.update(self.index.listings(missing))
        return [self._listings[doc] for doc in docs]


class Index:
    """An open index; use :func:`open_index`."""

    def __init__(self, conn: sqlite3.Connection, persistent: bool) -> None:
        self.conn = conn
        self.persistent = persistent
        #: Sessions held, by harness (key → doc, fingerprint): loaded per harness as needed.
        self._held: dict[str, dict[Key, tuple[int, str]]] = {}
        self._all_held = False
        #: Files that listed no session, by harness (see :meth:`update_files`).
        self._unlisted: dict[str, dict[str, str]] = {}
        self._dictionary: zstandard.ZstdCompressionDict | None = None
        self._dictionary_read = False
        self._compressor: zstandard.ZstdCompressor | None = None
        self._decompressors: dict[int, zstandard.ZstdDecompressor] = {}
        #: Stored parts fetched ahead (see :meth:`prefetch`), until :meth:`part` takes them.
        self._fetched: dict[tuple[int, int], object] = {}

    def close(self) -> None:
        self.conn.close()

    # -- keeping it up to date --------------------------------------------------------------
    def docs(self) -> dict[Key, tuple[int, str]]:
        """Every session held: its key → (doc, fingerprint)."""
        if not self._all_held:
            self._held = {}
            for d, h, i, r, fp in self.conn.execute(
                "SELECT doc, harness, id, reference, fingerprint FROM doc"
            ):
                self._held.setdefault(h, {})[(h, i, r)] = (d, fp)
            self._all_held = True
        return {key: value for held in self._held.values() for key, value in held.items()}

    def _docs_of(self, harness: str) -> dict[Key, tuple[int, str]]:
        """The sessions held of ``harness`` (the dict the index keeps in step as it writes)."""
        held = self._held.get(harness)
        if held is None:
            held = self._held[harness] = {
                (harness, i, r): (d, fp)
                for d, i, r, fp in self.conn.execute(
                    "SELECT doc, id, reference, fingerprint FROM doc WHERE harness = ?", (harness,)
                )
            }
        return held

    def recorded(self, harness: str) -> tuple[Token, bool] | None:
        """The store token the harness's sessions were last brought in step under, and whether
        its listing was complete then (no warning, every session read); None when none is."""
        row = self.conn.execute(
            "SELECT root, token, complete FROM store WHERE harness = ?", (harness,)
        ).fetchone()
        if row is None:
            return None
        root, token, complete = row
        if not (isinstance(root, str) and isinstance(token, str) and complete in (0, 1)):
            return None  # a damaged record vouches for nothing: the store is listed again
        return (root, token), complete == 1

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
        discovered, and whose discovery gave no warning: while that token stands, the sessions
        held are the store's listing (see :meth:`recorded`)."""
        stats = UpdateStats()
        known = self.docs()
        keyed = [(session_key(s), s) for s in sessions]
        wanted = {key for key, _ in keyed}
        in_scope = None if scope is None else set(scope)
        stale = [
            key for key in known if key not in wanted and (in_scope is None or key[0] in in_scope)
        ]
        fingerprints, tokens = self._fingerprints(keyed, listed or {})
        todo: list[Todo] = []
        kept: list[tuple[Discovered, int]] = []
        for seq, (key, session) in enumerate(keyed):
            fingerprint = fingerprints.get(key, "")
            held = known.get(key)
            if held is not None and fingerprint and held[1] == fingerprint:
                stats.reused += 1
                kept.append((session, seq))
            else:
                todo.append((session, fingerprint, seq))
        if stale:
            self._write(lambda: self._prune(stale))
            stats.pruned = len(stale)
        if kept:
            self._write(lambda: self._relist(kept))
        unread = self._index(todo, stats, progress)
        for harness in unread:
            tokens.pop(harness, None)  # its next update tries them again
        # Only now: an update cut short must not vouch for fingerprints it never stored.
        self._write(lambda: self._record_tokens(tokens, sessions, listed or {}))
        return stats

    def changed_files(self, harness: str, fingerprints: Mapping[str, str]) -> list[str]:
        """The files of ``fingerprints`` (a :class:`~txcript.harnesses.base.ListsByFile`
        store's, reference → fingerprint now) to list again: those whose sessions the index
        does not hold under that fingerprint."""
        held = dict(self._unlisted_of(harness))
        for (_, _, reference), (_, fingerprint) in self._docs_of(harness).items():
            # (A file holding several sessions is as changed as its least current one.)
            held[reference] = fingerprint if held.get(reference, fingerprint) == fingerprint else ""
        return [
            reference
            for reference, fingerprint in fingerprints.items()
            if not fingerprint or held.get(reference) != fingerprint
        ]

    def update_files(
        self,
        harness: str,
        fingerprints: Mapping[str, str],
        changed: Iterable[str],
        listed: Sequence[Discovered],
        progress: Progress | None = None,
        vouched: bool = True,
    ) -> UpdateStats:
        """Bring the harness's sessions in step with its files: ``fingerprints`` is every file
        now (reference → fingerprint), ``changed`` the files :meth:`changed_files` named and
        ``listed`` their sessions, as the store lists them. Sessions of files that are gone, or
        changed and no longer list them, are pruned; the others are left as they are.

        A changed file that lists no session (a Claude Code file of summaries only, a Gemini
        copy that loses to another) is recorded as such under its fingerprint, so it is not
        listed again until it changes; unless the listing warned (``vouched`` false), when the
        warning must come again next time."""
        stats = UpdateStats()
        again = set(changed)
        wanted = {session_key(session) for session in listed}
        stale = []
        for key in self._docs_of(harness):
            if key[2] not in fingerprints or (key[2] in again and key not in wanted):
                stale.append(key)
            elif key[2] not in again:
                stats.reused += 1
        if stale:
            self._write(lambda: self._prune(stale))
            stats.pruned = len(stale)
        listing = {session.reference for session in listed}
        unlisted = {
            reference: fingerprints[reference]
            for reference in again
            if vouched and reference not in listing and fingerprints.get(reference)
        }
        held = self._unlisted_of(harness)
        dropped = [r for r in held if r not in fingerprints or (r in again and r not in unlisted)]
        added = {r: fp for r, fp in unlisted.items() if held.get(r) != fp}
        if dropped or added:
            self._write(lambda: self._hold_unlisted(harness, dropped, added))
        # (A file store lists equal start times by reference: ``seq`` 0 lets that decide.)
        todo = [(session, fingerprints.get(session.reference, ""), 0) for session in listed]
        self._index(todo, stats, progress)
        return stats

    def _index(
        self,
        todo: Sequence[Todo],
        stats: UpdateStats,
        progress: Progress | None,
    ) -> set[str]:
        """Read and store ``todo`` (sessions with the fingerprints to store them under), in
        batches; the harnesses of sessions that could not be read (after one warning). Such a
        session is held with no lines and no fingerprint, so it is listed, and read again by
        the next update."""
        unread: set[str] = set()
        batch: list[Packing] = []
        # A large build first trains the said parts' dictionary on its first sessions.
        training = len(todo) >= _TRAIN_SESSIONS and self._said_dictionary() is None
        started = time.monotonic()
        with _output_compression(len(todo)) as compressing:
            for done, (session, fingerprint, seq) in enumerate(todo, 1):
                lines = _read_lines(session)
                if lines is None:
                    stats.skipped += 1
                    unread.add(session.harness)
                    batch.append((session, "", seq, None, None, None))
                else:
                    said = [line for line in lines if line.origin != "tool_result"]
                    tool_output = [line for line in lines if line.origin == "tool_result"]
                    output = pack(tool_output) if tool_output else None
                    batch.append(
                        (
                            session,
                            fingerprint,
                            seq,
                            pack(said) if said else None,
                            output,
                            None if output is None else compressing(output.data),
                        )
                    )
                    stats.read += 1
                    stats.read_keys.append(session_key(session))
                if (
                    len(batch) >= _TRAIN_SESSIONS
                    if training
                    else len(batch) >= _BATCH_SESSIONS
                    or time.monotonic() - started > _BATCH_SECONDS
                ):
                    self._write(lambda b=batch, t=training: self._store(b, train=t))  # type: ignore[misc]
                    batch, started, training = [], time.monotonic(), False
                if progress is not None:
                    progress(done, len(todo), stats.reused)
            if batch:
                self._write(lambda: self._store(batch, train=training))
        if stats.skipped:
            warn(f"{stats.skipped} session(s) could not be read and are not searchable")
        return unread

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
        known = self.docs()
        out: dict[Key, str] = {}
        tokens: dict[str, Token] = {}
        for harness_id, group in by_harness.items():
            harness = harnesses.get(harness_id)
            store = harness.store()
            if store is None:
                continue
            # A token taken before discovery is older than anything read since: safe to use.
            token = listed.get(harness_id)
            if token is None and (root := harness.default_root()) is not None:
                token = root_token(harness, root)
            if token is not None:
                tokens[harness_id] = token
            recorded = self.recorded(harness_id)
            standing = token is not None and recorded is not None and recorded[0] == token
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
        rows = []
        for harness, token in tokens.items():
            complete = listed.get(harness) == token
            if self.recorded(harness) != (token, complete):
                rows.append((harness, *token, int(complete)))
        self.conn.executemany(
            "INSERT OR REPLACE INTO store(harness, root, token, complete) VALUES (?, ?, ?, ?)",
            rows,
        )

    def forget(self, harness: str) -> None:
        """Prune every session of ``harness`` (its store is gone)."""
        if self.conn.execute("SELECT 1 FROM doc WHERE harness = ? LIMIT 1", (harness,)).fetchone():
            self._write(lambda: self._prune(list(self._docs_of(harness))))
        self.conn.execute("DELETE FROM store WHERE harness = ?", (harness,))
        self.conn.execute("DELETE FROM unlisted WHERE harness = ?", (harness,))
        self._unlisted.pop(harness, None)

    # -- the sessions it holds ----------------------------------------------------------------
    def ranked(
        self,
        harness_ids: Sequence[str],
        *,
        cwd: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> Ranked:
        """The sessions held for ``harness_ids`` that match the filters, newest first, in
        discovery's order (equal start times: by harness in the order given, then as the store
        listed them)."""
        if not harness_ids:
            return Ranked(self, [])
        # (``+harness``: filter along the start-time index, which gives the order, instead of
        # sorting what the harness index finds.)
        where = [f"+harness IN ({', '.join('?' * len(harness_ids))})"]
        values: list[object] = [*harness_ids]
        for copy, owners in _mirrored(harness_ids).items():
            # One row per session: a copy another store searched here holds is not ranked
            # (:func:`txcript.sessions.collapse_mirrors`).
            where.append(
                f"NOT (harness = ? AND id IN (SELECT id FROM doc WHERE harness IN "
                f"({', '.join('?' * len(owners))})))"
            )
            values += [copy, *owners]
        if since is not None:
            where.append("started >= ?")
            values.append(micros(since))
        if until is not None:
            where.append("started <= ?")
            values.append(micros(until))
        rows: list[tuple[int, int, str | None]] = self.conn.execute(
            f"SELECT doc, started, {'cwd' if cwd is not None else 'NULL'} FROM doc "
            f"WHERE {' AND '.join(where)} ORDER BY started DESC",
            values,
        ).fetchall()
        for _, started, held_cwd in rows:
            # (SQLite orders text after every number: a damaged start time would lead.)
            if type(started) is not int or not (held_cwd is None or isinstance(held_cwd, str)):
                raise sqlite3.DatabaseError("search index session row of the wrong type")
        if cwd is not None:
            from txcript.sessions import under

            inside = under(cwd)
            rows = [row for row in rows if row[2] is not None and inside(row[2])]
        docs = [doc for doc, _, _ in rows]
        starts = [started for _, started, _ in rows]
        if len(set(starts)) < len(starts):
            self._untie(docs, starts, harness_ids)
        return Ranked(self, docs)

    def _untie(self, docs: list[int], starts: list[int], harness_ids: Sequence[str]) -> None:
        """Put each run of ``docs`` with equal start time in discovery's order."""
        runs: list[tuple[int, int]] = []
        at = 0
        while at < len(starts):
            end = at + 1
            while end < len(starts) and starts[end] == starts[at]:
                end += 1
            if end - at > 1:
                runs.append((at, end))
            at = end
        place = {harness: n for n, harness in enumerate(harness_ids)}
        order: dict[int, tuple[int, int, str]] = {}
        tied = [doc for at, end in runs for doc in docs[at:end]]
        for first in range(0, len(tied), 500):
            chunk = tied[first : first + 500]
            for doc, harness, seq, reference in self.conn.execute(
                "SELECT doc, harness, seq, reference FROM doc "
                f"WHERE doc IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                if not (
                    isinstance(harness, str) and type(seq) is int and isinstance(reference, str)
                ):
                    raise sqlite3.DatabaseError("search index session row of the wrong type")
                order[doc] = (place.get(harness, len(place)), seq, reference)
        for at, end in runs:
            docs[at:end] = sorted(docs[at:end], key=order.__getitem__)

    def listings(self, docs: Sequence[int]) -> dict[int, Discovered]:
        """The held listing of each of ``docs``; a DatabaseError when one is damaged or gone
        (another process pruned it since it was ranked)."""
        out: dict[int, Discovered] = {}
        for start in range(0, len(docs), 500):
            chunk = docs[start : start + 500]
            for doc, *row in self.conn.execute(
                "SELECT doc, harness, id, reference, started, cwd, listing FROM doc "
                f"WHERE doc IN ({', '.join('?' * len(chunk))})",
                chunk,
            ):
                out[doc] = _held_listing(*row)
        if len(out) < len(set(docs)):
            # (A race, not damage: OperationalError keeps the index for the next run.)
            raise sqlite3.OperationalError("search index sessions pruned while read")
        return out

    def _write(self, work: Callable[[], None]) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            work()
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._held, self._all_held, self._unlisted = {}, False, {}
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

    def _unlisted_of(self, harness: str) -> dict[str, str]:
        """The files of ``harness`` that listed no session: reference → fingerprint then."""
        held = self._unlisted.get(harness)
        if held is None:
            held = self._unlisted[harness] = dict(
                self.conn.execute(
                    "SELECT reference, fingerprint FROM unlisted WHERE harness = ?", (harness,)
                ).fetchall()
            )
        return held

    def _hold_unlisted(
        self, harness: str, dropped: Sequence[str], added: Mapping[str, str]
    ) -> None:
        """Forget the ``dropped`` files that listed no session, and hold the ``added`` ones
        (reference → fingerprint)."""
        self.conn.executemany(
            "DELETE FROM unlisted WHERE harness = ? AND reference = ?",
            [(harness, reference) for reference in dropped],
        )
        self.conn.executemany(
            "INSERT OR REPLACE INTO unlisted(harness, reference, fingerprint) VALUES (?, ?, ?)",
            [(harness, *item) for item in added.items()],
        )
        held = self._unlisted_of(harness)
        for reference in dropped:
            del held[reference]
        held.update(added)

    def _prune(self, keys: Iterable[Key]) -> None:
        for key in keys:
            doc, _ = self._docs_of(key[0]).pop(key)
            self._drop_body(doc)
            self.conn.execute("DELETE FROM doc WHERE doc = ?", (doc,))

    def _relist(self, sessions: Sequence[tuple[Discovered, int]]) -> None:
        """Hold the listings of ``sessions`` (whose lines stand) as discovered now."""
        self.conn.executemany(
            "UPDATE doc SET started = ?, seq = ?, cwd = ?, listing = ? "
            "WHERE doc = ? AND (seq IS NOT ? OR listing IS NOT ?)",
            [
                (micros(s.timestamp), seq, s.cwd, encoded, doc, seq, encoded)
                for s, seq in sessions
                for encoded, (doc, _) in (
                    (_encode_listing(s), self._docs_of(s.harness)[session_key(s)]),
                )
            ],
        )

    def _store(self, batch: list[Packing], *, train: bool = False) -> None:
        if train:
            trained = _train([said.data for _, _, _, said, _, _ in batch if said is not None])
            if trained is not None:
                self.conn.execute(
                    "INSERT INTO dictionary(id, data) VALUES (?, ?)",
                    (trained.dict_id(), trained.as_bytes()),
                )
                self._dictionary, self._dictionary_read, self._compressor = trained, True, None
        compress = self._said_compressor().compress
        for session, fingerprint, seq, said, output, compressed_output in batch:
            key = session_key(session)
            known = self._docs_of(session.harness)
            held = known.get(key)
            listed = (
                fingerprint,
                micros(session.timestamp),
                seq,
                session.cwd,
                _encode_listing(session),
            )
            if held is None:
                cursor = self.conn.execute(
                    "INSERT INTO doc(harness, id, reference, fingerprint, started, seq, cwd, "
                    "listing) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (*key, *listed),
                )
                doc = int(cursor.lastrowid or 0)
                # A body a deleted doc row left behind (damage) would collide with this
                # session's, or be taken for its lines.
                if self.conn.execute("SELECT 1 FROM body WHERE doc = ?", (doc,)).fetchone():
                    self._drop_body(doc)
            else:
                doc = held[0]
                self._drop_body(doc)
                self.conn.execute(
                    "UPDATE doc SET fingerprint = ?, started = ?, seq = ?, cwd = ?, listing = ? "
                    "WHERE doc = ?",
                    (*listed, doc),
                )
            known[key] = (doc, fingerprint)
            # (Every doc has a body row, even one without lines: a missing row is damage.)
            self.conn.execute(
                "INSERT INTO body(doc, said, output) VALUES (?, ?, ?)",
                (
                    doc,
                    None if said is None else compress(said.data),
                    None if compressed_output is None else compressed_output(),
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
            self._dictionary = None if row is None else _held_dictionary(row[0])
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
    def prefetch(self, docs: Sequence[int], parts: Sequence[int]) -> None:
        """Fetch the stored ``parts`` of ``docs`` in one query, for :meth:`part` to decode (a
        query visiting candidates newest first asks for them in runs)."""
        columns = ", ".join(_COLUMN[part] for part in parts)
        marks = ", ".join("?" * len(docs))
        for doc, *blobs in self.conn.execute(
            f"SELECT doc, {columns} FROM body WHERE doc IN ({marks})", docs
        ):
            for part, blob in zip(parts, blobs, strict=True):
                self._fetched[(doc, part)] = blob
        for doc in docs:  # (a doc without its body row is damage: part() says so)
            for part in parts:
                self._fetched.setdefault((doc, part), _NO_BODY)

    def forget_fetched(self) -> None:
        """Drop what :meth:`prefetch` fetched and no :meth:`part` took."""
        self._fetched.clear()

    def part(self, doc: int, part: int) -> Part | None:
        """One part of a session's lines, decoded (None when the session has none)."""
        blob = self._fetched.pop((doc, part), _UNFETCHED)
        if blob is _UNFETCHED:
            row = self.conn.execute(
                f"SELECT {_COLUMN[part]} FROM body WHERE doc = ?", (doc,)
            ).fetchone()
            blob = _NO_BODY if row is None else row[0]
        if blob is _NO_BODY:
            # Every held session has a body row (see _store): its trigram rows would name it
            # and it would silently never match.
            raise sqlite3.DatabaseError("search index session without its body")
        if blob is None:
            return None
        if not isinstance(blob, bytes):
            raise sqlite3.DatabaseError("search index part is not a blob")
        try:
            data = self._decompress_said(blob) if part == SAID else _bz2().decompress(blob)
            return Part(doc, data)
        except (zstandard.ZstdError, OSError, ValueError, msgspec.DecodeError) as exc:
            # Damage met this late is a corrupt cache: the caller degrades on DatabaseError.
            raise sqlite3.DatabaseError(f"search index part unreadable: {exc}") from None

    def doc_of(self, session: Discovered) -> int | None:
        """The doc the index holds ``session`` under, or None."""
        held = self._docs_of(session.harness).get(session_key(session))
        return None if held is None else held[0]

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

    def candidates(
        self, needles: Sequence[str], parts: Sequence[int]
    ) -> dict[int, tuple[int, ...]]:
        """By doc: its parts whose folded lines may contain every needle (each ≥ 3
        characters), somewhere; a superset of the parts with a line that does."""
        # A needle's trigrams tiled end to end (and its last one): each trigram costs a doclist
        # merge, and overlapping ones narrow little more than the tiling does.
        trigrams = sorted(
            {n[i : i + 3] for n in needles for i in (*range(0, len(n) - 2, 3), len(n) - 3)}
        )
        # FTS5 reads its query as a C string, and SQLite takes text only as UTF-8: a trigram
        # holding a NUL or a lone surrogate cannot be asked for. Leaving it out still gives a
        # superset; with none left, every doc holding the parts is a candidate.
        trigrams = [gram for gram in trigrams if _askable(gram)]
        if not trigrams:
            return self._holding(parts)
        query = " AND ".join('"' + gram.replace('"', '""') + '"' for gram in trigrams)
        found: dict[int, tuple[int, ...]] = {}
        for part in parts:
            table = _FTS[part]
            rows = self.conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (query,))
            docs = [doc for (doc,) in rows]
            if not found:
                found = dict.fromkeys(docs, (part,))
                continue
            for doc in docs:
                found[doc] = (*found.get(doc, ()), part)
        return found

    def _holding(self, parts: Sequence[int]) -> dict[int, tuple[int, ...]]:
        """By doc: which of ``parts`` it holds (docs holding none are left out)."""
        found: dict[int, tuple[int, ...]] = {}
        for part in parts:
            column = _COLUMN[part]
            for (doc,) in self.conn.execute(f"SELECT doc FROM body WHERE {column} IS NOT NULL"):
                found[doc] = (*found.get(doc, ()), part)
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


def _askable(trigram: str) -> bool:
    """Can the trigram index be asked for ``trigram`` (no NUL, valid UTF-8)?"""
    if "\x00" in trigram:
        return False
    try:
        trigram.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _held_dictionary(data: object) -> zstandard.ZstdCompressionDict:
    """The said parts' dictionary as the index holds it (a DatabaseError when damaged)."""
    try:
        if not isinstance(data, bytes):
            raise TypeError(f"a {type(data).__name__}")
        held = zstandard.ZstdCompressionDict(data, dict_type=zstandard.DICT_TYPE_FULLDICT)
        held.precompute_compress(level=_SAID_LEVEL)
    except (TypeError, zstandard.ZstdError) as exc:
        raise sqlite3.DatabaseError(f"search index dictionary unreadable: {exc}") from None
    return held


def _mirrored(harness_ids: Sequence[str]) -> dict[str, list[str]]:
    """The harnesses among ``harness_ids`` that mirror others among them (by declaration), each
    with the ones it mirrors."""
    chosen = set(harness_ids)
    out: dict[str, list[str]] = {}
    for harness_id in harness_ids:
        owners = [o for o in harnesses.info(harness_id).mirrors if o in chosen]
        if owners:
            out[harness_id] = owners
    return out


def _held_listing(
    harness: object, meta_id: object, reference: object, started: object, cwd: object, held: object
) -> Discovered:
    """A doc row's listing, checked against the columns it was stored with: they key, rank
    and filter the session, so a listing that disagrees (damage) must never be shown."""
    try:
        listing = _decode_listing(held)  # type: ignore[arg-type]
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError) as exc:
        raise sqlite3.DatabaseError(f"search index listing unreadable: {exc}") from None
    moments = (listing.timestamp, listing.updated_at or listing.timestamp)
    if (
        (listing.harness, listing.meta_id, listing.reference, listing.cwd)
        != (harness, meta_id, reference, cwd)
        or any(moment.utcoffset() is None for moment in moments)
        or micros(listing.timestamp) != started
    ):
        raise sqlite3.DatabaseError("search index listing does not match its session")
    return listing


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
    from txcript.shared.text import scrub

    try:
        path = cache_path("search")
        if not path.is_file():
            return []
        conn = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True, timeout=0.2)
        try:
            escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            # (As bytes: one id of invalid UTF-8 must not cost the others.)
            rows = conn.execute(
                "SELECT DISTINCT CAST(id AS BLOB) FROM doc WHERE typeof(id) = 'text' "
                "AND id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 500",
                (escaped + "%",),
            ).fetchall()
        finally:
            conn.close()
    except (sqlite3.Error, OSError, ValueError):
        return []
    ids = []
    for (raw,) in rows:
        try:
            value = bytes(raw).decode("utf-8")
        except (TypeError, UnicodeDecodeError):
            continue
        if scrub(value) == value:  # a damaged id holding controls is never offered to a shell
            ids.append(value)
    return ids


def open_index() -> Index:
    conn, persistent = open_cache("search", FORMAT, SCHEMA)
    return Index(conn, persistent)


def fallback_index(index: Index, exc: sqlite3.DatabaseError, *, rebuild: bool = True) -> Index:
    """After ``exc`` from the persistent ``index``: close it and go on with a new file when it
    is damaged (``rebuild``: see :func:`~txcript.shared.cache.rebuilt_cache`), else (a lock
    held too long, a full disk) with an empty in-memory index; one warning either way."""
    index.close()
    if rebuild and is_damage(exc):
        return Index(*rebuilt_cache("search", FORMAT, SCHEMA, exc))
    cache_failed("search", exc)
    return Index(memory_cache(FORMAT, SCHEMA), False)


def with_fallback(index: Index, work: Callable[[Index], T]) -> tuple[T, Index]:
    """``work(index)``, and the index it ran on. After a DatabaseError from a persistent
    index, ``work`` runs again on what :func:`fallback_index` gives: a new file in place of a
    damaged one (once), then memory. The caller closes the index it passed and the one
    returned; an index opened here that fails too is closed here."""
    current, rebuild = index, True
    while True:
        try:
            return work(current), current
        except sqlite3.DatabaseError as exc:
            if not current.persistent:
                if current is not index:
                    current.close()
                raise
            current = fallback_index(current, exc, rebuild=rebuild)
            rebuild = False
