"""``file:`` URIs spelled the way VS Code (and so Cursor) spells them.

VS Code keeps a folder as a URI object whose ``external`` string is percent-encoded: every byte of
the UTF-8 path outside ``A-Z a-z 0-9 - . _ ~`` and ``/`` becomes ``%XX`` (upper-case hex), a
Windows drive letter is lower-cased (``C:\\x`` → ``file:///c%3A/x``) and a UNC host becomes the
authority (``\\\\srv\\share`` → ``file://srv/share``). Windows-looking paths (a drive letter, or a
leading ``\\\\``) are recognised on every platform, because sessions move between machines.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit

_DRIVE = re.compile(r"[A-Za-z]:(?:[\\/]|\Z)")
_URI_DRIVE = re.compile(r"/[A-Za-z]:")


def file_uri_components(path: str) -> tuple[str, str]:
    """``(authority, path)`` of the file URI for a filesystem ``path``, not yet encoded.

    The URI path always starts with ``/``; Windows separators become ``/`` (``C:\\x`` → ``("",
    "/C:/x")``, ``\\\\srv\\share\\x`` → ``("srv", "/share/x")``). A POSIX path is kept as is.
    """
    if path.startswith("\\\\"):
        rest = path[2:].replace("\\", "/")
        authority, _, tail = rest.partition("/")
        return authority, "/" + tail
    if _DRIVE.match(path):
        return "", "/" + path.replace("\\", "/")
    return "", path if path.startswith("/") else "/" + path


def file_uri(path: str) -> str:
    """The percent-encoded ``file:`` URI VS Code writes for ``path`` (its ``external`` form).

    ``/a b`` → ``file:///a%20b``; ``C:\\x`` → ``file:///c%3A/x``; ``é`` is encoded as its UTF-8
    bytes. Unpaired surrogates are encoded as their surrogate bytes instead of failing.
    """
    authority, uri_path = file_uri_components(path)
    if _URI_DRIVE.match(uri_path):
        uri_path = "/" + uri_path[1].lower() + uri_path[2:]
    encoded_authority = quote(authority.lower(), safe="", errors="surrogatepass")
    return "file://" + encoded_authority + quote(uri_path, safe="/", errors="surrogatepass")


def vscode_uri(path: str) -> dict[str, object]:
    """The URI object VS Code serialises for a folder (``$mid`` 1, ``external``, ``fsPath``…)."""
    return {
        "$mid": 1,
        "external": file_uri(path),
        "fsPath": path,
        "path": file_uri_components(path)[1],
        "scheme": "file",
    }


def path_from_file_uri(uri: str) -> str | None:
    """The filesystem path a ``file:`` URI names (percent-decoded), or None for other URIs.

    A drive-letter URI gives a Windows path (``file:///c%3A/x`` → ``c:\\x``), an authority gives a
    UNC path (``\\\\srv\\share``), anything else a POSIX path (``file:///a%20b`` → ``/a b``).
    """
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme.lower() != "file":
        return None
    path = unquote(parts.path, errors="surrogateescape")
    if parts.netloc:
        return "\\\\" + unquote(parts.netloc) + path.replace("/", "\\")
    if _URI_DRIVE.match(path):
        return path[1:].replace("/", "\\")
    return path or "/"
