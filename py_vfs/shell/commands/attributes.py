"""A node's attributes: stat shows them, chmod changes its mode, touch its times.

The VFS keeps a type, a size, mode bits and three times (to the millisecond) per node; it has
no users, inode numbers, devices or hard links, so stat shows uid/gid 1000 named "user",
inode 0, device 0,0 and one link, and no birth time.
"""

from __future__ import annotations

import calendar
import posixpath
import re
import time
from datetime import UTC, datetime
from stat import filemode
from typing import TYPE_CHECKING

from ...core import cancel
from .. import format as fmt
from ..context import Context, describe, each_operand, ensure_parent_dir, list_names
from ..format import quote_arg, quote_name
from .listing import link_target
from .options import parse
from .registry import GNU, UsageError, command, require_operands

if TYPE_CHECKING:
    from ...core.node import Stat

UID = 1000
KIND = {"file": "regular file", "directory": "directory", "symlink": "symbolic link"}


# ------------------------------------------------------------------ stat

def _time(ms: float) -> str:
    """`2024-11-21 18:43:05.123000000 +0000`: GNU stat's shape, nanoseconds from the
    milliseconds the VFS keeps, in local time."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC).astimezone()
    return f"{moment:%Y-%m-%d %H:%M:%S}.{round(ms % 1000 * 1_000_000):09d} {moment:%z}"


def _kind(node: Stat) -> str:
    if node.type == "file" and node.size == 0:
        return "regular empty file"
    return KIND.get(node.type, node.type)


def _blocks(node: Stat) -> int:
    """512-byte blocks as a 4 KiB-block file system counts them."""
    if node.type == "symlink":
        return 0
    return 8 if node.type == "directory" else -(-node.size // 4096) * 8


def _field(spec: str, name: str, node: Stat, target: str | None) -> str:
    values = {
        "n": lambda: name,
        "N": lambda: quote_arg(name) + ("" if target is None else f" -> {quote_arg(target)}"),
        "s": lambda: str(node.size), "F": lambda: _kind(node),
        "a": lambda: f"{node.mode & 0o7777:o}", "A": lambda: fmt.mode_string(node),
        "f": lambda: f"{fmt.TYPE_BITS.get(node.type, 0) | node.mode & 0o7777:x}",
        "b": lambda: str(_blocks(node)), "B": lambda: "512", "o": lambda: "4096",
        "h": lambda: "1", "i": lambda: "0", "d": lambda: "0", "D": lambda: "0",
        "t": lambda: "0", "T": lambda: "0", "m": lambda: "/",
        "u": lambda: str(UID), "g": lambda: str(UID),
        "U": lambda: fmt.OWNER, "G": lambda: fmt.OWNER,
        "x": lambda: _time(node.atime_ms), "X": lambda: str(int(node.atime_ms // 1000)),
        "y": lambda: _time(node.mtime_ms), "Y": lambda: str(int(node.mtime_ms // 1000)),
        "z": lambda: _time(node.ctime_ms), "Z": lambda: str(int(node.ctime_ms // 1000)),
        "w": lambda: "-", "W": lambda: "0", "%": lambda: "%",
    }
    return values[spec]() if spec in values else "?"


def stat_format(template: str, name: str, node: Stat, target: str | None) -> str:
    """``template`` with each %X directive of GNU stat's -c replaced (an unknown one is "?")."""
    return re.sub(r"%(.)", lambda m: _field(m.group(1), name, node, target), template)


def _default(name: str, node: Stat, target: str | None) -> str:
    shown = name if target is None else f"{name} -> {target}"
    owner = f"({UID:>5}/{fmt.OWNER:>8})"
    return (f"  File: {shown}\n"
            f"  Size: {node.size:<10}\tBlocks: {_blocks(node):<10} IO Block: 4096   "
            f"{_kind(node)}\n"
            f"Device: 0,0\tInode: 0           Links: 1\n"
            f"Access: ({node.mode & 0o7777:04o}/{fmt.mode_string(node)})  "
            f"Uid: {owner}   Gid: {owner}\n"
            f"Access: {_time(node.atime_ms)}\n"
            f"Modify: {_time(node.mtime_ms)}\n"
            f"Change: {_time(node.ctime_ms)}\n"
            f" Birth: -\n")


