"""awk's programs: tokens into rules, functions and statements (the expressions are
``awk_grammar``'s), as tuples ``(kind, ...)`` that ``awk_interp`` runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .awk_grammar import ExpressionParser, Function, Node
from .awk_lexer import AwkSyntaxError, tokenize

__all__ = ["Function", "Node", "Program", "parse"]


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


class _Parser(ExpressionParser):
    # -- program -------------------------------------------------------------------------
    def program(self) -> Program:
        """The whole program."""
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
        """A `{ ... }` action."""
        if self.kind() != "{":
            self.fail()
        return self.block()

    def function_definition(self, program: Program) -> None:
        """`function NAME(PARAMS) { ... }`."""
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
        """`{ statements }`."""
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
        """The `;` or newline after a simple statement."""
        if self.kind() in (";", "NEWLINE"):
            self.at += 1
        elif self.kind() not in ("}", "EOF"):
            self.fail()

    def body(self) -> Node:
        """A statement after `if`/`else`."""
        self.newlines()
        if self.kind() == ";":
            self.at += 1
            return ("block", [])
        return self.statement()

    def loop_body(self) -> Node:
        """A loop's statement."""
        self.loops += 1
        try:
            return self.body()
        finally:
            self.loops -= 1

    def statement(self) -> Node:
        """One statement."""
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
        """`for (...;...;...)` or `for (k in a)`."""
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
        """print, next, exit, return, delete or an expression."""
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
        """print/printf with their arguments and redirection."""
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
