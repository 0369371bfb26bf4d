"""The shell's syntax tree: the words the lexer reads and the commands the parser builds.

A ``Word`` keeps its pieces apart (literal text, quoted or not, parameters, command and
arithmetic substitutions) because expansion treats each differently: only unquoted results are
split into fields and globbed, and ``"$@"`` becomes one field per positional parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GLOB_CHARS = "*?["


@dataclass(frozen=True)
class Lit:
    """Text as typed; ``quoted`` when it came from quotes or a backslash (never split nor
    globbed)."""

    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Param:
    """``$NAME`` or ``${NAME<op><arg>}``; ``op`` is "" (plain), "len" (``${#NAME}``), one of
    ``- := + ?`` with or without ``:``, ``# ## % %%`` or ``/ //`` (``arg`` the pattern,
    ``repl`` the replacement)."""

    name: str
    op: str = ""
    arg: Word | None = None
    repl: Word | None = None
    quoted: bool = False


@dataclass(frozen=True)
class CmdSub:
    """``$(...)`` or a backquoted command: ``text`` is the program, parsed when it runs."""

    text: str
    quoted: bool = False


@dataclass(frozen=True)
class Arith:
    """``$((...))``: the expression, expanded as if double-quoted, then evaluated."""

    expr: Word
    quoted: bool = False


Part = Lit | Param | CmdSub | Arith


@dataclass(frozen=True)
class Word:
    """One word of a command: its parts and where it starts in the source."""

    parts: tuple[Part, ...]
    pos: int = 0

    @property
    def text(self) -> str:
        """The literal text of the word, or a rough rendering of its expansions (messages)."""
        return "".join(part.text if isinstance(part, Lit) else "$" + _shown(part)
                       for part in self.parts)

    @property
    def bare(self) -> str | None:
        """The text when the word is unquoted literal text (a reserved word, an alias, a
        function name candidate), else None."""
        texts = [part.text for part in self.parts if isinstance(part, Lit) and not part.quoted]
        return "".join(texts) if len(texts) == len(self.parts) else None

    @property
    def quoted(self) -> bool:
        """Whether any part is quoted (a quoted here-document delimiter: no expansion)."""
        return any(getattr(part, "quoted", False) for part in self.parts)


def _shown(part: Part) -> str:
    if isinstance(part, Param):
        return "{" + part.name + "}"
    if isinstance(part, CmdSub):
        return "(" + part.text + ")"
    return "((...))"


@dataclass
class HereDoc:
    """A here-document: filled in by the lexer once it has read the lines after the command."""

    delimiter: str
    strip_tabs: bool  # <<-: leading tabs of each line (and of the delimiter line) removed
    expand: bool  # the delimiter was not quoted: $ and ` expand in the body
    body: Word | None = None


@dataclass(frozen=True)
class Redirect:
    """``fd`` goes to (``>`` ``>>`` ``>|`` ``&>`` ``&>>``) or comes from (``<``) ``target``,
    duplicates ``dup`` (``2>&1``, ``<&0``), or reads a here-document (``<<``) or a
    here-string (``<<<``)."""

    fd: int
    op: str
    target: Word | None = None
    dup: int | None = None
    heredoc: HereDoc | None = None


@dataclass(frozen=True)
class Assign:
    """``NAME=value`` (``NAME+=value``: appended) before a command (or alone)."""

    name: str
    value: Word
    append: bool = False


@dataclass
class Simple:
    """A simple command: assignments, words, redirections."""

    assigns: list[Assign] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    """``[time [-p]] [!] a | b | c``; ``timed``: None, or ``"default"``/``"posix"`` (``-p``):
    the format ``time`` reports in."""

    commands: list[Node]
    negate: bool = False
    timed: str | None = None


@dataclass
class AndOr:
    """A pipeline, then pipelines joined by ``&&`` or ``||``."""

    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)


@dataclass
class Sequence:
    """Commands run one after the other (``;`` or a newline)."""

    items: list[AndOr] = field(default_factory=list)
    # A whole program's: what bash warns about as it reads it (a here-document that the end
    # of the file ended), printed before it runs.
    warnings: list[str] = field(default_factory=list)


@dataclass
class Group:
    """``{ list; }`` (``subshell`` false) or ``( list )`` (``subshell`` true)."""

    body: Sequence
    subshell: bool = False


@dataclass
class If:
    """``if c; then b; elif c; then b; else b; fi``."""

    clauses: list[tuple[Sequence, Sequence]]
    otherwise: Sequence | None = None


@dataclass
class For:
    """``for NAME [in WORDS]; do body; done`` (no ``in``: the positional parameters)."""

    name: str
    words: list[Word] | None
    body: Sequence


@dataclass
class While:
    """``while cond; do body; done`` (``until``: while cond fails)."""

    cond: Sequence
    body: Sequence
    until: bool = False


@dataclass
class Case:
    """``case WORD in PAT|PAT) body;; ... esac``."""

    word: Word
    items: list[tuple[list[Word], Sequence]]


@dataclass
class FunctionDef:
    """``name() compound`` or ``function name compound``."""

    name: str
    body: Node


@dataclass
class ArithCommand:
    """``((expr))``: status 0 when the expression is not 0."""

    expr: Word


@dataclass
class Redirected:
    """A compound command with redirections after it (``{ ...; } > f``)."""

    command: Node
    redirects: list[Redirect]


Node = Simple | Group | If | For | While | Case | FunctionDef | ArithCommand | Redirected
