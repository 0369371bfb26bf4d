"""awk's expressions (lowest precedence first): assignment, `?:`, `||`, `&&`, `in`, `~ !~`,
the comparisons, `cmd | getline`, concatenation, `+ -`, `* / %`, unary `+ - !`, `^` (right to
left), `++ --`, `$`, grouping; and the token handling the statement parser (``awk_parser``)
shares. In `print`'s arguments a bare `>` is a redirection, not a comparison. Nesting is bounded
(``MAX_NESTING``): the parser and the interpreter recurse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .awk_lexer import AwkSyntaxError, Token

Node = tuple[Any, ...]
MAX_NESTING = 50
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})
_COMPARE = frozenset({"<", "<=", "!=", "==", ">", ">="})
_CONCAT_START = frozenset({"NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "(",
                           "!", "-", "+", "++", "--"})
# How many arguments each builtin takes (at least, at most).
_ARITY = {
    "length": (0, 1), "substr": (2, 3), "index": (2, 2), "split": (2, 4), "sub": (2, 3),
    "gsub": (2, 3), "match": (2, 3), "sprintf": (1, 255), "sin": (1, 1), "cos": (1, 1),
    "exp": (1, 1), "log": (1, 1), "sqrt": (1, 1), "int": (1, 1), "atan2": (2, 2),
    "rand": (0, 0), "srand": (0, 1), "tolower": (1, 1), "toupper": (1, 1), "system": (1, 1),
    "close": (1, 2), "fflush": (0, 1), "gensub": (3, 4), "systime": (0, 0),
    "strftime": (0, 3), "asort": (1, 2), "asorti": (1, 2),
}
# Builtins whose arguments at these positions are arrays.
_ARRAY_ARGUMENTS = {"split": (1,), "asort": (0, 1), "asorti": (0, 1), "match": (2,)}
LVALUES = frozenset({"var", "local", "field", "index", "nf"})


@dataclass
class Function:
    """A user function: its parameters and body, and which parameters it uses as arrays."""

    name: str
    params: list[str]
    body: Node
    arrays: set[int] = field(default_factory=set)
    calls: list[tuple[str, list[Node]]] = field(default_factory=list)


class ExpressionParser:
    """Tokens and expressions; ``awk_parser`` adds statements and the program."""

    def __init__(self, tokens: list[Token]) -> None:
        """Parse ``tokens`` (ending with EOF)."""
        self.tokens = tokens
        self.at = 0
        self.locals: dict[str, int] | None = None
        self.function: Function | None = None
        self.no_gt = False  # in print's arguments: `>` redirects
        self.depth = 0
        self.loops = 0
        self.called: list[tuple[str, int]] = []

    # -- tokens --------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        """The current token."""
        return self.tokens[self.at]

    def kind(self, offset: int = 0) -> str:
        """The kind of the token ``offset`` ahead."""
        return self.tokens[min(self.at + offset, len(self.tokens) - 1)].kind

    def take(self, kind: str | None = None) -> Token:
        """Consume the current token (of ``kind``, else a syntax error)."""
        token = self.tok
        if kind is not None and token.kind != kind:
            self.fail(token)
        self.at += 1
        return token

    def fail(self, token: Token | None = None) -> None:
        """Raise the syntax error at ``token`` (the current one)."""
        token = token or self.tok
        shown = "end of file" if token.kind == "EOF" else \
            "newline" if token.kind == "NEWLINE" else str(token.value)
        raise AwkSyntaxError(f"syntax error at or near {shown}", token.line)

    def newlines(self) -> None:
        """Skip newlines."""
        while self.kind() == "NEWLINE":
            self.at += 1

    def separators(self) -> None:
        """Skip newlines and semicolons."""
        while self.kind() in ("NEWLINE", ";"):
            self.at += 1

    def nest(self) -> None:
        """One level deeper (at most ``MAX_NESTING``)."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise AwkSyntaxError(f"nesting deeper than {MAX_NESTING}", self.tok.line)

    # -- expressions ---------------------------------------------------------------------
    def expression_list(self) -> list[Node]:
        """Expressions separated by commas."""
        items = [self.expression()]
        while self.kind() == ",":
            self.at += 1
            self.newlines()
            items.append(self.expression())
        return items

    def expression(self) -> Node:
        """One expression."""
        self.nest()
        try:
            return self.ternary()
        finally:
            self.depth -= 1

    def ternary(self) -> Node:
        """`?:` and assignments."""
        condition = self.logical_or()
        if self.kind() == "?":
            self.at += 1
            self.newlines()
            yes = self.ternary()
            self.newlines()
            self.take(":")
            self.newlines()
            return ("cond", condition, yes, self.ternary())
        if self.kind() in _ASSIGN and condition[0] in LVALUES:
            op = str(self.take().value)
            self.newlines()
            return ("assign", "^=" if op == "**=" else op, condition, self.ternary())
        return condition

    def logical_or(self) -> Node:
        """`||`."""
        items = [self.logical_and()]
        while self.kind() == "||":
            self.at += 1
            self.newlines()
            items.append(self.logical_and())
        return ("or", items) if len(items) > 1 else items[0]

    def logical_and(self) -> Node:
        """`&&`."""
        items = [self.membership()]
        while self.kind() == "&&":
            self.at += 1
            self.newlines()
            items.append(self.membership())
        return ("and", items) if len(items) > 1 else items[0]

    def membership(self) -> Node:
        """`in`."""
        left = self.matching()
        while self.kind() == "in":
            self.at += 1
            array = self.name_node(str(self.take("NAME").value), array=True)
            left = ("in", [left], array)
        return left

    def matching(self) -> Node:
        """`~` and `!~`."""
        left = self.comparison()
        while self.kind() in ("~", "!~"):
            negate = self.take().kind == "!~"
            left = ("match", negate, left, self.comparison())
        return left

    def comparison(self) -> Node:
        """The comparisons."""
        left = self.piped_getline()
        kind = self.kind()
        if kind in _COMPARE and not (kind == ">" and self.no_gt):
            self.at += 1
            left = ("cmp", kind, left, self.piped_getline())
        return left

    def piped_getline(self) -> Node:
        """`cmd | getline [var]`."""
        left = self.concatenation()
        while self.kind() == "|" and self.kind(1) == "getline":
            self.at += 2
            left = ("cmdgetline", left, self.optional_lvalue())
        return left

    def concatenation(self) -> Node:
        """Concatenation."""
        items = [self.additive()]
        while self.kind() in _CONCAT_START and self.kind() not in ("-", "+"):
            items.append(self.additive())
        return ("concat", items) if len(items) > 1 else items[0]

    def additive(self) -> Node:
        """`+` and `-`."""
        first = self.multiplicative()
        rest = []
        while self.kind() in ("+", "-"):
            rest.append((str(self.take().value), self.multiplicative()))
        return ("chain", first, rest) if rest else first

    def multiplicative(self) -> Node:
        """`*`, `/` and `%`."""
        first = self.unary()
        rest = []
        while self.kind() in ("*", "/", "%"):
            rest.append((str(self.take().value), self.unary()))
        return ("chain", first, rest) if rest else first

    def unary(self) -> Node:
        """Unary `+ - !`."""
        kind = self.kind()
        if kind in ("-", "+", "!"):
            self.at += 1
            self.nest()
            operand = self.unary()
            self.depth -= 1
            return ("not", operand) if kind == "!" else ("neg" if kind == "-" else "pos", operand)
        return self.power()

    def power(self) -> Node:
        """`^` (right to left)."""
        base = self.postfix()
        if self.kind() in ("^", "**"):
            self.at += 1
            self.nest()
            exponent = self.unary()
            self.depth -= 1
            return ("binary", "^", base, exponent)
        return base

    def postfix(self) -> Node:
        """`++` and `--` after an lvalue."""
        node = self.primary()
        if self.kind() in ("++", "--") and node[0] in LVALUES:
            delta = 1.0 if self.take().kind == "++" else -1.0
            return ("postinc", delta, node)
        return node

    def primary(self) -> Node:
        """A number, string, regex, variable, field, call, group or getline."""
        token = self.tok
        kind = token.kind
        if kind == "NUMBER":
            self.at += 1
            return ("num", token.value)
        if kind == "STRING":
            self.at += 1
            return ("str", token.value)
        if kind == "ERE":
            self.at += 1
            return ("regex", token.value)
        if kind in ("++", "--"):
            self.at += 1
            target = self.primary()
            if target[0] not in LVALUES:
                self.fail(token)
            return ("preinc", 1.0 if kind == "++" else -1.0, target)
        if kind == "$":
            self.at += 1
            return ("field", self.field_operand())
        if kind in ("-", "+", "!"):
            return self.unary()
        if kind == "(":
            return self.grouping()
        if kind == "NAME":
            self.at += 1
            name = str(token.value)
            if self.kind() == "[":
                return ("index", self.name_node(name, array=True), self.subscripts())
            return self.name_node(name)
        if kind == "FUNC_NAME":
            self.at += 2
            args = self.call_arguments()
            self.called.append((str(token.value), token.line))
            if self.function is not None:
                self.function.calls.append((str(token.value), args))
            return ("call", str(token.value), args)
        if kind == "BUILTIN":
            self.at += 1
            if self.kind() == "(":
                self.at += 1
                args = self.call_arguments()
                low, high = _ARITY.get(str(token.value), (0, 255))
                if not low <= len(args) <= high:
                    raise AwkSyntaxError(f"{len(args)} is invalid as number of arguments for "
                                         f"{token.value}", token.line)
                for position in _ARRAY_ARGUMENTS.get(str(token.value), ()):
                    if len(args) > position and args[position][0] == "local" and \
                            self.function is not None:
                        self.function.arrays.add(args[position][1])
                return ("builtin", str(token.value), args)
            if token.value != "length":
                self.fail()
            return ("builtin", "length", [])
        if kind == "getline":
            self.at += 1
            target = self.optional_lvalue()
            source = None
            if self.kind() == "<":
                self.at += 1
                source = self.primary_for_file()
            return ("getline", target, source)
        self.fail()
        raise AssertionError

    def primary_for_file(self) -> Node:
        """The file of `getline < FILE`."""
        node = self.primary()
        if self.kind() in ("++", "--") and node[0] in LVALUES:
            return ("postinc", 1.0 if self.take().kind == "++" else -1.0, node)
        return node

    def field_operand(self) -> Node:
        """What follows `$`."""
        kind = self.kind()
        if kind in ("-", "+", "!"):
            self.at += 1
            operand = self.field_operand()
            return ("not", operand) if kind == "!" else ("neg" if kind == "-" else "pos", operand)
        return self.primary()

    def grouping(self) -> Node:
        """`( ... )`: a group, or a list before `in` or in print."""
        self.take("(")
        saved, self.no_gt = self.no_gt, False
        try:
            self.newlines()
            items = self.expression_list()
            self.newlines()
            self.take(")")
        finally:
            self.no_gt = saved
        if len(items) == 1:
            return ("group", items[0])
        if self.kind() == "in":
            self.at += 1
            return ("in", items, self.name_node(str(self.take("NAME").value), array=True))
        return ("tuple", items)

    def call_arguments(self) -> list[Node]:
        """A call's arguments, up to `)`."""
        saved, self.no_gt = self.no_gt, False
        try:
            self.newlines()
            args = [] if self.kind() == ")" else self.expression_list()
            self.newlines()
            self.take(")")
        finally:
            self.no_gt = saved
        return args

    def subscripts(self) -> list[Node]:
        """`[ ... ]`'s expressions."""
        self.take("[")
        saved, self.no_gt = self.no_gt, False
        try:
            items = self.expression_list()
            self.take("]")
        finally:
            self.no_gt = saved
        return items

    def optional_lvalue(self) -> Node | None:
        """The variable getline reads into, if any."""
        if self.kind() == "$":
            self.at += 1
            return ("field", self.field_operand())
        if self.kind() == "NAME":
            name = str(self.take().value)
            if self.kind() == "[":
                return ("index", self.name_node(name, array=True), self.subscripts())
            return self.name_node(name)
        return None

    def name_node(self, name: str, *, array: bool = False) -> Node:
        """A name: a local (a parameter), NF, or a global."""
        if self.locals is not None and name in self.locals:
            index = self.locals[name]
            if array and self.function is not None:
                self.function.arrays.add(index)
            return ("local", index, name)
        if name == "NF" and not array:
            return ("nf",)
        return ("var", name)
