"""Traps: the actions ``trap ACTION NAME`` sets, and when the shell runs them.

- ``EXIT`` (or ``0``) runs when a shell process ends: a script (``sh FILE``, ``./s.sh``), an
  ``sh -c`` string, a subshell ``( )``, a pipeline stage, a command substitution; at its end,
  after ``exit``, after ``set -e`` stopped it, or after an expansion error. ``$?`` is the
  status the shell was ending with, and stays its status unless the action runs ``exit N``.
  The session at the prompt never ends, so an EXIT trap set there does not run.
- ``ERR`` runs after a pipeline fails where ``set -e`` would stop the shell (not in a
  condition, not before ``&&``/``||``, not under ``!``), with or without ``set -e``; not inside
  functions (bash's default, without ``set -E``), nor inside its own action.
- ``INT``, ``TERM``, ``HUP``, ``QUIT``: accepted and listed, never delivered (there are no
  signals; Ctrl-C stops the line at its next safe point, as always).

A subshell starts with no traps, as in bash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .braces import ExpansionError
from .control import ExitShell, LoopControl, ReturnFrom
from .format import visible

if TYPE_CHECKING:
    from .redirects import Streams

# The names `trap` takes (a number or a SIG prefix is turned into one), and their numbers.
NAMES = {"EXIT": 0, "HUP": 1, "INT": 2, "QUIT": 3, "TERM": 15, "ERR": None}
NUMBERS = {number: name for name, number in NAMES.items() if number is not None}


class Trapping(Protocol):
    """What running a trap needs of the shell (``interpreter.Shell``)."""

    traps: dict[str, str]
    in_trap: bool
    status: int
    function_depth: int

    async def run_program(self, text: str, io: Streams) -> int:
        """Parse and run a program in this shell."""


def trap_name(spec: str) -> str | None:
    """The trap name ``spec`` stands for (``0`` and ``EXIT``, ``2``, ``INT`` and ``SIGINT``),
    or None when it is no signal `trap` knows."""
    if spec.isdigit():
        return NUMBERS.get(int(spec))
    name = spec.upper()
    name = name[3:] if name.startswith("SIG") and name[3:] in NUMBERS.values() else name
    return name if name in NAMES else None


def shown_name(name: str) -> str:
    """How `trap -p` names a trap: ``EXIT``, ``ERR``, or a signal as ``SIGINT``."""
    return name if NAMES[name] in (0, None) else "SIG" + name


def listing_order(name: str) -> int:
    """Where `trap -p` lists a trap: EXIT, the signals by number, then ERR."""
    number = NAMES[name]
    return 1000 if number is None else number


async def _run_action(shell: Trapping, action: str, io: Streams, status: int) -> int | None:
    """Run ``action`` with ``$?`` ``status``; the status an ``exit`` in it gave, else None."""
    shell.status = status
    shell.in_trap = True
    try:
        await shell.run_program(action, io)
    except ExitShell as exc:
        return exc.status
    except ExpansionError as exc:
        io.stderr.write_nowait(visible(f"sh: {exc}") + "\n")
        return exc.status
    except (LoopControl, ReturnFrom):
        pass
    finally:
        shell.in_trap = False
    return None


async def exit_trap(shell: Trapping, io: Streams, status: int) -> int:
    """The end of a shell process that was ending with ``status``: run its EXIT trap (once);
    the status it ends with."""
    action = shell.traps.pop("EXIT", None)
    if not action:
        return status
    changed = await _run_action(shell, action, io, status)
    shell.status = status if changed is None else changed
    return shell.status


async def err_trap(shell: Trapping, io: Streams, status: int) -> None:
    """A pipeline failed with ``status`` where ``set -e`` would apply: run the ERR trap, if
    any (an ``exit`` in it ends the shell); ``$?`` stays ``status``."""
    action = shell.traps.get("ERR")
    if not action or shell.in_trap or shell.function_depth:
        return
    changed = await _run_action(shell, action, io, status)
    shell.status = status
    if changed is not None:
        raise ExitShell(changed)
