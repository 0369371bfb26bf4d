"""Word expansion in bash's order: brace expansion, tilde, parameters, command substitution and
arithmetic (left to right), field splitting on IFS of what was not quoted, pathname expansion
(globbing, the same pattern dialect as ``vfs.glob``: ``py_vfs/core/globs.py``), quote removal.

A word being expanded is a list of fields, each a list of (text, quoted) segments: quoted text
is never split nor globbed, and ``"$@"`` makes one field per positional parameter.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.globs import compile_glob, escape
from . import limits
from .arith import ArithError, evaluate
from .braces import ExpansionError, expand_braces
from .context import is_dir, lexists, list_entries, resolve
from .syntax import GLOB_CHARS, Arith, CmdSub, Lit, Param, Part, Word
from .variables import IFS_DEFAULT, Variables

if TYPE_CHECKING:
    from .disk import Disk

MAX_MATCH = 100_000  # ${x#pattern} on longer values is refused rather than slow
FATAL = 127  # the status of an unset variable under `set -u` or ${x:?}, as bash -c exits
__all__ = ["Expander", "ExpansionError"]


@dataclass
class _Field:
    segments: list[tuple[str, bool]] = field(default_factory=list)
    quoted: bool = False  # holds quoted text (even empty): never dropped
    size: int = 0  # characters in the segments: at most limits.MAX_VALUE

    def add(self, text: str, quoted: bool) -> None:
        self.size += len(text)
        if self.size > limits.MAX_VALUE:  # refused before it is joined
            limits.check_value("expansion", self.size)
        self.segments.append((text, quoted))
        self.quoted = self.quoted or quoted

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.segments)

    @property
    def pattern(self) -> str | None:
        """The glob pattern when an unquoted glob character makes one, else None."""
        if not any(not quoted and any(c in GLOB_CHARS for c in text)
                   for text, quoted in self.segments):
            return None
        return "".join(escape(text) if quoted else escape_braces(text)
                       for text, quoted in self.segments)


def escape_braces(text: str) -> str:
    """Unquoted text as a pattern: wildcards stay, but braces and commas are literal (brace
    expansion has happened already) and a backslash is itself."""
    return re.sub(r"([{},\\])", r"\\\1", text)


@dataclass
class Expander:
    """Expands words for one shell: its variables, its last status (``$?``, which a command
    substitution's status replaces), its disk and directory, and ``substitute`` running a
    command substitution's program."""

    variables: Variables
    status: int
    vfs: Disk
    cwd: str
    substitute: Callable[[str], Awaitable[str]]
    pid: int = 4242

    async def fields(self, words: list[Word]) -> list[str]:
        """The arguments these words become (all the expansions)."""
        result: list[str] = []
        size = 0
        for word in words:
            for braced in expand_braces(word):
                for item in await self._expand(braced):
                    pattern = item.pattern
                    matches = self.glob(pattern) if pattern is not None else []
                    result.extend(matches or [item.text])
                    size += sum(map(len, matches)) if matches else item.size
                    limits.check_words(len(result), size)
        return result

    async def string(self, word: Word, name: str | None = None) -> str:
        """One string: no brace expansion, splitting or globbing (assignments, ``case``, a
        here-document); ``name``: the variable it is for, which a limit's message names."""
        try:
            return "".join(item.text for item in await self._expand(word, split=False))
        except limits.LimitExceeded as exc:
            if name is None or exc.what != "expansion":
                raise
            raise limits.exceeded(name, exc.detail) from None

    async def pattern(self, word: Word) -> str:
        """A pattern (``case``, ``${x#...}``): quoted characters match only themselves."""
        fields = await self._expand(word, split=False)
        return "".join(escape(text) if quoted else escape_braces(text)
                       for item in fields for text, quoted in item.segments)

    async def _expand(self, word: Word, *, split: bool = True) -> list[_Field]:
        fields = [_Field()]
        await self._parts_into(fields, word.parts, split, literal=True)
        return [item for item in fields if item.quoted or item.text] if split else fields

    async def _parts_into(self, fields: list[_Field], parts: tuple[Part, ...], split: bool,
                          *, literal: bool) -> None:
        """Add ``parts`` to ``fields``; ``literal`` false for the word of ``${x:-word}``,
        whose unquoted text is split as an expansion's result is."""
        for index, part in enumerate(parts):
            if isinstance(part, Lit) and not literal and not part.quoted and split:
                self._split_into(fields, part.text)
            elif isinstance(part, Lit):
                text = part.text
                if literal and index == 0 and not part.quoted and text.startswith("~"):
                    text = self._tilde(text)
                fields[-1].add(text, part.quoted)
            elif isinstance(part, Param) and part.name in "@*" and part.op == "":
                self._positional(fields, part, split)
            elif (alternative := self._alternative(part)) is not None:
                # ${x:-word} unquoted: word's own quoting decides what is split, as in bash
                await self._parts_into(fields, alternative.parts, split, literal=False)
            else:
                value = await self._value(part)
                if part.quoted or not split:
                    fields[-1].add(value, part.quoted)
                else:
                    self._split_into(fields, value)

    def _alternative(self, part: Part) -> Word | None:
        """The word of an unquoted ``${x:-word}`` or ``${x:+word}`` when it is what the
        expansion gives, else None."""
        if not isinstance(part, Param) or part.quoted or part.op not in ("-", ":-", "+", ":+"):
            return None
        value = self.lookup(part.name)
        unset = value is None or (part.op.startswith(":") and value == "")
        if unset == (part.op in ("-", ":-")):
            return part.arg or Word(())
        return Word(()) if part.op in ("+", ":+") else None

    def _tilde(self, text: str) -> str:
        head, slash, rest = text.partition("/")
        if head == "~":
            home = self.variables.get("HOME") or "/"
        elif head == "~+":
            home = self.cwd
        elif head == "~-":
            home = self.variables.get("OLDPWD") or head
        else:
            return text
        return home.rstrip("/") + slash + rest if slash else home

    def _positional(self, fields: list[_Field], part: Param, split: bool) -> None:
        params = self.variables.positional
        if part.quoted and part.name == "@" and split:
            if not params:
                fields[-1].quoted = fields[-1].quoted or len(fields[-1].segments) > 0
                return
            limits.check_words(len(fields) + len(params) - 1, 0)
            for number, param in enumerate(params):
                if number:
                    fields.append(_Field())
                fields[-1].add(param, True)
            return
        if part.quoted or not split:
            ifs = self.variables.get("IFS")
            separator = " " if ifs is None else ifs[:1]
            limits.check_value("expansion", sum(map(len, params)) + len(separator) * len(params))
            fields[-1].add(separator.join(params), part.quoted)
            return
        for number, param in enumerate(params):
            if number:
                fields.append(_Field())
            self._split_into(fields, param)

    def _split_into(self, fields: list[_Field], value: str) -> None:
        """Field splitting of an unquoted expansion's value, joined to what is around it."""
        ifs = self.variables.get("IFS")
        ifs = IFS_DEFAULT if ifs is None else ifs
        if not ifs or not value:
            fields[-1].add(value, False)
            return
        white = "".join(c for c in ifs if c in " \t\n")
        other = "".join(c for c in ifs if c not in " \t\n")
        pieces = re.split(ifs_separator(ifs), value.strip(white) if white else value,
                          maxsplit=limits.MAX_FIELDS)
        limits.check_words(len(fields) + len(pieces) - 1, 0)
        if other and len(pieces) > 1 and pieces[-1] == "" and value.rstrip(white)[-1:] in other:
            pieces.pop()
        if value[0] in white and fields[-1].segments:
            fields.append(_Field())
        for number, piece in enumerate(pieces):
            if number:
                fields.append(_Field(quoted=piece == ""))
            if piece:
                fields[-1].add(piece, False)
        if value[-1] in white and value.strip(white):
            fields.append(_Field())

    async def _value(self, part: Part) -> str:
        if isinstance(part, CmdSub):
            return (await self.substitute(part.text)).rstrip("\n")
        if isinstance(part, Arith):
            expr = await self.string(part.expr)
            try:
                return str(evaluate(expr, self._arith_get, self._arith_set))
            except ArithError as exc:
                raise ExpansionError(f"{expr.lstrip()}: {exc}") from None
        assert isinstance(part, Param)
        return await self._param(part)

    def _arith_get(self, name: str) -> str:
        value = self.variables.get(name)
        if value is None and self.variables.options.nounset:
            raise ArithError(f"{name}: unbound variable")
        return value or ""

    def _arith_set(self, name: str, value: str) -> None:
        self.variables.set(name, value)

    def lookup(self, name: str) -> str | None:
        """A parameter's value: a variable, a positional or a special parameter."""
        variables = self.variables
        if name.isdigit():
            number = int(name)
            if number == 0:
                return variables.arg0
            return variables.positional[number - 1] if number <= len(variables.positional) \
                else None
        special = {"?": str(self.status), "$": str(self.pid),
                   "#": str(len(variables.positional)), "-": variables.options.flags(),
                   "!": None}
        if name in special:
            return special[name]
        if name in "@*":
            return " ".join(variables.positional) if variables.positional else None
        return variables.get(name)

    async def _param(self, part: Param) -> str:
        value = self.lookup(part.name)
        op = part.op
        if op == "len":
            if value is None and self.variables.options.nounset:
                raise ExpansionError(f"{part.name}: unbound variable", FATAL)
            return str(len(value or ""))
        unset = value is None or (op.startswith(":") and value == "")
        if op in ("-", ":-"):
            return await self._arg(part) if unset else value or ""
        if op in ("=", ":="):
            if unset:
                value = await self._arg(part)
                if not re.fullmatch(r"[A-Za-z_]\w*", part.name):
                    raise ExpansionError(f"${part.name}: cannot assign in this way")
                self.variables.set(part.name, value)
            return value or ""
        if op in ("+", ":+"):
            return "" if unset else await self._arg(part)
        if op in ("?", ":?"):
            if unset:
                message = await self._arg(part) or (
                    "parameter null or not set" if op == ":?" else "parameter not set")
                raise ExpansionError(f"{part.name}: {message}", FATAL)
            return value or ""
        if value is None:
            if self.variables.options.nounset and part.name not in "@*":
                raise ExpansionError(f"{part.name}: unbound variable", FATAL)
            return ""
        if op in ("#", "##", "%", "%%"):
            return self._trim(value, await self.pattern(part.arg or Word(())), op)
        if op in ("/", "//"):
            return await self._replace(value, part, op == "//")
        return value

    async def _arg(self, part: Param) -> str:
        return await self.string(part.arg) if part.arg is not None else ""

    def _trim(self, value: str, pattern: str, op: str) -> str:
        if len(value) > MAX_MATCH:
            raise ExpansionError(f"value longer than {MAX_MATCH} characters")
        matcher = compile_glob(pattern, "sh", pathname=False)
        ends = range(len(value) + 1)
        if op in ("#", "##"):
            for end in (reversed(ends) if op == "##" else ends):
                if matcher.match(value[:end]):
                    return value[end:]
        else:
            for start in (ends if op == "%%" else reversed(ends)):
                if matcher.match(value[start:]):
                    return value[:start]
        return value

    async def _replace(self, value: str, part: Param, every: bool) -> str:
        if len(value) > MAX_MATCH:
            raise ExpansionError(f"value longer than {MAX_MATCH} characters")
        pattern = await self.pattern(part.arg or Word(()))
        repl = await self.string(part.repl) if part.repl is not None else ""
        anchor = ""
        if pattern[:1] in ("#", "%"):
            anchor, pattern = pattern[0], pattern[1:]
        matcher = compile_glob(pattern, "sh", pathname=False)
        if anchor == "#":
            ends = range(len(value), -1, -1)
            end = next((end for end in ends if matcher.match(value[:end])), None)
            return value if end is None else repl + value[end:]
        if anchor == "%":
            begin = next((b for b in range(len(value) + 1) if matcher.match(value[b:])), None)
            return value if begin is None else value[:begin] + repl
        out, start, size = [], 0, len(value)
        while start <= len(value):
            found = None
            for end in range(len(value), start, -1):  # the longest match, as bash
                if matcher.match(value[start:end]):
                    found = end
                    break
            if found is None or not pattern:
                if start == len(value):
                    break
                out.append(value[start])
                start += 1
                continue
            out.append(repl)
            size += len(repl)
            limits.check_value("expansion", size)
            start = found if found > start else start + 1
            if not every:
                break
        return "".join(out) + value[start:]

    def glob(self, pattern: str) -> list[str]:
        """The paths ``pattern`` matches, sorted (none: the caller keeps the word). A name
        starting with "." is matched only by a segment starting with "."; ``**`` alone as a
        segment spans any number of directories (bash's globstar), the directory before it
        included (``dir/**``: ``dir/`` and all below it, as bash)."""
        absolute = pattern.startswith("/")
        prefixes = ["/" if absolute else ""]
        segments = [segment for segment in pattern.split("/") if segment]
        bases: list[str] = []  # the directories a last `**` starts from
        for number, segment in enumerate(segments):
            last = number == len(segments) - 1
            if not _has_wildcard(segment):
                prefixes = [prefix + _unescape(segment) + "/" for prefix in prefixes]
            elif segment == "**":
                bases = prefixes if last else []
                prefixes = [found for prefix in prefixes
                            for found in self._below(prefix, files=last)]
            else:
                matcher = compile_glob(segment, "sh")
                dot = segment.startswith((".", "\\."))
                prefixes = [prefix + entry.name + "/" for prefix in prefixes
                            for entry in self._entries(prefix)
                            if (dot or not entry.name.startswith("."))
                            and matcher.match(entry.name)]
        dirs_only = pattern.endswith("/")
        found = [prefix if dirs_only else prefix[:-1] for prefix in prefixes
                 if self._exists(prefix, dirs_only)]
        # bash names the directory before `**` as typed when it was typed (`dir/**`: `dir/`),
        # without the slash when a wildcard found it (`d*/**`: `dir`).
        typed = dirs_only or not any(_has_wildcard(segment) for segment in segments[:-1])
        found += [base if typed else base[:-1] for base in bases
                  if base and self._exists(base, True)]
        return sorted({name for name in found if name})

    def _entries(self, prefix: str) -> list:
        try:
            return list_entries(self.vfs, resolve(self.cwd, prefix or "."))
        except OSError:
            return []

    def _below(self, prefix: str, *, files: bool) -> list[str]:
        """``prefix`` and every directory below it (not hidden, symlinks not followed), each
        ending in "/"; with ``files``, the files too."""
        found = [] if files else [prefix]
        stack = [prefix]
        while stack:
            current = stack.pop()
            for entry in self._entries(current):
                if entry.name.startswith("."):
                    continue
                path = current + entry.name + "/"
                if entry.type == "directory":
                    found.append(path)
                    stack.append(path)
                elif files:
                    found.append(path)
        return found

    def _exists(self, prefix: str, dirs_only: bool) -> bool:
        path = resolve(self.cwd, prefix or ".")
        return is_dir(self.vfs, path) if dirs_only else lexists(self.vfs, path)


def ifs_separator(ifs: str) -> str:
    """A regular expression matching one field separator of ``ifs`` (non-empty): a run of
    its blanks, or one of its other characters with the blanks around it."""
    white = "".join(c for c in ifs if c in " \t\n")
    other = "".join(c for c in ifs if c not in " \t\n")
    white_class = f"[{re.escape(white)}]" if white else ""
    if not other:
        return white_class + "+"
    around = white_class + "*" if white else ""
    separator = f"{around}[{re.escape(other)}]{around}"
    return f"{separator}|{white_class}+" if white else separator


def _has_wildcard(segment: str) -> bool:
    return re.search(r"(?<!\\)(?:\\\\)*[*?\[]", segment) is not None


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
