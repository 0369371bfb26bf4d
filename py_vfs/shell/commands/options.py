"""getopt_long as the file commands need it: short flags that combine (`-la`), short options
that take a value (`-d 2`, `-d2`, `-m755`), and long options (`--color=never`,
`--relative-to DIR`), wherever they stand among the operands until `--`, as GNU's getopt
permutes them. Unknown options are usage errors (status 2), worded as GNU's getopt words them
(an ``OptionError`` says which option and what is wrong, for a tool that words it otherwise).
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
    # Every flag (value None), option (its value) and operand (named "") in the order typed,
    # for options that may come more than once and pair with the operands (curl's -o URL).
    given: list[tuple[str, str | None]] = field(default_factory=list)

    def __contains__(self, flag: str) -> bool:
        return flag in self.flags or flag in self.values


class OptionError(UsageError):
    """A bad option: ``option`` as typed without its value (`-x`, `--name`) and ``kind``,
    what is wrong: "unknown", "missing" (its value), "extra" (a value it takes none of) or
    "ambiguous" (a prefix of several)."""

    def __init__(self, message: str, option: str, kind: str) -> None:
        super().__init__(message)
        self.option = option
        self.kind = kind


def parse(args: list[str], flags: str = "", valued: str = "",
          long: dict[str, bool | None] | None = None, *, abbreviate: bool = True) -> Options:
    """Split ``args``: ``flags`` are the short flags without a value, ``valued`` those with
    one, ``long`` maps each long option's name to whether it takes a value (``--name=V`` or
    ``--name V``; a long flag without one is recorded in ``flags`` under its name). A long
    option may be abbreviated to any unambiguous prefix, as getopt_long allows (unless not
    ``abbreviate``: curl's and wget's own parsers take whole names only)."""
    long = long or {}
    options = Options()
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            for operand in rest:
                options.operands.append(operand)
                options.given.append(("", operand))
        elif arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            full = _long_name(name, long, arg, abbreviate)
            if long[full] is None:
                options.values[full] = value
            elif long[full]:
                if not has_value:
                    value = _next_value(rest, f"option '--{full}' requires an argument",
                                        f"--{full}")
                options.values[full] = value
            elif has_value:
                raise OptionError(f"option '--{full}' doesn't allow an argument", f"--{full}",
                                  "extra")
            else:
                options.flags.add(full)
            _record(options, full, None if full in options.flags else options.values[full])
        elif arg.startswith("-") and arg != "-":
            _short(arg, rest, flags, valued, options)
        else:
            options.operands.append(arg)
            options.given.append(("", arg))
    return options


def _record(options: Options, name: str, value: str | None) -> None:
    options.order.append(name)
    options.given.append((name, value))


def _short(arg: str, rest: Iterator[str], flags: str, valued: str, options: Options) -> None:
    for index, flag in enumerate(arg[1:], start=1):
        if flag in valued:
            value = arg[index + 1:] or _next_value(
                rest, f"option requires an argument -- {quote_arg(flag)}", f"-{flag}")
            options.values[flag] = value
            _record(options, flag, value)
            return
        if flag not in flags:
            raise OptionError(f"invalid option -- {quote_arg(flag)}", f"-{flag}", "unknown")
        options.flags.add(flag)
        _record(options, flag, None)


def _long_name(name: str, long: dict[str, bool | None], arg: str, abbreviate: bool) -> str:
    if name in long:
        return name
    matches = [known for known in long if known.startswith(name)] if abbreviate else []
    if len(matches) == 1 and name:
        return matches[0]
    if len(matches) > 1:
        raise OptionError(f"option {quote_arg(arg.partition('=')[0])} is ambiguous",
                          f"--{name}", "ambiguous")
    raise OptionError(f"unrecognized option {quote_arg(arg)}", f"--{name}", "unknown")


def _next_value(rest: Iterator[str], message: str, option: str) -> str:
    value = next(rest, None)
    if value is None:
        raise OptionError(message, option, "missing")
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