@command("stat [-L] [-c FORMAT] PATH...", "show a node's type, size, mode and times", errors=GNU)
async def stat(ctx: Context, args: list[str]) -> int:
    """Print each node's details in GNU stat's layout, a symlink itself unless -L.
    -c FORMAT (--format=FORMAT) prints FORMAT and a newline instead, --printf=FORMAT without
    the newline: %n name, %N quoted name (-> target), %s size, %F type, %a octal mode, %A
    mode string, %f raw mode in hex, %b blocks, %h links, %i inode, %U/%G owner, %u/%g ids,
    %x/%y/%z access/modify/change time (%X/%Y/%Z in seconds), %w/%W birth (none), %%."""
    options = parse(args, "L", "c", long={"format": True, "printf": True,
                                          "dereference": False})
    require_operands(options.operands)
    template = options.values.get("c", options.values.get("format"))
    if template is not None:
        template += "\n"
    elif "printf" in options.values:
        template = options.values["printf"].encode().decode("unicode_escape")
    follow = "L" in options or "dereference" in options

    async def show(name: str) -> None:
        path = ctx.resolve(name)
        node = (ctx.vfs.stat if follow else ctx.vfs.lstat)(path)
        target = link_target(ctx, path) if node.type == "symlink" else None
        shown = fmt.quote_name(name) if template is None else name
        if template is None:
            ctx.out(_default(shown, node, None if target is None else fmt.quote_name(target)))
        else:
            ctx.out(fmt.visible(stat_format(template[:-1], name, node, target))
                    + template[-1:])

    return await each_operand(ctx, options.operands, show, "cannot statx {arg}")


# ------------------------------------------------------------------ chmod

_SYMBOLIC = re.compile(r"[ugoa]*(?:[-+=](?:[ugo]|[rwxXst]*))+")


def new_mode(spec: str, mode: int, is_dir: bool, umask: int = 0o022) -> int:
    """The mode ``spec`` (octal, or symbolic clauses like `u+x,go-w`) makes of ``mode``;
    ValueError when it is not a mode. Without who (`+x`), bits the umask covers are kept,
    as GNU chmod does."""
    if re.fullmatch(r"[0-7]{1,4}", spec):
        return int(spec, 8)
    for clause in spec.split(","):
        if not _SYMBOLIC.fullmatch(clause):
            raise ValueError(spec)
        who_part = clause[:len(clause) - len(clause.lstrip("ugoa"))]
        who = 0
        for letter in who_part or "a":
            who |= {"u": 0o4700, "g": 0o2070, "o": 0o1007, "a": 0o7777}[letter]
        mask = who if who_part else who & ~umask
        for op, perms in re.findall(r"([-+=])([ugo]|[rwxXst]*)", clause[len(who_part):]):
            bits = _bits(perms, mode, is_dir)
            if op == "=":
                mode &= ~who
                mode |= bits & mask
            elif op == "+":
                mode |= bits & mask
            else:
                mode &= ~(bits & mask)
    return mode


def _bits(perms: str, mode: int, is_dir: bool) -> int:
    """The bits of ``perms``, for every class (the mask picks who)."""
    if perms in ("u", "g", "o"):
        shift = {"u": 6, "g": 3, "o": 0}[perms]
        three = (mode >> shift) & 7
        return three * 0o111
    bits = 0
    for perm in perms:
        if perm == "X" and not (is_dir or mode & 0o111):
            continue
        bits |= {"r": 0o444, "w": 0o222, "x": 0o111, "X": 0o111, "s": 0o6000,
                 "t": 0o1000}[perm]
    return bits


