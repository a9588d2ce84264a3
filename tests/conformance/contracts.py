"""What the contracts share: the registered harnesses and their declarations, the families built
once per test session, store roots and the environment that points the real CLI at them, tree
snapshots, and the exchange a hop compares.

Nothing here knows one harness from another: every fact about a harness comes from its registry
entry (:mod:`txcript.harnesses`) or its declaration (``harnesses/<id>.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from declare import CONTRACTS, NO_STORE, Conformance, Family, StoreFacts

from txcript import harnesses
from txcript import model as m
from txcript.diagnostics import TranscriptWarning
from txcript.harnesses.base import Discovered, Harness, Store
from txcript.harnesses.declare import HarnessInfo
from txcript.pairing import answer_open_calls
from txcript.shared.jsonutil import dumps_compact

DECLARATIONS = Path(__file__).parent / "harnesses"
#: What a family's documents live under when the harness keeps no store.
DOCUMENTS = "documents"
#: The contracts that need a store, and the ones that need a writer too.
STORE_CONTRACTS = (
    "store-round-trip",
    "discovery-matches-load",
    "reads-leave-store-untouched",
    "write-preflight",
    "write-refused-halfway",
    "hostile-ids",
)
WRITER_CONTRACTS = (
    "store-round-trip",
    "codec-fixpoint",
    "codec-deterministic",
    "write-preflight",
    "write-refused-halfway",
)


# ------------------------------------------------------------------------ harnesses, declarations


def registered() -> list[HarnessInfo]:
    """Every registered harness that is built (has a package), in registry order."""
    return [info for info in harnesses.REGISTRY if info.implemented]


_declared: dict[str, Conformance | None] = {}


def declaration(harness_id: str) -> Conformance | None:
    """The harness's ``CONFORMANCE``, or None when it has no declaration module."""
    if harness_id not in _declared:
        path = DECLARATIONS / f"{harness_id}.py"
        found: Conformance | None = None
        if path.is_file():
            spec = importlib.util.spec_from_file_location(f"conformance_of_{harness_id}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            found = getattr(module, "CONFORMANCE", None)
        _declared[harness_id] = found
    return _declared[harness_id]


def problem(info: HarnessInfo) -> str | None:
    """Why the suite cannot run on ``info``'s harness (so every contract fails), or None."""
    conf = declaration(info.id)
    where = f"tests/conformance/harnesses/{info.id}.py"
    if conf is None:
        return (
            f"{info.id} is registered and built but declares nothing to the conformance suite: "
            f"{where} must define CONFORMANCE = Conformance(...) (docs/adding-a-harness.md, 4)"
        )
    if not isinstance(conf, Conformance):
        return f"{where}: CONFORMANCE is a {type(conf).__name__}, not a Conformance"
    if conf.harness != info.id:
        return f"{where} declares harness {conf.harness!r}, not {info.id!r}"
    if not conf.families:
        return f"{info.id} declares no fixture family: every format generation needs one"
    names = [f.name for f in conf.families]
    if len(set(names)) != len(names):
        return f"{info.id} declares a family name twice: {names}"
    for contract in cannot_apply(info):
        if contract not in conf.skips:
            return (
                f"{info.id} cannot run {contract} ({cannot_apply(info)[contract]}) but does not "
                "skip it: add it to skips with that reason"
            )
    return None


def cannot_apply(info: HarnessInfo) -> dict[str, str]:
    """The contracts the registry entry itself rules out, with the reason to skip them by."""
    out: dict[str, str] = {}
    if not info.has_store:
        out.update(dict.fromkeys(STORE_CONTRACTS, NO_STORE))
    if info.source_only:
        out.update(dict.fromkeys(WRITER_CONTRACTS, "a read-only source: it has no writer"))
    return out


@dataclass(frozen=True)
class Case:
    """One harness, and one of its families (None: the harness as a whole)."""

    harness: str
    family: str | None = None

    @property
    def id(self) -> str:
        return self.harness if self.family is None else f"{self.harness}-{self.family}"


def cases(*, per_family: bool) -> list[Case]:
    """Every registered harness (and each of its families): a harness without a declaration or
    families still gets one case, which fails."""
    out: list[Case] = []
    for info in registered():
        conf = declaration(info.id)
        families = conf.families if isinstance(conf, Conformance) and per_family else ()
        if families:
            out.extend(Case(info.id, family.name) for family in families)
        else:
            out.append(Case(info.id))
    return out


def writers() -> list[str]:
    """The harnesses a hop may write into (the registry's ``can_write``)."""
    return [info.id for info in registered() if info.can_write]


# ------------------------------------------------------------------------------- built families


def quietly() -> contextlib.AbstractContextManager[None]:
    """Reads of fixtures that hold deliberate damage warn; the in-process contracts ignore that."""
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore", TranscriptWarning)
    return stack


def store_root(info: HarnessInfo, home: Path) -> Path:
    """Where a family's store lives under ``home``: the harness's default root there (for a
    store with no default place, such as an account export the user names, a folder named for
    the harness, which its root variable then names)."""
    if not info.has_store or info.root is None:
        return home / DOCUMENTS
    root = info.root.under(home)
    return root if root is not None else home / info.id


def cli_env(info: HarnessInfo, home: Path, scratch: Path) -> dict[str, str]:
    """The environment that points the real CLI at the store built under ``home``, with
    txcript's own data and cache dirs in ``scratch``."""
    root = store_root(info, home)
    env = {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "TXCRIPT_DATA_DIR": str(scratch / "txcript-data"),
        "TXCRIPT_CACHE_DIR": str(scratch / "txcript-cache"),
    }
    conf = declaration(info.id)
    if conf is not None and conf.env is not None:
        env.update(conf.env(root))
    elif info.root is not None and info.root.env:
        value = root
        for _ in Path(info.root.env_suffix).parts:
            value = value.parent
        env[info.root.env] = str(value)
    return env


@dataclass
class Built:
    """A family laid out once, under a home of its own, and what its store gives."""

    info: HarnessInfo
    conf: Conformance
    family: Family
    home: Path
    #: Discovered sessions (store) or one reference per document (document format).
    found: list[Discovered] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    _natives: dict[str, Any] = field(default_factory=dict)

    @property
    def harness(self) -> Harness[Any]:
        return harnesses.get(self.info.id)

    @property
    def root(self) -> Path:
        return store_root(self.info, self.home)

    def store(self, root: Path | None = None) -> Store[Any]:
        opened = self.harness.store(root if root is not None else self.root)
        assert opened is not None, f"{self.info.id} opens no store at {root or self.root}"
        return opened

    def native(self, reference: str) -> Any:
        """The native body of one session (loaded once)."""
        if reference not in self._natives:
            with quietly():
                if self.info.has_store:
                    self._natives[reference] = self.store().load(reference)
                else:
                    text = Path(reference).read_bytes().decode("utf-8", "surrogateescape")
                    self._natives[reference] = self.harness.from_text(text)
        return self._natives[reference]

    def common(self, reference: str) -> m.Transcript:
        with quietly():
            return self.harness.to_common(self.native(reference))


class Builds:
    """Every family built at most once per test session (each is only ever read; a contract
    that writes or damages works on a copy of the home)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._built: dict[tuple[str, str], Built] = {}

    def get(self, case: Case) -> Built:
        info = harnesses.info(case.harness)
        trouble = problem(info)
        if trouble is not None:
            raise AssertionError(trouble)
        conf = declaration(case.harness)
        assert conf is not None
        family = next((f for f in conf.families if f.name == case.family), None)
        assert family is not None, f"{case.harness} has no family {case.family!r}"
        key = (case.harness, family.name)
        if key not in self._built:
            self._built[key] = build(info, conf, family, self.base / case.harness / family.name)
        return self._built[key]

    def all_of(self, harness_id: str) -> list[Built]:
        conf = declaration(harness_id)
        assert conf is not None
        return [self.get(Case(harness_id, family.name)) for family in conf.families]


def build(info: HarnessInfo, conf: Conformance, family: Family, home: Path) -> Built:
    home.mkdir(parents=True)
    built = Built(info, conf, family, home)
    root = built.root
    root.mkdir(parents=True, exist_ok=True)
    with quietly():  # (a builder may read another fixture that warns on purpose)
        family.build(root)
    if info.has_store:
        with quietly():
            built.found = built.store().discover()
        built.references = [d.reference for d in built.found]
    else:
        built.references = sorted(
            str(p) for p in root.rglob("*") if p.is_file() and not p.is_symlink()
        )
    count = len(built.references)
    assert count >= 1, f"{info.id} family {family.name} gives no session"
    if family.sessions is not None:
        assert count == family.sessions, (
            f"{info.id} family {family.name} gives {count} sessions, not {family.sessions}"
        )
    return built


def copy_home(built: Built, where: Path) -> Path:
    """A copy of the family's home (mtimes kept, links not followed): the root to change."""
    shutil.copytree(built.home, where, symlinks=True)
    return store_root(built.info, where)


def fresh_root(built: Built, where: Path) -> Path:
    """An empty store root for the family's generation under the home ``where``."""
    return empty_root(built.info.id, where, built.family)


def empty_root(harness_id: str, home: Path, family: Family | None = None) -> Path:
    """An empty store root of ``harness_id`` under ``home``, as its declaration (or the
    family's) says one looks before the first save."""
    info = harnesses.info(harness_id)
    root = store_root(info, home)
    root.mkdir(parents=True, exist_ok=True)
    conf = declaration(harness_id)
    prepare = family.fresh_root if family is not None else None
    if prepare is None and conf is not None:
        prepare = conf.fresh_root
    if prepare is not None:
        prepare(root)
    return root


def stripped(facts: StoreFacts | None, native: Any) -> Any:
    """The native body without the declared facts from beside the session's records."""
    return native if facts is None else facts.strip(native)


# ----------------------------------------------------------------------------------- snapshots


def tree(*roots: Path, mtimes: bool = True, databases: bool = False) -> dict[str, tuple[Any, ...]]:
    """Every entry under ``roots`` (links not followed): kind, mode, size, content hash, link
    target, and (with ``mtimes``) the modification time in nanoseconds.

    With ``databases``, an SQLite database counts by what it holds (schema and rows, its
    journal or ``-wal`` applied) rather than its bytes, and its sidecar files not at all: any
    connection that writes may checkpoint a ``-wal`` into the database when it closes.
    """
    out: dict[str, tuple[Any, ...]] = {}
    for root in roots:
        if not os.path.lexists(root):
            continue
        entries = [str(root)]
        for directory, dirs, files in os.walk(root, followlinks=False):
            entries.extend(os.path.join(directory, name) for name in [*dirs, *files])
        for path in entries:
            status = os.lstat(path)
            entry: tuple[Any, ...] = (stat.S_IFMT(status.st_mode), status.st_mode & 0o7777)
            if stat.S_ISREG(status.st_mode):
                if (
                    databases
                    and path.endswith(SQLITE_SIDECARS)
                    and os.path.isfile(path.rsplit("-", 1)[0])
                ):
                    continue
                with open(path, "rb") as handle:
                    data = handle.read()
                if databases and data.startswith(b"SQLite format 3\x00"):
                    entry += ("database", database_content(Path(path)))
                else:
                    entry += (status.st_size, hashlib.sha256(data).hexdigest())
            elif stat.S_ISLNK(status.st_mode):
                entry += (os.readlink(path),)
            if mtimes:
                entry += (status.st_mtime_ns,)
            if databases and stat.S_ISDIR(status.st_mode):
                entry = entry[:2]
            out[path] = entry
    return out


SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


def database_content(path: Path) -> str:
    """A digest of what an SQLite database holds (its sidecars applied), read from a copy so the
    database and its sidecars stay as they are."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "copy.db"
        shutil.copyfile(path, copy)
        for suffix in SQLITE_SIDECARS[::2]:
            if os.path.isfile(f"{path}{suffix}"):
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        conn = sqlite3.connect(copy)
        try:
            digest = hashlib.sha256()
            for line in conn.iterdump():
                digest.update(line.encode("utf-8", "surrogatepass"))
            return digest.hexdigest()
        finally:
            conn.close()


def changes(before: dict[str, tuple[Any, ...]], after: dict[str, tuple[Any, ...]]) -> list[str]:
    """What differs between two :func:`tree` snapshots, one line per path."""
    out = [f"created {p}" for p in sorted(set(after) - set(before))]
    out += [f"removed {p}" for p in sorted(set(before) - set(after))]
    out += [f"changed {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]]
    return out


# ------------------------------------------------------------------------------------ copies


def as_copy(transcript: m.Transcript, target: Harness[Any], *, fresh_id: bool) -> m.Transcript:
    """``transcript`` as ``continue --out`` writes it into ``target``: an id of the target's
    grammar (a fresh one with ``fresh_id``), a working directory when it had none (the stores
    that file chats by project need one), and every call left open mid-session closed."""
    meta = transcript.meta
    session_id = target.new_session_id() if fresh_id or not meta.id else meta.id
    meta = msgspec.structs.replace(
        meta, id=target.adopt_id(session_id), cwd=meta.cwd or "/home/dev/hop"
    )
    return answer_open_calls(msgspec.structs.replace(transcript, meta=meta))


def saved_and_read(target: Harness[Any], transcript: m.Transcript, root: Path) -> m.Transcript:
    """Write ``transcript`` into the ``target`` store at ``root``, and read it back as the store
    lists it: once, with the metadata its load gives."""
    store = target.store(root)
    assert store is not None
    with quietly():
        saved = store.save(target.from_common(transcript), force=True)
        listed = [d for d in store.discover() if d.reference == saved.reference]
        assert len(listed) == 1, f"{target.id} does not list the session it just saved"
        back = target.to_common(store.load(saved.reference))
    assert listing_of(listed[0]) == listing_of(back.meta), f"{target.id} lists what it saved so"
    return back


def listing_of(found: Discovered | m.Meta) -> tuple[Any, ...]:
    """The fields a listing shares with a load's Meta (id, start, title, cwd, model, branch)."""
    if isinstance(found, Discovered):
        return (
            found.meta_id,
            found.timestamp,
            found.title,
            found.cwd,
            found.model,
            found.git_branch,
        )
    return (found.id, found.timestamp, found.title, found.cwd, found.model, found.git_branch)


# ------------------------------------------------------------------------------------ exchange

Exchange = list[tuple[Any, ...]]


class Said(str):
    """A text of the exchange, equal to its plain string, that also knows which message of its
    transcript said it: a limit that joins the texts of one message (a store keeping one text
    per user turn) must not join two messages."""

    message: int

    def __new__(cls, text: str, message: int) -> Said:
        said = super().__new__(cls, text)
        said.message = message
        return said


def exchange(transcript: m.Transcript) -> Exchange:
    """What a conversation says, in order: texts, thinking (and whether it is signed), calls
    with their typed tool, and results with the call they answer, their text and ``is_error``.

    Call ids are replaced by their order of appearance (a target may give calls ids of its own
    grammar); a tool is compared in its canonical typed form (a call kept under its name with
    the same input is the same call, typed or raw); a result's structured output is compared as
    its compact JSON (stores whose result slot holds only text flatten it). Images, artifacts
    and empty redacted thinking are left out: the contract is about the conversation and its
    calls.
    """
    numbers: dict[str, int] = {}

    def number(call_id: str) -> int:
        return numbers.setdefault(call_id, len(numbers))

    out: Exchange = []
    for index, message in enumerate(transcript.messages):
        for block in message.content:
            if isinstance(block, m.Text):
                out.append(("text", message.role, Said(block.text, index)))
            elif isinstance(block, m.Thinking):
                if block.text:
                    out.append(("thinking", block.text, block.signature is not None))
            elif isinstance(block, m.ToolUse):
                out.append(("call", number(block.id), m.type_tool(*m.render_tool(block.tool))))
            elif isinstance(block, m.ToolResult):
                content = block.content
                text = content if isinstance(content, str) else dumps_compact(content)
                out.append(("result", number(block.tool_use_id), text, block.is_error))
    return out


def renumbered(items: Exchange) -> Exchange:
    """The exchange with its calls numbered again by order of appearance (a limit that leaves a
    call out shifts the numbers of the calls after it)."""
    numbers: dict[Any, int] = {}
    out: Exchange = []
    for item in items:
        if item[0] in ("call", "result"):
            item = (item[0], numbers.setdefault(item[1], len(numbers)), *item[2:])
        out.append(item)
    return out


def shown(items: Exchange) -> str:
    return "\n".join(f"  {i:3d} {item!r}"[:220] for i, item in enumerate(items))


# --------------------------------------------------------------------------------- the real CLI


@dataclass
class Run:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


def run_cli(jobs: list[tuple[tuple[str, ...], dict[str, str]]], timeout: float = 60) -> list[Run]:
    """Run ``python -m txcript ARGS`` for every job, a few at a time, in the given environments
    (on top of this process's, whose HOME is the test's private one)."""

    def one(job: tuple[tuple[str, ...], dict[str, str]]) -> Run:
        args, env = job
        full = dict(os.environ)
        full.update(env)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "txcript", *args],
                input=b"",
                capture_output=True,
                env=full,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Run(args, -1, "", f"hung for more than {timeout} s")
        return Run(
            args,
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )

    with ThreadPoolExecutor(max_workers=3) as pool:
        return list(pool.map(one, jobs))


