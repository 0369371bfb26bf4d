"""HTTP answers for ``/preview/<token>/<path>``: what the service worker sends back.

The service worker does the HTTP plumbing (docs/preview.md); this module decides status, headers
and body from the VFS, so that the rules (the preview root, index.html, listings, 404 naming the
path, ETag, Range) live with the file system and are tested on CPython. A token names a preview
root (a folder or one file), pinned when the token is minted (``pin_root``: its real path and
its node, which every request checks again, so a root that is later replaced, by a link or by
another folder, serves nothing); ``resolve_in_root`` maps a URL path to the VFS path it names,
and nothing outside the root is ever served, whatever ``..`` or symlinks say: not a file, not a
directory's index.html, not an entry of a listing. A file's body is
either ``body`` alone or ``body`` followed by ``stream``: the rest of the file read chunk by
chunk (``VFS.open_read``), never whole; the worker pulls it through ``WebAPI``'s stream
operations.
"""

from __future__ import annotations

import html
import mimetypes
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any, Protocol
from urllib.parse import quote

from ..core import paths
from ..core.errors import FsError
from ..disk.streams import ReadStream
from ..vfs import VFS

_TEXT_TYPES = ("application/javascript", "application/json", "image/svg+xml",
               "application/xml", "text/javascript")
_EXTRA_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                ".woff2": "font/woff2", ".woff": "font/woff", ".md": "text/markdown"}
_TEXT = "text/plain; charset=utf-8"
_HTML = "text/html; charset=utf-8"


@dataclass
class PreviewRequest:
    """What the service worker forwards of a request (the decoded path inside the preview root
    and the headers that change the answer), with what the page found for its token: the root
    as it was pinned when the token was minted (``pin_root``: its real path, kind "folder" or
    "file", and node). A token without a node (minted before roots were pinned) serves nothing.
    The defaults, root "/" and no token, serve the whole VFS under ``/preview/`` (tests)."""

    path: str
    method: str = "GET"
    range: str | None = None
    if_none_match: str | None = None
    if_range: str | None = None
    token: str = ""
    root: str = "/"
    kind: str = "folder"
    node: str | None = None
    name: str | None = None  # a file root's name in its URLs (default: its real name)

    @classmethod
    def of(cls, value: str | dict[str, Any]) -> PreviewRequest:
        """From the worker's message: a bare path (older callers) or a dict of the fields."""
        if isinstance(value, str):
            return cls(value)
        names = ("path", "method", "range", "if_none_match", "if_range", "token", "root", "kind",
                 "node", "name")
        return cls(**{name: value.get(name) for name in names if value.get(name) is not None})

    @property
    def base_url(self) -> str:
        """The URL path of the preview root, under which links and redirects are written."""
        return f"/preview/{self.token}/" if self.token else "/preview/"


@dataclass
class PreviewResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    stream: ReadStream | None = None  # the rest of the body, after ``body``


@dataclass(frozen=True)
class PreviewRoot:
    """A preview root as its token is minted: the real path (every link resolved), the kind
    ("folder" or "file"), the id of the node found there, and the name a file root is served
    under (the last name of the path it was asked by, a link's own name included). A request
    is served only while the path still resolves to itself and to that node
    (``resolve_in_root``)."""

    path: str
    kind: str
    node: str
    name: str = ""

    def fields(self) -> dict[str, str]:
        """The fields a request for this root carries (``PreviewRequest``)."""
        return {"root": self.path, "kind": self.kind, "node": self.node, "name": self.name}


