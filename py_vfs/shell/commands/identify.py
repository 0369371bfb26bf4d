"""file: say what kind of data a file holds, for a useful subset of what file(1) knows.

Kinds of node (directory, symlink, empty), formats told by their first bytes (gzip, zip, tar,
PNG, JPEG, PDF, SQLite, ELF) with the details file 5.44 prints first, and text: ASCII, UTF-8
or ISO-8859, its line terminators, very long lines, escape sequences, a script's interpreter
from its `#!` line, JSON. Anything else is `data`. Only the first ``SAMPLE`` bytes are read
(and the last 4 of a gzip file, its size).
"""

from __future__ import annotations

import json
import re
import struct
from datetime import UTC, datetime

from ..context import Context
from ..format import shown_name, visible
from ..pipes import StreamInput
from .gnu import getopts
from .registry import Usage, command

SAMPLE = 1 << 20
LONG_LINE = 300  # file says "with very long lines" past this many bytes in a line
_TEXT = set(range(7, 14)) | {27} | set(range(32, 127))
_PNG_COLORS = {0: "grayscale", 2: "RGB", 3: "colormap", 4: "gray+alpha", 6: "RGBA"}
_ELF_TYPES = {1: "relocatable", 2: "executable", 3: "shared object", 4: "core file"}
_ELF_MACHINES = {3: "Intel 80386", 8: "MIPS", 20: "PowerPC", 21: "64-bit PowerPC",
                 40: "ARM", 62: "x86-64", 183: "ARM aarch64", 243: "UCB RISC-V",
                 247: "eBPF"}
_SCRIPTS = {"sh": "POSIX shell script", "bash": "Bourne-Again shell script",
            "python": "Python script", "python3": "Python script", "node": "Node.js script",
            "perl": "Perl script"}

# file's own tests for Python without a `#!` line: a function header, an `import X as Y`.
_PYTHON = re.compile(rb"^[ \t]{0,50}def {1,50}[_a-zA-Z]{1,100}"
                     rb"\(([_a-zA-Z][_a-zA-Z0-9]*(, [_a-zA-Z][_a-zA-Z0-9]*)*)?\):$", re.M)
_PYTHON_IMPORT = re.compile(rb"^import [_a-zA-Z]+ as [a-zA-Z][ \t\n\r\f\v]*$", re.M)


def _ctime(seconds: int) -> str:
    moment = datetime.fromtimestamp(seconds, tz=UTC).astimezone()
    return f"{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S %Y}"


def _gzip(head: bytes, size_mod: int | None) -> str:
    parts = ["gzip compressed data"]
    flags, mtime, extra, system = head[3], struct.unpack("<I", head[4:8])[0], head[8], head[9]
    if flags & 8:
        start = 10 + ((2 + int.from_bytes(head[10:12], "little")) if flags & 4 else 0)
        end = head.find(b"\0", start)
        if end > 0:
            parts.append(f'was "{head[start:end].decode("latin-1")}"')
    if mtime:
        parts.append(f"last modified: {_ctime(mtime)}")
    if extra == 2:
        parts.append("max compression")
    elif extra == 4:
        parts.append("max speed")
    systems = {0: "FAT filesystem (MS-DOS, OS/2, NT)", 3: "Unix", 7: "Macintosh",
               11: "NTFS filesystem (NT)"}
    if system in systems:
        parts.append(f"from {systems[system]}")
    if size_mod is not None:
        parts.append(f"original size modulo 2^32 {size_mod}")
    return ", ".join(parts)


def _png(head: bytes) -> str:
    if len(head) < 29 or head[12:16] != b"IHDR":
        return "PNG image data"
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", head[16:29])
    kind = _PNG_COLORS.get(color, "unknown")
    depth_text = f"{depth}-bit/color" if color in (2, 6) else f"{depth}-bit"
    laced = "interlaced" if interlace else "non-interlaced"
    return f"PNG image data, {width} x {height}, {depth_text} {kind}, {laced}"


