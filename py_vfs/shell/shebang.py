"""What runs an executable file: its ``#!`` line read as Linux and bash read it.

The interpreter is chosen by the base name of the path the ``#!`` line names (no file at that
path is needed: there is no ``/bin`` on the disk): ``sh``, ``bash`` and ``dash`` are this shell
(shell_script.py), ``python``, ``python3``, ``python3.12``... this Python, ``jsh`` and ``node``
a JavaScript realm. ``env NAME`` (``#!/usr/bin/env bash``) picks by NAME; ``env -S NAME
ARG...`` splits the rest as GNU env does. As Linux does, the text after the interpreter is one
argument (``#!/bin/sh -e``: ``-e``). A file without a ``#!`` line runs as a ``.jsh`` or ``.py``
by its suffix, else as a shell script (bash's answer to ENOEXEC), unless its first line holds
a NUL byte (``cannot execute binary file``, 126). Any other interpreter cannot run: as bash
5.2, ``cannot execute: required file not found``, status 127 (``env NAME``: env's own
``/usr/bin/env: 'NAME': No such file or directory``, 127).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

SHELLS = ("sh", "bash", "dash")
FIRST_LINE_BYTES = 256  # how much of a file is read to find its `#!` line


@dataclass(frozen=True)
class Interpreter:
    """How a file runs: ``kind`` ``"sh"``, ``"python"`` or ``"jsh"``, with ``args`` (the
    shebang's argument, for a shell its options), or ``error`` and ``status`` when it
    cannot (``kind`` None)."""

    kind: str | None
    args: list[str] = field(default_factory=list)
    error: str = ""
    status: int = 126
    raw: bool = False  # the error is env's own line, not `sh: FILE: error`


def _kind(name: str) -> str | None:
    base = posixpath.basename(name)
    if base in SHELLS:
        return "sh"
    if base.startswith("python"):
        return "python"
    return "jsh" if base in ("jsh", "node") else None


def interpreter(path: str, first: bytes) -> Interpreter:
    """How the file at ``path``, whose first bytes are ``first``, runs."""
    line = first.split(b"\n", 1)[0]
    if not line.startswith(b"#!"):
        if path.endswith(".jsh"):
            return Interpreter("jsh")
        if path.endswith(".py"):
            return Interpreter("python")
        if b"\0" in line:
            return Interpreter(None, error="cannot execute binary file: Exec format error")
        return Interpreter("sh")
    text = line[2:].decode("utf-8", "replace").strip(" \t\r")
    if path.endswith(".jsh") and not text:
        return Interpreter("jsh")
    program, _, rest = text.partition(" ")
    rest = rest.strip(" \t")
    if not program:
        return Interpreter("sh")
    if posixpath.basename(program) != "env":
        kind = _kind(program)
        if kind is None:
            return Interpreter(None, error="cannot execute: required file not found",
                               status=127)
        return Interpreter(kind, [rest] if rest else [])
    words = [rest] if rest else []
    if rest.startswith("-S"):
        words = rest[2:].split()
    if not words:
        return Interpreter("sh")  # `#!/usr/bin/env` alone: env prints the environment
    kind = _kind(words[0])
    if kind is None:
        return Interpreter(None, error=f"{program}: '{words[0]}': No such file or directory",
                           status=127, raw=True)
    return Interpreter(kind, words[1:])
