"""Every contract of ``declare.CONTRACTS``, for every registered harness and each of its fixture
families, with no per-harness code: what differs between harnesses comes from the registry and
from ``harnesses/<id>.py``. ``README.md`` says what each contract proves.

Run one harness with ``pytest tests/conformance -k claude_code``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from contracts import (
    DAMAGE,
    HOSTILE_IDS,
    Builds,
    Built,
    Case,
    as_copy,
    cases,
    changes,
    cli_env,
    copy_home,
    declaration,
    empty_root,
    every_binding,
    exchange,
    fresh_root,
    listing_of,
    problem,
    quietly,
    registered,
    renumbered,
    run_cli,
    saved_and_read,
    session_file,
    shown,
    stripped,
    tree,
    writers,
)
from declare import Conformance
from faults import Faults, chosen
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from txcript import harnesses
from txcript.errors import StoreError, TxcriptError
from txcript.harnesses.base import lists_by_file, lookup
from txcript.sessions import parse_document
from txcript.shared import files
from txcript.shared.jsonutil import INVALID, try_loads

HARNESSES = cases(per_family=False)
FAMILIES = cases(per_family=True)
HOPS = [(case, target) for case in FAMILIES for target in writers() if target != case.harness]
#: Property tests take their example count from the loaded profile (tests/conftest.py).
PROPERTY = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
    ],
)


def _ids(values: list[Case]) -> list[str]:
    return [case.id for case in values]


@pytest.fixture(scope="session")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("families"))


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """txcript's own data dir (row and file backups), outside every store."""
    path = tmp_path / "txcript-data"
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(path))
    monkeypatch.setenv("TXCRIPT_CACHE_DIR", str(tmp_path / "txcript-cache"))
    return path


def declared(case: Case, contract: str) -> Conformance:
    """The harness's declaration; the test fails when there is none (or it is unusable) and
    is skipped, with the declared reason, when the harness opts out of ``contract``."""
    trouble = problem(harnesses.info(case.harness))
    if trouble is not None:
        pytest.fail(trouble, pytrace=False)
    conf = declaration(case.harness)
    assert conf is not None
    if contract in conf.skips:
        pytest.skip(conf.skips[contract])
    family = next((f for f in conf.families if f.name == case.family), None)
    if family is not None and contract in family.skips:
        pytest.skip(family.skips[contract])
    return conf


def family(builds: Builds, case: Case, contract: str) -> Built:
    declared(case, contract)
    return builds.get(case)


def _save(built: Built, native: Any, root: Path) -> Any:
    with quietly():
        return built.store(root).save(native, force=True)


def _fresh_native(built: Built) -> Any:
    """A new session for the family's store: its first session under a fresh id."""
    harness = built.harness
    copy = as_copy(built.common(built.references[0]), harness, fresh_id=True)
    return harness.from_common(copy)


# ----------------------------------------------------------------------------- declarations


@pytest.mark.contract("declared")
@pytest.mark.parametrize("case", HARNESSES, ids=_ids(HARNESSES))
def test_every_registered_harness_declares_its_families(case: Case) -> None:
    conf = declared(case, "declared")
    assert conf.families
    for contract, reason in conf.skips.items():
        assert len(reason.split()) >= 3, f"{case.harness}: skipping {contract} needs a reason"


def test_every_built_harness_is_in_the_suite() -> None:
    built = {info.id for info in registered()}
    assert {case.harness for case in HARNESSES} == built
    declared = {p.stem for p in (Path(__file__).parent / "harnesses").glob("[!_]*.py")}
    assert declared <= built, f"declarations of harnesses not built: {sorted(declared - built)}"


# ------------------------------------------------------------------------------ store round trip


@pytest.mark.contract("store-round-trip")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_store_round_trip_is_byte_lossless(case: Case, builds: Builds, tmp_path: Path) -> None:
    built = family(builds, case, "store-round-trip")
    harness = built.harness
    for index, reference in enumerate(built.references):
        root = fresh_root(built, tmp_path / f"home-{index}")
        native = built.native(reference)
        saved = _save(built, native, root)
        with quietly():
            again = stripped(built.conf.store_facts, built.store(root).load(saved.reference))
            native = stripped(built.conf.store_facts, native)
            assert harness.to_text(again) == harness.to_text(native), reference
            assert again == native, reference
            assert harness.to_common(again) == harness.to_common(native), reference


