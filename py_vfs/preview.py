"""HTTP answers for ``/preview/<path>``: what the service worker sends back for a VFS path.

The service worker does the HTTP plumbing; this module decides status, headers and body from the
VFS, so that the rules (index.html, listings, 404 naming the path) live with the file system.
"""

from __future__ import annotations

import html
import mimetypes
from dataclasses import dataclass, field
from urllib.parse import quote

from . import paths
from .errors import FsError
from .vfs import VFS

_TEXT_TYPES = ("application/javascript", "application/json", "image/svg+xml",
               "application/xml", "text/javascript")
_EXTRA_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                ".woff2": "font/woff2", ".woff": "font/woff", ".md": "text/markdown"}


@dataclass
class PreviewResponse:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


def content_type(path: str) -> str:
    """The Content-Type for a file name, with a charset for text (the VFS stores UTF-8)."""
    suffix = "." + path.rsplit(".", 1)[-1].lower() if "." in paths.basename(path) else ""
    kind = _EXTRA_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind in _TEXT_TYPES:
        kind += "; charset=utf-8"
    return kind


async def respond(vfs: VFS, path: str, base_url: str = "/preview/") -> PreviewResponse:
    try:
        stat = vfs.stat(path)
        if stat.is_dir and not path.endswith("/"):
            # Relative links in the directory's page resolve against it only with the slash.
            location = base_url + quote(stat.path.lstrip("/")) + ("/" if stat.path != "/" else "")
            return PreviewResponse(301, b"", {"location": location})
        if stat.is_dir:
            index = paths.child(stat.path, "index.html")
            if not vfs.exists(index):
                return _listing(vfs, stat.path, base_url)
            path = index
        body = await vfs.read_file(path)
    except FsError as error:
        status = 404 if error.code in ("ENOENT", "ENOTDIR") else 500
        message = f"{error}\n".encode()
        return PreviewResponse(status, message, {"content-type": "text/plain; charset=utf-8"})
    assert isinstance(body, bytes)
    return PreviewResponse(200, body, {"content-type": content_type(path)})


def _listing(vfs: VFS, directory: str, base_url: str) -> PreviewResponse:
    """A directory without index.html lists its entries, like ``python -m http.server``."""
    items = []
    for entry in vfs.readdir(directory, with_types=True):
        suffix = "/" if entry.type == "directory" else ""
        href = base_url + quote(entry.path.lstrip("/")) + suffix
        items.append(f'<li><a href="{html.escape(href)}">{html.escape(entry.name + suffix)}</a>')
    title = html.escape(f"Directory listing for {directory}")
    page = (f"<!doctype html><meta charset=utf-8><title>{title}</title><h1>{title}</h1>"
            f"<hr><ul>{''.join(items)}</ul><hr>")
    return PreviewResponse(200, page.encode(), {"content-type": "text/html; charset=utf-8"})
