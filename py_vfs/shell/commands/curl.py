"""`curl`: transfer http(s) URLs (docs/shell.md, "curl"), through ``http_transport``.

The body goes to standard output (bytes unchanged) or to a file (`-o`, `-O`), streamed a chunk
at a time into the disk. Failures are curl's: `curl: (N) message` on standard error and N as
the status (6 cannot resolve, 7 cannot connect, 22 `-f` on an HTTP error, 28 timeout...).
A scoop opened without network refuses with status 7 (docs/sandbox.md).
"""

from __future__ import annotations

import posixpath
import re
import urllib.parse
from dataclasses import dataclass, field

from ..context import Context, describe
from ..format import quote_arg
from .http_transport import TooLarge, copy_body, in_browser, network_refusal, send
from .http_types import Deadline, NetworkError, Request, Response, split_url
from .options import OptionError, parse
from .registry import command

USAGE = 2
STATUSES = {"protocol": 1, "format": 3, "resolve": 6, "connect": 7, "browser": 7,
            "timeout": 28, "tls": 35, "redirects": 47, "other": 56}
_FLAGS = {"s": "silent", "S": "show-error", "f": "fail", "L": "location", "I": "head",
          "i": "include", "O": "remote-name", "v": "verbose"}
_VALUED = {"o": "output", "H": "header", "d": "data", "X": "request", "w": "write-out",
           "m": "max-time", "A": "user-agent", "e": "referer"}
_LONG = {**dict.fromkeys(_FLAGS.values(), False), **dict.fromkeys(_VALUED.values(), True),
         **dict.fromkeys(("data-binary", "data-raw", "data-ascii", "max-redirs", "url"), True)}
_SHORT = {**_FLAGS, **_VALUED}
_WRITE_OUT = re.compile(r"%\{([a-z_]+)\}|%%|\\[nrt\\]")


