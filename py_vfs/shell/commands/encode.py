"""Bytes as text and back: base64, sha1sum, sha256sum, sha512sum, md5sum, xxd (the stdlib's
base64, hashlib, binascii)."""

from __future__ import annotations

import base64 as b64
import binascii
import hashlib
import re

from ..context import Context, describe
from ..format import quote_arg, quote_name, shown_name
from ..pipes import Input
from .gnu import each_input, getopts, number, open_input
from .registry import GNU, UsageError, command


@command("base64 [-d] [-i] [-w COLS] [FILE]", "encode or decode base64", errors=GNU)
async def base64(ctx: Context, args: list[str]) -> int:
    """Encode FILE (none or `-`: standard input) as base64, lines of 76 characters (-w COLS:
    COLS, 0 for one line); -d decodes (-i: ignoring characters outside the alphabet)."""
    options, operands = getopts(args, "diw:", ("decode", "ignore-garbage", "wrap="))
    decode = any(flag in ("-d", "--decode") for flag, _ in options)
    garbage = any(flag in ("-i", "--ignore-garbage") for flag, _ in options)
    wrap = 76
    for flag, value in options:
        if flag in ("-w", "--wrap"):
            wrap = number(value, "wrap size")
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    inputs: list[bytes] = []

    async def read(_: str, source: Input) -> None:
        inputs.append(await source.read_all())

    if await each_input(ctx, operands, read):
        return 1
    data = inputs[0]
    if decode:
        text = re.sub(rb"[^A-Za-z0-9+/=]", b"", data) if garbage else re.sub(rb"\s", b"", data)
        try:
            await ctx.write(b64.b64decode(text + b"=" * (-len(text) % 4), validate=True))
        except (binascii.Error, ValueError):
            ctx.err("invalid input")
            return 1
        return 0
    encoded = b64.b64encode(data)
    if wrap:
        lines = [encoded[i:i + wrap] for i in range(0, len(encoded), wrap)]
        await ctx.write(b"".join(line + b"\n" for line in lines))
    else:
        await ctx.write(encoded)  # GNU: -w 0 ends without a newline
    return 0


async def _sums(ctx: Context, args: list[str], algorithm: str) -> int:
    options, operands = getopts(args, "cbt", ("check", "binary", "text", "quiet", "status"))
    flags = {flag for flag, _ in options}
    if "-c" in flags or "--check" in flags:
        return await _check(ctx, operands, algorithm, flags)
    # -b marks each name `*` (binary mode), -t ` ` (text): the last of them wins, as GNU.
    modes = [flag for flag, _ in options if flag in ("-b", "--binary", "-t", "--text")]
    mode = "*" if modes and modes[-1] in ("-b", "--binary") else " "

    async def digest(name: str, source: Input) -> None:
        hasher = hashlib.new(algorithm)
        async for piece in source.chunks():
            hasher.update(piece)
        # GNU marks a name it escaped with a leading `\`; one holding a control character is
        # quoted for the terminal instead (format.shown_name).
        shown, escape = shown_name(name), ""
        if shown == name and "\\" in name:
            shown, escape = name.replace("\\", "\\\\"), "\\"
        ctx.out(f"{escape}{hasher.hexdigest()} {mode}{shown}\n")

    return await each_input(ctx, operands, digest)


async def _check(ctx: Context, operands: list[str], algorithm: str, flags: set[str]) -> int:
    """`-c`: read `HASH  NAME` lines and say OK or FAILED for each file."""
    failed = unreadable = bad_lines = 0
    quiet, silent = "--quiet" in flags, "--status" in flags
    width = hashlib.new(algorithm).digest_size * 2

    async def verify(list_name: str, source: Input) -> None:
        nonlocal failed, unreadable, bad_lines
        async for raw in source.lines():
            match = re.fullmatch(rf"([0-9a-fA-F]{{{width}}}) [ *](.+)",
                                 raw.rstrip(b"\n").decode("utf-8", "surrogateescape"))
            if match is None:
                bad_lines += 1
                continue
            name = match[2]
            hasher = hashlib.new(algorithm)
            try:
                async for piece in open_input(ctx, name).chunks():
                    hasher.update(piece)
            except OSError as exc:
                ctx.err(f"{name}: {describe(exc)}")
                ctx.out(f"{shown_name(name)}: FAILED open or read\n")
                unreadable += 1
                continue
            good = hasher.hexdigest() == match[1].lower()
            failed += not good
            if not silent and not (quiet and good):
                ctx.out(f"{shown_name(name)}: {'OK' if good else 'FAILED'}\n")

    status = await each_input(ctx, operands, verify)
    if not silent:
        if bad_lines:
            ctx.err(f"WARNING: {bad_lines} line{'s are' if bad_lines > 1 else ' is'} "
                    "improperly formatted")
        if unreadable:
            ctx.err(f"WARNING: {unreadable} listed file{'s' if unreadable > 1 else ''} "
                    "could not be read")
        if failed:
            ctx.err(f"WARNING: {failed} computed checksum{'s' if failed > 1 else ''} "
                    "did NOT match")
    return 1 if status or failed or unreadable else 0


