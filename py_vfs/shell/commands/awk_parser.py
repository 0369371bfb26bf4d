"""awk's grammar: tokens into a program of rules and functions whose statements and
expressions are tuples, ``(kind, ...)``, which ``awk_interp`` runs.

Expressions (lowest precedence first): assignment, `?:`, `||`, `&&`, `in`, `~ !~`, the
comparisons, `cmd | getline`, concatenation, `+ -`, `* / %`, unary `+ - !`, `^` (right to
left), `++ --`, `$`, grouping. In `print`'s arguments a bare `>` is a redirection, not a
comparison (parenthesize to compare). Nesting is bounded (``MAX_NESTING``): the parser and the
interpreter recurse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .awk_lexer import AwkSyntaxError, Token, tokenize

Node = tuple[Any, ...]
MAX_NESTING = 50
_ASSIGN = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "^=", "**="})
_COMPARE = frozenset({"<", "<=", "!=", "==", ">", ">="})
_CONCAT_START = frozenset({"NUMBER", "STRING", "ERE", "NAME", "FUNC_NAME", "BUILTIN", "$", "(",
                           "!", "-", "+", "++", "--"})
_LVALUES = frozenset({"var", "local", "field", "index", "nf"})


@dataclass
class Function:
    """A user function: its parameters and body, and which parameters it uses as arrays."""

    name: str
    params: list[str]
    body: Node
    arrays: set[int] = field(default_factory=set)
    calls: list[tuple[str, list[Node]]] = field(default_factory=list)


@dataclass
class Program:
    """A parsed program: BEGIN and END actions, the rules (pattern, range end, action; None
    for a missing part) and the functions."""

    begins: list[Node] = field(default_factory=list)
    ends: list[Node] = field(default_factory=list)
    rules: list[tuple[Node | None, Node | None, Node | None]] = field(default_factory=list)
    functions: dict[str, Function] = field(default_factory=dict)


def parse(source: str) -> Program:
    """The program ``source``, or ``AwkSyntaxError``."""
    parser = _Parser(tokenize(source))
    program = parser.program()
    _array_params(program)
    for name, line in parser.called:
        if name not in program.functions:
            raise AwkSyntaxError(f"function `{name}' called but never defined", line)
    return program


def _array_params(program: Program) -> None:
    """Which parameters each function uses as an array, also through the functions it passes
    them to (to a fixed point): an untyped variable passed there becomes an array."""
    changed = True
    while changed:
        changed = False
        for function in program.functions.values():
            for name, args in function.calls:
                callee = program.functions.get(name)
                if callee is None:
                    continue
                for position, arg in enumerate(args):
                    if position in callee.arrays and arg[0] == "local" and \
                            arg[1] not in function.arrays:
                        function.arrays.add(arg[1])
                        changed = True


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.at = 0
        self.locals: dict[str, int] | None = None
        self.function: Function | None = None
        self.no_gt = False  # in print's arguments: `>` redirects
        self.no_in = False  # in a for's first clause: `in` belongs to the for
        self.depth = 0
        self.loops = 0
        self.called: list[tuple[str, int]] = []

    # -- tokens --------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.at]

    def kind(self, offset: int = 0) -> str:
        return self.tokens[min(self.at + offset, len(self.tokens) - 1)].kind

    def take(self, kind: str | None = None) -> Token:
        token = self.tok
        if kind is not None and token.kind != kind:
            self.fail(token)
        self.at += 1
        return token

    def fail(self, token: Token | None = None) -> None:
        token = token or self.tok
        shown = "end of file" if token.kind == "EOF" else \
            "newline" if token.kind == "NEWLINE" else str(token.value)
        raise AwkSyntaxError(f"syntax error at or near {shown}", token.line)

    def newlines(self) -> None:
        while self.kind() == "NEWLINE":
            self.at += 1

    def separators(self) -> None:
        while self.kind() in ("NEWLINE", ";"):
            self.at += 1

    def nest(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise AwkSyntaxError(f"nesting deeper than {MAX_NESTING}", self.tok.line)

    # -- program -------------------------------------------------------------------------
    def program(self) -> Program:
        program = Program()
        self.separators()
        while self.kind() != "EOF":
            kind = self.kind()
            if kind == "BEGIN":
                self.at += 1
                program.begins.append(self.action())
            elif kind == "END":
                self.at += 1
                program.ends.append(self.action())
            elif kind == "func":
                self.function_definition(program)
            elif kind == "{":
                program.rules.append((None, None, self.action()))
            else:
                pattern = self.expression()
                end = None
                if self.kind() == ",":
                    self.at += 1
                    self.newlines()
                    end = self.expression()
                body = self.action() if self.kind() == "{" else None
                program.rules.append((pattern, end, body))
            if self.kind() not in ("NEWLINE", ";", "EOF") and self.tokens[self.at - 1].kind != "}":
                self.fail()
            self.separators()
        return program

    def action(self) -> Node:
        if self.kind() != "{":
            self.fail()
        return self.block()

    def function_definition(self, program: Program) -> None:
        self.take("func")
        name_token = self.take()
        if name_token.kind not in ("NAME", "FUNC_NAME"):
            self.fail(name_token)
        name = str(name_token.value)
        if name in program.functions:
            raise AwkSyntaxError(f"function `{name}' previously defined", name_token.line)
        self.take("(")
        params: list[str] = []
        while self.kind() != ")":
            params.append(str(self.take("NAME").value))
            if self.kind() == ",":
                self.at += 1
                self.newlines()
            elif self.kind() != ")":
                self.fail()
        self.take(")")
        self.newlines()
        self.locals = {param: index for index, param in enumerate(params)}
        self.function = Function(name, params, ("block", []))
        program.functions[name] = self.function
        self.function.body = self.action()
        self.locals, self.function = None, None

    # -- statements ----------------------------------------------------------------------
    def block(self) -> Node:
        self.take("{")
        self.nest()
        statements = []
        self.separators()
        while self.kind() != "}":
            if self.kind() == "EOF":
                self.fail()
            statements.append(self.statement())
            self.separators()
        self.take("}")
        self.depth -= 1
        return ("block", statements)

    def end_simple(self) -> None:
        if self.kind() in (";", "NEWLINE"):
            self.at += 1
        elif self.kind() not in ("}", "EOF"):
            self.fail()

    def body(self) -> Node:
        self.newlines()
        if self.kind() == ";":
            self.at += 1
            return ("block", [])
        return self.statement()

    def loop_body(self) -> Node:
        self.loops += 1
        try:
            return self.body()
        finally:
            self.loops -= 1

    def statement(self) -> Node:
        kind = self.kind()
        self.nest()
        try:
            return self._statement(kind)
        finally:
            self.depth -= 1

    def _statement(self, kind: str) -> Node:
        if kind == "{":
            return self.block()
        if kind == "if":
            self.at += 1
            self.take("(")
            condition = self.expression()
            self.take(")")
            then = self.body()
            save = self.at
            self.separators()
            if self.kind() == "else":
                self.at += 1
                return ("if", condition, then, self.body())
            self.at = save
            return ("if", condition, then, None)
        if kind == "while":
            self.at += 1
            self.take("(")
            condition = self.expression()
            self.take(")")
            if self.kind() == ";":
                self.at += 1
                return ("while", condition, ("block", []))
            return ("while", condition, self.loop_body())
        if kind == "do":
            self.at += 1
            loop = self.loop_body()
            self.separators()
            self.take("while")
            self.take("(")
            condition = self.expression()
            self.take(")")
            self.end_simple()
            return ("do", loop, condition)
        if kind == "for":
            return self.for_statement()
        if kind == ";":
            self.at += 1
            return ("block", [])
        statement = self.simple_statement(kind)
        self.end_simple()
        return statement

    def for_statement(self) -> Node:
        self.take("for")
        self.take("(")
        if self.kind() == "NAME" and self.kind(1) == "in" and self.kind(2) == "NAME" and \
                self.kind(3) == ")":
            variable = self.name_node(str(self.take().value))
            self.at += 1
            array = self.name_node(str(self.take().value), array=True)
            self.take(")")
            return ("forin", variable, array, self.loop_body())
        init = None if self.kind() == ";" else self.simple_statement(self.kind())
        self.take(";")
        self.newlines()
        condition = None if self.kind() == ";" else self.expression()
        self.take(";")
        self.newlines()
        step = None if self.kind() == ")" else self.simple_statement(self.kind())
        self.take(")")
        if self.kind() == ";":
            self.at += 1
            return ("for", init, condition, step, ("block", []))
        return ("for", init, condition, step, self.loop_body())

    def simple_statement(self, kind: str) -> Node:
        line = self.tok.line
        if kind in ("print", "printf"):
            return self.print_statement()
        if kind in ("next", "nextfile"):
            self.at += 1
            return (kind,)
        if kind in ("break", "continue"):
            self.at += 1
            if not self.loops:
                raise AwkSyntaxError(f"`{kind}' is not allowed outside a loop", line)
            return (kind,)
        if kind in ("exit", "return"):
            self.at += 1
            if kind == "return" and self.function is None:
                raise AwkSyntaxError("`return' used outside function context", line)
            value = None if self.kind() in (";", "NEWLINE", "}", "EOF") else self.expression()
            return (kind, value)
        if kind == "delete":
            self.at += 1
            name = self.take("NAME")
            array = self.name_node(str(name.value), array=True)
            if self.kind() == "[":
                return ("delete", array, self.subscripts())
            return ("delete", array, None)
        return ("expr", self.expression())

    def print_statement(self) -> Node:
        kind = str(self.take().value)
        args: list[Node] = []
        if self.kind() not in (";", "NEWLINE", "}", ">", ">>", "|", "EOF"):
            self.no_gt = True
            try:
                args = self.expression_list()
            finally:
                self.no_gt = False
        if len(args) == 1 and args[0][0] == "tuple":
            args = list(args[0][1])
        if kind == "printf" and not args:
            self.fail()
        redirect, target = None, None
        if self.kind() in (">", ">>", "|"):
            redirect = str(self.take().value)
            target = self.concatenation()
        return (kind, args, redirect, target)

    # -- expressions ---------------------------------------------------------------------
    def expression_list(self) -> list[Node]:
        items = [self.expression()]
        while self.kind() == ",":
            self.at += 1
            self.newlines()
            items.append(self.expression())
        return items

    def expression(self) -> Node:
        self.nest()
        try:
            return self.ternary()
        finally:
            self.depth -= 1

    def ternary(self) -> Node:
        condition = self.logical_or()
        if self.kind() == "?":
            self.at += 1
            self.newlines()
            yes = self.ternary()
            self.newlines()
            self.take(":")
            self.newlines()
            return ("cond", condition, yes, self.ternary())
        if self.kind() in _ASSIGN and condition[0] in _LVALUES:
            op = str(self.take().value)
            self.newlines()
            return ("assign", "^=" if op == "**=" else op, condition, self.ternary())
        return condition

    def logical_or(self) -> Node:
        left = self.logical_and()
        while self.kind() == "||":
            self.at += 1
            self.newlines()
            left = ("or", left, self.logical_and())
        return left

    def logical_and(self) -> Node:
        left = self.membership()
        while self.kind() == "&&":
            self.at += 1
            self.newlines()
            left = ("and", left, self.membership())
        return left

    def membership(self) -> Node:
        left = self.matching()
        while self.kind() == "in" and not self.no_in:
            self.at += 1
            array = self.name_node(str(self.take("NAME").value), array=True)
            left = ("in", [left], array)
        return left

    def matching(self) -> Node:
        left = self.comparison()
        while self.kind() in ("~", "!~"):
            negate = self.take().kind == "!~"
            left = ("match", negate, left, self.comparison())
        return left

    def comparison(self) -> Node:
        left = self.piped_getline()
        kind = self.kind()
        if kind in _COMPARE and not (kind == ">" and self.no_gt):
            self.at += 1
            left = ("cmp", kind, left, self.piped_getline())
        return left

    def piped_getline(self) -> Node:
        left = self.concatenation()
        while self.kind() == "|" and self.kind(1) == "getline":
            self.at += 2
            left = ("cmdgetline", left, self.optional_lvalue())
        return left

    def concatenation(self) -> Node:
        left = self.additive()
        while self.kind() in _CONCAT_START and self.kind() not in ("-", "+", "!"):
            left = ("concat", left, self.additive())
        return left

    def additive(self) -> Node:
        left = self.multiplicative()
        while self.kind() in ("+", "-"):
            op = str(self.take().value)
            left = ("binary", op, left, self.multiplicative())
        return left

    def multiplicative(self) -> Node:
        left = self.unary()
        while self.kind() in ("*", "/", "%"):
            op = str(self.take().value)
            left = ("binary", op, left, self.unary())
        return left

    def unary(self) -> Node:
        kind = self.kind()
        if kind in ("-", "+", "!"):
            self.at += 1
            self.nest()
            operand = self.unary()
            self.depth -= 1
            return ("not", operand) if kind == "!" else ("neg" if kind == "-" else "pos", operand)
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.kind() in ("^", "**"):
            self.at += 1
            self.nest()
            exponent = self.unary()
            self.depth -= 1
            return ("binary", "^", base, exponent)
        return base

    def postfix(self) -> Node:
        node = self.primary()
        if self.kind() in ("++", "--") and node[0] in _LVALUES:
            delta = 1.0 if self.take().kind == "++" else -1.0
            return ("postinc", delta, node)
        return node

    def primary(self) -> Node:
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
            if target[0] not in _LVALUES:
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
                if token.value == "split" and len(args) > 1 and args[1][0] == "local" and \
                        self.function is not None:
                    self.function.arrays.add(args[1][1])
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
        node = self.primary()
        if self.kind() in ("++", "--") and node[0] in _LVALUES:
            return ("postinc", 1.0 if self.take().kind == "++" else -1.0, node)
        return node

    def field_operand(self) -> Node:
        kind = self.kind()
        if kind in ("-", "+", "!"):
            self.at += 1
            operand = self.field_operand()
            return ("not", operand) if kind == "!" else ("neg" if kind == "-" else "pos", operand)
        return self.primary()

    def grouping(self) -> Node:
        self.take("(")
        saved, self.no_gt, self.no_in = (self.no_gt, self.no_in), False, False
        try:
            self.newlines()
            items = self.expression_list()
            self.newlines()
            self.take(")")
        finally:
            self.no_gt, self.no_in = saved
        if len(items) == 1:
            return ("group", items[0])
        if self.kind() == "in":
            self.at += 1
            return ("in", items, self.name_node(str(self.take("NAME").value), array=True))
        return ("tuple", items)

    def call_arguments(self) -> list[Node]:
        saved, self.no_gt, self.no_in = (self.no_gt, self.no_in), False, False
        try:
            self.newlines()
            args = [] if self.kind() == ")" else self.expression_list()
            self.newlines()
            self.take(")")
        finally:
            self.no_gt, self.no_in = saved
        return args

    def subscripts(self) -> list[Node]:
        self.take("[")
        saved, self.no_gt, self.no_in = (self.no_gt, self.no_in), False, False
        try:
            items = self.expression_list()
            self.take("]")
        finally:
            self.no_gt, self.no_in = saved
        return items

    def optional_lvalue(self) -> Node | None:
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
        if self.locals is not None and name in self.locals:
            index = self.locals[name]
            if array and self.function is not None:
                self.function.arrays.add(index)
            return ("local", index, name)
        if name == "NF" and not array:
            return ("nf",)
        return ("var", name)