@command("chmod [-Rcfv] MODE FILE...", "change mode bits (octal, or symbolic like u+x,go-w)",
         errors=GNU)
async def chmod(ctx: Context, args: list[str]) -> int:
    """Set each FILE's mode: octal (755) or symbolic clauses ([ugoa][+-=][rwxXst], joined by
    commas). A symlink operand changes what it points to; -R goes into directories (links met
    there are left alone); -v says what it did to each, -c only what changed, -f is quiet
    about failures."""
    # A mode may start with '-' (`chmod -w f`): take it before parsing the flags.
    mode_at = next((i for i, arg in enumerate(args)
                    if not re.fullmatch(r"-[Rcfv]+", arg) and arg != "--"), None)
    if mode_at is None:
        raise UsageError("missing operand")
    spec = args[mode_at]
    options = parse(args[:mode_at] + args[mode_at + 1:], "Rcfv")
    if not (re.fullmatch(r"[0-7]{1,4}", spec) or all(_SYMBOLIC.fullmatch(c)
                                                      for c in spec.split(","))):
        raise UsageError(f"invalid mode: {quote_arg(spec)}")
    if not options.operands:
        raise UsageError(f"missing operand after {quote_arg(spec)}")
    status = 0
    for name in options.operands:
        try:
            stack = [(name, ctx.resolve(name), True)]
            while stack:
                shown, path, operand = stack.pop()
                node = (ctx.vfs.stat if operand else ctx.vfs.lstat)(path)
                if node.type == "symlink":
                    continue  # met by -R: chmod never changes a link's target there
                if not await _change(ctx, shown, path, node, spec, options.flags):
                    status = 1
                if "R" in options and node.type == "directory":
                    stack.extend((posixpath.join(shown, child), posixpath.join(path, child),
                                  False) for child in reversed(list_names(ctx.vfs, path)))
                    await cancel.checkpoint("chmod", 0, 0, "directories")
        except OSError as exc:
            if "f" not in options:
                ctx.err(f"cannot access {quote_arg(name)}: {describe(exc)}")
            status = 1
    return status


async def _change(ctx: Context, shown: str, path: str, node: Stat, spec: str,
                  flags: set[str]) -> bool:
    """Apply ``spec`` to one node; False when the umask kept bits the user asked for (GNU
    warns and exits 1: `chmod -w f` leaves f writable by its group)."""
    old = node.mode & 0o7777
    mode = new_mode(spec, old, node.type == "directory")
    wanted = new_mode(spec, old, node.type == "directory", umask=0)
    if mode != old:
        await ctx.vfs.chmod(path, mode)
    if "v" in flags or ("c" in flags and mode != old):
        before, after = filemode(old)[1:], filemode(mode)[1:]
        if mode == old:
            ctx.out(f"mode of {quote_arg(shown)} retained as {old:04o} ({before})\n")
        else:
            ctx.out(f"mode of {quote_arg(shown)} changed from {old:04o} ({before}) "
                    f"to {mode:04o} ({after})\n")
    if mode != wanted and "f" not in flags:
        ctx.err(f"{quote_name(shown)}: new permissions are {filemode(mode)[1:]}, "
                f"not {filemode(wanted)[1:]}")
    return mode == wanted


# ------------------------------------------------------------------ touch

_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?"
                   r" ?(Z|UTC|[+-]\d{2}:?\d{2})?")


def parse_date(text: str, now_ms: float) -> float:
    """A moment as touch -d takes it, in ms: `@SECONDS`, `now`, `YYYY-MM-DD`, `YYYY-MM-DD
    HH:MM[:SS[.frac]]` (local time, or with `Z`/`UTC`/`+HH:MM`); ValueError otherwise."""
    text = text.strip()
    if text == "now":
        return now_ms
    if re.fullmatch(r"@-?\d+(\.\d+)?", text):
        return float(text[1:]) * 1000
    match = _DATE.fullmatch(text)
    if not match:
        raise ValueError(text)
    year, month, day, hour, minute, second, frac, zone = match.groups()
    fields = (int(year), int(month), int(day), int(hour or 0), int(minute or 0),
              int(second or 0))
    datetime(*fields)  # ValueError for a day that does not exist
    if zone is None:
        seconds = time.mktime((*fields, 0, 0, -1))
    else:
        seconds = calendar.timegm((*fields, 0, 0, 0))
        if zone not in ("Z", "UTC"):
            offset = int(zone[1:3]) * 3600 + int(zone[-2:]) * 60
            seconds -= offset if zone[0] == "+" else -offset
    return seconds * 1000 + (float(frac) * 1000 if frac else 0)


