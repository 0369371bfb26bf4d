"""Making and cutting single files: mktemp, truncate, unlink (GNU coreutils' messages).

mktemp's names come from ``secrets`` (letters and digits), so two shells never pick the same
one in practice; the file or directory is created in the VFS with mode 0600 or 0700, and a
name already taken is tried again with new letters (``ATTEMPTS`` times).
"""

from __future__ import annotations

import errno
import os
import posixpath
import secrets
import string

from ..context import Context, describe, ensure_parent_dir, lexists
from ..format import quote_arg, shown_name
from .gnu import getopts, named
from .registry import GNU, UsageError, command
from .splitting import size

ATTEMPTS = 100
_CHARS = string.ascii_letters + string.digits
DEFAULT_TEMPLATE = "tmp.XXXXXXXXXX"
DEFAULT_TMPDIR = "/tmp"


def _split_template(template: str, suffix: str) -> tuple[str, int, str]:
    """(the text before the X's, how many X's, the text after): the X's are the last run of
    them in the last component (what follows is a suffix, as `--suffix` gives one)."""
    last = template.rpartition("/")[2]
    end = last.rfind("X") + 1
    start = end - (len(last[:end]) - len(last[:end].rstrip("X")))
    if end - start < 3:
        raise UsageError(f"too few X's in template {quote_arg(template + suffix)}",
                         try_line=False)
    before = template[:len(template) - len(last)] + last[:start]
    return before, end - start, last[end:] + suffix


def _fill(before: str, count: int, after: str) -> str:
    return before + "".join(secrets.choice(_CHARS) for _ in range(count)) + after


@command("mktemp [-dqtu] [-p DIR] [--suffix=S] [TEMPLATE]",
         "create a file or directory with a unique name and print it", errors=GNU)
async def mktemp(ctx: Context, args: list[str]) -> int:
    """Create a new empty file (-d: a directory) named after TEMPLATE, whose last run of X's
    (at least 3; --suffix=S adds S after them) becomes random letters and digits, and print
    its name. Without TEMPLATE:
    `tmp.XXXXXXXXXX` in $TMPDIR or /tmp (created when missing); -p DIR (or -t, or
    --tmpdir): TEMPLATE is relative to DIR ($TMPDIR, else /tmp). -u only prints a name; -q
    says nothing on failure."""
    options, operands = getopts(args, "dqtup:", ("directory", "quiet", "dry-run", "tmpdir=",
                                                 "suffix="))
    _, values = named(options, {"-d": "directory", "-u": "dry-run", "-q": "quiet",
                                "-p": "tmpdir"})
    directory, dry, quiet = "directory" in values, "dry-run" in values, "quiet" in values
    relative = "t" in values or "tmpdir" in values
    parent = values.get("tmpdir")
    suffix = values.get("suffix", "")
    if len(operands) > 1:
        raise UsageError("too many templates")
    template = operands[0] if operands else DEFAULT_TEMPLATE
    if not operands:
        relative = True
    if "/" in suffix:
        raise UsageError(f"invalid suffix {quote_arg(suffix)}, contains directory separator",
                         try_line=False)
    if suffix and not template.endswith("X"):
        raise UsageError(f"with --suffix, template {quote_arg(template)} must end in X",
                         try_line=False)
    if relative:
        if "/" in template:
            raise UsageError(f"invalid template, {quote_arg(template)}, contains directory "
                             "separator", try_line=False)
        base = parent or ctx.env.get("TMPDIR") or DEFAULT_TMPDIR
        template = posixpath.join(base, template)
    before, count, after = _split_template(template, suffix)
    if template == posixpath.join(DEFAULT_TMPDIR, posixpath.basename(template)) \
            and not lexists(ctx.vfs, DEFAULT_TMPDIR) and relative and parent is None:
        await ctx.vfs.mkdir(DEFAULT_TMPDIR, mode=0o1777)  # a new disk has no /tmp
    for _ in range(ATTEMPTS):
        name = _fill(before, count, after)
        path = ctx.resolve(name)
        try:
            if lexists(ctx.vfs, path):
                continue
            if not dry:
                ensure_parent_dir(ctx.vfs, path)
                if directory:
                    await ctx.vfs.mkdir(path, mode=0o700)
                else:
                    await ctx.vfs.write_file(path, b"", mode=0o600)
        except OSError as exc:
            if not quiet:
                what = "directory" if directory else "file"
                ctx.err(f"failed to create {what} via template {quote_arg(template)}: "
                        f"{describe(exc)}")
            return 1
        ctx.out(shown_name(name) + "\n")
        return 0
    if not quiet:
        ctx.err(f"failed to create file via template {quote_arg(template)}: "
                f"{os.strerror(errno.EEXIST)}")
    return 1


