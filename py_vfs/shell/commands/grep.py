"""grep: GNU grep's options and output over the disk, with the core's linear-time matcher.

Patterns are POSIX BRE (default), ERE (-E) or fixed strings (-F), translated to Python's syntax
(``posix_re``) and run by ``grep_pattern``'s automaton, as the VFS's own grep: a hostile
pattern costs at most (line length) x (pattern size) per line, never exponential time. Match
positions (-o, colors) cost at most the square of the line's length; lines longer than
``SPAN_LIMIT`` are printed whole, uncolored.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from ...core import cancel, paths
from ...core.globs import compile_glob
from ...core.grep_pattern import LineMatcher, compile_pattern
from ..context import Context, describe, list_entries
from ..format import quote_name, shown_name
from ..pipes import Input
from .gnu import getopts, number, open_input
from .posix_re import BadPattern, translate
from .registry import Usage, UsageError, command

SPAN_LIMIT = 4096
BINARY_SNIFF = 32 * 1024  # GNU grep looks for a NUL in the first buffer
# GNU grep's default GREP_COLORS: ms=01;31 fn=35 ln=32 se=36.
MATCH, NAME, LINE_NO, SEP = "01;31", "35", "32", "36"
LONG = ("extended-regexp", "fixed-strings", "basic-regexp", "regexp=", "ignore-case",
        "invert-match", "word-regexp", "line-regexp", "count", "files-with-matches",
        "files-without-match", "only-matching", "quiet", "silent", "no-messages",
        "line-number", "with-filename", "no-filename", "recursive", "dereference-recursive",
        "after-context=", "before-context=", "context=", "include=", "exclude=",
        "exclude-dir=", "color", "colour", "max-count=", "text")


def paint(text: str, color: str, on: bool) -> str:
    """``text`` in GNU grep's SGR sequence for ``color`` when colors are on."""
    return f"\x1b[{color}m\x1b[K{text}\x1b[m\x1b[K" if on and text else text


@dataclass
class _Options:
    """grep's settings once parsed."""

    patterns: list[str] = field(default_factory=list)
    mode: str = "G"  # G basic, E extended, F fixed
    flags: set[str] = field(default_factory=set)
    after: int = 0
    before: int = 0
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    exclude_dir: list[str] = field(default_factory=list)
    color: str = "never"
    max_count: int = -1


_SHORT = {"--extended-regexp": "E", "--fixed-strings": "F", "--basic-regexp": "G",
          "--ignore-case": "i", "--invert-match": "v", "--word-regexp": "w",
          "--line-regexp": "x", "--count": "c", "--files-with-matches": "l",
          "--files-without-match": "L", "--only-matching": "o", "--quiet": "q",
          "--silent": "q", "--no-messages": "s", "--line-number": "n",
          "--with-filename": "H", "--no-filename": "h", "--recursive": "r",
          "--dereference-recursive": "R", "--text": "a"}


def _parse(args: list[str]) -> tuple[_Options, list[str]]:
    opts = _Options()
    # --color's argument is optional, which getopt cannot say: take --color=WHEN out first.
    ended = args.index("--") if "--" in args else len(args)
    for arg in args[:ended]:
        if arg.startswith(("--color=", "--colour=")):
            opts.color = arg.split("=", 1)[1]
    args = [arg for i, arg in enumerate(args)
            if i >= ended or not arg.startswith(("--color=", "--colour="))]
    options, operands = getopts(args, "EFGe:ivwxclLoqsnHhrRA:B:C:m:ayI", LONG)
    given_pattern = False
    for flag, value in options:
        letter = _SHORT.get(flag, flag[1:] if len(flag) == 2 else "")
        if flag in ("-e", "--regexp"):
            opts.patterns.extend(value.split("\n"))
            given_pattern = True
        elif flag in ("-A", "--after-context"):
            opts.after = number(value, "context length argument")
        elif flag in ("-B", "--before-context"):
            opts.before = number(value, "context length argument")
        elif flag in ("-C", "--context"):
            opts.after = opts.before = number(value, "context length argument")
        elif flag in ("-m", "--max-count"):
            opts.max_count = number(value, "max count")
        elif flag == "--include":
            opts.include.append(value)
        elif flag == "--exclude":
            opts.exclude.append(value)
        elif flag == "--exclude-dir":
            opts.exclude_dir.append(value)
        elif flag in ("--color", "--colour"):
            opts.color = "auto"
        elif letter in "EFG":
            opts.mode = letter
        elif letter == "y":
            opts.flags.add("i")
        else:
            opts.flags.add(letter)
    if not given_pattern:
        if not operands:
            raise UsageError("", 2)
        opts.patterns = operands.pop(0).split("\n")
    if opts.color not in ("never", "always", "auto", "none", "yes", "no", "tty", "force",
                          "if-tty"):
        raise UsageError(f"invalid argument '{opts.color}' for '--color'", 2)
    return opts, operands


