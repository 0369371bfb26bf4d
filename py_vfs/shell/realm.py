"""Where code the shell was given runs when it is not this Python's own to run: a realm.

Two kinds of code run in a realm (docs/sandbox.md, "A realm for code"; docs/scripts.md):

- a ``.jsh`` script, always: JavaScript runs in a worker of its own (the page's worker starts
  it: py_vfs/web/scripts.py, web/worker/jsh_host.mjs);
- Python (``python``, ``python -c``, ``.py`` scripts, the REPL, ``runPython``) run by a shell
  confined to a restricted view (a scoop's): in the page, in the view's realm, a sandboxed
  frame whose only authority is the view's port (web/worker/realm_pool.mjs,
  web/realm/realm_python.mjs).
  On CPython there is no such realm and Python has no in-process sandbox, so it is refused
  (``EPERM``); the unrestricted shell runs Python in this Python (py_vfs/shell/python_run.py).

A realm is set by the page's worker at boot (``set_realm``); ``run_in_realm`` drives one run:
its writes go to the pipeline (acknowledged once taken, so the code's writes wait for a slow
reader), its reads come from it, and Ctrl-C (the call's signal) terminates it (status 130).
"""

from __future__ import annotations

import posixpath
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.messages import RUN, kind
from ..views.restricted import RestrictedView
from .context import Context
from .control import INTERRUPTED, Interrupted, interruptible
from .format import quote_name, visible
from .pipes import SIGPIPE_STATUS, BrokenPipe, NoInput

CANNOT_RUN = 126
# What a run says (py_vfs/core/messages.py, RUN): its end, a wish to read, its output.
EXIT, READ, OUT = kind(RUN, "exit"), kind(RUN, "read"), kind(RUN, "out")
# Why a confined shell cannot run Python where there is no realm (CPython).
NO_SANDBOX = ("Operation not permitted: Python has no in-process sandbox, so code cannot run "
              "confined to a scoop here (it runs in a sandboxed realm in the page)")


@dataclass
class CodeStart:
    """What a realm starts: ``kind`` "jsh" or "python", the code's ``source`` and where it came
    from (``path``: a file, or "<string>"/"<stdin>"), ``argv`` (node's shape for jsh:
    ["jsh", path, ...]; ``sys.argv`` for Python), the exported ``env``, the ``cwd``, who its
    changes are made by outside a scoop (``writer``), whether standard input is a pipe or the
    terminal (``stdin``) and whether standard output is a terminal (``isatty``)."""

    kind: str
    path: str
    source: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    writer: str
    stdin: bool = True
    isatty: bool = False

    def to_init(self) -> dict[str, Any]:
        """The message the realm's worker starts with (realm/realm_python.mjs, jsh_worker.mjs)."""
        return {"kind": self.kind, "path": self.path, "filename": self.path,
                "source": self.source, "argv": self.argv, "env": self.env, "cwd": self.cwd,
                "stdin": self.stdin, "isatty": self.isatty}


class RealmRun(Protocol):
    """One run in a realm, as the realm shows it to Python."""

    async def next(self) -> dict[str, Any]:
        """The run's next message: ``{"type": "out"|"err", "id", "data"}`` (bytes; answer
        ``ack(id)`` once taken), ``{"type": "read"}`` (answer ``give``), ``{"type": "exit",
        "code"}``."""
        ...

    def ack(self, write_id: int) -> None:
        """The shell took the write ``write_id``: the code's write resolves."""

    def give(self, data: bytes | None) -> None:
        """A chunk of standard input, or None at its end."""

    def terminate(self) -> None:
        """Let go of the run; before its exit, stop it at once."""


Realm = Callable[[Any, CodeStart], Awaitable[RealmRun]]
# Set by the page's worker (py_vfs/web/scripts.py): starts code in a realm, with the given
# disk or view. None where there is no JavaScript (CPython).
_realm: list[Realm] = []


def set_realm(realm: Realm | None) -> None:
    """Where code runs that this Python does not run itself (the worker sets it at boot)."""
    _realm[:] = [] if realm is None else [realm]


def confined(ctx: Context) -> bool:
    """True when the shell works in a restricted view (a scoop's): its code must not run here."""
    return isinstance(ctx.vfs, RestrictedView)


def writer_of(ctx: Context, path: str) -> str:
    """Who the code's changes are made by: the view's writer inside one, else the file's
    name (at most 64 printable characters, else "shell")."""
    view_writer = getattr(ctx.vfs, "writer", None) if confined(ctx) else None
    if view_writer:
        return str(view_writer)
    name = posixpath.basename(path).strip()[:64].strip()
    return name if name and name.isprintable() else "shell"


def code_start(ctx: Context, kind: str, path: str, source: str, argv: list[str]) -> CodeStart:
    """The start of ``source`` run by this command's shell."""
    return CodeStart(kind, path, source, argv, dict(ctx.env), ctx.cwd, writer_of(ctx, path),
                     stdin=not isinstance(ctx.stdin, NoInput), isatty=ctx.stdout.isatty)


async def run_in_realm(ctx: Context, start: CodeStart) -> int:
    """Run ``start`` in a realm; its exit status (126 with a message when there is none)."""
    if not _realm:
        if start.kind == "jsh":
            return fail(ctx, "cannot execute: .jsh scripts need a JavaScript realm (the page's "
                             "worker); this Python has none", CANNOT_RUN)
        return fail(ctx, NO_SANDBOX, CANNOT_RUN)
    try:
        async with interruptible():
            run = await _realm[0](ctx.vfs, start)
            try:
                return await _serve(ctx, run)
            finally:
                run.terminate()
    except Interrupted:
        return INTERRUPTED


def fail(ctx: Context, message: str, status: int) -> int:
    """``sh: NAME: message`` on stderr, as bash reports a command it cannot run."""
    ctx.stderr.write_nowait(visible(f"sh: {quote_name(ctx.name)}: {message}") + "\n")
    return status


async def _serve(ctx: Context, run: RealmRun) -> int:
    """Carry the run's messages: its writes to the pipeline (acknowledged once taken), its
    reads from it."""
    reading_ended = isinstance(ctx.stdin, NoInput)
    while True:
        event = await run.next()
        said = event["type"]
        if said == EXIT:
            return int(event["code"])
        if said == READ:
            chunk = b"" if reading_ended else await ctx.stdin.read()
            reading_ended = reading_ended or not chunk
            run.give(chunk or None)
            continue
        stream = ctx.stdout if said == OUT else ctx.stderr
        try:
            await stream.write(event["data"])
        except BrokenPipe:
            if said == OUT:
                return SIGPIPE_STATUS
        run.ack(event["id"])
