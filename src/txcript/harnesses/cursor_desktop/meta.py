"""The metadata of a Cursor desktop session (title, cwd, model, start), from what discovery
reads without any message body: the head and a few composerData values.

Kept apart from :mod:`.codec` so that a listing, which derives metadata only for the sessions
the metadata cache does not hold, imports neither the codec nor its tool tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from txcript.model import Meta
from txcript.shared.jsonutil import MISSING, is_uint, lookup, pick
from txcript.shared.timeutil import EPOCH, from_epoch_ms

#: The composerData values :func:`derive_meta` uses, by the key it expects them under, with their
#: JSON path (object keys and array indexes). The same paths in SQLite ``json_extract`` syntax:
#: ``$.name``, ``$.subtitle``, ``$.createdAt``, ``$.modelConfig.modelName``,
#: ``$.workspaceIdentifier.uri.fsPath``, ``$.agentLocation.environment.uri.fsPath``,
#: ``$.trackedGitRepos[0].repoPath``.
COMPOSER_FIELD_PATHS: dict[str, tuple[str | int, ...]] = {
    "name": ("name",),
    "subtitle": ("subtitle",),
    "createdAt": ("createdAt",),
    "modelName": ("modelConfig", "modelName"),
    "workspacePath": ("workspaceIdentifier", "uri", "fsPath"),
    "agentLocationPath": ("agentLocation", "environment", "uri", "fsPath"),
    "gitRepoPath": ("trackedGitRepos", 0, "repoPath"),
}
_CWD_PATHS: tuple[tuple[str | int, ...], ...] = (
    COMPOSER_FIELD_PATHS["workspacePath"],
    COMPOSER_FIELD_PATHS["agentLocationPath"],
    COMPOSER_FIELD_PATHS["gitRepoPath"],
)


def ms_time(value: Any) -> datetime | None:
    """A positive integer ms epoch (floats truncated) as a UTC datetime, or None."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        value = int(value)
    if not is_uint(value) or value == 0:
        return None
    try:
        return from_epoch_ms(value)
    except (OverflowError, ValueError):
        return None


def model_name(value: Any) -> str | None:
    """A model name, or None for a non-string, ``""``, or the picker placeholder ``"default"``."""
    return value if isinstance(value, str) and value not in ("", "default") else None


# ------------------------------------------------------------------------------------ meta


def composer_fields(composer: Any) -> dict[str, Any]:
    """Extract from a parsed ``composerData`` document the values :func:`derive_meta` needs.

    Keys are those of :data:`COMPOSER_FIELD_PATHS`; a value is included only when its path
    exists. A non-object document gives ``{}``.
    """
    return pick(composer, COMPOSER_FIELD_PATHS)


def _title(candidates: Iterable[Any]) -> str | None:
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _cwd(head: Any, fields: dict[str, Any]) -> str | None:
    # The head's pointers in order; the first one present decides, even when it is unusable
    # (a present but empty fsPath means "no folder", not "look elsewhere").
    for path in _CWD_PATHS:
        value = lookup(head, path)
        if value is not MISSING:
            return value if isinstance(value, str) and value else None
    for key in ("workspacePath", "agentLocationPath", "gitRepoPath"):
        value = fields.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def derive_meta(
    session_id: str,
    created_at_ms: int,
    head: Any,
    composer_fields: dict[str, Any],
) -> Meta:
    """The session's Meta, from values discovery can extract without reading message bodies.

    Discovery and load both call this, so they agree. Arguments:

    * ``session_id`` — the composer id (the store reference, or the head's ``composerId``);
    * ``created_at_ms`` — the ``createdAt`` header column in ms (0 when unknown);
    * ``head`` — the parsed head document (``composerHeaders.value``, an ``ItemTable``
      ``allComposers`` entry, or the synthesised ``{"type":"head",…}``); anything that is not a
      JSON object counts as an empty head;
    * ``composer_fields`` — the composerData values named in :data:`COMPOSER_FIELD_PATHS`
      (``name``, ``subtitle``, ``createdAt``, ``modelName``, ``workspacePath``,
      ``agentLocationPath``, ``gitRepoPath``), e.g. from :func:`composer_fields`; missing keys
      and ``None`` values count as absent, wrongly-typed values are ignored;

    Rules: ``timestamp`` = ``created_at_ms`` when > 0, else composerData ``createdAt``, else the
    Unix epoch (never the clock: the reference took "now", so a listing and a load of the same
    session disagreed, and a session copied with an unknown start came back stamped today).
    ``title`` = the first non-blank string of head ``name``, head ``subtitle``, composerData
    ``name``, composerData ``subtitle``, trimmed. ``cwd`` = head
    ``workspaceIdentifier.uri.fsPath``, ``agentLocation.environment.uri.fsPath``,
    ``trackedGitRepos[0].repoPath``: the first that is present decides (a present ``""`` gives
    None); when the head has none of them, the first non-empty of composerData's same three
    (older heads carry no workspace). ``model`` = composerData ``modelConfig.modelName``;
    ``"default"`` (the picker's "auto") and ``""`` name no model. Bubbles are deliberately not
    consulted: discovery never reads message bodies, and Meta must be the same from discovery
    and from a load (each message still carries the model its bubbles name). No branch or CLI
    version exists.
    """
    timestamp = ms_time(created_at_ms) or ms_time(composer_fields.get("createdAt")) or EPOCH
    head_title = (lookup(head, ("name",)), lookup(head, ("subtitle",)))
    title = _title((*head_title, composer_fields.get("name"), composer_fields.get("subtitle")))
    model = model_name(composer_fields.get("modelName"))
    return Meta(
        id=session_id,
        timestamp=timestamp,
        cwd=_cwd(head, composer_fields),
        title=title,
        model=model,
    )
