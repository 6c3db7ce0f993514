"""The grammar of user functions: ``function name(p ...) { body }`` and calls ``name(a ...)``.

A definition is a filter that always matches (it parses to ``true``); only calls do anything.

CQL's functions are macros, expanded where they are called: the body's tokens are kept at the
definition and parsed at each call, so the body's type errors show at the call, as in the
reference engine. The reference manual says how a call binds its arguments: a parameter whose
argument is a variable is renamed to that variable (so the body may read and assign it); any
other argument is first assigned to a new variable of its own, at the position of the call,
and the parameter is renamed to that. A literal number or string is the same wherever it is
read, so it is written in place; a filter without a value (``check``) cannot be assigned, so
it is read in place too, where the body uses it.

A call inside a body is expanded when the body is, so a function that calls itself would
expand without end: the nesting is bounded, and a deeper one is a syntax error.
"""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.kinds import LOGICAL, kind_of
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

#: How deeply calls may nest inside bodies being expanded.
MAX_CALL_DEPTH = 32


class FunctionGrammar(Reader):
    """Definitions and calls of user functions."""

    def parse_function(self, token: Token) -> ast.Node:
        """``function name(p ...) { body }``: the body kept as tokens until a call parses it."""
        name = self.next()
        if name.kind is not Kind.WORD or name.text in self.KEYWORDS:
            raise self.error("expected a function name after 'function'", name)
        self.expect_op("(", f"after 'function {name.text}'")
        params: list[str] = []
        while not self.at_op(")"):
            param = self.next()
            if param.kind is not Kind.WORD:
                raise self.error(f"expected a parameter name or ')' in 'function {name.text}('", param)
            params.append(param.text)
        self.next()
        if not self.at_op("{"):
            raise self.error(f"expected '{{' and the body of 'function {name.text}'", self.peek())
        if self.at_repetition():
            raise self.error("a repetition '{m,n}' only follows a line constituent", self.peek())
        opening = self.next()
        open_brackets, body = ["{"], []  # the reference's lexer matches each bracket with its own kind
        while True:
            body_token = self.next()
            if body_token.kind is Kind.EOF:
                raise self.error(f"expected '}}' to close the body of 'function {name.text}'", body_token)
            if body_token.is_op("{", "("):
                open_brackets.append(body_token.text)
            elif body_token.is_op("}", ")"):
                if open_brackets.pop() != {"}": "{", ")": "("}[body_token.text] if open_brackets else True:
                    raise self.error(f"'{body_token.text}' does not close the bracket open before it", body_token)
            if not open_brackets:
                break
            body.append(body_token)
        if not body:
            raise self.error("'{}' must hold at least one filter", opening.span.to(body_token.span))
        self.functions[name.text] = (tuple(params), body + [Token(Kind.EOF, "", body_token.span)])
        return ast.Keyword(token.span.to(body_token.span), "true")  # a definition matches everywhere

    def parse_call_of_function(self, token: Token) -> ast.Node:
        """``name(a ...)``: the body, each parameter bound to its argument as the manual says."""
        params, body = self.functions[token.text]
        self.next()
        args: list[ast.Node] = []
        while not (self.at_op(")") or self.peek().kind is Kind.EOF):
            args.append(self.parse_filter())
        end = self.expect_op(")", f"to close the call of '{token.text}'")
        if len(args) != len(params):
            raise self.error(f"'{token.text}' takes {len(params)} arguments, not {len(args)}", token.span.to(end.span))
        if len(self.bindings) >= MAX_CALL_DEPTH:
            raise self.error(f"calls of '{token.text}' nest too deeply", token)
        bound, assignments = self._bind_arguments(params, args)
        saved = self.tokens, self.i, self.path_depths, self.path_braces
        self.tokens, self.i, self.path_depths, self.path_braces = body, 0, [], []  # read as where it is written
        self.bindings.append(bound)
        try:
            items = self.parse_items()
            if self.peek().kind is not Kind.EOF:
                raise self.error(f"unexpected {self.describe(self.peek())}", self.peek())
        finally:
            self.bindings.pop()
            self.tokens, self.i, self.path_depths, self.path_braces = saved
        return ast.Compound(token.span.to(end.span), (*assignments, *items))

    def _bind_arguments(self, params: tuple[str, ...],
                        args: list[ast.Node]) -> tuple[dict[str, ast.Node], list[ast.Assign]]:
        """What each parameter stands for in the body, and the assignments that run first."""
        bound: dict[str, ast.Node] = {}
        assignments: list[ast.Assign] = []
        for param, arg in zip(params, args):
            kind = kind_of(arg, self.variables)
            if isinstance(arg, (ast.Variable, ast.Number, ast.String)) or kind == LOGICAL:
                bound[param] = arg
                continue
            self.fresh_names += 1
            fresh = f"{param}`{self.fresh_names}"  # '`' is in no CQL name: it cannot clash
            self.variables[fresh] = kind
            assignments.append(ast.Assign(arg.span, fresh, "=", arg))
            bound[param] = ast.Variable(arg.span, fresh)
        return bound, assignments

    def parse_bound_name(self, token: Token) -> ast.Node:
        """A parameter in a body being expanded: the variable it is renamed to (read, assigned,
        subscripted like any variable), or the literal or filter it stands for."""
        self.next()
        bound = self.bindings[-1][token.text]
        if isinstance(bound, ast.Variable):
            return self.parse_variable(Token(Kind.WORD, bound.name, token.span))
        # wrapped, so that a parameter is never taken for a literal such as the Q of '--=Q'
        return ast.Compound(token.span, (bound,))