# --------------------------------------------------------------------------------- damage


def session_file(location: str) -> Path:
    """The file that holds a session, from its store location: the location itself, else the
    longest leading part of it that exists (``<database> session <id>``); a directory (a chat
    directory) stands for the largest regular file in it."""
    words = location.split(" ")
    for end in range(len(words), 0, -1):
        candidate = Path(" ".join(words[:end]))
        if os.path.lexists(candidate):
            break
    else:
        raise AssertionError(f"no file at the session location {location!r}")
    if candidate.is_dir() and not candidate.is_symlink():
        inside = [p for p in candidate.rglob("*") if p.is_file() and not p.is_symlink()]
        assert inside, f"the session directory {candidate} holds no file"
        candidate = max(inside, key=lambda p: (p.stat().st_size, str(p)))
    return candidate


def _truncate(path: Path, outside: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: max(1, len(data) // 2)])


def _not_json(path: Path, outside: Path) -> None:
    path.write_bytes(b"\x00\xff this is not JSON, nor SQLite { [\n")


def _directory(path: Path, outside: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("a directory where a file should be\n")


def _symlink_out(path: Path, outside: Path) -> None:
    outside.mkdir(parents=True, exist_ok=True)
    target = outside / f"outside-{path.name}"
    shutil.copyfile(path, target)
    path.unlink()
    path.symlink_to(target)


def _fifo(path: Path, outside: Path) -> None:
    path.unlink()
    os.mkfifo(path)


#: Each way a session's file is damaged (for a database store: its database).
DAMAGE: dict[str, Callable[[Path, Path], None]] = {
    "truncated": _truncate,
    "not-json": _not_json,
    "directory": _directory,
    "symlink-out": _symlink_out,
    "fifo": _fifo,
}

HOSTILE_IDS = ("../x", "a/b", "-x", "..")


@contextlib.contextmanager
def patched(target: object, name: str, value: object) -> Iterator[None]:
    original = getattr(target, name)
    setattr(target, name, value)
    try:
        yield
    finally:
        setattr(target, name, original)


def every_binding(function: Callable[..., Any]) -> list[tuple[object, str]]:
    """Every module attribute in ``sys.modules`` bound to ``function`` (its own module's and
    each ``from module import function``), so a fault replaces it wherever a store calls it."""
    out: list[tuple[object, str]] = []
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        out.extend((module, name) for name, value in namespace.items() if value is function)
    return out


def contract_ids() -> list[str]:
    return list(CONTRACTS)