def _elf(head: bytes) -> str:
    bits = {1: "32-bit", 2: "64-bit"}.get(head[4], "")
    order = "<" if head[5] == 1 else ">"
    kind = struct.unpack(order + "H", head[16:18])[0] if len(head) >= 20 else 0
    machine = struct.unpack(order + "H", head[18:20])[0] if len(head) >= 20 else 0
    text = f"ELF {bits} {'LSB' if order == '<' else 'MSB'} {_ELF_TYPES.get(kind, 'unknown')}"
    if machine in _ELF_MACHINES:
        text += f", {_ELF_MACHINES[machine]}"
    return text + f", version {head[6]} (SYSV)" if head[7] == 0 else text


def _sqlite(head: bytes) -> str:
    if len(head) < 100:
        return "SQLite 3.x database"
    number = lambda at: struct.unpack(">I", head[at:at + 4])[0]  # noqa: E731
    encodings = {1: "UTF-8", 2: "UTF-16 little endian", 3: "UTF-16 big endian"}
    parts = ["SQLite 3.x database", f"last written using SQLite version {number(96)}",
             f"file counter {number(24)}", f"database pages {number(28)}"]
    if number(40):
        parts.append(f"cookie 0x{number(40):x}")
    if number(44):
        parts.append(f"schema {number(44)}")
    if number(56) in encodings:
        parts.append(encodings[number(56)])
    parts.append(f"version-valid-for {number(92)}")
    return ", ".join(parts)


def _zip(head: bytes) -> str:
    if head[:4] == b"PK\x05\x06":
        return "Zip archive data (empty)"
    version = int.from_bytes(head[4:6], "little")
    method = int.from_bytes(head[8:10], "little")
    methods = {0: "store", 8: "deflate", 12: "bzip2", 14: "lzma"}
    return (f"Zip archive data, at least v{version // 10}.{version % 10} to extract, "
            f"compression method={methods.get(method, str(method))}")


def _magic(head: bytes) -> str | None:
    """What the first bytes say, or None for no known format."""
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(head)
    if head[:3] == b"\xff\xd8\xff":
        jfif = head[6:11] == b"JFIF\0"
        return "JPEG image data" + (f", JFIF standard {head[11]}.{head[12]:02d}" if jfif
                                    else "")
    match = re.match(rb"%PDF-([0-9]+\.[0-9]+)", head)
    if match:
        return f"PDF document, version {match[1].decode()}"
    if head[:16] == b"SQLite format 3\0":
        return _sqlite(head)
    if head[:4] == b"\x7fELF":
        return _elf(head)
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return _zip(head)
    if head[257:263] == b"ustar\0":
        return "POSIX tar archive"
    if head[257:265] == b"ustar  \0":
        return "POSIX tar archive (GNU)"
    return None


def _text(data: bytes) -> str:
    """What a text says, or `data`."""
    if all(byte in _TEXT for byte in data):
        kind = "ASCII"
    else:
        try:
            data.decode("utf-8")
            kind = "Unicode text, UTF-8"
        except UnicodeDecodeError:
            if any(0x80 <= byte < 0xA0 for byte in data) or \
                    not all(byte in _TEXT or byte >= 0xA0 for byte in data):
                return "data"
            kind = "ISO-8859"
        if kind != "ISO-8859" and not all(byte in _TEXT or byte >= 0x80 for byte in data):
            return "data"
    described = f"{kind} text"
    first = data.split(b"\n", 1)[0]
    if first.startswith(b"#!"):
        words = first[2:].decode("latin-1").split()
        program = words[0].rsplit("/", 1)[-1] if words else ""
        if program == "env" and len(words) > 1:
            program = words[1]
        if program in _SCRIPTS:
            return f"{_SCRIPTS[program]}, {described} executable"
    if _PYTHON.search(data[:4096]) or _PYTHON_IMPORT.search(data[:8192]):
        return f"Python script, {described} executable"
    if kind == "ASCII" and data.lstrip()[:1] in (b"{", b"["):
        try:
            json.loads(data)
            return "JSON text data"
        except ValueError:
            pass
    notes = []
    longest = max(len(line) for line in re.split(rb"\r\n|\n|\r", data))
    if longest > LONG_LINE:
        notes.append(f"with very long lines ({longest})")
    crlf = data.count(b"\r\n")
    lf, cr = data.count(b"\n") - crlf, data.count(b"\r") - crlf
    ends = [name for name, count in (("CRLF", crlf), ("CR", cr), ("LF", lf)) if count]
    if not ends:
        notes.append("with no line terminators")
    elif ends != ["LF"]:
        notes.append(f"with {', '.join(ends)} line terminators")
    if 27 in data:
        notes.append("with escape sequences")
    return ", ".join([described, *notes])


