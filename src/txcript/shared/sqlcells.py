"""SQLite cells and file bytes in a JSON text form, and back, exactly.

The text forms of harnesses that keep SQLite databases (the Cursor CLI's chats, Antigravity's
conversations) carry every cell with its storage class: TEXT as a JSON string (``{"hex": …,
"text": true}`` when it is not valid UTF-8), INTEGER and REAL as numbers (``{"real": "inf"}``
for a non-finite REAL), NULL as null, BLOB as ``{"hex": …}``. File bytes are a string when they
are UTF-8, else ``{"hex": …}``. The readers raise :class:`CellError` naming the field; each
harness turns it into its own ``Malformed``.
"""

from __future__ import annotations

import math
from typing import Any

#: An SQLite cell value as it is kept (TEXT, BLOB, INTEGER, REAL or NULL).
Cell = str | bytes | int | float | None


class CellError(ValueError):
    """A text-form value that is not a cell (or bytes) of the shape documented above."""


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def bytes_to_json(data: bytes) -> str | dict[str, str]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": data.hex()}


def cell_to_json(value: Cell) -> Any:
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, str) and not _encodable(value):
        return {"hex": value.encode("utf-8", "surrogateescape").hex(), "text": True}
    if isinstance(value, float) and not math.isfinite(value):
        return {"real": repr(value)}
    return value


def hex_from_json(value: Any, where: str) -> bytes:
    if not isinstance(value, str):
        raise CellError(f"`{where}` must be a hex string")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise CellError(f"`{where}` is not valid hex") from None


def cell_from_json(value: Any, where: str) -> Cell:
    if value is None or isinstance(value, str) or type(value) in (int, float):
        return value  # type: ignore[no-any-return]
    if isinstance(value, dict) and set(value) == {"hex"}:
        return hex_from_json(value["hex"], f"{where}.hex")
    if isinstance(value, dict) and set(value) == {"hex", "text"}:
        return hex_from_json(value["hex"], f"{where}.hex").decode("utf-8", "surrogateescape")
    if isinstance(value, dict) and set(value) == {"real"}:
        real = value["real"]
        if not isinstance(real, str):
            raise CellError(f"`{where}.real` must be a string")
        try:
            return float(real)
        except ValueError:
            raise CellError(f"`{where}.real` is not a number") from None
    raise CellError(f'`{where}` must be a string, number, null or {{"hex": …}}')


def bytes_from_json(value: Any, where: str) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, dict) and set(value) == {"hex"}:
        return hex_from_json(value["hex"], f"{where}.hex")
    raise CellError(f'`{where}` must be a string or {{"hex": …}}')