class _Fail(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Options:
    flags: set[str] = field(default_factory=set)
    urls: list[str] = field(default_factory=list)
    outputs: list[str | None] = field(default_factory=list)  # a file, or None for -O
    headers: list[tuple[str, str]] = field(default_factory=list)
    data: list[tuple[str, str]] = field(default_factory=list)  # (option, value)
    method: str | None = None
    write_out: str | None = None
    max_time: float | None = None
    max_redirs: int = 50


def _parse(args: list[str]) -> _Options:
    """The command line, its options in the order typed (each -o or -O goes with the next
    URL); a bad option is worded as curl words it."""
    try:
        options = parse(args, "".join(_FLAGS), "".join(_VALUED), _LONG, abbreviate=False)
    except OptionError as exc:
        wording = "requires parameter" if exc.kind == "missing" else "is unknown"
        raise _Fail(USAGE, f"option {exc.option}: {wording}") from None
    found = _Options()
    for name, value in options.given:
        if name:
            _set(found, _SHORT.get(name, name), value)
        elif value is not None:
            found.urls.append(value)
    return found


def _set(found: _Options, name: str, value: str | None) -> None:
    if value is None:
        if name == "remote-name":
            found.outputs.append(None)
        found.flags.add(name)
    elif name == "output":
        found.outputs.append(value)
    elif name == "header":
        key, colon, text = value.partition(":")
        if colon and key.strip():
            found.headers.append((key.strip(), text.strip()))
    elif name.startswith("data"):
        found.data.append((name, value))
    elif name == "request":
        found.method = value
    elif name == "write-out":
        found.write_out = value
    elif name == "url":
        found.urls.append(value)
    elif name == "user-agent":
        found.headers.append(("User-Agent", value))
    elif name == "referer":
        found.headers.append(("Referer", value))
    else:
        try:
            number = float(value)
        except ValueError:
            raise _Fail(USAGE, f"option --{name}: expected a proper numerical parameter") from None
        if name == "max-time":
            found.max_time = number if number > 0 else None
        else:
            found.max_redirs = int(number) if number >= 0 else 10**6


@command("curl [-sSfLIiO] [-o FILE] [-H HEADER] [-d DATA] [-X METHOD] [-w FORMAT] "
         "[-m SECONDS] URL...", "transfer a URL (http, https)")
async def curl(ctx: Context, args: list[str]) -> int:
    """Fetch each URL in turn; the status of the last failure (0 when all went well)."""
    try:
        found = _parse(args)
        if not found.urls:
            raise _Fail(USAGE, "")
        body = await _body(ctx, found)
    except _Fail as failure:
        if str(failure):
            ctx.err(str(failure))
        ctx.err("try 'curl --help' or 'curl --manual' for more information")
        return failure.status
    refusal = network_refusal(ctx.vfs)
    status = 0
    for index, url in enumerate(found.urls):
        target = found.outputs[index] if index < len(found.outputs) else ""
        try:
            if refusal is not None:
                raise _Fail(7, f"Failed to connect: {refusal}")
            await _transfer(ctx, found, url, target, body)
        except _Fail as failure:
            status = failure.status
            if "silent" not in found.flags or "show-error" in found.flags:
                ctx.err(f"({failure.status}) {failure}")
    return status


async def _body(ctx: Context, found: _Options) -> bytes | None:
    """What `-d`, `--data-binary`... send, joined with `&` (None: no data)."""
    if not found.data:
        return None
    pieces = []
    for name, value in found.data:
        if value.startswith("@") and name != "data-raw":
            path = value[1:]
            try:
                data = (await ctx.stdin.read_all() if path == "-"
                        else await ctx.vfs.read_file(ctx.resolve(path)))
            except OSError as exc:
                raise _Fail(26, f"Failed to open/read local data from file "
                                f"{quote_arg(path)}: {describe(exc)}") from exc
            if name != "data-binary":
                data = data.replace(b"\r", b"").replace(b"\n", b"")
            pieces.append(data)
        else:
            pieces.append(value.encode("utf-8", "surrogateescape"))
    return b"&".join(pieces)


async def _transfer(ctx: Context, found: _Options, url: str, target: str | None,
                    body: bytes | None) -> None:
    """One URL: send, show the headers asked for, write the body where it goes."""
    flags = found.flags
    try:
        parts = split_url(url)
    except NetworkError as exc:
        raise _Fail(STATUSES[exc.kind], str(exc)) from exc
    method = found.method or ("HEAD" if "head" in flags else "POST" if body is not None
                              else "GET")
    headers = list(found.headers)
    names = {name.lower() for name, _ in headers}
    if not in_browser() and "user-agent" not in names:
        headers.insert(0, ("User-Agent", "curl/8 (py_vfs)"))
    if "accept" not in names:
        headers.append(("Accept", "*/*"))
    if body is not None and "content-type" not in names:
        headers.append(("Content-Type", "application/x-www-form-urlencoded"))
    deadline = Deadline(found.max_time)
    received = 0
    try:
        response = await send(Request(method, parts.geturl(), headers, body), deadline,
                              follow="location" in flags, max_redirects=found.max_redirs,
                              syscall="curl")
        if "fail" in flags and response.status >= 400:
            response.close()
            raise _Fail(22, f"The requested URL returned error: {response.status}")
        heads = "".join(_head(shown) for shown in [*response.history, response]) \
            if "head" in flags or "include" in flags else ""
        received = await _save(ctx, response, target, deadline, heads.encode("utf-8", "replace"),
                               body="head" not in flags)
    except NetworkError as exc:
        raise _Fail(STATUSES[exc.kind], _message(exc, deadline, received)) from exc
    except TooLarge as exc:
        raise _Fail(63, f"Maximum file size exceeded (the shell's limit: {exc})") from exc
    if found.write_out is not None:
        ctx.out(_write_out(ctx, found.write_out, response, received, deadline))


async def _save(ctx: Context, response: Response, target: str | None, deadline: Deadline,
                heads: bytes, *, body: bool) -> int:
    """Write ``heads`` (`-i`, `-I`) and the body (unless not ``body``) to standard output
    (``target`` "" or "-") or to a file (None: named from the URL, `-O`); the body's bytes."""
    if target is None:
        target = posixpath.basename(urllib.parse.urlsplit(response.url).path)
        if not target:
            response.close()
            raise _Fail(23, "Failed writing received data to disk/application")
    if target in ("", "-"):
        await ctx.write(heads)
        if not body:
            response.close()
            return 0
        return await copy_body(response, ctx.write, deadline, "curl")
    try:
        stream = ctx.vfs.stream_writer(ctx.resolve(target))
    except OSError as exc:
        response.close()
        raise _Fail(23, f"Failed writing body: {quote_arg(target)}: {describe(exc)}") from exc
    try:
        await stream.write(heads)
        received = await copy_body(response, stream.write, deadline, "curl") if body else 0
    except BaseException:
        await stream.abort()
        raise
    finally:
        response.close()
    try:
        await stream.close()
    except OSError as exc:
        raise _Fail(23, f"Failed writing body: {quote_arg(target)}: {describe(exc)}") from exc
    return received


def _head(response: Response) -> str:
    """The status line and the headers, as curl shows them (CRLF, a blank line after)."""
    lines = [f"{response.version} {response.status} {response.reason}".rstrip()]
    lines += [f"{name}: {value}" for name, value in response.headers]
    return "\r\n".join(lines) + "\r\n\r\n"


def _message(exc: NetworkError, deadline: Deadline, received: int) -> str:
    if exc.kind == "timeout":
        return (f"Operation timed out after {deadline.elapsed_ms()} milliseconds with "
                f"{received} bytes received")
    if exc.kind == "browser":
        return f"Failed to connect: {exc}"
    if exc.kind == "connect":
        return (f"Failed to connect to {exc.where} after {deadline.elapsed_ms()} ms: "
                "Couldn't connect to server")
    return str(exc)


def _write_out(ctx: Context, template: str, response: Response, received: int,
               deadline: Deadline) -> str:
    """`-w`: the template with its variables (http_code, url_effective...) filled in."""
    values = {"http_code": f"{response.status:03d}", "response_code": str(response.status),
              "url_effective": response.url, "size_download": str(received),
              "content_type": response.header("content-type") or "",
              "num_redirects": str(response.redirects),
              "time_total": f"{deadline.elapsed_ms() / 1000:.6f}"}
    escapes = {"\\n": "\n", "\\r": "\r", "\\t": "\t", "\\\\": "\\", "%%": "%"}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return escapes[match.group(0)]
        if name not in values:
            ctx.err(f"unknown --write-out variable: {quote_arg(name)}")
            return ""
        return values[name]

    return _WRITE_OUT.sub(fill, template)