# ------------------------------------------------------------------------------------- codec


@pytest.mark.contract("codec-fixpoint")
@pytest.mark.parametrize("case", HARNESSES, ids=_ids(HARNESSES))
@PROPERTY
@given(data=st.data())
def test_codec_fixpoint_through_common(case: Case, data: st.DataObject) -> None:
    conf = declared(case, "codec-fixpoint")
    assert conf.representable is not None, f"{case.harness} declares no representable strategy"
    harness = harnesses.get(case.harness)
    transcript = data.draw(conf.representable, label="transcript")
    with quietly():
        assert harness.to_common(harness.from_common(transcript)) == transcript


@pytest.mark.contract("codec-deterministic")
@pytest.mark.parametrize("case", HARNESSES, ids=_ids(HARNESSES))
@PROPERTY
@given(data=st.data())
def test_from_common_is_deterministic(case: Case, data: st.DataObject) -> None:
    conf = declared(case, "codec-deterministic")
    assert conf.representable is not None, f"{case.harness} declares no representable strategy"
    harness = harnesses.get(case.harness)
    transcript = data.draw(conf.representable, label="transcript")
    with quietly():
        first, second = harness.from_common(transcript), harness.from_common(transcript)
        assert first == second
        assert harness.to_text(first) == harness.to_text(second)


@pytest.mark.contract("codec-deterministic")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_from_common_of_every_family_session_is_deterministic(case: Case, builds: Builds) -> None:
    built = family(builds, case, "codec-deterministic")
    harness = built.harness
    for reference in built.references:
        common = built.common(reference)
        with quietly():
            first, second = harness.from_common(common), harness.from_common(common)
            assert harness.to_text(first) == harness.to_text(second), reference


# --------------------------------------------------------------------------------- text form


def _text_round_trip(
    conf: Conformance, harness: Any, native: Any, label: str, *, recognised: bool = False
) -> None:
    text = harness.to_text(native)
    back = harness.from_text(text)
    assert harness.to_text(back) == text, label
    assert b"".join(harness.to_text_chunks(back)) == text.encode("utf-8", "surrogateescape")
    native, back = stripped(conf.text_facts, native), stripped(conf.text_facts, back)
    assert harness.to_common(back) == harness.to_common(native), label
    if (
        recognised
        and _is_json_document(text)
        and (harness.provides("sniff") or harness.provides("sniff_lines"))
    ):
        found, _ = parse_document(text.encode("utf-8"), label, None)
        assert found.id == harness.id, f"{label}: `export FILE` reads it as {found.id}"


