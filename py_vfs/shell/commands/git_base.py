"""What `git`'s subcommands share: the run (``Git``: env, cwd, streams, repository), their
registration and git's option parsing."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from .git_runner import Bound

SUBCOMMANDS: dict[str, Callable[[Git, list[str]], int]] = {}


class Usage(Exception):
    """A usage error: ``error: message`` and status 129, as git's option parser."""


def subcommand(*names: str) -> Callable[[Callable[[Git, list[str]], int]],
                                         Callable[[Git, list[str]], int]]:
    """Register a subcommand's function under ``names``."""

    def register(run: Callable[[Git, list[str]], int]) -> Callable[[Git, list[str]], int]:
        for name in names:
            SUBCOMMANDS[name] = run
        return run

    return register


class Git:
    """One run of `git`: the shell's env and cwd (``-C`` applied), the streams, and the
    repository, opened on first use."""

    def __init__(self, bound: Bound, env: Mapping[str, str], cwd: str,
                 repo: Any = None) -> None:
        self.bound = bound
        self.env = dict(env)
        self.cwd = cwd
        self._repo: Any = repo

    @property
    def repo(self) -> Any:
        """The repository holding the cwd (``fatal: not a git repository`` otherwise)."""
        if self._repo is None:
            from .git_repo import find_repo
            self._repo = find_repo(self.cwd, self.env)
        return self._repo

    def out(self, text: str) -> None:
        """Write ``text`` to standard output."""
        self.bound.out(text.encode("utf-8", "surrogateescape"))

    def err(self, text: str) -> None:
        """Write ``text`` (whole lines) to standard error."""
        self.bound.err(text)

    def relative(self, path: bytes) -> str:
        """A work-tree path as git shows it to the user: relative to the cwd, quoted as git
        quotes names (``quote_path``)."""
        full = posixpath.join(self.repo.path, path.decode("utf-8", "surrogateescape"))
        shown = posixpath.relpath(full, self.cwd) if full != self.cwd else "."
        return quote_path(shown + ("/" if path.endswith(b"/") else ""))


def options(args: list[str], flags: dict[str, str], valued: dict[str, str],
            ) -> tuple[dict[str, Any], list[str]]:
    """git's option parsing for one subcommand: ``flags`` and ``valued`` map each spelling
    (``-a``, ``--all``) to a key; short flags combine (``-am MSG``), ``--name=value`` and
    ``-nVALUE`` work, ``--`` ends them. Flags count (key: True); valued options keep their
    values in order (key: list). A digit flag ``-N`` is ``-n N``."""
    found: dict[str, Any] = {}
    operands: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            found["--"] = True
            operands += rest
            break
        if arg.startswith("--") and len(arg) > 2:
            name, equals, value = arg.partition("=")
            if name in flags and not equals:
                found[flags[name]] = True
            elif name in valued:
                if not equals:
                    if not rest:
                        raise Usage(f"option `{name[2:]}' requires a value")
                    value = rest.pop(0)
                found.setdefault(valued[name], []).append(value)
            elif name.startswith("--no-") and f"--{name[5:]}" in flags:
                found.pop(flags[f"--{name[5:]}"], None)
            else:
                raise Usage(f"unknown option `{arg[2:]}'")
        elif arg.startswith("-") and len(arg) > 1:
            if arg[1:].isdigit() and "-n" in valued:
                found.setdefault(valued["-n"], []).append(arg[1:])
                continue
            for index, letter in enumerate(arg[1:], start=1):
                spelled = f"-{letter}"
                if spelled in flags:
                    found[flags[spelled]] = True
                elif spelled in valued:
                    value = arg[index + 1:]
                    if not value:
                        if not rest:
                            raise Usage(f"switch `{letter}' requires a value")
                        value = rest.pop(0)
                    found.setdefault(valued[spelled], []).append(value)
                    break
                else:
                    raise Usage(f"unknown switch `{letter}'")
        else:
            operands.append(arg)
    return found, operands


_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r",
            34: '\\"', 92: "\\\\"}


def quote_path(name: str | bytes) -> str:
    """A path as git prints it (``core.quotePath``): as it is when plain, else in double quotes
    with C escapes, control characters, quotes, backslashes and non-ASCII bytes escaped (so no
    name reaches the terminal raw)."""
    data = name if isinstance(name, bytes) else name.encode("utf-8", "surrogateescape")
    if not any(byte < 32 or byte >= 127 or byte in (34, 92) for byte in data):
        return data.decode("ascii")
    out = []
    for byte in data:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte < 32 or byte >= 127:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'
