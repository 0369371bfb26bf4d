"""The interactive shell's command history: ``~/.history`` on the disk, and bash's ``!``
expansion (not the disk's journal, which is ``log``: py_vfs/shell/commands/history.py).

bash's model: each shell keeps its own list in memory, read from the file when the shell starts
(the first interactive line, ``ensure_loaded``). A line it runs joins the list at once (Up and
``!!`` recall it) and the file soon after: not before the line runs, and not in a commit per
line. The lines recorded are written together, in one append (one commit, one journal entry),
``FLUSH_DELAY`` seconds after the first of them, and by ``flush`` (the command line calls it at
exit). So a line survives a reload made a second after it, and a shell started later, in any
tab, gets the lines of all tabs in the order they were written. Another tab's lines reach this
shell's list only on its next start, as with bash's ``histappend``. The file keeps the last
``HISTFILESIZE`` lines (it is cut back when it has grown by half again), the list the last
``HISTSIZE``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import re
from typing import TYPE_CHECKING, Any

from ..core import cancel

if TYPE_CHECKING:
    from collections.abc import Callable

    from .disk import Disk

HISTSIZE = 1000  # the lines kept in memory (bash's HISTSIZE)
HISTFILESIZE = 1000  # the lines the file keeps (bash's HISTFILESIZE)
HISTORY_NAME = ".history"
# Seconds from a line to the commit that writes it and every line recorded meanwhile: a burst
# of lines (a paste, a script typing) is one commit; a reload loses at most this much.
FLUSH_DELAY = 1.0
# Where the history lives when HOME is not set: /workspace (the default layout), else /.
WORKSPACE = "/workspace"
# `!` starts an event unless a blank, `=`, `(` or the end follows (bash's rules).
_EVENT = re.compile(r"""!(!|-?\d+|\$|[^\s=(!$\d\-"'][^\s;&|<>()"']*)""")


class HistoryError(Exception):
    """A ``!`` event that matches no line: the line does not run (bash: event not found)."""


def history_path(vfs: Disk, env: dict[str, str]) -> str:
    """The history file: ``$HOME/.history``; without HOME, in /workspace when it exists, else
    in / (the one place that decides it)."""
    home = env.get("HOME") or (WORKSPACE if vfs.exists(WORKSPACE) else "/")
    return home.rstrip("/") + "/" + HISTORY_NAME


def history_of(shell: Any) -> History:
    """The shell's history (``shell.history``), made on first use: the page's API and the
    command line make it as they start, so subshells (copies of the shell) share it. Its file is
    on the disk the shell is on then."""
    found = getattr(shell, "history", None)
    if found is None:
        vfs = shell.vfs
        found = shell.history = History(vfs, lambda: history_path(vfs, shell.environment()))
    return found


class History:
    """One shell's history list and its file. ``where()`` names the file when it is first
    needed (HOME may be set by then)."""

    def __init__(self, vfs: Disk, where: Callable[[], str]) -> None:
        self.vfs = vfs  # the disk the shell started on (a scoop's view may not write there)
        self._where = where
        self.path: str | None = None
        self.entries: list[str] = []
        self._file_lines = 0  # lines in the file, as far as this shell knows
        self._pending: list[str] = []  # recorded, not yet in the file
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None  # the timer's flush, kept alive

    async def ensure_loaded(self) -> None:
        """Read the file into the list, once (a missing or unreadable file: an empty list)."""
        if self.path is not None:
            return
        self.path = self._where()
        try:
            data = await self.vfs.read_file(self.path)
        except OSError:
            return
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        lines = text.splitlines()
        self._file_lines = len(lines)
        self.entries = lines[-HISTSIZE:]

    async def add(self, line: str) -> None:
        """Record a line the user runs, in the list at once and in the file with the next
        ``flush`` (at most ``FLUSH_DELAY`` seconds later); a blank line, or the same line
        again, is not recorded (bash's HISTCONTROL=ignoreboth, as Debian sets it, without
        dropping lines that start with a space)."""
        await self.ensure_loaded()
        if not line.strip() or (self.entries and self.entries[-1] == line):
            return
        self.entries.append(line)
        del self.entries[:-HISTSIZE]
        self._pending.append(line)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_DELAY, self._flush_later)

    def _flush_later(self) -> None:
        """The timer's flush: by the line's writer, but not stopped by the line's Ctrl-C."""
        self._timer = None
        context = contextvars.copy_context()
        context.run(cancel.SIGNAL.set, None)
        self._flushing = asyncio.get_running_loop().create_task(self.flush(), context=context)

    async def flush(self) -> None:
        """Append the lines recorded since the last flush to the file, in one commit (a
        read-only or full disk: the list keeps them, the file does not)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        lines, self._pending = self._pending, []
        if not lines:
            return
        assert self.path is not None
        try:
            await self.vfs.append_file(self.path, "".join(line + "\n" for line in lines))
        except OSError:
            return
        except BaseException:  # cancelled before the commit: the next flush writes them
            self._pending[:0] = lines
            raise
        self._file_lines += sum(line.count("\n") + 1 for line in lines)
        if self._file_lines > HISTFILESIZE * 3 // 2:
            with contextlib.suppress(OSError):
                await self._trim()

    async def _trim(self) -> None:
        """Keep the file's last HISTFILESIZE lines (other tabs' appends included)."""
        assert self.path is not None
        data = await self.vfs.read_file(self.path)
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        lines = text.splitlines()[-HISTFILESIZE:]
        await self.vfs.write_file(self.path, "".join(line + "\n" for line in lines))
        self._file_lines = len(lines)

    def clear(self) -> None:
        """``history -c``: empty the list (the file keeps what it has, as bash's does)."""
        self.entries.clear()

    def numbered(self, count: int | None = None) -> list[tuple[int, str]]:
        """The last ``count`` entries (all by default) with their numbers (from 1)."""
        first = 0 if count is None else max(len(self.entries) - count, 0)
        return [(index + 1, self.entries[index]) for index in range(first, len(self.entries))]

    def expand(self, line: str) -> str:
        """The line with its ``!!``, ``!n``, ``!-n``, ``!prefix`` and ``!$`` events replaced by
        earlier lines (``!$``: the last word of the previous one), as bash does before it runs
        an interactive line; nothing inside single quotes or after a backslash."""
        out: list[str] = []
        index = 0
        quote = ""
        while index < len(line):
            char = line[index]
            if char == "\\" and quote != "'":
                out.append(line[index:index + 2])
                index += 2
                continue
            if char in "'\"" and quote in ("", char):
                quote = "" if quote else char
            match = _EVENT.match(line, index) if char == "!" and quote != "'" else None
            if match is None:
                out.append(char)
                index += 1
                continue
            out.append(self._event(match.group(1)))
            index = match.end()
        return "".join(out)

    def _event(self, spec: str) -> str:
        if spec in ("!", "$"):
            line = self._nth_back(1, "!" + spec)
            return line.split()[-1] if spec == "$" and line.split() else line
        if re.fullmatch(r"-?\d+", spec):
            number = int(spec)
            if number < 0:
                return self._nth_back(-number, "!" + spec)
            if 1 <= number <= len(self.entries):
                return self.entries[number - 1]
            raise HistoryError(f"!{spec}: event not found")
        for entry in reversed(self.entries):
            if entry.startswith(spec):
                return entry
        raise HistoryError(f"!{spec}: event not found")

    def _nth_back(self, count: int, text: str) -> str:
        if not 1 <= count <= len(self.entries):
            raise HistoryError(f"{text}: event not found")
        return self.entries[-count]