def _is_json_document(text: str) -> bool:
    """UTF-8 (what a document must be) whose first line is JSON: a JSON or JSONL text form,
    which ``export FILE`` recognises without ``--from``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    first = next((line for line in text.splitlines() if line.strip()), "")
    return try_loads(first) is not INVALID or try_loads(text) is not INVALID


@pytest.mark.contract("text-round-trip")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_text_form_round_trips_every_family_session(case: Case, builds: Builds) -> None:
    built = family(builds, case, "text-round-trip")
    with quietly():
        for reference in built.references:
            _text_round_trip(
                built.conf, built.harness, built.native(reference), reference, recognised=True
            )


@pytest.mark.contract("text-round-trip")
@pytest.mark.parametrize("case", HARNESSES, ids=_ids(HARNESSES))
@PROPERTY
@given(data=st.data())
def test_text_form_round_trips_what_the_codec_writes(case: Case, data: st.DataObject) -> None:
    conf = declared(case, "text-round-trip")
    harness = harnesses.get(case.harness)
    if conf.representable is None or not harness.provides("from_common"):
        return  # (a read-only source: its families are the whole domain)
    transcript = data.draw(conf.representable, label="transcript")
    with quietly():
        _text_round_trip(conf, harness, harness.from_common(transcript), "written")


# ---------------------------------------------------------------------------------- discovery


@pytest.mark.contract("discovery-matches-load")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_discovery_lists_what_a_full_load_gives(case: Case, builds: Builds) -> None:
    built = family(builds, case, "discovery-matches-load")
    harness, store = built.harness, built.store()
    ids = [d.meta_id for d in built.found]
    assert len(set(ids)) == len(ids), f"a session is listed twice: {ids}"
    for found in built.found:
        native = built.native(found.reference)
        with quietly():
            meta = harness.meta_of(native)
            assert meta == harness.to_common(native).meta, "meta_of differs from to_common"
            assert listing_of(found) == listing_of(meta), found.reference
            assert found.harness == harness.id
            assert store.location(found.reference)
            by_id = lookup(store, found.meta_id)
            if by_id is not None:
                assert found in by_id, f"lookup({found.meta_id!r}) misses it: {by_id}"
    by_file = lists_by_file(store)
    if by_file is not None:
        with quietly():
            again = by_file.discover_references(by_file.fingerprinted())
        assert sorted(again, key=repr) == sorted(built.found, key=repr)


@pytest.mark.contract("reads-leave-store-untouched")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_reads_leave_the_store_byte_identical(case: Case, builds: Builds, tmp_path: Path) -> None:
    built = family(builds, case, "reads-leave-store-untouched")
    root = copy_home(built, tmp_path / "home")
    harness = built.harness
    before = tree(root)
    store = harness.store(root)
    assert store is not None
    with quietly():
        found = store.discover()
        for listed in found:
            harness.to_common(store.load(listed.reference))
            store.location(listed.reference)
            lookup(store, listed.meta_id)
        store.fingerprints([d.reference for d in found])
        by_file = lists_by_file(store)
        if by_file is not None:
            by_file.discover_references(by_file.fingerprinted())
        harness.change_token(root)
    assert len(found) == len(built.found)
    assert changes(before, tree(root)) == []


# -------------------------------------------------------------------------------------- writes


@pytest.mark.contract("write-preflight")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_every_write_runs_the_preflight_before_its_first_byte(
    case: Case, builds: Builds, tmp_path: Path, data_dir: Path
) -> None:
    built = family(builds, case, "write-preflight")
    native = _fresh_native(built)
    real = files.preflight_write
    bindings = every_binding(real)

    # It is called, and nothing has changed when it is.
    root = copy_home(built, tmp_path / "spied")
    before = tree(root, data_dir)
    seen: list[list[str]] = []

    def spy(*args: Any, **kwargs: Any) -> None:
        seen.append(changes(before, tree(root, data_dir)))
        real(*args, **kwargs)

    for module, name in bindings:
        setattr(module, name, spy)
    try:
        _save(built, native, root)
    finally:
        for module, name in bindings:
            setattr(module, name, real)
    assert seen, f"{case.harness}'s save never calls shared.files.preflight_write"
    assert seen[0] == [], f"written before the preflight: {seen[0]}"

    # Refused there, it writes nothing anywhere.
    root = copy_home(built, tmp_path / "refused")
    before = tree(root, data_dir)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise files.PathRefused("refused by the conformance suite's preflight")

    for module, name in bindings:
        setattr(module, name, refuse)
    try:
        with pytest.raises(StoreError, match="conformance suite"):
            _save(built, native, root)
    finally:
        for module, name in bindings:
            setattr(module, name, real)
    assert changes(before, tree(root, data_dir)) == []


@pytest.mark.contract("write-refused-halfway")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_a_write_refused_halfway_leaves_nothing_behind(
    case: Case, builds: Builds, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chosen write step of a save fails in turn (see ``faults.py``), for two saves: a new
    session written into the family's store (beside its sessions and app state), and the first
    session as loaded (its side files and every record) written into an empty root. Either the
    save is refused with a one-line error and the store and txcript's data dir hold what they
    held (a database counted by its rows: closing a writing connection may fold a ``-wal`` into
    it), or the step was one the store may lose after its write stands (publishing its backup,
    which the next write's sweep completes) and the session reads back whole."""
    built = family(builds, case, "write-refused-halfway")
    saves = [
        ("a new session", _fresh_native(built), lambda home: copy_home(built, home)),
        (
            "a loaded session",
            built.native(built.references[0]),
            lambda home: fresh_root(built, home),
        ),
    ]
    problems: list[str] = []
    for number, (what, native, prepare) in enumerate(saves):
        problems += _refused_halfway(
            built, what, native, prepare, tmp_path / str(number), monkeypatch
        )
    assert not problems, "\n".join(problems)


