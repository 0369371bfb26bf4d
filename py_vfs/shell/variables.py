"""The shell's variables: shell variables and the exported environment, function-local
scopes, the positional parameters and the options ``set`` changes.

Everything here is copied by ``copy()`` for a subshell (``( ... )``, a pipeline stage, a
command substitution), so what a subshell changes does not leak back, as in sh.

What the variables hold is counted as they change (``held``: the characters of every name and
value, plus ``OVERHEAD`` a variable): one value is at most ``limits.MAX_VALUE`` characters and
all of them ``limits.MAX_VARIABLES`` (docs/shell.md, "Limits"); an assignment past either is
``LimitExceeded`` and changes nothing.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from . import limits

IFS_DEFAULT = " \t\n"
OVERHEAD = 64  # what a variable costs beyond its name and value (its Var, its dict slot), about


@dataclass
class Var:
    """A variable's value and whether child commands see it (``export``)."""

    value: str | None  # None: declared (``export NAME``) but not set
    exported: bool = False


@dataclass
class Options:
    """What ``set`` turns on: ``-e`` (errexit), ``-u`` (nounset), ``-x`` (xtrace),
    ``-o pipefail``."""

    errexit: bool = False
    nounset: bool = False
    xtrace: bool = False
    pipefail: bool = False

    def flags(self) -> str:
        """``$-``: the one-letter options that are on."""
        return "".join(letter for letter, on in (("e", self.errexit), ("u", self.nounset),
                                                 ("x", self.xtrace)) if on)


@dataclass
class Variables:
    """Global variables, the stack of function scopes (``local``), and ``$0``, ``$1``..."""

    globals: dict[str, Var] = field(default_factory=dict)
    scopes: list[dict[str, Var | None]] = field(default_factory=list)
    positional: list[str] = field(default_factory=list)
    arg0: str = "sh"
    options: Options = field(default_factory=Options)
    held: int = 0  # characters the variables hold, as counted (see the module docstring)

    def _grow(self, name: str, size: int, old: Var | None) -> None:
        """Count a variable ``name`` becoming ``size`` characters where it was ``old`` (None:
        a new one), or refuse it."""
        limits.check_value(name, size)
        change = size - (len(old.value or "") if old is not None else -len(name) - OVERHEAD)
        if self.held + change > limits.MAX_VARIABLES:
            raise limits.exceeded(name, f"variables over {limits.MAX_VARIABLES} characters")
        self.held += change

    @staticmethod
    def _size(name: str, var: Var | None) -> int:
        return 0 if var is None else len(name) + OVERHEAD + len(var.value or "")

    def _home(self, name: str) -> dict[str, Var] | dict[str, Var | None]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope
        return self.globals

    def lookup(self, name: str) -> Var | None:
        """The variable ``name`` as the innermost scope that has it sees it."""
        return self._home(name).get(name)

    def get(self, name: str) -> str | None:
        """The value of ``name``, None when unset."""
        var = self.lookup(name)
        return None if var is None else var.value

    def set(self, name: str, value: str, *, export: bool = False) -> None:
        """Assign in the scope that has ``name`` (global if none)."""
        home = self._home(name)
        var = home.get(name)
        self._grow(name, len(value), var)
        if var is None:
            home[name] = Var(value, export)
        else:
            var.value = value
            var.exported = var.exported or export

    def export(self, name: str) -> None:
        """Mark ``name`` exported (made empty-valued and exported if unset, as bash marks
        it exported-but-unset: ``env`` does not list it until it has a value)."""
        var = self.lookup(name)
        if var is None:
            self._grow(name, 0, None)
            self._home(name)[name] = Var(None, True)
        else:
            var.exported = True

    def unset(self, name: str) -> None:
        """Remove ``name`` from the scope that has it."""
        home = self._home(name)
        self.held -= self._size(name, home.get(name))
        if home is self.globals:
            self.globals.pop(name, None)
        else:
            home[name] = None

    def local(self, name: str, value: str | None) -> None:
        """A variable of the innermost function scope (``local``)."""
        outer = self.lookup(name)
        scope = self.scopes[-1]
        self._grow(name, len(value or ""), scope.get(name))
        scope[name] = Var(value if value is not None else "", outer.exported if outer else False)


    def push(self, temporary: dict[str, str] | None = None) -> None:
        """Enter a function (or a command's ``NAME=v`` prefix, exported for it alone)."""
        scope: dict[str, Var | None] = {}
        try:
            for name, value in (temporary or {}).items():
                self._grow(name, len(value), None)
                scope[name] = Var(value, True)
        except limits.LimitExceeded:
            self.held -= sum(self._size(name, var) for name, var in scope.items())
            raise
        self.scopes.append(scope)

    def pop(self) -> None:
        """Leave the scope ``push`` entered."""
        self.held -= sum(self._size(name, var) for name, var in self.scopes.pop().items())

    def names(self) -> list[str]:
        """Every set variable's name, sorted."""
        found: dict[str, Var | None] = dict(self.globals)
        for scope in self.scopes:
            found.update(scope)
        return sorted(name for name, var in found.items()
                      if var is not None and var.value is not None)

    def exported(self) -> dict[str, str]:
        """The environment a command sees: the exported variables that have a value."""
        result = {}
        for name in self.names():
            var = self.lookup(name)
            if var is not None and var.exported and var.value is not None:
                result[name] = var.value
        return result

    def spawn(self, argv: list[str]) -> Variables:
        """The variables a new shell process starts with: the exported ones (values as this
        shell sees them, temporary ``NAME=v`` assignments included), exported still; no
        option set; ``$0`` ``argv[0]`` and ``$1``... the rest."""
        child = Variables(positional=list(argv[1:]), arg0=argv[0] if argv else self.arg0)
        for name, value in self.exported().items():
            child.set(name, value, export=True)
        return child

    def copy(self) -> Variables:
        """An independent copy, for a subshell."""
        return copy.deepcopy(self)
