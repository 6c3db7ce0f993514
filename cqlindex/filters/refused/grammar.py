"""The grammar of the Tier 3 filters cqlindex parses in full and then refuses."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token


class RefusedGrammar(Reader):
    """The refused family's grammar."""

    def parse_tier3(self, token: Token) -> ast.Node:
        """``currentmove``: parsed in full (the move being examined: a move filter follows), then refused."""
        if not self.at_op("--", "[x]"):
            raise self.error("'currentmove' is followed by a move filter such as '--'", self.peek())
        move = self.parse_dash(None)
        return ast.Call(token.span.to(move.span), token.text, (move,))
