"""`less` and `more`: a pager on the page's terminal, `cat` anywhere else.

Into a pipe or a file (standard output not a terminal) the FILEs (or standard input) pass
through unchanged, as `cat` would print them (`more` adds its `::::::::::::::` headers when
each file, as util-linux's does). On the terminal (``Output.terminal``:
py_vfs/shell/terminal.py) the pager shows a screen at a time, on the alternate screen (the
terminal's own content comes back on quit), with a status line, and reads the keys in raw mode:
see ``KEYS``. The input is read as the screen needs it (pager_text.py): `yes | less` pages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ...core import cancel
from ...core.errors import FsError
from ...core.grep_pattern import LineMatcher, compile_pattern
from ..context import Context, describe
from ..format import quote_name, shown_name, visible
from ..pipes import Input
from ..terminal import Terminal
from .gnu import each_input, getopts, open_input
from .pager_text import LOOK_AHEAD, Held, shown_rows
from .posix_re import BadPattern, translate
from .registry import GNU, command

ALTERNATE_ON, ALTERNATE_OFF = "\x1b[?1049h", "\x1b[?1049l"
REVERSE, NORMAL = "\x1b[7m", "\x1b[27m"
HOME, CLEAR_LINE = "\x1b[H", "\x1b[K"
MORE_RULE = "::::::::::::::"
CHECK_EVERY = 4096  # lines searched between two cancellation checks
MAX_PATTERN_TYPED = 1024  # characters a search pattern typed at the status line may have

# Key -> action. Arrows and PageUp/PageDown/Home/End in their xterm forms.
KEYS = {
    "q": "quit", "Q": "quit", "\x03": "quit", "\x04": "half_down",
    " ": "page_down", "f": "page_down", "z": "page_down", "\x06": "page_down",
    "\x1b[6~": "page_down", "\x16": "page_down",
    "b": "page_up", "w": "page_up", "\x02": "page_up", "\x1b[5~": "page_up",
    "\r": "line_down", "\n": "line_down", "j": "line_down", "e": "line_down",
    "\x0e": "line_down", "\x1b[B": "line_down", "\x1bOB": "line_down",
    "k": "line_up", "y": "line_up", "\x10": "line_up", "\x0b": "line_up",
    "\x1b[A": "line_up", "\x1bOA": "line_up",
    "d": "half_down", "u": "half_up", "\x15": "half_up",
    "g": "start", "<": "start", "\x1b[H": "start", "\x1bOH": "start", "\x1b[1~": "start",
    "G": "end", ">": "end", "\x1b[F": "end", "\x1bOF": "end", "\x1b[4~": "end",
    "/": "search", "n": "next", "N": "previous", "r": "redraw", "\x0c": "redraw",
}


@command("less [-FRX] [FILE...]", "page through files on the terminal", errors=GNU)
async def less(ctx: Context, args: list[str]) -> int:
    """Show the FILEs (none or `-`: standard input) a screen at a time on the terminal; into
    a pipe or a file, print them unchanged. -F: quit at once when the text fits on one screen
    (printing it); -X: draw on the terminal's screen instead of the alternate one; -R is
    accepted (control characters are always shown escaped)."""
    return await _pager(ctx, args, more=False)


@command("more [-FRX] [FILE...]", "page through files on the terminal (less)", errors=GNU)
async def more(ctx: Context, args: list[str]) -> int:
    """`less` under util-linux's name; into a pipe, each FILE is preceded by a header naming
    it, as util-linux's more prints them."""
    return await _pager(ctx, args, more=True)


