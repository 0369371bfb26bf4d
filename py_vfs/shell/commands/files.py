"""Commands that read, create and delete files and directories: cat, mkdir, rmdir, rm.

Each one goes on with its remaining operands after one fails and then exits 1, as coreutils
does, so `rm a b c` still removes b and c when a is missing.
"""

from __future__ import annotations

import errno
import os
import posixpath

from ...core import cancel
from ..context import Context, describe, each_operand, is_dir, list_entries, refuse_own_output
from ..format import quote_arg
from .attributes import new_mode
from .options import parse
from .registry import GNU, UsageError, command, parse_flags, require_operands


class Refused(Exception):
    """An operand a command will not touch; the message is complete as coreutils words it."""


@command("cat [-AbeEnstTuv] [FILE...]", "print the contents of files, one after another",
         errors=GNU)
async def cat(ctx: Context, args: list[str]) -> int:
    """Write each file's bytes to stdout unchanged (binary content included), a chunk at a
    time; no FILE, or `-`, is standard input. -n: number every output line (GNU's `%6d` and a
    tab), counting on across the files as GNU does; -b: only the non-empty ones; -s: squeeze
    runs of empty lines into one; -E: `$` at each line's end; -T: tabs as `^I`; -v: other
    control bytes as `^X`, DEL as `^?`, bytes above 127 as `M-`; -A is -vET, -e -vE, -t -vT;
    -u is ignored."""
    flags, operands = parse_flags(args, "AbeEnstTuv")
    lines = _Lines(flags) if flags - {"u"} else None

    async def show(name: str) -> None:
        path = ctx.stdin.path if name == "-" else ctx.resolve(name)
        refuse_own_output(ctx, path)  # `cat f >> f`
        source = ctx.stdin.chunks() if path is None or name == "-" else ctx.vfs.open_read(path)
        async for piece in source:
            await ctx.write(lines.add(piece) if lines else piece)

    return await each_operand(ctx, operands or ["-"], show, "{name}")


def _shown_byte(byte: int, tabs: bool) -> bytes:
    """cat -v's form of a byte: `^X` for control bytes, `^?` for DEL, `M-` above 127."""
    prefix = b"M-" if byte >= 128 else b""
    byte &= 0x7F
    if byte == 9 and not tabs and not prefix:
        return b"\t"
    if byte < 32:
        return prefix + b"^" + bytes([byte + 64])
    return prefix + (b"^?" if byte == 127 else bytes([byte]))


# cat -v's table (TAB kept), and cat -vT's (TAB as ^I).
_VISIBLE = [_shown_byte(byte, False) for byte in range(256)]
_VISIBLE_TABS = [_shown_byte(byte, True) for byte in range(256)]


class _Lines:
    """cat's line options over the stream; a line may span chunks and files."""

    def __init__(self, flags: set[str]) -> None:
        self.number = bool(flags & {"n", "b"})
        self.number_blank = "b" not in flags
        self.squeeze = "s" in flags
        self.ends = bool(flags & {"A", "e", "E"})
        self.tabs = bool(flags & {"A", "t", "T"})
        self.table = (_VISIBLE_TABS if self.tabs else _VISIBLE) \
            if flags & {"A", "e", "t", "v"} else None
        self.count = 0
        self.at_start = True
        self.blank_before = False  # the last whole line was empty

    def add(self, piece: bytes) -> bytes:
        """``piece`` as the options show it."""
        out = bytearray()
        *whole, rest = piece.split(b"\n")
        for line, newline in [*((line, b"\n") for line in whole), (rest, b"")]:
            if not line and not newline:
                continue
            blank = self.at_start and not line and bool(newline)
            if blank and self.squeeze and self.blank_before:
                continue
            if self.at_start and self.number and (self.number_blank or not blank):
                self.count += 1
                out += b"%6d\t" % self.count
            if self.table is not None:
                line = b"".join(self.table[byte] for byte in line)
            elif self.tabs:
                line = line.replace(b"\t", b"^I")
            out += line + (b"$" if self.ends and newline else b"") + newline
            if newline:
                self.blank_before = blank
            self.at_start = bool(newline)
        return bytes(out)


@command("mkdir [-pv] [-m MODE] DIR...",
         "create directories (-p: with their parents, no error if present)", errors=GNU)
async def mkdir(ctx: Context, args: list[str]) -> int:
    """Create each directory. -p: parents too, and no error if it is there already; -v: say
    which directories were created; -m MODE: the new directory's mode (octal or symbolic,
    from a=rwx), not the default 755."""
    options = parse(args, "pv", "m", long={"parents": False, "verbose": False, "mode": True})
    require_operands(options.operands)
    parents = "p" in options or "parents" in options
    verbose = "v" in options or "verbose" in options
    spec = options.values.get("m", options.values.get("mode"))
    mode = None
    if spec is not None:
        try:
            mode = new_mode(spec, 0o777, True, umask=0)
        except ValueError:
            raise UsageError(f"invalid mode {quote_arg(spec)}") from None

    async def make(name: str) -> None:
        path = ctx.resolve(name)
        if parents and is_dir(ctx.vfs, path):
            return
        if parents and not verbose:
            await ctx.vfs.mkdir(path, recursive=True)  # one call, however deep the parents
        else:
            todo = [(name, path)]
            shown, above = name.rstrip("/"), path
            while parents and (above := posixpath.dirname(above)) != "/" \
                    and not ctx.vfs.exists(above):
                shown = posixpath.dirname(shown)
                todo.append((shown, above))
            for shown, made in reversed(todo):
                await ctx.vfs.mkdir(made)
                if verbose:
                    ctx.out(f"mkdir: created directory {quote_arg(shown)}\n")
        if mode is not None:
            await ctx.vfs.chmod(path, mode)

    return await each_operand(ctx, options.operands, make, "cannot create directory {arg}")


