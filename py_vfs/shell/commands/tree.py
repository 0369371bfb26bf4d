"""tree: a directory and everything below it, drawn as tree 2.1 draws it (the counts include
the top directory, and a symlink to a directory counts as a directory, not followed)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from dataclasses import dataclass

from ...core import cancel
from ..context import Context, is_dir, list_entries
from ..format import quote_name
from .listing import link_target
from .options import parse
from .registry import UsageError, command


@command("tree [-a] [-d] [-L LEVEL] [DIR...]",
         "show a directory and everything below it as a tree")
async def tree(ctx: Context, args: list[str]) -> int:
    """Print each directory and everything below it, then the counts. -a: names starting
    with '.' too; -d: directories only; -L LEVEL: no deeper than LEVEL levels."""
    options = parse(args, "ad", "L")
    level = None
    if "L" in options.values:
        level = options.values["L"]
        if not level.isdigit() or int(level) < 1:
            raise UsageError("Invalid level, must be greater than 0.")
    walk = _Walk(ctx, show_all="a" in options, dirs_only="d" in options,
                 level=None if level is None else int(level))
    status = 0
    for name in options.operands or ["."]:
        try:
            path = ctx.resolve(name)
            node = ctx.vfs.stat(path)
        except OSError:
            ctx.out(f"{quote_name(name)}  [error opening dir]\n")
            status = 2
            continue
        if node.type != "directory":
            ctx.out(f"{quote_name(name)}  [error opening dir]\n")
            walk.files += 1
            continue
        ctx.out(f"{quote_name(name)}\n")
        walk.dirs += 1
        await walk.below(path)
    ctx.out(f"\n{walk.summary()}\n")
    return status


@dataclass
class _Walk:
    ctx: Context
    show_all: bool
    dirs_only: bool
    level: int | None
    dirs: int = 0
    files: int = 0

    def summary(self) -> str:
        dirs = f"{self.dirs} {'directory' if self.dirs == 1 else 'directories'}"
        if self.dirs_only:
            return dirs
        return f"{dirs}, {self.files} {'file' if self.files == 1 else 'files'}"

    async def below(self, path: str) -> None:
        """Print everything below one directory, depth first; symlinks are shown, not
        followed, so a link to an ancestor cannot loop. An explicit stack of (directory,
        indent, entries left), not recursion: a tree may be deeper than Python's recursion
        limit."""
        stack = [(path, "", self._entries(path))]
        while stack:
            directory, indent, entries = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                continue
            (name, kind), last = entry
            child = posixpath.join(directory, name)
            target = link_target(self.ctx, child) if kind == "symlink" else None
            self.ctx.out(f"{indent}{'└── ' if last else '├── '}{quote_name(name)}"
                         f"{'' if target is None else ' -> ' + quote_name(target)}\n")
            if kind == "directory" or (kind == "symlink" and is_dir(self.ctx.vfs, child)):
                self.dirs += 1
                if kind == "directory" and (self.level is None or len(stack) < self.level):
                    await cancel.checkpoint("tree", self.dirs + self.files, 0, "entries")
                    # tree 2.1 (UTF-8): a branch goes on as "│" and two no-break spaces.
                    stack.append((child, indent + ("    " if last else "│\u00a0\u00a0 "),
                                  self._entries(child)))
            else:
                self.files += 1

    def _entries(self, path: str) -> Iterator[tuple[tuple[str, str], bool]]:
        """The (name, type) of what tree shows in a directory, each with whether it is the
        last one (one readdir per directory)."""
        try:
            entries = [(entry.name, entry.type) for entry in list_entries(self.ctx.vfs, path)
                       if (self.show_all or not entry.name.startswith("."))
                       and (not self.dirs_only or entry.type == "directory"
                            or (entry.type == "symlink"
                                and is_dir(self.ctx.vfs, posixpath.join(path, entry.name))))]
        except OSError:
            entries = []
        return ((entry, index == len(entries) - 1) for index, entry in enumerate(entries))
