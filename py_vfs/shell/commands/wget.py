"""`wget`: download http(s) URLs into files (docs/shell.md, "wget"), through
``http_transport``.

The file is named from the URL (`index.html` for a path ending in `/`; `NAME.1`, `NAME.2`...
when NAME exists), or `-O FILE` (`-` standard output), under `-P DIR`. Redirects are followed
(20 at most). Statuses are GNU wget's: 1 generic, 2 usage, 3 file I/O, 4 network failure,
5 TLS, 8 an error response from the server. A scoop opened without network refuses with 4.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from dataclasses import dataclass, field

from ..context import Context, describe
from ..format import quote_arg, visible
from .http_transport import TooLarge, copy_body, network_refusal, send
from .http_types import Deadline, NetworkError, Request, split_url
from .options import parse
from .registry import UsageError, command

GENERIC, USAGE, FILE_IO, NETWORK, TLS, SERVER = 1, 2, 3, 4, 5, 8
MAX_NUMBERED = 1000  # NAME.1 ... NAME.999 tried for a free name
_FLAGS = {"q": "quiet", "v": "verbose"}
_VALUED = {"O": "output-document", "P": "directory-prefix", "T": "timeout",
           "U": "user-agent"}
_LONG = {**dict.fromkeys((*_FLAGS.values(), "no-verbose"), False),
         **dict.fromkeys((*_VALUED.values(), "header", "post-data", "post-file", "max-redirect",
                          "method", "body-data"), True)}
_SHORT = {**_FLAGS, **_VALUED}


class _Fail(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Options:
    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    headers: list[tuple[str, str]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)


def _parse(args: list[str]) -> _Options:
    """The command line (`-nv` is one option, wget's --no-verbose); a bad option is a usage
    error worded as GNU's getopt words it."""
    end = args.index("--") if "--" in args else len(args)
    args = [("--no-verbose" if arg == "-nv" else arg) for arg in args[:end]] + args[end:]
    try:
        options = parse(args, "".join(_FLAGS), "".join(_VALUED), _LONG, abbreviate=False)
    except UsageError as exc:
        raise _Fail(USAGE, str(exc)) from None
    found = _Options(urls=options.operands)
    for name, value in options.given:
        if not name:
            continue
        if value is None:
            found.flags.add(_SHORT.get(name, name))
        else:
            _value(found, _SHORT.get(name, name), value)
    return found


def _value(found: _Options, name: str, value: str) -> None:
    if name == "header":
        key, colon, text = value.partition(":")
        if colon and key.strip():
            found.headers.append((key.strip(), text.strip()))
    elif name == "user-agent":
        found.headers.append(("User-Agent", value))
    else:
        found.values[name] = value


def _number(found: _Options, name: str, default: float | None) -> float | None:
    text = found.values.get(name)
    if text is None:
        return default
    try:
        return float(text)
    except ValueError:
        raise _Fail(USAGE, f"--{name}: Invalid number {quote_arg(text)}.") from None


@command("wget [-q] [-O FILE] [-P DIR] [-T SECONDS] [--header H] [--post-data DATA] URL...",
         "download URLs into files (http, https)")
async def wget(ctx: Context, args: list[str]) -> int:
    """Download each URL; the lowest status of its failures (GNU wget's numbers)."""
    try:
        found = _parse(args)
        if not found.urls:
            raise _Fail(GENERIC, "missing URL")
        timeout = _number(found, "timeout", 900.0)
        redirects = int(_number(found, "max-redirect", 20) or 0)
        body = await _body(ctx, found)
    except _Fail as failure:
        ctx.err(str(failure))
        if failure.status in (GENERIC, USAGE):
            ctx.stderr.write_nowait("Usage: wget [OPTION]... [URL]...\n\n"
                                    "Try `wget --help' for more options.\n")
        return failure.status
    quiet = "quiet" in found.flags
    refusal = network_refusal(ctx.vfs)
    status = 0
    for url in found.urls:
        try:
            if refusal is not None:
                raise _Fail(NETWORK, refusal)
            await _download(ctx, found, url, body, timeout or None, redirects)
        except _Fail as failure:
            status = failure.status if status == 0 else min(status, failure.status)
            if not quiet:
                _report(ctx, str(failure))
    return status


def _report(ctx: Context, message: str) -> None:
    """A failure as wget words it: a server's answer or a connection's end on a line of its
    own, the others after `wget: `."""
    if message.startswith(("ERROR ", "failed ", "Read error")) or message.endswith(
            "redirections exceeded."):
        ctx.stderr.write_nowait(visible(message) + "\n")
    else:
        ctx.err(message)


async def _body(ctx: Context, found: _Options) -> bytes | None:
    if "post-file" in found.values:
        path = found.values["post-file"]
        try:
            return await ctx.vfs.read_file(ctx.resolve(path))
        except OSError as exc:
            raise _Fail(FILE_IO, f"{quote_arg(path)}: {describe(exc)}") from exc
    data = found.values.get("post-data", found.values.get("body-data"))
    return None if data is None else data.encode("utf-8", "surrogateescape")


async def _download(ctx: Context, found: _Options, url: str, body: bytes | None,
                    timeout: float | None, redirects: int) -> None:
    """One URL into its file (or standard output)."""
    try:
        parts = split_url(url)
    except NetworkError as exc:
        raise _Fail(GENERIC, f"{url}: {exc}.") from exc
    method = found.values.get("method", "POST" if body is not None else "GET").upper()
    headers = list(found.headers)
    if body is not None and not any(k.lower() == "content-type" for k, _ in headers):
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    deadline = Deadline(timeout)
    quiet = "quiet" in found.flags
    try:
        response = await send(Request(method, parts.geturl(), headers, body), deadline,
                              follow=True, max_redirects=redirects, syscall="wget")
        if not quiet:
            ctx.err(f"HTTP request sent, awaiting response... {response.status} "
                    f"{response.reason}".rstrip())
        if response.status >= 400 or response.status == 0:
            response.close()
            raise _Fail(SERVER, f"ERROR {response.status}: {response.reason}.")
        target = _target(ctx, found, response.url)
        if target == "-":
            await copy_body(response, ctx.write, deadline, "wget")
            return
        if not quiet:
            ctx.err(f"Saving to: {quote_arg(target)}")
        try:
            if "directory-prefix" in found.values and "output-document" not in found.values:
                await ctx.vfs.mkdir(ctx.resolve(found.values["directory-prefix"]),
                                    recursive=True)
            stream = ctx.vfs.stream_writer(ctx.resolve(target))
        except OSError as exc:
            response.close()
            raise _Fail(FILE_IO, f"{quote_arg(target)}: {describe(exc)}") from exc
        try:
            received = await copy_body(response, stream.write, deadline, "wget")
        except BaseException:
            await stream.abort()
            raise
        try:
            await stream.close()
        except OSError as exc:
            raise _Fail(FILE_IO, f"{quote_arg(target)}: {describe(exc)}") from exc
        if not quiet:
            ctx.err(f"{quote_arg(target)} saved [{received}]")
    except NetworkError as exc:
        raise _Fail(_status(exc), _message(exc, parts, redirects)) from exc
    except TooLarge as exc:
        raise _Fail(GENERIC, f"the download is larger than the shell's limit ({exc})") from exc


def _status(exc: NetworkError) -> int:
    if exc.kind == "tls":
        return TLS
    if exc.kind == "redirects":
        return SERVER
    return NETWORK


def _message(exc: NetworkError, parts: urllib.parse.SplitResult, redirects: int) -> str:
    host = parts.hostname or ""
    if exc.kind == "resolve":
        return f"unable to resolve host address {quote_arg(host)}"
    if exc.kind == "timeout":
        return "Read error: Connection timed out."
    if exc.kind == "redirects":
        return f"{redirects} redirections exceeded."
    if exc.kind == "connect":
        return f"failed connecting to {exc.where}: {exc}."
    return f"{exc}."


def _target(ctx: Context, found: _Options, url: str) -> str:
    """The file a download goes to: -O's, or the URL's last segment under -P (numbered when
    it exists already, as wget without -nc does)."""
    if "output-document" in found.values:
        return found.values["output-document"]
    name = urllib.parse.unquote(posixpath.basename(urllib.parse.urlsplit(url).path))
    name = name or "index.html"
    directory = found.values.get("directory-prefix", "")
    path = posixpath.join(directory, name) if directory else name
    candidate = path
    for number in range(1, MAX_NUMBERED):
        if not ctx.vfs.exists(ctx.resolve(candidate)):
            return candidate
        candidate = f"{path}.{number}"
    raise _Fail(FILE_IO, f"{quote_arg(path)}: no free name (tried {MAX_NUMBERED})")