async def describe_file(ctx: Context, path: str, follow: bool) -> str:
    """What ``file`` says of ``path`` (OSError if it cannot be looked at)."""
    node = ctx.vfs.lstat(path)
    if node.type == "symlink":
        target = ctx.vfs.readlink(path)
        try:
            ctx.vfs.stat(path)
        except OSError:
            return f"broken symbolic link to {target}"
        if not follow:
            return f"symbolic link to {target}"
        node = ctx.vfs.stat(path)
    if node.type == "directory":
        return "directory"
    if node.size == 0:
        return "empty"
    head = await StreamInput(ctx.vfs.open_read(path, 0, min(node.size, SAMPLE))).read_all()
    kind = _magic(head)
    if kind == "gzip":
        tail = await StreamInput(ctx.vfs.open_read(path, max(0, node.size - 4))).read_all()
        return _gzip(head, struct.unpack("<I", tail)[0] if len(tail) == 4 else None)
    return kind or _text(head)


async def _describe_input(ctx: Context) -> str:
    """What ``file -`` says of standard input (its first ``SAMPLE`` bytes)."""
    head = b""
    while len(head) < SAMPLE and (piece := await ctx.stdin.read(SAMPLE - len(head))):
        head += piece
    if not head:
        return "empty"
    kind = _magic(head)
    return _gzip(head, None) if kind == "gzip" else kind or _text(head)


# file's usage, which it prints after a bad option (and alone without operands).
_USAGE = ("Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n"
          "            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n"
          "            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n"
          "            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]")


@command("file [-bL] FILE...", "say what kind of data files hold",
         errors=Usage(1, usage=_USAGE))
async def file(ctx: Context, args: list[str]) -> int:
    """Print `FILE: KIND` for each FILE, the names padded so the kinds line up: `empty`,
    `directory`, `symbolic link to T` (-L: what it points to), a format known by its first
    bytes (gzip, zip, tar, PNG, JPEG, PDF, SQLite, ELF), `ASCII text` and the other texts
    (with their line terminators, or a script's interpreter), or `data`. -b: the kind only.
    `-` is standard input, shown as /dev/stdin. A FILE that cannot be read is said so on
    that line (status 0, as file does)."""
    options, operands = getopts(args, "bLh", ("brief", "dereference", "no-dereference"))
    flags = {flag for flag, _ in options}
    brief = bool(flags & {"-b", "--brief"})
    follow = False
    for flag, _ in options:
        if flag in ("-L", "--dereference"):
            follow = True
        elif flag in ("-h", "--no-dereference"):
            follow = False
    if not operands:
        ctx.stderr.write_nowait(_USAGE + "\n")
        return 1
    width = max(len(name) for name in operands)  # `-` pads as the one character it is
    for name in operands:
        try:
            kind = (await _describe_input(ctx) if name == "-"
                    else await describe_file(ctx, ctx.resolve(name), follow))
        except OSError as exc:
            reason = getattr(exc, "strerror", None) or "No such file or directory"
            kind = f"cannot open `{shown_name(name)}' ({reason})"
        shown = "/dev/stdin" if name == "-" else shown_name(name)
        kind = visible(kind)  # a stored name (gzip's) is the file's, untrusted
        ctx.out(kind + "\n" if brief else f"{shown}:{' ' * (width - len(name))} {kind}\n")
    return 0
