"""Gemini CLI's project registry: which project directory under ``tmp/`` belongs to which root.

Current builds name a project's directory by a short slug kept in ``projects.json``
(``{"projects": {<absolute root>: <slug>}}``) and mark the directory as theirs with a
``.project_root`` file holding the root. The slug is the root's lowercased base name with every
run of other characters than ``a-z0-9`` turned into one ``-`` (``project`` when nothing is left),
and ``-1``, ``-2``… when another root owns it. Older builds named the directory by the sha256 of
the root, in hex; both kinds occur, sometimes for the same project.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from txcript.diagnostics import warn
from txcript.errors import StoreError, StoreUnreadable
from txcript.shared.files import MAX_SIDE_FILE_BYTES, decode_lossless, read_regular
from txcript.shared.jsonutil import dumps_pretty, loads_strict

REGISTRY = "projects.json"
MARKER = ".project_root"
_HASH_DIR = re.compile(r"[0-9a-f]{64}\Z")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
#: A ``.project_root`` holds one path; anything longer is not a marker.
_MARKER_LIMIT = 1 << 16


def sha256_dir(root: str) -> str:
    return hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()


def is_hash_dir(name: str) -> bool:
    return _HASH_DIR.match(name) is not None


def base_slug(root: str) -> str:
    name = os.path.basename(os.path.normpath(root)).lower()
    return _NOT_SLUG.sub("-", name).strip("-") or "project"


def normalized(root: str) -> str:
    """A project root the way Gemini registers it: absolute and normalised (links kept)."""
    return os.path.normpath(os.path.abspath(root))


def read_marker(directory: Path) -> str | None:
    """The root a project directory's ``.project_root`` names, or None."""
    try:
        data = read_regular(directory / MARKER, limit=_MARKER_LIMIT)
    except (StoreError, StoreUnreadable):
        return None
    text = decode_lossless(data).strip()
    return text or None


@dataclass
class Registry:
    """``projects.json`` as read: the whole document (kept for rewriting) and its projects."""

    path: Path
    document: dict[str, Any] = field(default_factory=dict)
    projects: dict[str, str] = field(default_factory=dict)
    exists: bool = False

    def slug_owner(self, slug: str) -> str | None:
        for root, owned in self.projects.items():
            if owned == slug:
                return root
        return None

    def root_of(self, directory_name: str) -> str | None:
        """The root a project directory name stands for: a registered slug or a root's sha256."""
        owner = self.slug_owner(directory_name)
        if owner is not None:
            return owner
        if is_hash_dir(directory_name):
            for root in self.projects:
                if sha256_dir(root) == directory_name:
                    return root
        return None

    def root_with_hash(self, project_hash: str) -> str | None:
        for root in self.projects:
            if sha256_dir(root) == project_hash:
                return root
        return None


def _problem(path: Path, strict: bool, detail: str) -> Registry:
    if strict:
        raise StoreError(
            f"{path} {detail}; refusing to change Gemini's project registry (fix or move it first)"
        )
    warn(f"{path} {detail}; the project roots it lists are not used")
    return Registry(path, exists=True)


def read_registry(root: Path, *, strict: bool) -> Registry:
    """Read ``projects.json``; a broken one is a warning when listing, an error when saving."""
    path = root / REGISTRY
    if not os.path.lexists(path):
        return Registry(path)
    try:
        value = loads_strict(read_regular(path, limit=MAX_SIDE_FILE_BYTES))
    except ValueError as exc:
        return _problem(path, strict, f"is not valid JSON ({exc})")
    except (StoreError, StoreUnreadable) as exc:
        return _problem(path, strict, f"cannot be read ({exc})")
    if not isinstance(value, dict):
        return _problem(path, strict, "is not a JSON object")
    projects = value.get("projects", {})
    if not isinstance(projects, dict) or not all(isinstance(v, str) for v in projects.values()):
        return _problem(path, strict, "has a `projects` member that is not an object of slugs")
    return Registry(path, value, dict(projects), exists=True)


@contextlib.contextmanager
def locked(root: Path) -> Iterator[None]:
    """An exclusive lock on the store root (its nearest existing directory, for a root not
    made yet) while a save reads ``projects.json``, claims a slug and writes the registry: two
    saves at once each add their project, where the second used to rewrite the registry as it
    had read it, losing the first's entry. Without ``fcntl`` (Windows), no lock is taken."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - POSIX runs the tests
        yield
        return
    target = root
    while not target.is_dir() and target.parent != target:
        target = target.parent
    try:
        fd = os.open(target, os.O_RDONLY)
    except OSError as exc:
        raise StoreError(f"locking {target}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # (closing the only descriptor drops the lock)


def with_project(registry_root: Path, root: str, slug: str) -> str | None:
    """``projects.json`` as it is on disk now, with ``root`` registered as ``slug``: the text
    to write, or None when it already says so. Read again right before the write, so an entry
    another program added since the save first read it is kept."""
    fresh = read_registry(registry_root, strict=True)
    if fresh.projects.get(root) == slug:
        return None
    document = dict(fresh.document)
    listed = dict(fresh.projects)
    listed[root] = slug
    document["projects"] = listed
    return dumps_pretty(document)


def claim_slug(registry: Registry, tmp: Path, root: str) -> str:
    """The slug a new project root gets: free in the registry and not owned on disk by another."""
    base = base_slug(root)
    for n in range(10_000):
        slug = base if n == 0 else f"{base}-{n}"
        owner = registry.slug_owner(slug)
        if owner is not None and owner != root:
            continue
        directory = tmp / slug
        if os.path.lexists(directory):
            marker = read_marker(directory)
            if marker != root:
                continue
        return slug
    raise StoreError(f"no free Gemini project slug for {root} under {tmp}")
