"""The grammar of transform filters (and the refused notransform, str)."""

from __future__ import annotations

from cqlindex.cql import ast
from cqlindex.cql.reader import Reader
from cqlindex.cql.tokens import Kind, Token

_ALL = (1 << 64) - 1
#: Operators that take a number on their left: after a transform, a number they follow is an operand.
_OPERATORS = ("<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "/", "%", "[<]", "[>]", "[<=]", "[>=]",
              "≤", "≥", "≠", "=")


class TransformsGrammar(Reader):
    """The transforms family's grammar."""

    def parse_transform(self, token: Token) -> ast.Node:
        """``T [count] [low [high]] F``: a range after the name makes a count that must lie in it (seed 000)."""
        count = False
        if self.at_word("count"):
            if token.text == "reversecolor":
                raise self.error("'reversecolor' has one member: 'count' does not apply", self.peek())
            self.next()
            count = True
        low = high = None
        # A number followed by an operator is the filter's left operand, not a range:
        # 'flip 5 <= sort "snake length" ...' (snake.cql) is flip {5 <= sort ...}.
        if self.at_number() and not self.peek(1).is_op(*_OPERATORS):
            low = high = self.number("")
            if self.at_number() and not self.peek(1).is_op(*_OPERATORS):
                high = self.number("")
        arg = self.parse_filter()
        if token.text == "rotate45":
            named = next((p for p in ast.walk(arg) if isinstance(p, ast.Pieces) and p.squares != _ALL), None)
            if named is not None:
                raise self.error("'rotate45' cannot be applied to particular squares", named.span)
        return ast.Transform(token.span.to(arg.span), token.text, count, arg, low, high)

    def parse_unsupported_prefix(self, token: Token) -> ast.Node:
        """``notransform F`` and ``str F`` / ``str(F ...)``."""
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
        arg = self.parse_filter()
        return ast.Transform(token.span.to(arg.span), token.text, False, arg)
