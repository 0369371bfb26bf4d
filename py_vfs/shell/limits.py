"""The budgets that keep one line of the shell from taking the page down with it.

A line typed at the terminal, a ``vfs.shell(line)`` call or an agent's tool call runs in the
page's one VFS worker: a line that forks pipeline stages without end, runs forever or builds a
gigabyte string would freeze or crash that worker for every tab of the disk. So each line gets a
``Budget`` (set by ``Shell.run``, shared by its subshells, pipeline stages and substitutions
through a context variable), and every value the shell builds is held to a size:

- ``MAX_STAGES`` pipeline stages (each an asyncio task) running at once in the line;
- ``MAX_COMMANDS`` commands (pipelines, loop iterations included) run by the line;
- ``MAX_VALUE`` characters in one value: an expanded word, a variable's value;
- ``MAX_FIELDS`` words one command's words expand to, ``MAX_HELD`` characters in all the
  words of the commands the line runs at a time;
- ``MAX_VARIABLES`` characters in one shell's variables (``variables.Variables``);
- ``MAX_INFLATE`` bytes decompressed from one gzip stream (gunzip, zcat: a gzip bomb stops);
- ``MAX_DOWNLOAD`` bytes of one body that curl or wget receives.

Spending one is ``LimitExceeded``: ``sh: WHAT: limit exceeded (DETAIL)`` on standard error and
status 1 (as bash's own resource errors, e.g. ``maximum function nesting level exceeded``), and
the line stops there, changing nothing more: the budget stays spent, so every other stage of the
line stops at its next command too. The numbers are generous (docs/shell.md, "Limits"): no
legitimate line comes near them; tests lower them with ``monkeypatch``, so they are read at the
time of each check, never copied.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar
from typing import TypeVar

from .control import ControlFlow
from .format import visible
from .pipes import Output

T = TypeVar("T")

MAX_STAGES = 1024  # pipeline stages running at once in one line
MAX_COMMANDS = 10_000_000  # commands one line runs (about 3 to 15 minutes of them)
MAX_VALUE = 64 << 20  # characters of one value (what a command substitution gives at most)
MAX_FIELDS = 1 << 20  # words one command's words expand to
MAX_HELD = 256 << 20  # characters in the words of the commands running at once in a line
MAX_VARIABLES = 256 << 20  # characters in one shell's variables (names, values, 64 a variable)
MAX_INFLATE = 1 << 30  # bytes gunzip and zcat decompress from one file or stream
MAX_DOWNLOAD = 1 << 30  # bytes of one body curl and wget receive
STATUS = 1  # the status of a line a limit stopped


class LimitExceeded(ControlFlow):
    """A budget of the line is spent: the line stops with ``status`` 1; ``str()`` is the
    message after ``sh: ``."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"{what}: limit exceeded ({detail})")
        self.what, self.detail = what, detail
        self.status = STATUS


class Budget:
    """What one line has spent: commands run, stages and words held now. Once a limit is
    exceeded every later check fails too, so all the line's stages stop."""

    def __init__(self) -> None:
        self.commands = 0
        self.stages = _Gauge(self, "pipeline")
        self.held = _Gauge(self, "arguments")
        self.spent: LimitExceeded | None = None

    def fail(self, what: str, detail: str) -> LimitExceeded:
        """The error for the limit ``what``; it spends the budget, so every later check fails."""
        self.spent = self.spent or LimitExceeded(what, detail)
        return LimitExceeded(what, detail)

    def _check_spent(self) -> None:
        if self.spent is not None:
            raise LimitExceeded(self.spent.what, self.spent.detail)

    def command(self) -> None:
        """Count one command (a pipeline, a loop's turn): over ``MAX_COMMANDS``, or after
        another limit of the line was exceeded, raise ``LimitExceeded``."""
        self._check_spent()
        self.commands += 1
        if self.commands > MAX_COMMANDS:
            raise self.fail("commands", f"{MAX_COMMANDS} run by one line")

    def running(self, count: int) -> contextlib.AbstractContextManager[None]:
        """``count`` pipeline stages run while the block does (at most ``MAX_STAGES`` in the
        line at once)."""
        self._check_spent()
        return self.stages.holding(count, MAX_STAGES, f"{MAX_STAGES} stages running at once")

    def holding(self, words: Iterable[str]) -> contextlib.AbstractContextManager[None]:
        """The words of a command, counted while it runs: at most ``MAX_HELD`` characters
        in all the commands the line runs at once."""
        return self.held.holding(sum(len(word) for word in words), MAX_HELD,
                                 f"{MAX_HELD} characters held by running commands")


class _Gauge:
    """How much of one thing (stages, characters of words) a line holds now."""

    def __init__(self, budget: Budget, what: str) -> None:
        self.budget, self.what, self.now = budget, what, 0

    @contextlib.contextmanager
    def holding(self, amount: int, limit: int, detail: str) -> Iterator[None]:
        """``amount`` more held while the block runs; beyond ``limit`` in all, the limit
        ``what`` is exceeded (``detail`` says which)."""
        if self.now + amount > limit:
            raise self.budget.fail(self.what, detail)
        self.now += amount
        try:
            yield
        finally:
            self.now -= amount


BUDGET: ContextVar[Budget | None] = ContextVar("py_vfs_shell_budget", default=None)


def budget() -> Budget:
    """The running line's budget (``Shell.run`` sets it; code that runs outside a line gets
    a fresh one each time, which bounds nothing that spans calls)."""
    return BUDGET.get() or Budget()


def exceeded(what: str, detail: str) -> LimitExceeded:
    """The error to raise for a limit ``what`` exceeded; the line's budget is spent from now
    on, so its other stages stop too."""
    return budget().fail(what, detail)


def check_value(what: str, size: int) -> None:
    """Refuse a value of ``size`` characters over ``MAX_VALUE`` (``what``: a variable's name,
    or what is being built), before it is built."""
    if size > MAX_VALUE:
        raise exceeded(what, f"a value over {MAX_VALUE} characters")


def check_words(count: int, size: int) -> None:
    """Refuse a command whose words expand to more than ``MAX_FIELDS`` words or ``MAX_HELD``
    characters, while they are being built."""
    if count > MAX_FIELDS:
        raise exceeded("words", f"more than {MAX_FIELDS} in one command")
    if size > MAX_HELD:
        raise exceeded("words", f"more than {MAX_HELD} characters in one command")


async def budgeted(run: Awaitable[int], stderr: Output) -> int:
    """Run a line (``Shell.run``) under a budget of its own; a limit it exceeds is reported
    on ``stderr`` as ``sh: WHAT: limit exceeded (DETAIL)`` and is its status (1)."""
    token = BUDGET.set(Budget())
    try:
        return await run
    except LimitExceeded as exc:
        stderr.write_nowait(visible(f"sh: {exc}") + "\n")
        return exc.status
    finally:
        BUDGET.reset(token)


async def run_stages(count: int, stage: Callable[[int], Awaitable[T]]) -> list[T | BaseException]:
    """``stage(0)``...``stage(count - 1)`` run at once, each a task counted against the line's
    ``MAX_STAGES`` while it runs; their results or exceptions, in order."""
    with budget().running(count):
        return await asyncio.gather(*(stage(index) for index in range(count)),
                                    return_exceptions=True)