def _refused_halfway(
    built: Built,
    what: str,
    native: Any,
    prepare: Any,
    where: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> list[str]:
    counting = Faults()
    monkeypatch.setenv("TXCRIPT_DATA_DIR", str(where / "counted-data"))
    counted = prepare(where / "counted")
    with counting:
        saved = _save(built, native, counted)
    with quietly():
        whole = built.harness.to_common(built.store(counted).load(saved.reference))
    steps = chosen(counting.counts)
    assert steps, f"{built.info.id}'s save of {what} made no rename and no SQLite write"
    problems = []
    for kind, index in steps:
        data = where / f"{kind}-{index}-data"
        monkeypatch.setenv("TXCRIPT_DATA_DIR", str(data))
        root = prepare(where / f"{kind}-{index}")
        before = tree(root, data, mtimes=False, databases=True)
        fault = Faults(fail=(kind, index))
        step = f"saving {what}, {kind} step {index + 1} of {counting.counts[kind]}"
        try:
            with fault:
                done = _save(built, native, root)
        except TxcriptError:
            left = changes(before, tree(root, data, mtimes=False, databases=True))
            if left:
                problems.append(f"{step} failed the save, which left\n  " + "\n  ".join(left))
        except Exception as exc:  # not a one-line error
            problems.append(f"{step} failed: the save raised {type(exc).__name__}: {exc}")
        else:
            with quietly():
                listed = [d.reference for d in built.store(root).discover()]
                back = built.harness.to_common(built.store(root).load(done.reference))
            if done.reference not in listed or back != whole:
                problems.append(f"{step} failed, the save went on, and its session is not whole")
        assert fault.failed
    return problems


# -------------------------------------------------------------------------------- hostile input


def _fine(run: Any, baseline: list[str]) -> str | None:
    """Why a run on damaged input is not clean (None when it is): no traceback, exit 0, 1 or 2,
    no line twice, at most one warning saying what was skipped and one line more (the error a
    failure ends with, or what the damage cost, such as a call left without its result)."""
    if "Traceback" in run.stderr or "internal error" in run.stderr:
        return "a traceback or an internal error"
    if run.code not in (0, 1, 2):
        return f"exit {run.code}"
    if len(set(run.lines)) != len(run.lines):
        return "a line given twice"
    new = [line for line in run.lines if line not in baseline]
    errors = [line for line in new if line.startswith("txcript: error: ")]
    if len(new) > 2 or len(errors) > 1:
        return f"{len(new)} new lines on stderr"
    if run.code != 0 and len(errors) != 1:
        return "a failure without one error line"
    return None


#: A FIFO the user names as a document is read as the stream it is (``export <(cmd)``), so it
#: waits for its writer, as ``cat`` does; stores never open one.
DOCUMENT_DAMAGE = [kind for kind in DAMAGE if kind != "fifo"]
#: What each format generation parses differently. A directory, a symlink or a FIFO in place of
#: a session file meets the store's file access, which is the same for all its generations: the
#: first family of a harness takes every kind of damage, the others these.
PARSER_DAMAGE = ["truncated", "not-json"]


def _damage_kinds(case: Case, has_store: bool) -> list[str]:
    conf = declaration(case.harness)
    first = conf is not None and conf.families[0].name == case.family
    kinds = list(DAMAGE) if has_store else DOCUMENT_DAMAGE
    return kinds if first else [kind for kind in kinds if kind in PARSER_DAMAGE]


@pytest.mark.contract("hostile-input")
@pytest.mark.parametrize("case", FAMILIES, ids=_ids(FAMILIES))
def test_damaged_input_gives_one_line_and_never_a_traceback(
    case: Case, builds: Builds, tmp_path: Path
) -> None:
    built = family(builds, case, "hostile-input")
    info, reference = built.info, built.references[0]
    if info.has_store:
        location = built.store().location(reference)
        victim = session_file(location).relative_to(built.home)
        session_id = built.found[0].meta_id
    else:
        victim = Path(reference).relative_to(built.home)
        session_id = ""

    def commands(home: Path) -> list[tuple[str, ...]]:
        if not info.has_store:
            return [("export", str(home / victim), "--from", info.id, "--format", "common")]
        return [
            ("list", "--from", info.id),
            ("export", session_id, "--from", info.id, "--format", "common"),
        ]

    kinds = _damage_kinds(case, info.has_store)
    jobs = []
    for kind in ["intact", *kinds]:
        home = tmp_path / kind / "home"
        copy_home(built, home)
        if kind != "intact":
            DAMAGE[kind](home / victim, tmp_path / kind / "outside")
        env = cli_env(info, home, tmp_path / kind)
        jobs += [((*args,), env) for args in commands(home)]
    runs = run_cli(jobs)
    per_kind = len(runs) // (1 + len(kinds))
    intact, damaged = runs[:per_kind], runs[per_kind:]
    for run in intact:
        assert run.code == 0, f"the undamaged family fails: {run.args}\n{run.stderr}"
    problems = []
    for index, run in enumerate(damaged):
        kind = kinds[index // per_kind]
        why = _fine(run, intact[index % per_kind].lines)
        if why is not None:
            problems.append(f"{kind}: {' '.join(run.args[:2])}: {why}\n{run.stderr}")
    assert not problems, f"damaged {victim}:\n" + "\n".join(problems)


@pytest.mark.contract("hostile-ids")
@pytest.mark.parametrize("case", HARNESSES, ids=_ids(HARNESSES))
def test_hostile_ids_are_refused_or_land_inside_the_root(
    case: Case, builds: Builds, tmp_path: Path, data_dir: Path
) -> None:
    conf = declared(case, "hostile-ids")
    built = builds.get(Case(case.harness, conf.families[0].name))
    info, harness = built.info, built.harness
    home = tmp_path / "home"
    root = copy_home(built, home)
    env = cli_env(info, home, tmp_path)
    jobs = []
    for bad in HOSTILE_IDS:
        jobs.append((("export", bad, "--from", info.id, "--format", "common"), env))
        jobs.append((("delete", bad, "--from", info.id, "--yes"), env))
    for run in run_cli(jobs):
        errors = [line for line in run.lines if line.startswith("txcript: error: ")]
        assert run.code == 2 and len(run.lines) == 1 and len(errors) == 1, (run.args, run.stderr)

    if not info.can_write:
        return
    source = built.common(built.references[0])
    for bad in HOSTILE_IDS:
        copy = msgspec.structs.replace(source, meta=msgspec.structs.replace(source.meta, id=bad))
        before = tree(home, data_dir)
        try:
            with quietly():
                saved = built.store(root).save(harness.from_common(copy), force=True)
        except TxcriptError:
            assert changes(before, tree(home, data_dir)) == [], f"id {bad!r}"
            continue
        written = session_file(built.store(root).location(saved.reference))
        real_root = os.path.realpath(root)
        assert os.path.realpath(written).startswith(real_root + os.sep), (bad, written)
        outside = [
            c for c in changes(before, tree(home, data_dir)) if real_root not in c
        ]  # (txcript's own data dir holds the backup a database write takes)
        outside = [c for c in outside if str(data_dir) not in c]
        assert outside == [], f"id {bad!r} wrote outside the root: {outside}"


# ---------------------------------------------------------------------------------------- hop


def _limited(conf: Conformance | None, items: list[Any]) -> list[Any]:
    if conf is not None and conf.hop_limit is not None:
        items = conf.hop_limit.normalize(items)
    return renumbered(items)


@pytest.mark.contract("hop")
@pytest.mark.parametrize(
    ("case", "target"), HOPS, ids=[f"{case.id}-into-{target}" for case, target in HOPS]
)
def test_a_hop_into_every_other_writer_and_back_keeps_every_call(
    case: Case, target: str, builds: Builds, tmp_path: Path
) -> None:
    built = family(builds, case, "hop")
    into, back = harnesses.get(target), built.harness
    target_conf = declaration(target)
    trouble = problem(harnesses.info(target))
    assert trouble is None, trouble
    for index, reference in enumerate(built.references):
        source = as_copy(built.common(reference), into, fresh_id=False)
        expected = _limited(target_conf, exchange(source))
        there = saved_and_read(into, source, _hop_root(target, tmp_path / f"{index}-there"))
        got = renumbered(exchange(there))
        assert got == expected, (
            f"{reference}\ninto {target}, expected:\n{shown(expected)}\ngot:\n{shown(got)}"
        )
        if not back.can_write:
            continue
        returned = as_copy(there, back, fresh_id=False)
        home_again = _hop_root(back.id, tmp_path / f"{index}-back")
        expected_back = _limited(built.conf, expected)
        got_back = renumbered(exchange(saved_and_read(back, returned, home_again)))
        assert got_back == expected_back, (
            f"{reference}\nback from {target}, expected:\n{shown(expected_back)}\n"
            f"got:\n{shown(got_back)}"
        )


def _hop_root(harness_id: str, home: Path) -> Path:
    return empty_root(harness_id, home)
