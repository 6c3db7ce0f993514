"""The grammar of transform filters (and the refused rotate45, notransform, str)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token


class TransformsGrammar(Reader):
    """The transforms family's grammar."""

    def parse_transform(self, token: Token) -> ast.Node:
        count = False
        if self.at_word("count"):
            if token.text == "reversecolor":
                raise self.error("'reversecolor' has one member: 'count' does not apply", self.peek())
            self.next()
            count = True
        arg = self.parse_filter()
        return ast.Transform(token.span.to(arg.span), token.text, count, arg)

    def parse_unsupported_prefix(self, token: Token) -> ast.Node:
        """``notransform F``, ``rotate45 [count] F`` and ``str F`` / ``str(F ...)``."""
        if token.text == "str":
            if self.at_op("("):
                self.next()
                args = []
                while not (self.at_op(")") or self.peek().kind is Kind.EOF):
                    args.append(self.parse_filter())
                end = self.expect_op(")", "to close 'str('")
                if not args:
                    raise self.error("'str()' needs a filter", end)
                return ast.Call(token.span.to(end.span), "str", tuple(args))
            arg = self.parse_primary()
            return ast.Call(token.span.to(arg.span), "str", (arg,))
        count = token.text == "rotate45" and self.at_word("count")
        if count:
            self.next()
        arg = self.parse_filter()
        if token.text == "rotate45" and isinstance(arg, ast.Pieces) and arg.squares != (1 << 64) - 1:
            raise self.error("'rotate45' cannot be applied to particular squares", arg.span)
        return ast.Transform(token.span.to(arg.span), token.text, count, arg)
