"""The grammar of ``try``, ``loop``, ``while`` and ``assert``."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token


class ControlGrammar(Reader):
    """The control family's grammar."""

    def parse_control(self, token: Token) -> ast.Node:
        """``try`` stands alone; ``loop`` takes the filter that follows (as far as it runs);
        ``while (C) F`` a parenthesised condition, then its body; ``assert`` one comparison
        (``assert 1 == 2``: the whole comparison is asserted, ``assert 1 | 2`` is an error)."""
        name = token.text
        if name in ("try", "cql_abort"):
            return ast.Control(token.span, name, ())
        if name == "assert":
            arg = self.parse_compare()
            return ast.Control(token.span.to(arg.span), name, (arg,))
        if name == "while":
            self.expect_op("(", "after 'while'")
            if self.at_op(")"):
                raise self.error("'while ()' needs a condition", self.peek())
            cond = self.parse_filter()
            self.expect_op(")", "to close 'while ('")
            body = self.parse_filter()
            return ast.Control(token.span.to(body.span), name, (cond, body))
        body = self.parse_filter()
        return ast.Control(token.span.to(body.span), name, (body,))
