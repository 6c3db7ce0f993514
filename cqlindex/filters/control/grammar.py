"""The grammar of ``try`` and ``loop``."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Token


class ControlGrammar(Reader):
    """The control family's grammar."""

    def parse_control(self, token: Token) -> ast.Node:
        """``try`` stands alone; ``loop`` takes the filter that follows (as far as it runs)."""
        if token.text == "try":
            return ast.Control(token.span, "try", ())
        body = self.parse_filter()
        return ast.Control(token.span.to(body.span), token.text, (body,))