def pin_root(vfs: VFS, root: str, kind: str) -> PreviewRoot:
    """Resolve ``root`` once, for a new token: its real path and node, in one lookup. A folder
    root must be a directory (ENOTDIR), a file root anything else (EISDIR); a kind other than
    these is EINVAL."""
    if kind not in ("folder", "file"):
        raise FsError.of("EINVAL", "preview", root).with_hint('kind is "folder" or "file"')
    node, real = vfs.resolver.lookup(root, "preview")
    if kind == "folder" and not node.is_dir:
        raise FsError.of("ENOTDIR", "preview", root)
    if kind == "file" and node.is_dir:
        raise FsError.of("EISDIR", "preview", root)
    return PreviewRoot(real, kind, node.id, paths.basename(paths.normalize(root, "preview")))


class PreviewHost(Protocol):
    async def root_url(self, root: str, kind: str) -> str:
        """Mint a preview root for the VFS path ``root`` (kind "folder" or "file") and give the
        URL it is served under, ending in "/"; the token must be known to every server of the
        preview before the URL is handed out."""
        ...


def new_token() -> str:
    """An unguessable preview token: 128 random bits, URL-safe base64 (22 characters)."""
    return secrets.token_urlsafe(16)


class PinnedPreviews:
    """The ``PreviewHost`` of a VFS that serves its previews (in the browser: roots pinned in
    Python, minted by the page): each root is pinned on ``vfs`` (``pin_root``) before ``mint``
    stores its fields (``PreviewRoot.fields``) under a token and gives its URL. The pin and the
    caller's checks (a view's: py_vfs/hosts/view_hosts.py) run with no await in between."""

    def __init__(self, vfs: VFS, mint: Callable[[dict[str, str]], Awaitable[str]]) -> None:
        self._vfs = vfs
        self._mint = mint

    async def root_url(self, root: str, kind: str) -> str:
        """Pin ``root`` and mint a token for it; the URL of the root."""
        return await self._mint(pin_root(self._vfs, root, kind).fields())


class LocalPreviews:
    """Preview roots kept in memory, for the shell off the browser and for tests: ``roots``
    maps each token to (root, kind) as asked, and, given the ``vfs`` that serves them,
    ``pinned`` maps it to its ``PreviewRoot``, as the browser's ``pyvfs-previews`` database
    does."""

    def __init__(self, base: str = "/preview/", vfs: VFS | None = None) -> None:
        self.base = base.rstrip("/") + "/"
        self.roots: dict[str, tuple[str, str]] = {}
        self.pinned: dict[str, PreviewRoot] = {}
        self._vfs = vfs

    async def root_url(self, root: str, kind: str) -> str:
        """A fresh token for ``root``; its URL is ``<base><token>/``."""
        pinned = pin_root(self._vfs, root, kind) if self._vfs is not None else None
        token = new_token()
        self.roots[token] = (root, kind)
        if pinned is not None:
            self.pinned[token] = pinned
        return f"{self.base}{token}/"

    def request(self, url: str, **fields: Any) -> PreviewRequest:
        """The request the service worker would forward for ``url`` (under ``base``), with
        what the page finds for its token."""
        token, _, inside = url.removeprefix(self.base).partition("/")
        pinned = self.pinned.get(token)
        root, kind = self.roots[token]
        found = pinned.fields() if pinned else {"root": root, "kind": kind}
        return PreviewRequest("/" + inside, token=token, **found, **fields)


def url_inside(root_url: str, relative: str) -> str:
    """The URL of ``relative`` (a path inside the root) under ``root_url``; each segment is
    percent-encoded, so names with spaces, '#' or '?' survive."""
    segments = [quote(segment, safe="") for segment in relative.split("/") if segment]
    return root_url + "/".join(segments)