@command("rm [-rfvd] PATH...",
         "remove files (-r: directories too; -d: empty directories; -f: ignore missing)",
         errors=GNU)
async def rm(ctx: Context, args: list[str]) -> int:
    """Remove each operand (a symlink itself, never what it points to). -r (-R): directories
    and everything below them; -d: empty directories; -f: no message and no error for a
    missing operand; -v: say what was removed."""
    options = parse(args, "rRfvdi", long={"recursive": False, "force": False,
                                          "verbose": False, "dir": False})
    if "i" in options:
        raise UsageError("-i is not supported: the shell cannot ask a question yet", 2,
                         try_line=False)
    recursive = bool({"r", "R", "recursive"} & options.flags)
    force = "f" in options or "force" in options
    rm_dirs = "d" in options or "dir" in options
    verbose = "v" in options or "verbose" in options
    if not force:
        require_operands(options.operands)
    status = 0
    for name in options.operands:
        try:
            await _remove(ctx, name, recursive=recursive, dirs=rm_dirs, verbose=verbose)
        except FileNotFoundError as exc:
            if not force:
                ctx.err(f"cannot remove {quote_arg(name)}: {describe(exc)}")
                status = 1
        except OSError as exc:
            ctx.err(f"cannot remove {quote_arg(name)}: {describe(exc)}")
            status = 1
        except Refused as exc:
            ctx.err(str(exc))
            status = 1
    return status


async def _remove(ctx: Context, name: str, *, recursive: bool, dirs: bool,
                  verbose: bool) -> None:
    path = ctx.resolve(name)
    if recursive and path == "/":
        raise Refused("it is dangerous to operate recursively on '/'")
    if (recursive or dirs) and posixpath.basename(name.rstrip("/")) in (".", ".."):
        raise Refused(f"refusing to remove '.' or '..' directory: skipping {quote_arg(name)}")
    node = ctx.vfs.lstat(path)  # lstat: a symlink is removed itself, never what it points to
    if node.type != "directory":
        await ctx.vfs.unlink(path)
        if verbose:
            ctx.out(f"removed {quote_arg(name)}\n")
    elif recursive and verbose:
        await _remove_tree(ctx, name, path)
    elif recursive:
        await ctx.vfs.rm(path, recursive=True)
    elif dirs:
        await ctx.vfs.rmdir(path)
        if verbose:
            ctx.out(f"removed directory {quote_arg(name)}\n")
    else:
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)


async def _remove_tree(ctx: Context, name: str, path: str) -> None:
    """rm -rv: every entry one by one, depth first in name order, each named as it goes (an
    explicit stack of directories and the entries they have left: a tree may be deeper than
    Python's recursion limit)."""
    stack = [(name, path, iter(list_entries(ctx.vfs, path)))]
    removed = 0
    while stack:
        shown, at, entries = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            await ctx.vfs.rmdir(at)
            ctx.out(f"removed directory {quote_arg(shown)}\n")
            continue
        child, child_shown = posixpath.join(at, entry.name), posixpath.join(shown, entry.name)
        if entry.type == "directory":
            stack.append((child_shown, child, iter(list_entries(ctx.vfs, child))))
        else:
            await ctx.vfs.unlink(child)
            ctx.out(f"removed {quote_arg(child_shown)}\n")
        removed += 1
        await cancel.checkpoint("rm", removed, 0, "entries")


@command("rmdir [-pv] DIR...", "remove empty directories (-p: and then their parents)", errors=GNU)
async def rmdir(ctx: Context, args: list[str]) -> int:
    """Remove each empty directory. -p: then each parent named in the operand
    (`rmdir -p a/b/c` removes a/b/c, a/b and a); -v: say so for each."""
    options = parse(args, "pv", long={"parents": False, "verbose": False,
                                      "ignore-fail-on-non-empty": False})
    require_operands(options.operands)
    verbose = "v" in options or "verbose" in options
    ignore = "ignore-fail-on-non-empty" in options

    status = 0
    for name in options.operands:
        names = [name]
        if "p" in options or "parents" in options:
            shown = name.rstrip("/")
            while (shown := posixpath.dirname(shown)) not in ("", "/", "."):
                names.append(shown)
        for index, shown in enumerate(names):
            if verbose:
                ctx.out(f"rmdir: removing directory, {quote_arg(shown)}\n")
            try:
                await ctx.vfs.rmdir(ctx.resolve(shown))
            except OSError as exc:
                if not (ignore and exc.errno == errno.ENOTEMPTY):
                    what = "directory " if index else ""  # GNU: a parent -p goes on to
                    ctx.err(f"failed to remove {what}{quote_arg(shown)}: {describe(exc)}")
                    status = 1
                break
    return status
