"""The grammar of if and not."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token


class LogicGrammar(Reader):
    """The logic family's grammar."""

    def parse_if(self, token: Token) -> ast.Node:
        cond = self.parse_filter()
        if self.at_word("then"):
            self.next()
        then = self.parse_filter()
        other = None
        if self.at_word("else"):
            self.next()
            other = self.parse_filter()
        return ast.If(token.span.to((other or then).span), cond, then, other)

    def parse_not_keyword(self, token: Token) -> ast.Node:
        arg = self.parse_not()
        return ast.Not(token.span.to(arg.span), arg)
