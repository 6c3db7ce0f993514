"""The grammar of the Tier 3 filters cqlindex parses in full and then refuses."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token


class RefusedGrammar(Reader):
    """The refused family's grammar."""

    def parse_tier3(self, token: Token) -> ast.Node:
        """Control filters of Tier 3: parsed in full, then refused."""
        name = token.text
        if name == "assert":
            arg = self.parse_compare()
            return ast.Call(token.span.to(arg.span), name, (arg,))
        if name == "while":
            self.expect_op("(", "after 'while'")
            if self.at_op(")"):
                raise self.error("'while ()' needs a condition", self.peek())
            cond = self.parse_filter()
            self.expect_op(")", "to close 'while ('")
            body = self.parse_filter()
            return ast.Call(token.span.to(body.span), name, (cond, body))
        # currentmove: the move being examined, a move filter follows
        if not self.at_op("--", "[x]"):
            raise self.error("'currentmove' is followed by a move filter such as '--'", self.peek())
        move = self.parse_dash(None)
        return ast.Call(token.span.to(move.span), name, (move,))
