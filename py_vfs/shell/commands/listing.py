"""ls: what a directory holds, as GNU ls shows it. It only reads, so it uses the VFS's
synchronous calls (stat, lstat, readdir, readlink).

Names sort by their code points (GNU ls in the C locale); columns and colors only when a
terminal shows the output, one name per line otherwise, as GNU does.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core import cancel
from ...disk.usage import human
from .. import format as fmt
from ..context import Context, describe, list_names
from ..format import quote_arg, quote_name
from .options import Options, parse, when
from .registry import Usage, command

if TYPE_CHECKING:
    from ...core.node import Stat

# GNU's built-in colors (no LS_COLORS): directories bold blue, symlinks bold cyan,
# executable files bold green; every colored name ends with a reset.
COLORS = {"directory": "01;34", "symlink": "01;36", "executable": "01;32"}
RESET = "\033[0m"
WIDTH = 80  # the terminal's columns when $COLUMNS does not say
TAB = 8  # GNU ls pads columns with tabs, 8 columns apart


def link_target(ctx: Context, path: str) -> str:
    """The target a symlink holds, or "?" when it cannot be read."""
    try:
        return str(ctx.vfs.readlink(path))
    except OSError:
        return "?"


@command("ls [-1AaCdFhlRrStx] [--color[=WHEN]] [PATH...]",
         "list directory contents (-l: long; -a: hidden too; -d: directories themselves)",
         errors=Usage(2, try_help=True))
async def ls(ctx: Context, args: list[str]) -> int:
    """List the operands: files first, then each directory's contents, names sorted.

    -l long format (mode, links, owner, group, size, mtime); -h sizes as 1.5K with -l;
    -a also names starting with '.' and . and ..; -A the same without . and ..; -d a
    directory itself, not its contents; -R each directory below too; -t newest first;
    -S largest first; -r reverse the order; -F append / to directories, @ to symlinks and *
    to executables; -1 one name per line; -C in columns (down, then across), -x in rows
    (across, then down), the last of -l, -1, -C and -x wins. Columns and --color=auto (the
    default) only on a terminal; --color=always|never forces it."""
    options = parse(args, "1AaCdFhlRrStx", long={"color": None})
    listing = _Listing(ctx, options, color=when(options.values.get("color"),
                                                ctx.stdout.isatty))
    names = options.operands or ["."]
    files: list[tuple[str, str, Stat]] = []
    dirs: list[tuple[str, str, Stat]] = []
    status = 0
    for name in names:
        try:
            path = ctx.resolve(name)
            node, contents = listing.operand(path)
            (dirs if contents else files).append((name, path, node))
        except OSError as exc:
            ctx.err(f"cannot access {quote_arg(name)}: {describe(exc)}")
            status = 2  # GNU: a command-line operand it cannot access is serious trouble
    if files:
        listing.printed = True
        listing.show(listing.order(files), total=False)
    stack = list(reversed(listing.order(dirs)))
    headers = len(names) > 1 or bool(files) or "R" in options
    while stack:
        name, path, _ = stack.pop()
        if listing.printed:
            ctx.out("\n")
        if headers:
            ctx.out(f"{quote_name(name)}:\n")
        listing.printed = True
        below = await listing.show_dir(name, path)
        if below is None:
            status = max(status, 1)
        stack.extend(reversed(below or []))
        await cancel.checkpoint("ls", 0, 0, "directories")
    return status


def _pad(start: int, end: int) -> str:
    """From column ``start`` to ``end`` as GNU ls pads there: tabs to each tab stop (every 8)
    that does not overshoot, then spaces."""
    out = []
    while start < end:
        if end // TAB > (start + 1) // TAB:
            out.append("\t")
            start += TAB - start % TAB
        else:
            out.append(" ")
            start += 1
    return "".join(out)


@dataclass
class _Listing:
    ctx: Context
    options: Options
    color: bool
    printed: bool = False
    started_color: bool = field(default=False)

    @property
    def format(self) -> str:
        """The last of -l, -1, -C and -x given; else columns on a terminal, lines elsewhere."""
        given = [flag for flag in self.options.order if flag in ("l", "1", "C", "x")]
        return given[-1] if given else "C" if self.ctx.stdout.isatty else "1"

    @property
    def long(self) -> bool:
        return self.format == "l"

    def operand(self, path: str) -> tuple[Stat, bool]:
        """An operand's node and whether its contents are listed. Like coreutils, `ls -l link`
        and `ls -F link` show the link itself while plain `ls link` lists what it points to."""
        node = self.ctx.vfs.lstat(path)
        if "d" in self.options:
            return node, False
        if node.type == "symlink" and not (self.long or "F" in self.options):
            try:
                return self.ctx.vfs.stat(path), self.ctx.vfs.stat(path).type == "directory"
            except OSError:
                return node, False  # a dangling link is listed as a name
        return node, node.type == "directory"

    def order(self, entries: list[tuple[str, str, Stat]]) -> list[tuple[str, str, Stat]]:
        """Sorted by name, or by -t (mtime, newest first) or -S (size, largest first) with
        the name breaking ties; -r reverses the whole order."""
        ordered = sorted(entries, key=lambda e: e[0])
        if "t" in self.options and not ("S" in self.options and self._last("S", "t")):
            ordered.sort(key=lambda e: -e[2].mtime_ms)
        elif "S" in self.options:
            ordered.sort(key=lambda e: -e[2].size)
        return ordered[::-1] if "r" in self.options else ordered

    def _last(self, first: str, second: str) -> bool:
        order = self.options.order
        return max(i for i, f in enumerate(order) if f == first) > \
            max(i for i, f in enumerate(order) if f == second)

    async def show_dir(self, name: str, path: str) -> list[tuple[str, str, Stat]] | None:
        """List one directory; the subdirectories -R goes into next (None on failure)."""
        try:
            names = list_names(self.ctx.vfs, path)
        except OSError as exc:
            self.ctx.err(f"cannot open directory {quote_arg(name)}: {describe(exc)}")
            return None
        hidden = "a" in self.options or "A" in self.options
        entries: list[tuple[str, str, Stat]] = []
        if "a" in self.options:
            entries += [(".", path, self.ctx.vfs.stat(path)),
                        ("..", posixpath.dirname(path), self.ctx.vfs.stat(posixpath.dirname(path)))]
        for child in names:
            if hidden or not child.startswith("."):
                try:
                    child_path = posixpath.join(path, child)
                    entries.append((child, child_path, self.ctx.vfs.lstat(child_path)))
                except OSError:
                    continue  # removed since readdir: nothing to show
        entries = self.order(entries)
        self.show(entries, total=True)
        if "R" not in self.options:
            return []
        return [(posixpath.join(name, child) if name != "/" else "/" + child, child_path, node)
                for child, child_path, node in entries
                if node.type == "directory" and child not in (".", "..")]

    def show(self, entries: list[tuple[str, str, Stat]], *, total: bool) -> None:
        """Entries in the long format, in columns, or one per line."""
        if self.long:
            self._long(entries, total=total)
        elif self.format in ("C", "x"):
            self.ctx.out(self._columns([self._name(name, path, node)
                                        for name, path, node in entries],
                                       across=self.format == "x"))
        else:
            self.ctx.out("".join(f"{self._name(name, path, node)[0]}\n"
                                 for name, path, node in entries))

    def _name(self, name: str, path: str, node: Stat) -> tuple[str, int]:
        """The name as shown (quoted, colored, with its -F indicator) and its width."""
        shown = quote_name(name)
        width = len(shown)
        kind = node.type
        if kind == "file" and node.mode & 0o111:
            kind = "executable"
        if self.color and kind in COLORS:
            prefix = "" if self.started_color else RESET
            self.started_color = True
            shown = f"{prefix}\033[{COLORS[kind]}m{shown}{RESET}"
        if "F" in self.options:
            mark = {"directory": "/", "symlink": "@", "executable": "*"}.get(kind, "")
            if self.long and kind == "symlink":
                mark = ""
            shown += mark
            width += len(mark)
        return shown, width

    def _columns(self, names: list[tuple[str, int]], *, across: bool) -> str:
        """GNU's columns: the most that fit the width, each as wide as its widest name plus
        two spaces; names go down each column (``across``: along each row)."""
        if not names:
            return ""
        try:
            width = int(self.ctx.env.get("COLUMNS", WIDTH))
        except ValueError:
            width = WIDTH
        for columns in range(min(len(names), max(1, width // 3)), 0, -1):
            rows = -(-len(names) // columns)
            if not across and -(-len(names) // rows) != columns:
                continue
            widths = [max(w for _, w in (names[c::columns] if across
                                         else names[c * rows:(c + 1) * rows])) + 2
                      for c in range(columns)]
            if sum(widths) - 2 <= width or columns == 1:
                break
        lines = []
        for row in range(rows):
            cells = names[row * columns:(row + 1) * columns] if across else names[row::rows]
            line, at = [], 0
            for c, (shown, w) in enumerate(cells):
                line.append(shown)
                if c < len(cells) - 1:
                    line.append(_pad(at + w, at + widths[c]))
                    at += widths[c]
            lines.append("".join(line) + "\n")
        return "".join(lines)

    def _long(self, entries: list[tuple[str, str, Stat]], *, total: bool) -> None:
        rows = []
        for name, path, node in entries:
            target = link_target(self.ctx, path) if node.type == "symlink" else None
            shown, _ = self._name(name, path, node)
            rows.append((shown, node, None if target is None else quote_name(target)))
        size = human if "h" in self.options else None
        if total:
            blocks = fmt.total_blocks([node for _, node, _ in rows])
            self.ctx.out(f"total {human(blocks * 1024) if size else blocks}\n")
        self.ctx.out("".join(f"{line}\n" for line in fmt.long_lines(rows, size=size)))
