"""Commands that show the tree: ls, tree and stat. They only read, so they use the VFS's
synchronous calls (stat, lstat, readdir, readlink)."""

from __future__ import annotations

import errno
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from py_vfs.shell import format as fmt
from py_vfs.shell.commands.registry import command, parse_flags, require_operands
from py_vfs.shell.context import Context, describe, each_operand, list_entries, list_names
from py_vfs.shell.format import quote_arg, quote_name

if TYPE_CHECKING:
    from py_vfs.node import Stat


def _target(ctx: Context, path: str, node: Stat) -> str | None:
    """The target shown after `->` for a symlink, None for anything else."""
    return _link_target(ctx, path) if node.type == "symlink" else None


def _link_target(ctx: Context, path: str) -> str:
    try:
        return str(ctx.vfs.readlink(path))
    except OSError:
        return "?"


@command("ls [-l] [-a] [-d] [-1] [PATH...]",
         "list directory contents (-l: long; -a: hidden too; -d: directories themselves)")
async def ls(ctx: Context, args: list[str]) -> int:
    """List operands: files first, then each directory's contents."""
    flags, operands = parse_flags(args, "lad1")
    listing = _Listing(ctx, long="l" in flags, show_all="a" in flags, itself="d" in flags)
    names = operands or ["."]
    files: list[tuple[str, str]] = []
    dirs: list[tuple[str, str]] = []
    status = 0
    for name in names:
        try:
            path = ctx.resolve(name)
            (dirs if listing.lists_contents(path) else files).append((name, path))
        except OSError as exc:
            ctx.err(f"cannot access {quote_arg(name)}: {describe(exc)}")
            status = 1
    listing.show_files(sorted(files))
    for name, path in sorted(dirs):
        if listing.printed:
            ctx.out("\n")
        if len(names) > 1:
            ctx.out(f"{quote_name(name)}:\n")
        listing.printed = True
        if not listing.show_dir(name, path):
            status = 1
    return status


@dataclass
class _Listing:
    ctx: Context
    long: bool
    show_all: bool
    itself: bool  # -d: show a directory operand as one entry, not its contents
    printed: bool = False

    def lists_contents(self, path: str) -> bool:
        """Whether an operand is listed as a directory. Like coreutils, `ls -l link` shows the
        link itself while plain `ls link` lists the directory it points to."""
        if self.itself:
            self.ctx.vfs.lstat(path)  # still report a missing operand
            return False
        node = self.ctx.vfs.lstat(path)
        if node.type == "symlink" and not self.long:
            try:
                node = self.ctx.vfs.stat(path)
            except OSError:
                return False  # a dangling link is listed as a name
        return node.type == "directory"

    def show_files(self, files: list[tuple[str, str]]) -> None:
        if files:
            self.printed = True
            self._show(files, total=False)

    def show_dir(self, name: str, path: str) -> bool:
        try:
            names = list_names(self.ctx.vfs, path)
        except OSError as exc:
            self.ctx.err(f"cannot open directory {quote_arg(name)}: {describe(exc)}")
            return False
        entries = [(child, posixpath.join(path, child)) for child in names
                   if self.show_all or not child.startswith(".")]
        if self.show_all:
            entries = [(".", path), ("..", posixpath.dirname(path)), *entries]
        self._show(entries, total=True)
        return True

    def _show(self, entries: list[tuple[str, str]], *, total: bool) -> None:
        if not self.long:
            self.ctx.out("".join(f"{quote_name(name)}\n" for name, _ in entries))
            return
        rows = []
        for name, path in entries:
            try:
                node = self.ctx.vfs.lstat(path)
            except OSError:
                continue  # removed since readdir; nothing to show
            target = _target(self.ctx, path, node)
            rows.append((quote_name(name), node, None if target is None else quote_name(target)))
        if total:
            self.ctx.out(f"total {fmt.total_blocks([node for _, node, _ in rows])}\n")
        self.ctx.out("".join(f"{line}\n" for line in fmt.long_lines(rows)))


@command("tree [-a] [DIR...]", "show a directory and everything below it as a tree")
async def tree(ctx: Context, args: list[str]) -> int:
    """Print each directory and everything below it, then the counts."""
    flags, operands = parse_flags(args, "a")
    counts = _TreeCounts()
    status = 0
    shown = False
    for name in operands or ["."]:
        try:
            path = ctx.resolve(name)
            if ctx.vfs.stat(path).type != "directory":
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
        except OSError as exc:
            ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 1
            continue
        ctx.out(f"{quote_name(name)}\n")
        _tree_below(ctx, path, counts, show_all="a" in flags)
        shown = True
    if shown:
        ctx.out(f"\n{counts.summary()}\n")
    return status


@dataclass
class _TreeCounts:
    dirs: int = 0
    files: int = 0

    def summary(self) -> str:
        dirs = "directory" if self.dirs == 1 else "directories"
        files = "file" if self.files == 1 else "files"
        return f"{self.dirs} {dirs}, {self.files} {files}"


def _tree_below(ctx: Context, path: str, counts: _TreeCounts, *, show_all: bool) -> None:
    """Print everything below one directory, depth first; symlinks are shown, not followed, so
    a link to an ancestor cannot loop. An explicit stack of (directory, indent, entries left),
    not recursion: a tree may be deeper than Python's recursion limit."""
    stack = [(path, "", _tree_entries(ctx, path, show_all))]
    while stack:
        directory, indent, entries = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        (name, kind), last = entry
        child = posixpath.join(directory, name)
        target = _link_target(ctx, child) if kind == "symlink" else None
        ctx.out(f"{indent}{'└── ' if last else '├── '}{quote_name(name)}"
                f"{'' if target is None else ' -> ' + quote_name(target)}\n")
        if kind == "directory":
            counts.dirs += 1
            stack.append((child, indent + ("    " if last else "│   "),
                          _tree_entries(ctx, child, show_all)))
        else:
            counts.files += 1


def _tree_entries(ctx: Context, path: str,
                  show_all: bool) -> Iterator[tuple[tuple[str, str], bool]]:
    """The (name, type) of what ``tree`` shows in a directory, each with whether it is the
    last one (one readdir per directory: nothing is looked up by path per entry)."""
    try:
        entries = [(entry.name, entry.type) for entry in list_entries(ctx.vfs, path)
                   if show_all or not entry.name.startswith(".")]
    except OSError:
        entries = []
    return ((entry, index == len(entries) - 1) for index, entry in enumerate(entries))


@command("stat PATH...", "show a node's type, size, mode and times")
async def stat(ctx: Context, args: list[str]) -> int:
    """Print each node's details, a symlink itself (like GNU stat)."""
    _, operands = parse_flags(args, "")
    require_operands(operands)

    async def show(name: str) -> None:
        path = ctx.resolve(name)
        node = ctx.vfs.lstat(path)
        target = _target(ctx, path, node)
        lines = fmt.stat_lines(fmt.quote_name(name), node,
                               None if target is None else fmt.quote_name(target))
        ctx.out("".join(f"{line}\n" for line in lines))

    return await each_operand(ctx, operands, show, "cannot stat {arg}")
