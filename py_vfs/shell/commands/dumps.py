"""Bytes shown as text: od (octal, decimal, hex and character dumps, GNU's layout) and strings
(the runs of printable characters in a file). Both read a chunk at a time."""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass

from ...core import cancel
from ..context import Context
from ..format import quote_arg, visible
from ..pipes import Input
from .gnu import each_input, getopts
from .registry import GNU, UsageError, command

_NAMES = ("nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff",
          "cr", "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em",
          "sub", "esc", "fs", "gs", "rs", "us", "sp")
_ESCAPES = {0: "\\0", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}
_SIZES = {"C": 1, "S": 2, "I": 4, "L": 8}
_MAX_WIDTH = 1 << 16  # -w: bytes a line at most
_PRINTABLE = bytes([9, *range(32, 127)])


def _char(byte: int) -> str:
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    return chr(byte) if 32 <= byte < 127 else f"{byte:03o}"


def _named(byte: int) -> str:
    byte &= 0x7F
    return _NAMES[byte] if byte <= 32 else "del" if byte == 127 else chr(byte)


@dataclass
class _Spec:
    """One -t type: its size in bytes, field width, and how a value reads."""
    size: int
    width: int
    show: Callable[[bytes], str]
    trailer: bool = False  # `z`: the printable characters after the line
    pad: int = 0


def _integer(kind: str, size: int) -> _Spec:
    bits = size * 8
    if kind == "d":
        width = len(str(-(1 << (bits - 1))))
        return _Spec(size, width, lambda b: str(int.from_bytes(b, "little", signed=True)))
    if kind == "u":
        width = len(str((1 << bits) - 1))
        return _Spec(size, width, lambda b: str(int.from_bytes(b, "little")))
    if kind == "o":
        width = math.ceil(bits / 3)
        return _Spec(size, width, lambda b: f"{int.from_bytes(b, 'little'):0{width}o}")
    width = size * 2
    return _Spec(size, width, lambda b: f"{int.from_bytes(b, 'little'):0{width}x}")


def _shortest(data: bytes, size: int) -> str:
    """A float as GNU od prints it: the fewest digits (``%g``) that read back the same."""
    code = "<f" if size == 4 else "<d"
    value = struct.unpack(code, data)[0]
    if math.isnan(value):
        return "-nan" if math.copysign(1, value) < 0 else "nan"
    for digits in range(1, 18):
        text = f"{value:.{digits}g}"
        if struct.unpack(code, struct.pack(code, float(text)))[0] == value:
            return text
    return repr(value)


def _types(text: str) -> list[_Spec]:
    """The specs of one -t argument (`x1z`, `o2`, `c`, `d4`, `u`, `a`...)."""
    out = []
    rest = text
    while rest:
        kind = rest[0]
        if kind in "ac":
            out.append(_Spec(1, 3, (lambda b: _named(b[0])) if kind == "a"
                             else (lambda b: _char(b[0]))))
            rest = rest[1:]
        elif kind == "f":
            match = re.match(r"([0-9]+|[FDL])?", rest[1:])
            size_text = match[1] if match and match[1] else "D"
            size = {"F": 4, "D": 8, "4": 4, "8": 8}.get(size_text, 0)
            if not size:
                raise UsageError(f"invalid type string {quote_arg(text)};",
                                 detail=f"this system doesn't provide a {size_text}-byte "
                                        "floating point type", try_line=False)
            out.append(_Spec(size, 15 if size == 4 else 24,
                             lambda b, size=size: _shortest(b, size)))
            rest = rest[1 + (len(match[1]) if match and match[1] else 0):]
        elif kind in "doux":
            match = re.match(r"([0-9]+|[CSIL])?", rest[1:])
            size_text = match[1] if match and match[1] else "I"
            size = _SIZES.get(size_text) or int(size_text)
            if size not in (1, 2, 4, 8):
                raise UsageError(f"invalid type string {quote_arg(text)};",
                                 detail=f"this system doesn't provide a {size}-byte integral "
                                        "type")
            out.append(_integer(kind, size))
            rest = rest[1 + (len(match[1]) if match and match[1] else 0):]
        else:
            raise UsageError(f"invalid character '{kind}' in type string {quote_arg(text)}",
                             try_line=False)
        if rest.startswith("z"):
            out[-1].trailer = True
            rest = rest[1:]
    return out