def content_type(path: str) -> str:
    """The Content-Type for a file name, with a charset for text (the VFS stores UTF-8)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in paths.basename(path) else ""
    kind = _EXTRA_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in _TEXT_TYPES:
        kind += "; charset=utf-8"
    return kind


def resolve_in_root(vfs: VFS, root: str, kind: str, relative: str,
                    node: str | None = None, name: str | None = None) -> str:
    """The VFS path that ``relative`` (a URL path inside the preview root, from "/") names.

    With ``node`` (a pinned root: ``pin_root``), the root must still be its own real path and
    hold that node: a root replaced since (by a link, another folder or file, a mount) is gone.
    A folder root serves what lies below it; a file root serves only itself, under its own name
    (or ``name``: the name it was opened by).
    ``..`` is folded lexically and never climbs above the root; then the VFS resolves every
    symlink on the way (``realpath``) and the result must still lie in the root's own real
    path, so a link inside the root that points out of it leads nowhere.
    Outside the root is ENOENT (a 404), exactly as a missing file."""
    outside = FsError.of("ENOENT", "preview", relative)
    if node is not None:
        try:
            found, real = vfs.resolver.lookup(root, "preview")
        except FsError:
            raise outside from None
        if real != root or found.id != node:
            raise outside
    inside = paths.normalize(relative, "preview")  # ".." stops at the root's top
    if kind == "file":
        if inside != "/" + (name or paths.basename(root)):
            raise outside
        return root
    wanted = paths.join(root, inside.lstrip("/"))
    try:
        real, real_root = vfs.realpath(wanted), vfs.realpath(root)
    except FsError as error:
        raise FsError.of(error.code, "preview", relative) from None
    if not paths.is_within(real, real_root):
        raise outside
    return wanted


async def respond(vfs: VFS, request: PreviewRequest | str) -> PreviewResponse:
    """The whole answer to one request; storage errors become 404 (missing or outside the root)
    or 500 (the code). Error pages name the path inside the root, never the VFS path."""
    if isinstance(request, str):
        request = PreviewRequest(request)
    relative = request.path
    base_url = request.base_url

    def in_root(relative: str) -> str:
        return resolve_in_root(vfs, request.root, request.kind, relative, request.node,
                               request.name)

    try:
        if request.token and request.node is None:  # minted before roots were pinned
            raise FsError.of("ENOENT", "preview", relative)
        path = in_root(relative)
        stat = vfs.stat(path)
        if stat.is_dir and not relative.endswith("/"):
            # Relative links in the directory's page resolve against it only with the slash.
            inside = paths.normalize(relative).lstrip("/")
            location = base_url + quote(inside) + ("/" if inside else "")
            return PreviewResponse(301, b"", {"location": location, "cache-control": "no-cache"})
        if stat.is_dir:
            shown = paths.normalize(relative)
            index = _servable(in_root, paths.child(shown, "index.html"))
            if index is None or vfs.stat(index).is_dir:
                return _listing(vfs, path, shown, base_url, in_root)
            path = index
        return await _file(vfs, path, request)
    except FsError as error:
        status = 404 if error.code in ("ENOENT", "ENOTDIR") else 500
        return _text(status, f"{FsError.of(error.code, 'preview', relative)}\n")


def _servable(in_root: Callable[[str], str], relative: str) -> str | None:
    """The VFS path of ``relative`` if it is inside the root and there; None if not."""
    try:
        path = in_root(relative)
    except FsError as error:
        if error.code in ("ENOENT", "ENOTDIR", "ELOOP"):
            return None
        raise
    return path


def _text(status: int, message: str, headers: dict[str, str] | None = None) -> PreviewResponse:
    body = message.encode()
    return PreviewResponse(status, body, {"content-type": _TEXT, "content-length": str(len(body)),
                                          "cache-control": "no-cache", **(headers or {})})


async def _file(vfs: VFS, path: str, request: PreviewRequest) -> PreviewResponse:
    """200, 206, 304 or 416 for a file. Everything from the stat to the start of the read runs
    without an await in between, so the headers and the bytes describe the same content."""
    headers = _validators(vfs, path)
    if _etag_matches(request.if_none_match, headers["etag"]):
        return PreviewResponse(304, b"", headers)
    size = vfs.stat(path).size
    headers["content-type"] = content_type(path)
    wanted = request.range if request.if_range in (None, headers["etag"]) else None
    span = parse_range(wanted, size) if wanted else None
    if span == "unsatisfiable":
        return _text(416, f"Range Not Satisfiable: {wanted} of {size} bytes\n",
                     {"content-range": f"bytes */{size}"})
    status, start, end = (206, *span) if isinstance(span, tuple) else (200, 0, size)
    if status == 206:
        headers["content-range"] = f"bytes {start}-{end - 1}/{size}"
    headers["content-length"] = str(end - start)
    if request.method == "HEAD" or start == end:
        return PreviewResponse(status, b"", headers)
    return await _body(vfs, path, status, headers, start, end)


def _validators(vfs: VFS, path: str) -> dict[str, str]:
    """The headers every answer about a file carries, 304 included."""
    mtime = vfs.stat(path).mtime_ms / 1000
    return {"etag": f'"{vfs.content_id(path)}"', "last-modified": formatdate(mtime, usegmt=True),
            "cache-control": "no-cache", "accept-ranges": "bytes"}


async def _body(vfs: VFS, path: str, status: int, headers: dict[str, str], start: int,
                end: int) -> PreviewResponse:
    """The first piece now; the rest, if any, as the open stream the worker pulls."""
    stream = vfs.open_read(path, start, end)  # pins this version's chunks until closed
    first = await anext(stream)
    if len(first) == end - start:
        await stream.aclose()
        return PreviewResponse(status, first, headers)
    return PreviewResponse(status, first, headers, stream)


def _etag_matches(header: str | None, etag: str) -> bool:
    """If-None-Match: ``*`` or a list of tags, compared weakly (a ``W/`` prefix is ignored)."""
    if not header:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in header.split(",")]
    return "*" in tags or etag in tags


def parse_range(header: str, size: int) -> tuple[int, int] | str | None:
    """One ``bytes=`` range as (start, end) with end exclusive; "unsatisfiable" for 416; None to
    ignore the header and send the whole file (several ranges, other units or bad syntax, as
    RFC 9110 allows)."""
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = spec.strip().partition("-")
    if not dash or not (first.isdigit() or last.isdigit()) or (first + last).strip("0123456789"):
        return None
    if not first:  # the last N bytes
        length = _position(last)
        return (max(0, size - length), size) if length and size else "unsatisfiable"
    start = _position(first)
    end = min(_position(last) + 1, size) if last else size
    if last and _position(last) < start:
        return None
    return (start, end) if start < size else "unsatisfiable"


def _position(digits: str) -> int:
    """A byte position of a Range header. Past 18 digits it is beyond any file (and ``int``
    refuses strings of more than 4,300 digits), so it reads as 10**18: the header still means
    what it says (a start past the end is 416, an end past it is the end)."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 18 else 10**18


def _listing(vfs: VFS, directory: str, shown: str, base_url: str,
             in_root: Callable[[str], str]) -> PreviewResponse:
    """A directory without index.html lists its entries, like ``python -m http.server``;
    ``shown`` is its path inside the preview root, which its links and title use. Only entries
    the root serves are listed: a link that leads out of it (or nowhere) is left out."""
    items = []
    for entry in vfs.readdir(directory, with_types=True):
        if _servable(in_root, paths.child(shown, entry.name)) is None:
            continue
        suffix = "/" if entry.type == "directory" else ""
        href = base_url + quote(paths.child(shown, entry.name).lstrip("/")) + suffix
        items.append(f'<li><a href="{html.escape(href)}">{html.escape(entry.name + suffix)}</a>')
    title = html.escape(f"Directory listing for {shown}")
    page = (f"<!doctype html><meta charset=utf-8><title>{title}</title><h1>{title}</h1>"
            f"<hr><ul>{''.join(items)}</ul><hr>").encode()
    return PreviewResponse(200, page, {"content-type": _HTML, "content-length": str(len(page)),
                                       "cache-control": "no-cache"})