async def _pager(ctx: Context, args: list[str], *, more: bool) -> int:
    options, operands = getopts(args, "FRX")
    flags = {flag.lstrip("-") for flag, _ in options}
    terminal = ctx.stdout.terminal if ctx.stdout.isatty else None
    if terminal is None:
        return await _pass_through(ctx, operands, headers=more)
    if not operands and ctx.stdin.terminal is not None:
        ctx.err("missing filename")
        return 1
    sources: list[tuple[str, Input]] = []
    status = 0
    for name in operands or ["-"]:
        try:
            source = open_input(ctx, name)
        except OSError as exc:
            ctx.err(f"{quote_name(name)}: {describe(exc)}")
            status = 1
            continue
        header = f"{MORE_RULE}\n{shown_name(name)}\n{MORE_RULE}" if len(operands) > 1 else ""
        sources.append((header, source))
    if not sources:
        return status
    await ctx.stderr.flush()
    title = operands[0] if len(operands) == 1 and operands[0] != "-" else ""
    screen = Screen(ctx.write, terminal, Held(sources, terminal.cols), title, flags)
    await screen.run()
    return status


async def _pass_through(ctx: Context, operands: list[str], *, headers: bool) -> int:
    """The FILEs printed as they are, as `cat` does (``headers``: each file, not standard
    input, after a header naming it, as util-linux's `more`)."""
    async def copy(name: str, source: Input) -> None:
        if headers and name != "-":
            await ctx.write(f"{MORE_RULE}\n{shown_name(name)}\n{MORE_RULE}\n")
        async for piece in source.chunks():
            await ctx.write(piece)

    return await each_input(ctx, operands, copy)


def split_keys(data: str) -> list[str]:
    """Typed input as keys: an escape sequence (`ESC [ ... final`, `ESC O x`) is one key."""
    keys, index = [], 0
    while index < len(data):
        end = index + 1
        if data[index] == "\x1b" and end < len(data):
            if data[end] == "[":
                end += 1
                while end < len(data) and not 0x40 <= ord(data[end]) <= 0x7E:
                    end += 1
                end = min(end + 1, len(data))
            elif data[end] == "O":
                end = min(end + 2, len(data))
        keys.append(data[index:end])
        index = end
    return keys


