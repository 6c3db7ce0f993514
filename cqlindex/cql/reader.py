"""The part of the parser that every grammar function shares: tokens, scope, errors.

Kept apart from the precedence levels (:mod:`cqlindex.cql.parser`) so that grammar written
elsewhere can name its argument's type without importing the module that dispatches to it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from cqlindex.cql import ast
from cqlindex.cql.lexer import tokenize
from cqlindex.cql.tokens import Kind, Span, Token
from cqlindex.errors import CqlSyntaxError, CqlUnsupportedError


class Reader(ABC):
    """The token cursor, the variables in scope and the error helpers of one query's parse.

    Grammar functions outside :mod:`cqlindex.cql.parser` (a family's ``parse_*`` and
    :mod:`cqlindex.cql.path_syntax`) take a ``Reader``; they call back into the precedence
    levels declared abstract below, which :class:`cqlindex.cql.parser.Parser` defines. So those
    modules need not import the parser, and the parser may import them.
    """

    def __init__(self, text: str, source: str = "<query>") -> None:
        self.text = text
        self.source = source
        self.tokens = tokenize(text, source)
        self.i = 0
        self.variables: dict[str, str] = {}
        self.in_line = 0
        self.line_backward = False
        # Piece variables (``piece x = S``): a plain '=' may not rebind them.
        self.piece_variables: set[str] = set()
        self.lasting_variables: dict[str, str] = {}  # persistent and atomic variables
        # CQL functions are macros: a call parses the body's tokens with the parameters standing
        # for the arguments, so the body's type errors show at the call, as in the reference.
        self.functions: dict[str, tuple[tuple[str, ...], list[Token]]] = {}
        self.bindings: list[dict[str, ast.Node]] = []
        # Valid CQL that cqlindex does not run: reported only once the whole query has parsed, so
        # a syntax error anywhere still wins (as it does in the reference engine).
        self.deferred: list[CqlUnsupportedError] = []
        self.colon_barred = 0  # inside 'position N', whose ':' is the position's
        self.in_dash_target = 0  # inside '--(...)', where o-o, o-o-o, castle and enpassant are filters

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.peek()
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return token

    def at_op(self, *texts: str) -> bool:
        return self.peek().is_op(*texts)

    def at_word(self, *texts: str) -> bool:
        return self.peek().is_word(*texts)

    def expect_op(self, text: str, context: str) -> Token:
        if not self.at_op(text):
            raise self.error(f"expected '{text}' {context}", self.peek())
        return self.next()

    def error(self, message: str, token: Token | Span) -> CqlSyntaxError:
        span = token.span if isinstance(token, Token) else token
        return CqlSyntaxError(message, self.text, span, self.source)

    def unsupported(self, what: str, token: Token | Span) -> CqlUnsupportedError:
        span = token.span if isinstance(token, Token) else token
        return CqlUnsupportedError(f"{what} is valid CQL that cqlindex does not evaluate yet", self.text, span,
                                   self.source)

    def defer_unsupported(self, what: str, token: Token | Span) -> None:
        """Note valid CQL that cqlindex does not run; :meth:`parse_query` raises it after parsing."""
        self.deferred.append(self.unsupported(what, token))

    def describe(self, token: Token) -> str:
        return "the end of the query" if token.kind is Kind.EOF else f"'{token.text}'"

    def number(self, context: str) -> int:
        negative = self.at_op("-") and self.peek(1).kind is Kind.NUMBER
        if negative:
            self.next()
        token = self.next()
        if token.kind is not Kind.NUMBER:
            raise self.error(f"expected a number {context}", token)
        return -int(token.text) if negative else int(token.text)

    def at_number(self) -> bool:
        return self.peek().kind is Kind.NUMBER or (self.at_op("-") and self.peek(1).kind is Kind.NUMBER)


    # -- precedence levels, defined by the parser ------------------------------------------
    @abstractmethod
    def parse_filter(self) -> ast.Node: ...

    @abstractmethod
    def parse_union(self, allow_dash: bool = True) -> ast.Node: ...

    @abstractmethod
    def parse_primary(self) -> ast.Node: ...

    @abstractmethod
    def parse_repetition(self, node: ast.Node) -> ast.Node: ...

    @abstractmethod
    def parse_promotion(self, dash: Token, value: ast.Node) -> tuple[frozenset[str] | None, Span]: ...