def _count(text: str, what: str) -> int:
    """-j / -N: a number (0x hex, 0 octal) with an optional b, k, K, m, M, G... suffix."""
    match = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)"
                         r"(b|kB|KB|K|k|MB|M|m|GB|G|g)?", text)
    if match is None:
        raise UsageError(f"invalid {what} argument {quote_arg(text)}", try_line=False)
    digits = match[1]
    value = int(digits, 16 if digits[:2] in ("0x", "0X") else 8 if digits[0] == "0" and
                len(digits) > 1 else 10)
    units = {"b": 512, "k": 1024, "K": 1024, "KB": 1000, "kB": 1000, "m": 1 << 20,
             "M": 1 << 20, "MB": 10**6, "G": 1 << 30, "g": 1 << 30, "GB": 10**9}
    return value * units.get(match[2] or "", 1)


_SHORTHANDS = {"-c": "c", "-x": "x2", "-o": "o2", "-d": "u2", "-b": "o1", "-i": "dI",
               "-l": "dL", "-s": "d2", "-a": "a", "-f": "fF"}
_RADIX = {"o": ("o", 7), "d": ("d", 7), "x": ("x", 6), "n": ("", 0)}


def _line(specs: list[_Spec], block: bytes, per_line: int, address: str) -> str:
    """One block (``per_line`` bytes, fewer at the end) in every spec, GNU od's layout."""
    out = []
    for index, spec in enumerate(specs):
        fields = per_line // spec.size
        present = -(-len(block) // spec.size)
        padded = block + bytes(present * spec.size - len(block))
        text = [address if index == 0 else " " * len(address)]
        remaining = spec.pad
        for field in range(present):
            following = spec.pad * (fields - field - 1) // fields
            width = remaining - following + spec.width
            text.append(spec.show(padded[field * spec.size:(field + 1) * spec.size])
                        .rjust(width))
            remaining = following
        if spec.trailer:
            blank = (per_line - len(block)) // spec.size
            text.append(" " * (blank * spec.width + spec.pad * blank // fields))
            text.append("  >" + "".join(chr(b) if 32 <= b < 127 else "." for b in block) + "<")
        out.append("".join(text) + "\n")
    return "".join(out)


@command("od [-A RADIX] [-t TYPE] [OPTION]... [FILE...]",
         "dump files in octal and other formats", errors=GNU)
async def od(ctx: Context, args: list[str]) -> int:
    """Dump the bytes of the FILEs (none or `-`: standard input, read as one stream), 16 a
    line after their offset: -t TYPE chooses how (several may be given, a line each): `o`,
    `d`, `u` or `x` with a size 1, 2, 4, 8 (or C, S, I, L) for integers (little-endian),
    `f` with 4 or 8 (F, D) for floating-point numbers (the fewest digits that read back),
    `c` characters with C escapes, `a` named characters, a `z` suffix adds the printable
    characters; -c, -x, -o, -d, -b, -i, -s, -a are short for -t c, x2, o2, u2, o1, dI, d2, a
    (the default is o2). -A o|d|x|n: offsets in octal (default), decimal, hex, or none; -j
    SKIP: skip that many bytes first; -N COUNT: dump at most that many; -w BYTES a line; a
    line equal to the one before is shown as `*` unless -v."""
    options, operands = getopts(
        args, "A:t:j:N:w:vcxodbilsaf",
        ("address-radix=", "format=", "skip-bytes=", "read-bytes=", "width=",
         "output-duplicates"))
    specs: list[_Spec] = []
    radix, skip, limit, per_line, verbose = "o", 0, None, 16, False
    for flag, value in options:
        if flag in ("-A", "--address-radix"):
            if value not in _RADIX:
                raise UsageError(f"invalid output address radix '{value}'; it must be one "
                                 "character from [doxn]", try_line=False)
            radix = value
        elif flag in ("-t", "--format"):
            specs += _types(value)
        elif flag in ("-j", "--skip-bytes"):
            skip = _count(value, "--skip-bytes")
        elif flag in ("-N", "--read-bytes"):
            limit = _count(value, "--read-bytes")
        elif flag in ("-w", "--width"):
            per_line = _count(value or "32", "--width")
            if not 0 < per_line <= _MAX_WIDTH:
                raise UsageError(f"invalid --width argument {quote_arg(value)}",
                                 try_line=False)
        elif flag in ("-v", "--output-duplicates"):
            verbose = True
        else:
            specs += _types(_SHORTHANDS[flag])
    specs = specs or _types("o2")
    lcm = math.lcm(*(spec.size for spec in specs))
    if per_line % lcm:
        per_line = lcm * max(1, per_line // lcm)
    block_width = max((spec.width + 1) * (per_line // spec.size) for spec in specs)
    for spec in specs:
        spec.pad = block_width - spec.width * (per_line // spec.size)
    letter, digits = _RADIX[radix]

    def address(offset: int) -> str:
        return f"{offset:0{digits}{letter}}" if digits else ""

    state = {"offset": 0, "skip": skip, "left": limit, "held": b"", "last": None,
             "starred": False, "lines": 0,
             "read": False}

    async def emit(block: bytes) -> None:
        offset = state["offset"]
        if not verbose and block == state["last"] and len(block) == per_line:
            if not state["starred"]:
                await ctx.write("*\n")
                state["starred"] = True
        else:
            await ctx.write(_line(specs, block, per_line, address(offset)))
            state["starred"] = False
        state["last"] = block
        state["offset"] = offset + len(block)
        state["lines"] += 1
        if state["lines"] % 4096 == 0:
            await cancel.checkpoint("od", state["lines"], state["lines"], "lines")

    async def dump(_: str, source: Input) -> None:
        state["read"] = True
        async for piece in source.chunks():
            if state["skip"]:
                dropped = min(state["skip"], len(piece))
                state["skip"] -= dropped
                state["offset"] += dropped
                piece = piece[dropped:]
            if state["left"] is not None:
                piece = piece[:state["left"]]
                state["left"] -= len(piece)
            held = state["held"] + piece
            while len(held) >= per_line:
                await emit(held[:per_line])
                held = held[per_line:]
            state["held"] = held
            if state["left"] == 0:
                break

    status = await each_input(ctx, operands, dump)
    if not state["read"]:
        return status
    if state["skip"]:
        ctx.err("cannot skip past end of combined input")
        return 1
    if state["held"]:
        await emit(state["held"])
    if digits:
        await ctx.write(address(state["offset"]) + "\n")
    return status


@command("strings [-a] [-n MIN] [-t o|d|x] [FILE...]",
         "print the runs of printable characters in files", errors=GNU)
async def strings(ctx: Context, args: list[str]) -> int:
    """Print each run of at least MIN (-n, default 4) printable ASCII characters (tabs
    count) found in the FILEs (none or `-`: standard input), one a line; -t o|d|x puts its
    offset in octal, decimal or hex before it. The whole file is always scanned (-a)."""
    args = [f"-n{arg[1:]}" if re.fullmatch(r"-[0-9]+", arg) else arg for arg in args]
    options, operands = getopts(args, "an:t:", ("all", "bytes=", "radix="))
    least, radix = 4, None
    for flag, value in options:
        if flag in ("-n", "--bytes"):
            if not value.isdigit() or int(value) < 1:
                ctx.stderr.write_nowait(
                    f"strings: invalid minimum string length {visible(value)}\n")
                return 1
            least = int(value)
        elif flag in ("-t", "--radix"):
            if value not in ("o", "d", "x"):
                raise UsageError(f"invalid radix {quote_arg(value)}")
            radix = value
    run = re.compile(rb"[\t\x20-\x7e]{%d,}" % least)

    async def scan(_: str, source: Input) -> None:
        held, base, count = b"", 0, 0
        async for piece in source.chunks():
            data = held + piece
            # A run reaching the end of the data may go on in the next piece: keep it back
            # (unless it is over a MiB already: then it is printed in pieces).
            tail = len(data.rstrip(_PRINTABLE))
            if len(data) - tail > 1 << 20:
                tail = len(data)
            for match in run.finditer(data, 0, tail):
                prefix = f"{base + match.start():7{radix}} " if radix else ""
                await ctx.write(prefix.encode() + match[0] + b"\n")
            held, base = data[tail:], base + tail
            count += 1
            await cancel.checkpoint("strings", count, count, "pieces")
        match = run.fullmatch(held) if held else None
        if match:
            prefix = f"{base:7{radix}} " if radix else ""
            await ctx.write(prefix.encode() + held + b"\n")

    return await each_input(ctx, operands, scan, "{name}")