def _matcher(opts: _Options) -> LineMatcher:
    parts = []
    for pattern in opts.patterns:
        if opts.mode == "F":
            source = re.escape(pattern)
        else:
            source = translate(pattern, extended=opts.mode == "E")
        if "x" in opts.flags:
            source = f"^(?:{source})$"
        elif "w" in opts.flags:
            source = f"\\b(?:{source})\\b"
        parts.append(f"(?:{source})")
    return compile_pattern("|".join(parts), ignore_case="i" in opts.flags)


class _Search:
    """One grep run: the matcher, what to print, the count of selected lines."""

    def __init__(self, ctx: Context, opts: _Options, names: bool) -> None:
        self.ctx, self.opts, self.names = ctx, opts, names
        self.flags = opts.flags
        self.matcher = _matcher(opts)
        isatty = ctx.stdout.isatty
        self.color = opts.color in ("always", "yes", "force") or (
            opts.color in ("auto", "tty", "if-tty") and isatty)
        self.selected_any = False
        self.printed_group = False  # for the `--` between context groups

    def _prefix(self, name: str, line_no: int, sep: str) -> str:
        out = ""
        if self.names:
            out += paint(name, NAME, self.color) + paint(sep, SEP, self.color)
        if "n" in self.flags:
            out += paint(str(line_no), LINE_NO, self.color) + paint(sep, SEP, self.color)
        return out

    def _show(self, text: str) -> str:
        if not self.color or "v" in self.flags or len(text) > SPAN_LIMIT:
            return text
        out, last = [], 0
        for start, end in self.matcher.spans(text):
            out.append(text[last:start] + paint(text[start:end], MATCH, True))
            last = end
        return "".join(out) + text[last:]

    async def file(self, name: str, source: Input) -> None:
        """Search one input and print what the options ask for."""
        flags, opts = self.flags, self.opts
        quiet_lines = bool(flags & {"c", "l", "L", "q"})
        before: deque[tuple[int, str]] = deque(maxlen=opts.before or None)
        after_left, last_printed, count, line_no = 0, 0, 0, 0
        binary = None
        out: list[str] = []
        selected_before = self.selected_any
        async for raw in source.lines():
            line_no += 1
            if binary is None or (binary is False and line_no * 80 < BINARY_SNIFF):
                binary = b"\0" in raw and "a" not in flags
                if binary and "I" in flags:  # -I: a binary file holds no match at all
                    out, count, self.selected_any = [], 0, selected_before
                    break
            text = raw.rstrip(b"\n").decode("utf-8", "surrogateescape")
            selected = self.matcher.match(text) != ("v" in flags)
            if not selected:
                if after_left and not quiet_lines and not binary:
                    out.append(self._prefix(name, line_no, "-") + self._show(text) + "\n")
                    after_left -= 1
                    last_printed = line_no
                elif opts.before:
                    before.append((line_no, text))
                continue
            count += 1
            self.selected_any = True
            if "q" in flags:
                break
            if binary and not quiet_lines:
                await self.ctx.write("".join(out))
                out = []
                self.ctx.stderr.write_nowait(f"grep: {name}: binary file matches\n")
                break
            if not quiet_lines:
                if (opts.before or opts.after) and self.printed_group and (
                        (before and before[0][0] > last_printed + 1)
                        or (not before and line_no > last_printed + 1)):
                    out.append(paint("--", SEP, self.color) + "\n")
                for number_before, context in before:
                    out.append(self._prefix(name, number_before, "-") + self._show(context)
                               + "\n")
                before.clear()
                if "o" in flags:
                    if len(text) <= SPAN_LIMIT and "v" not in flags:
                        for start, end in self.matcher.spans(text):
                            out.append(self._prefix(name, line_no, ":")
                                       + paint(text[start:end], MATCH, self.color) + "\n")
                else:
                    out.append(self._prefix(name, line_no, ":") + self._show(text) + "\n")
                self.printed_group = True
                last_printed, after_left = line_no, opts.after
            if len(out) > 256:
                await self.ctx.write("".join(out).encode("utf-8", "surrogateescape"))
                out = []
            if count == opts.max_count:
                break
        if out:
            await self.ctx.write("".join(out).encode("utf-8", "surrogateescape"))
        if "c" in flags:
            prefix = paint(name, NAME, self.color) + paint(":", SEP, self.color)
            await self.ctx.write((prefix if self.names else "") + f"{count}\n")
        if ("l" in flags and count) or ("L" in flags and not count):
            await self.ctx.write(paint(name, NAME, self.color) + "\n")