def parse_stamp(text: str) -> float:
    """touch -t's `[[CC]YY]MMDDhhmm[.ss]`, local time, in ms; ValueError otherwise."""
    match = re.fullmatch(r"(\d{2}|\d{4})?(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{2}))?", text)
    if not match:
        raise ValueError(text)
    year_text, month, day, hour, minute, second = match.groups()
    if year_text is None:
        year = time.localtime().tm_year
    elif len(year_text) == 2:
        year = int(year_text) + (1900 if int(year_text) >= 69 else 2000)  # POSIX's pivot
    else:
        year = int(year_text)
    fields = (year, int(month), int(day), int(hour), int(minute), int(second or 0))
    datetime(*fields)  # ValueError for a day that does not exist
    return time.mktime((*fields, 0, 0, -1)) * 1000


@command("touch [-acm] [-d DATE] [-r FILE] [-t STAMP] FILE...",
         "create empty files, or set their times (to now unless -d, -t or -r)", errors=GNU)
async def touch(ctx: Context, args: list[str]) -> int:
    """Create each missing FILE empty (not with -c), and set its access and modification
    times: to now, to DATE (-d: `YYYY-MM-DD [HH:MM[:SS]]`, `@SECONDS`, `now`), to STAMP (-t:
    `[[CC]YY]MMDDhhmm[.ss]`) or to those of FILE (-r). -a changes only the access time, -m
    only the modification time."""
    options = parse(args, "acfm", "drt", long={"date": True, "reference": True,
                                               "no-create": False})
    if not options.operands:
        raise UsageError("missing file operand")
    now = time.time() * 1000
    times: tuple[float, float] | None = None
    date = options.values.get("d", options.values.get("date"))
    reference = options.values.get("r", options.values.get("reference"))
    if reference is not None:
        try:
            node = ctx.vfs.stat(ctx.resolve(reference))
        except OSError as exc:
            ctx.err(f"failed to get attributes of {quote_arg(reference)}: {describe(exc)}")
            return 1
        times = (node.atime_ms, node.mtime_ms)
    elif date is not None:
        try:
            moment = parse_date(date, now)
        except ValueError:
            ctx.err(f"invalid date format {quote_arg(date)}")
            return 1
        times = (moment, moment)
    elif "t" in options.values:
        try:
            moment = parse_stamp(options.values["t"])
        except ValueError:
            ctx.err(f"invalid date format {quote_arg(options.values['t'])}")
            return 1
        times = (moment, moment)
    no_create = "c" in options or "no-create" in options
    only = {flag for flag in ("a", "m") if flag in options} or {"a", "m"}

    async def one(name: str) -> None:
        path = ctx.resolve(name)
        exists = ctx.vfs.exists(path)
        if not exists and no_create:
            return
        if times is None and only == {"a", "m"}:
            if not exists:
                ensure_parent_dir(ctx.vfs, path)
            await ctx.vfs.touch(path)
            return
        if not exists:
            ensure_parent_dir(ctx.vfs, path)
            await ctx.vfs.write_file(path, b"")
        node = ctx.vfs.stat(path)
        atime, mtime = times or (now, now)
        await ctx.vfs.utimes(path, atime if "a" in only else node.atime_ms,
                             mtime if "m" in only else node.mtime_ms)

    return await each_operand(ctx, options.operands, one, "cannot touch {arg}")
