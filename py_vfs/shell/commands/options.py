"""getopt_long as the file commands need it: short flags that combine (`-la`), short options
that take a value (`-d 2`, `-d2`, `-m755`), and long options (`--color=never`,
`--relative-to DIR`), wherever they stand among the operands until `--`, as GNU's getopt
permutes them. Unknown options are usage errors (status 2), worded as GNU's getopt words them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..format import quote_arg
from .registry import UsageError


@dataclass
class Options:
    """What the command line asked: the flags seen (each once), the last value of each
    valued option (long options under their full name, e.g. ``"color"``), and the operands."""

    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    operands: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # every flag and option as given

    def __contains__(self, flag: str) -> bool:
        return flag in self.flags or flag in self.values


def parse(args: list[str], flags: str = "", valued: str = "",
          long: dict[str, bool | None] | None = None) -> Options:
    """Split ``args``: ``flags`` are the short flags without a value, ``valued`` those with
    one, ``long`` maps each long option's name to whether it takes a value (``--name=V`` or
    ``--name V``; a long flag without one is recorded in ``flags`` under its name). A long
    option may be abbreviated to any unambiguous prefix, as getopt_long allows."""
    long = long or {}
    options = Options()
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            options.operands.extend(rest)
        elif arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            full = _long_name(name, long, arg)
            if long[full] is None:
                options.values[full] = value
            elif long[full]:
                if not has_value:
                    value = _next_value(rest, f"option '--{full}' requires an argument")
                options.values[full] = value
            elif has_value:
                raise UsageError(f"option '--{full}' doesn't allow an argument")
            else:
                options.flags.add(full)
            options.order.append(full)
        elif arg.startswith("-") and arg != "-":
            _short(arg, rest, flags, valued, options)
        else:
            options.operands.append(arg)
    return options


def _short(arg: str, rest: Iterator[str], flags: str, valued: str, options: Options) -> None:
    for index, flag in enumerate(arg[1:], start=1):
        if flag in valued:
            value = arg[index + 1:] or _next_value(
                rest, f"option requires an argument -- {quote_arg(flag)}")
            options.values[flag] = value
            options.order.append(flag)
            return
        if flag not in flags:
            raise UsageError(f"invalid option -- {quote_arg(flag)}")
        options.flags.add(flag)
        options.order.append(flag)


def _long_name(name: str, long: dict[str, bool], arg: str) -> str:
    if name in long:
        return name
    matches = [known for known in long if known.startswith(name)]
    if len(matches) == 1 and name:
        return matches[0]
    if len(matches) > 1:
        raise UsageError(f"option {quote_arg(arg.partition('=')[0])} is ambiguous")
    raise UsageError(f"unrecognized option {quote_arg(arg)}")


def _next_value(rest: Iterator[str], message: str) -> str:
    value = next(rest, None)
    if value is None:
        raise UsageError(message)
    return value


def when(value: str | None, isatty: bool) -> bool:
    """``--color[=WHEN]``: always/yes/force, never/no/none, auto/tty/if-tty (the terminal
    decides). Absent is ``auto``: what Debian's shell alias `ls --color=auto` gives a user
    at a terminal, and nothing when piped."""
    if value is None:
        return isatty
    if value in ("", "always", "yes", "force"):
        return True
    if value in ("never", "no", "none"):
        return False
    if value in ("auto", "tty", "if-tty"):
        return isatty
    raise UsageError(f"invalid argument {quote_arg(value)} for '--color'")