def _wanted(name: str, opts: _Options) -> bool:
    base = paths.basename(name)
    if opts.include and not any(compile_glob(glob).match(base) for glob in opts.include):
        return False
    return not any(compile_glob(glob).match(base) for glob in opts.exclude)


async def _walk(ctx: Context, top: str, shown: str, opts: _Options, follow: bool,
                found: list[tuple[str, str]]) -> None:
    """The files below directory ``top`` (``shown`` is how names are printed), in name order,
    symlinks followed only with -R; iterative, so any depth. With -R each real directory is
    searched once: a link back to a directory being searched is GNU's `warning: recursive
    directory loop` (two links to an ancestor made the walk exponential), and another path to
    one already searched is skipped."""
    real = ctx.vfs.realpath(top) if follow else top
    seen, searching = {real}, {real}  # every directory searched; those being searched now
    # (directory, its name as shown, its real path, the entries left to visit)
    stack = [(top, shown, real, iter(list_entries(ctx.vfs, top)))]
    while stack:
        directory, shown_dir, real_dir, entries = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            searching.discard(real_dir)
            continue
        await cancel.checkpoint("grep", len(found), len(found), "files")
        path = paths.join(directory, entry.name)
        name = f"{shown_dir.rstrip('/')}/{entry.name}" if shown_dir else entry.name
        kind = entry.type
        if kind == "symlink":
            if not follow:
                continue
            try:
                kind = ctx.vfs.stat(path).type
            except OSError:
                continue
        if kind == "directory":
            if any(compile_glob(glob).match(entry.name) for glob in opts.exclude_dir):
                continue
            real = ctx.vfs.realpath(path) if follow else path
            if real in seen:
                if real in searching and "s" not in opts.flags:
                    ctx.err(f"{quote_name(name)}: warning: recursive directory loop")
                continue
            seen.add(real)
            searching.add(real)
            stack.append((path, name, real, iter(list_entries(ctx.vfs, path))))
        elif _wanted(name, opts):
            found.append((path, name))


@command("grep [OPTION]... PATTERN [FILE...]",
         "print the lines that match a pattern",
         errors=Usage(2, try_help=True, usage="Usage: grep [OPTION]... PATTERNS [FILE]..."))
async def grep(ctx: Context, args: list[str]) -> int:
    """Print the lines of the FILEs (none: standard input, or with -r the current directory)
    that match PATTERN, as GNU grep: a basic regular expression, -E extended, -F a fixed
    string (several with -e or newlines). Status 0 when a line was selected, 1 when none, 2
    on an error (a missing file, a bad pattern)."""
    opts, operands = _parse(args)
    recursive = bool(opts.flags & {"r", "R"})
    try:
        search = _Search(ctx, opts, False)
    except BadPattern as exc:
        ctx.err(str(exc))
        return 2
    except OSError as exc:
        ctx.err(describe(exc))
        return 2
    implicit = recursive and not operands  # names are then printed without "./"
    if implicit:
        operands = ["."]
    targets: list[tuple[str | None, str]] = []  # (path or None for stdin, name shown)
    status = 0
    for name in operands or ["-"]:
        if name == "-":
            targets.append((None, "(standard input)"))
            continue
        try:
            path = ctx.resolve(name)
            node = ctx.vfs.stat(path)
        except OSError as exc:
            if "s" not in opts.flags:
                ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 2
            continue
        if node.type == "directory":
            if not recursive:
                ctx.err(f"{quote_name(name)}: Is a directory")
                status = 2
                continue
            found: list[tuple[str, str]] = []
            await _walk(ctx, path, "" if implicit else name, opts, "R" in opts.flags, found)
            targets.extend(found)
        elif _wanted(name, opts):
            targets.append((path, name))
    search.names = "H" in opts.flags or (
        "h" not in opts.flags and (len(targets) > 1 or recursive))
    for done, (path, name) in enumerate(targets):
        await cancel.checkpoint("grep", done, len(targets), "files")
        source = ctx.stdin if path is None else open_input(ctx, path)
        try:
            await search.file(shown_name(name), source)
        except OSError as exc:
            if getattr(exc, "code", None) == "ECANCELED":
                raise
            if "s" not in opts.flags:
                ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 2
        if search.selected_any and "q" in opts.flags:
            return 0
    if status and not ("q" in opts.flags and search.selected_any):
        return status
    return 0 if search.selected_any else 1