class Screen:
    """One pager session on the terminal: the held text, the first row shown, the keys."""

    def __init__(self, write: Callable[[str], Awaitable[None]], terminal: Terminal,
                 held: Held, title: str, flags: set[str]) -> None:
        self.write = write
        self.terminal = terminal
        self.held = held
        self.title = title
        self.flags = flags
        self.page = max(1, terminal.rows - 1)
        self.top = 0
        self.message = ""  # shown once in the status line (a search that failed...)
        self.matcher: LineMatcher | None = None
        self.typed: list[str] = []  # keys typed ahead, not handled yet

    async def run(self) -> None:
        """Page until the user quits (or the input from the terminal ends)."""
        held = self.held
        await held.need(self.page + 1 + LOOK_AHEAD)
        if "F" in self.flags and held.ended and len(held.rows) <= self.page:
            await self.write("".join(row + "\r\n" for _, row in held.rows))
            return
        alternate = "X" not in self.flags
        if alternate:
            await self.write(ALTERNATE_ON)
        try:
            await self.draw()
            while (key := await self.key()) is not None:
                action = KEYS.get(key)
                if action == "quit":
                    break
                if action is not None:
                    await getattr(self, action)()
                    await self.draw()
        finally:
            await self.write(ALTERNATE_OFF if alternate else "\r" + CLEAR_LINE)

    async def key(self) -> str | None:
        """The next key typed (None: the terminal's input ended)."""
        while not self.typed:
            data = await self.terminal.keys()
            if data is None:
                return None
            self.typed = split_keys(data.decode("utf-8", "replace"))
        return self.typed.pop(0)

    # --- drawing ---------------------------------------------------------------------------

    def at_end(self) -> bool:
        """The last row is on the screen."""
        return self.held.ended and self.top + self.page >= len(self.held.rows)

    async def draw(self) -> None:
        """The screen: the rows from ``top``, then the status line."""
        held = self.held
        await held.need(self.top + self.page + LOOK_AHEAD)
        shown = held.rows[self.top:self.top + self.page]
        out = [HOME]
        for _, row in shown:
            out.append(row + CLEAR_LINE + "\r\n")
        out.extend("~" + CLEAR_LINE + "\r\n" if held.ended else CLEAR_LINE + "\r\n"
                   for _ in range(self.page - len(shown)))
        out.append(self.status() + CLEAR_LINE)
        await self.write("".join(out))

    def status(self) -> str:
        """The status line: a message, `(END)`, the file's name on the first screen, or `:`."""
        cols = self.terminal.cols
        if self.message:
            text, self.message = self.message, ""
        elif self.at_end():
            text = "(END)" if not self.held.truncated else "(END: input past the pager's limit)"
        elif self.top == 0 and self.title:
            text = visible(self.title)
        else:
            return ":"
        return REVERSE + shown_rows(text, cols)[0] + NORMAL

    # --- moving ----------------------------------------------------------------------------

    async def move(self, rows: int) -> None:
        """Scroll ``rows`` down (up when negative), never past the first or the last page."""
        held = self.held
        top = max(0, self.top + rows)
        await held.need(top + self.page)
        if held.ended:
            top = min(top, max(0, len(held.rows) - self.page))
        self.top = top

    async def page_down(self) -> None:
        """A page forward."""
        await self.move(self.page)

    async def page_up(self) -> None:
        """A page back."""
        await self.move(-self.page)

    async def half_down(self) -> None:
        """Half a page forward."""
        await self.move(max(1, self.page // 2))

    async def half_up(self) -> None:
        """Half a page back."""
        await self.move(-max(1, self.page // 2))

    async def line_down(self) -> None:
        """A row forward."""
        await self.move(1)

    async def line_up(self) -> None:
        """A row back."""
        await self.move(-1)

    async def start(self) -> None:
        """The first page."""
        self.top = 0

    async def end(self) -> None:
        """The last page: the whole input is read (up to the pager's limit; Ctrl-C stops)."""
        held = self.held
        while not held.ended:
            await held.read_line()
            if len(held.lines) % CHECK_EVERY == 0:
                await cancel.checkpoint("less", len(held.lines), 0, "lines")
        self.top = max(0, len(held.rows) - self.page)

    async def redraw(self) -> None:
        """Draw the screen again (``run`` does after every action)."""

    # --- searching -------------------------------------------------------------------------

    async def search(self) -> None:
        """`/pattern`: read the pattern at the status line, then find it forward."""
        pattern = await self.read_pattern()
        if pattern is None:
            return
        if pattern:  # an empty pattern repeats the last search
            try:
                self.matcher = compile_pattern(translate(pattern, extended=True))
            except (BadPattern, FsError, ValueError):
                self.matcher = None
                self.message = "Invalid pattern"
                return
        await self.next()

    async def read_pattern(self) -> str | None:
        """What the user types after `/` until Enter (None: cancelled by Ctrl-C or Escape,
        or by Backspace on the empty pattern)."""
        typed: list[str] = []
        cols = self.terminal.cols
        while True:
            shown = shown_rows("/" + "".join(typed), cols)[-1]
            await self.write("\r" + shown + CLEAR_LINE)
            key = await self.key()
            if key is None or key in ("\x03", "\x1b", "\x07"):
                return None
            if key in ("\r", "\n"):
                return "".join(typed)
            if key in ("\x7f", "\b"):
                if not typed:
                    return None
                typed.pop()
            elif key.isprintable() and len(typed) < MAX_PATTERN_TYPED:
                typed.append(key)

    async def next(self, step: int = 1) -> None:
        """The next line (``step`` -1: the previous one) after the top one that matches the
        last pattern: it becomes the top line."""
        if self.matcher is None:
            self.message = "No previous regular expression"
            return
        held = self.held
        line = held.rows[self.top][0] if self.top < len(held.rows) else len(held.lines)
        checked = 0
        while True:
            line += step
            checked += 1
            if checked % CHECK_EVERY == 0:
                await cancel.checkpoint("less", checked, 0, "lines")
            if line < 0:
                break
            await held.need_lines(line + 1)
            if line >= len(held.lines):
                break
            if self.matcher.match(held.lines[line]):
                self.top = held.first_row(line)
                await held.need(self.top + self.page)
                return
        self.message = "Pattern not found"

    async def previous(self) -> None:
        """The previous line that matches the last pattern."""
        await self.next(-1)