@command("sha256sum [-c] [FILE...]", "print or check SHA-256 checksums", errors=GNU)
async def sha256sum(ctx: Context, args: list[str]) -> int:
    """Print `HASH  NAME` for each FILE (none or `-`: standard input); -c reads such lines
    from the FILEs and prints `NAME: OK` or `NAME: FAILED` (status 1 if any failed)."""
    return await _sums(ctx, args, "sha256")


@command("sha1sum [-c] [FILE...]", "print or check SHA-1 checksums", errors=GNU)
async def sha1sum(ctx: Context, args: list[str]) -> int:
    """As sha256sum, with SHA-1."""
    return await _sums(ctx, args, "sha1")


@command("sha512sum [-c] [FILE...]", "print or check SHA-512 checksums", errors=GNU)
async def sha512sum(ctx: Context, args: list[str]) -> int:
    """As sha256sum, with SHA-512."""
    return await _sums(ctx, args, "sha512")


@command("md5sum [-c] [FILE...]", "print or check MD5 checksums", errors=GNU)
async def md5sum(ctx: Context, args: list[str]) -> int:
    """As sha256sum, with MD5."""
    return await _sums(ctx, args, "md5")


def _dump_line(offset: int, chunk: bytes, cols: int) -> str:
    pairs = [chunk[i:i + 2].hex() for i in range(0, len(chunk), 2)]
    hexed = " ".join(pairs)
    width = (cols // 2) * 5 - 1 + (cols % 2) * 3
    text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
    return f"{offset:08x}: {hexed:<{width}}  {text}\n"


def _c_number(text: str) -> int:
    """A number as xxd reads one (C's strtol, base 0: `0x10`, `020`, `16`); 0 if none."""
    match = re.match(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", text)
    if match is None:
        return 0
    value = int(match[2], 16 if match[2][:2].lower() == "0x" else 8 if match[2][0] == "0"
                else 10)
    return -value if match[1] == "-" else value


@command("xxd [-r] [-c COLS] [-p] [-s SEEK] [-l LEN] [FILE]",
         "hex dump a file (or -r: make one back into bytes)", errors=GNU)
async def xxd(ctx: Context, args: list[str]) -> int:
    """Dump FILE (none or `-`: standard input) as xxd does: an offset, COLS bytes (default 16)
    in hex by pairs, and the printable ones; -p plain hex (60 digits a line); -s SEEK start at
    byte SEEK (negative: that many before the end), -l LEN stop after LEN bytes; -r reads a
    dump (or with -p plain hex) back into bytes."""
    options, operands = getopts(args, "rpc:s:l:", ("revert", "plain", "cols=", "seek=", "len="))
    flags = {flag for flag, _ in options}
    cols, seek, length = 16, 0, None
    for flag, value in options:
        if flag in ("-c", "--cols"):
            cols = number(value, "number of columns") or 16
        elif flag in ("-s", "--seek"):
            seek = _c_number(value)
        elif flag in ("-l", "--len"):
            length = _c_number(value)
    plain = "-p" in flags or "--plain" in flags
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    name = operands[0] if operands else "-"
    try:
        data = await open_input(ctx, name).read_all()
    except OSError as exc:
        ctx.stderr.write_nowait(f"xxd: {quote_name(name)}: {describe(exc)}\n")
        return 2
    if "-r" in flags or "--revert" in flags:
        out = bytearray()
        for line in data.decode("latin-1").splitlines():
            if plain:
                digits = re.sub(r"[^0-9a-fA-F]", "", line)
            else:
                match = re.match(r"\s*[0-9a-fA-F]+:\s?((?:[0-9a-fA-F]{2,4} ?)*)", line)
                digits = re.sub(r"\s", "", match[1]) if match else ""
            out += bytes.fromhex(digits[: len(digits) // 2 * 2])
        await ctx.write(bytes(out))
        return 0
    start = max(0, len(data) + seek if seek < 0 else seek)
    data = data[start:] if length is None else data[start:start + max(0, length)]
    if plain:
        hexed = data.hex()
        await ctx.write("".join(hexed[i:i + 60] + "\n" for i in range(0, len(hexed), 60)))
        return 0
    lines = [_dump_line(start + i, data[i:i + cols], cols) for i in range(0, len(data), cols)]
    await ctx.write("".join(lines))
    return 0