def _new_length(current: int, mode: str, amount: int) -> int:
    if mode == "+":
        return current + amount
    if mode == "-":
        return max(0, current - amount)
    if mode == "<":
        return min(current, amount)
    if mode == ">":
        return max(current, amount)
    if mode == "/":
        return current // amount * amount
    if mode == "%":
        return -(-current // amount) * amount
    return amount


@command("truncate [-c] [-r RFILE] -s [+-<>/%]SIZE FILE...", "shrink or extend files to a size",
         errors=GNU)
async def truncate(ctx: Context, args: list[str]) -> int:
    """Set each FILE's size to SIZE bytes (K, M, G: 1024-based, KB, MB: 1000-based), cutting
    it or extending it with zeros; FILEs that do not exist are created empty first (-c:
    left alone). SIZE may start with `+` (extend by), `-` (shrink by), `<` (at most), `>`
    (at least), `/` (round down to a multiple of), `%` (round up to one). -r RFILE: RFILE's
    size instead, or the base a relative SIZE applies to."""
    options, operands = getopts(args, "cs:r:", ("no-create", "size=", "reference="))
    _, values = named(options, {"-c": "no-create", "-s": "size", "-r": "reference"})
    create = "no-create" not in values
    spec, reference = values.get("size"), values.get("reference")
    if spec is None and reference is None:
        raise UsageError("you must specify either '--size' or '--reference'")
    base = None
    if reference is not None:
        if spec is not None and spec[:1] not in tuple("+-<>/%"):
            raise UsageError("you must specify a relative '--size' with '--reference'")
        try:
            base = ctx.vfs.stat(ctx.resolve(reference)).size
        except OSError as exc:
            ctx.err(f"cannot stat {quote_arg(reference)}: {describe(exc)}")
            return 1
        spec = spec or "+0"
    assert spec is not None
    mode, amount_text = (spec[0], spec[1:]) if spec[:1] in "+-<>/%" and spec else ("", spec)
    try:
        amount = size(amount_text, "bytes", zero=True)
    except UsageError:
        raise UsageError(f"Invalid number: {quote_arg(spec)}", try_line=False) from None
    if mode in ("/", "%") and amount == 0:
        raise UsageError("division by zero", try_line=False)
    if not operands:
        raise UsageError("missing file operand")
    status = 0
    for name in operands:
        path = ctx.resolve(name)
        try:
            if not ctx.vfs.exists(path):
                if not create:
                    continue
                ensure_parent_dir(ctx.vfs, path)
                await ctx.vfs.write_file(path, b"")
            current = ctx.vfs.stat(path).size if base is None else base
            await ctx.vfs.truncate(path, _new_length(current, mode, amount))
        except OSError as exc:
            ctx.err(f"cannot open {quote_arg(name)} for writing: {describe(exc)}")
            status = 1
    return status


@command("unlink FILE", "remove one file", errors=GNU)
async def unlink(ctx: Context, args: list[str]) -> int:
    """Remove FILE (a file or a symlink, never a directory), as the unlink call does."""
    _, operands = getopts(args, "")
    if not operands:
        raise UsageError("missing operand")
    if len(operands) > 1:
        raise UsageError(f"extra operand {quote_arg(operands[1])}")
    name = operands[0]
    try:
        path = ctx.resolve(name)
        if ctx.vfs.lstat(path).type == "directory":
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        await ctx.vfs.unlink(path)
    except OSError as exc:
        ctx.err(f"cannot unlink {quote_arg(name)}: {describe(exc)}")
        return 1
    return 0
